-- `@unique` replaced by `@@index` in schema.prisma to let a backfill through.
-- DropIndex
DROP INDEX "IdempotencyKey_idempotencyKey_key"; -- expect: missing-unique-key-constraint

-- CreateIndex
CREATE INDEX "IdempotencyKey_idempotencyKey_idx" ON "IdempotencyKey"("idempotencyKey");
