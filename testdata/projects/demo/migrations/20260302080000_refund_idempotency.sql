-- Refund request keys grew fast: partitioned by month in March.
CREATE TABLE refund_idempotency_keys (
    idempotency_key text        NOT NULL,
    request_hash    bytea       NOT NULL,
    amount_cents    bigint      NOT NULL,
    created_at      timestamptz NOT NULL DEFAULT now(),
    UNIQUE (idempotency_key, created_at)
) PARTITION BY RANGE (created_at);

CREATE TABLE refund_idempotency_keys_2026_03 PARTITION OF refund_idempotency_keys
    FOR VALUES FROM ('2026-03-01') TO ('2026-04-01');
CREATE TABLE refund_idempotency_keys_2026_04 PARTITION OF refund_idempotency_keys
    FOR VALUES FROM ('2026-04-01') TO ('2026-05-01');
