-- Added in its own migration so it can be built without locking writes.
CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS idempotency_keys_key_uniq
    ON idempotency_keys (idempotency_key);
