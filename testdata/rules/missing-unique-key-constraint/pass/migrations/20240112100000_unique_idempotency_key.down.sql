DROP INDEX CONCURRENTLY IF EXISTS idempotency_keys_key_uniq;
