CREATE TABLE refund_idempotency (
    idempotency_key text        NOT NULL,
    request_hash    bytea       NOT NULL,
    response_body   jsonb,
    created_at      timestamptz NOT NULL DEFAULT now()
) PARTITION BY RANGE (created_at);

-- The only index PostgreSQL accepts here must include created_at.
CREATE UNIQUE INDEX refund_idempotency_key_uniq -- expect: unique-guard-split-by-partition
    ON refund_idempotency (idempotency_key, created_at);
