CREATE TABLE refund_requests (
    idempotency_key TEXT PRIMARY KEY,
    request_hash TEXT NOT NULL DEFAULT '',
    payment_id TEXT NOT NULL,
    state TEXT NOT NULL DEFAULT 'started',
    response JSONB,
    created_at TIMESTAMPTZ NOT NULL DEFAULT now()
);

CREATE TABLE refunds (
    id BIGSERIAL PRIMARY KEY,
    payment_id TEXT NOT NULL,
    amount_minor BIGINT NOT NULL
);
