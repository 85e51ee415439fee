-- AlterTable
ALTER TABLE "exports" ADD COLUMN     "optimize" TEXT NOT NULL DEFAULT 'lossless',
ADD COLUMN     "validation" TEXT NOT NULL DEFAULT 'enforce';

