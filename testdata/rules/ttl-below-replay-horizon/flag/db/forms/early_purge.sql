-- postgres: skip (a cleanup of a table created elsewhere in the project)
-- Hourly sweep of the request-key table: rows go an hour early so the
-- table stays small.
DELETE FROM api_idempotency_keys
WHERE expires_at < now() + interval '1 hour'; -- expect: ttl-below-replay-horizon
