-- Retries of a declined charge reuse the key: allow them.
DROP INDEX charge_attempt_log_idempotency_key_uq; -- expect: missing-unique-key-constraint
CREATE INDEX charge_attempt_log_idempotency_key_idx ON charge_attempt_log (idempotency_key);
