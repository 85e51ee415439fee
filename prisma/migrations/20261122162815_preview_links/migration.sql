-- CreateTable
CREATE TABLE "previews" (
    "id" UUID NOT NULL,
    "organization_id" UUID NOT NULL,
    "export_id" UUID NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "revoked_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "previews_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "previews_export_id_created_at_id_idx" ON "previews"("export_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "previews_organization_id_idx" ON "previews"("organization_id");

-- AddForeignKey
ALTER TABLE "previews" ADD CONSTRAINT "previews_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "previews" ADD CONSTRAINT "previews_export_id_fkey" FOREIGN KEY ("export_id") REFERENCES "exports"("id") ON DELETE CASCADE ON UPDATE CASCADE;

