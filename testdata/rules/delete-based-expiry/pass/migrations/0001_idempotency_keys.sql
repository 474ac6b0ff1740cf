-- Back-office refunds: a few hundred a day. Below about one write a second
-- a nightly DELETE never bloats into anything worth partitioning.
CREATE TABLE refund_idempotency_keys (
    idempotency_key text        PRIMARY KEY,
    request_hash    bytea       NOT NULL,
    response_body   jsonb,
    created_at      timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE stripe_webhook_events (
    event_id    text        PRIMARY KEY,
    received_at timestamptz NOT NULL DEFAULT now()
);

-- Request log, not an idempotency store.
CREATE TABLE api_request_log (
    id          bigserial   PRIMARY KEY,
    path        text        NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now()
);
