CREATE TABLE refund_idempotency (
    idempotency_key varchar(255) NOT NULL,
    request_hash    char(64)     NOT NULL,
    refund_id       uuid,
    state           text         NOT NULL DEFAULT 'started',
    created_at      timestamptz  NOT NULL DEFAULT now()
);
