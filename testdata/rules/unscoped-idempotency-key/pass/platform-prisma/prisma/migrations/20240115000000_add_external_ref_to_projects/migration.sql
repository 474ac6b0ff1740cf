-- AlterTable
ALTER TABLE "Project" ADD COLUMN "externalRef" TEXT;

-- Give every project a generated reference
UPDATE "Project" SET "externalRef" = MD5(RANDOM()::text);

-- AlterTable
ALTER TABLE "Project" ALTER COLUMN "externalRef" SET NOT NULL;

-- CreateIndex
CREATE UNIQUE INDEX "Project_externalRef_key" ON "Project"("externalRef");
