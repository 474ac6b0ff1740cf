-- Flyway applies V10 after V9 (numeric, not lexical order).
DROP INDEX refund_idempotency_key_uniq; -- expect: missing-unique-key-constraint
