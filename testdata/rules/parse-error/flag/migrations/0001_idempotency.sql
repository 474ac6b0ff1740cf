-- postgres: skip (a deliberate syntax error)
CREATE TABLE idempotency_keys (idempotency_key text PRIMARY KEY,, response jsonb); -- expect: parse-error
