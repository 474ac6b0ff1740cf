-- The renamed unique index is dropped by its new name for a bulk import;
-- the plain index that replaces it refuses nothing.
DROP INDEX CONCURRENTLY transfer_idempotency_idempotency_key_uidx; -- expect: missing-unique-key-constraint
CREATE INDEX CONCURRENTLY transfer_idempotency_key_lookup ON transfer_idempotency (idempotency_key);
