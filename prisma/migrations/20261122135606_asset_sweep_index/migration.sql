-- CreateIndex
CREATE INDEX "assets_status_upload_expires_at_idx" ON "assets"("status", "upload_expires_at");

