-- acme-pay: request keys for the public transfer API, and Stripe webhook dedup.
CREATE TABLE idempotency_keys (
    idempotency_key text        PRIMARY KEY,
    merchant_id     bigint      NOT NULL,
    response_status smallint,
    response_body   jsonb,
    created_at      timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE processed_stripe_events (
    event_id    text        PRIMARY KEY,
    event_type  text        NOT NULL,
    received_at timestamptz NOT NULL DEFAULT now()
);
