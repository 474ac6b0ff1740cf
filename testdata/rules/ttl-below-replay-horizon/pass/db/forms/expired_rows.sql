-- postgres: skip (a cleanup of a table created elsewhere in the project)
-- Hourly sweep of the request-key table: a row goes once its expiry passed.
DELETE FROM api_idempotency_keys
WHERE expires_at < now();

-- Sessions are no store: ending them early is a product choice.
DELETE FROM user_sessions
WHERE expires_at < now() + interval '10 minutes';
