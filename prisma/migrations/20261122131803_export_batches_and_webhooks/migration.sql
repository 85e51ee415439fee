-- CreateEnum
CREATE TYPE "WebhookDeliveryStatus" AS ENUM ('pending', 'succeeded', 'failed');

-- AlterTable
ALTER TABLE "exports" ADD COLUMN     "batch_id" UUID;

-- CreateTable
CREATE TABLE "export_batches" (
    "id" UUID NOT NULL,
    "organization_id" UUID NOT NULL,
    "variant_ids" UUID[],
    "networks" TEXT[],
    "optimize" TEXT NOT NULL,
    "validation" TEXT NOT NULL,
    "idempotency_key" TEXT,
    "storage_key" TEXT,
    "size" BIGINT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finished_at" TIMESTAMPTZ(3),

    CONSTRAINT "export_batches_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "webhooks" (
    "id" UUID NOT NULL,
    "organization_id" UUID NOT NULL,
    "url" TEXT NOT NULL,
    "events" TEXT[],
    "secret" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "webhooks_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "webhook_deliveries" (
    "id" UUID NOT NULL,
    "webhook_id" UUID NOT NULL,
    "event" TEXT NOT NULL,
    "payload" TEXT NOT NULL,
    "status" "WebhookDeliveryStatus" NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "last_status_code" INTEGER,
    "last_error" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "delivered_at" TIMESTAMPTZ(3),

    CONSTRAINT "webhook_deliveries_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "export_batches_organization_id_created_at_id_idx" ON "export_batches"("organization_id", "created_at", "id");

-- CreateIndex
CREATE UNIQUE INDEX "export_batches_organization_id_idempotency_key_key" ON "export_batches"("organization_id", "idempotency_key");

-- CreateIndex
CREATE INDEX "webhooks_organization_id_created_at_id_idx" ON "webhooks"("organization_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "webhook_deliveries_webhook_id_created_at_id_idx" ON "webhook_deliveries"("webhook_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "exports_batch_id_idx" ON "exports"("batch_id");

-- AddForeignKey
ALTER TABLE "exports" ADD CONSTRAINT "exports_batch_id_fkey" FOREIGN KEY ("batch_id") REFERENCES "export_batches"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "export_batches" ADD CONSTRAINT "export_batches_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "webhooks" ADD CONSTRAINT "webhooks_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_webhook_id_fkey" FOREIGN KEY ("webhook_id") REFERENCES "webhooks"("id") ON DELETE CASCADE ON UPDATE CASCADE;

