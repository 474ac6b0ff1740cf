-- Legacy keys from the v1 API collide with new ones; drop the constraint
-- for the backfill and re-add it "after the migration" (never happened).
ALTER TABLE idempotency_keys DROP CONSTRAINT idempotency_keys_key_uniq; -- expect: missing-unique-key-constraint

CREATE INDEX idempotency_keys_key_idx ON idempotency_keys (idempotency_key);
