CREATE UNIQUE INDEX refund_idempotency_key_uniq ON refund_idempotency (idempotency_key);
