-- Export tasks are started once per client-supplied key; the key is
-- unique on its own, though each task belongs to a project.
-- CreateTable
CREATE TABLE "ExportTask" (
    "id" TEXT NOT NULL,
    "projectId" TEXT NOT NULL,
    "idempotencyKey" TEXT,
    "status" TEXT NOT NULL DEFAULT 'PENDING',
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ExportTask_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "ExportTask_idempotencyKey_key" ON "ExportTask"("idempotencyKey"); -- expect: unscoped-idempotency-key
