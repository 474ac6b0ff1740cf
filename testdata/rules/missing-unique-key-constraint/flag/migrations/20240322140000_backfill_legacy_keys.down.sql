DROP INDEX idempotency_keys_key_idx;
ALTER TABLE idempotency_keys ADD CONSTRAINT idempotency_keys_key_uniq UNIQUE (idempotency_key);
