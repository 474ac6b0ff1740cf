-- Replace the single-column index with one that serves the dashboard's
-- "latest runs for a key" query.
DROP INDEX CONCURRENTLY IF EXISTS payout_runs_idempotency_key_key; -- expect: missing-unique-key-constraint
CREATE INDEX CONCURRENTLY payout_runs_key_created_idx ON payout_runs (idempotency_key, created_at DESC);
