CREATE TABLE idempotency_keys (
    account_id      bigint      NOT NULL REFERENCES accounts (id),
    idempotency_key text        NOT NULL,
    request_hash    bytea       NOT NULL,
    response_code   smallint,
    response_body   jsonb,
    created_at      timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (account_id, idempotency_key)
);

-- Stripe Connect events carry the connected account; the event id is
-- globally unique, so the guard on it alone is right.
CREATE TABLE stripe_webhook_events (
    event_id    text        PRIMARY KEY,
    account_id  text,
    type        text        NOT NULL,
    received_at timestamptz NOT NULL DEFAULT now()
);
