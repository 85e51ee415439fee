-- CreateTable
CREATE TABLE "login_attempts" (
    "email" TEXT NOT NULL,
    "count" INTEGER NOT NULL,
    "window_started_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "login_attempts_pkey" PRIMARY KEY ("email")
);

-- CreateIndex
CREATE INDEX "login_attempts_window_started_at_idx" ON "login_attempts"("window_started_at");

