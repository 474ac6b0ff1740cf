-- postgres: skip (an upsert into a table created elsewhere in the project)
-- A claim abandoned by a crashed worker is reclaimed after its lock goes
-- stale; the key itself stays until it expires.
INSERT INTO idempotency_keys (key, locked_at, expires_at)
VALUES ($1, now(), now() + interval '40 days')
ON CONFLICT (key) DO UPDATE SET locked_at = now()
WHERE idempotency_keys.locked_at < now() - interval '90 seconds'
   OR idempotency_keys.expires_at <= now();
