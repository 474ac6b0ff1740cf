-- postgres: skip (sqlc query: named parameters such as @keys)
-- Claim request keys in bulk; a key left by an earlier claim can be taken
-- over once it has not been touched for a while.
WITH wanted AS (
    SELECT UNNEST(@keys::TEXT[]) AS key, UNNEST(@expires::TIMESTAMPTZ[]) AS expires_at
), current_rows AS (
    SELECT * FROM request_idempotency_keys
    WHERE key IN (SELECT key FROM wanted)
    FOR UPDATE
), reclaimable AS (
    SELECT key FROM current_rows
    WHERE touched_at <= NOW() - INTERVAL '10 minutes' -- expect: ttl-below-replay-horizon
)
INSERT INTO request_idempotency_keys (key, expires_at, owner)
SELECT key, expires_at, @owner FROM wanted
ON CONFLICT (key) DO UPDATE
SET owner = CASE WHEN request_idempotency_keys.key IN (SELECT key FROM reclaimable)
                 THEN EXCLUDED.owner ELSE request_idempotency_keys.owner END,
    touched_at = NOW()
RETURNING key, owner;

INSERT INTO stripe_processed_events (event_id, handled_at)
VALUES ($1, now())
ON CONFLICT (event_id) DO UPDATE SET handled_at = now()
WHERE stripe_processed_events.handled_at < now() - interval '2 days'; -- expect: ttl-below-replay-horizon
