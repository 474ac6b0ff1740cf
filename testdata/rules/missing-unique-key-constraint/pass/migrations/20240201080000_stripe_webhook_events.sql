-- Stripe event ids we have processed (inbound webhooks).
CREATE TABLE stripe_webhook_events (
    id          bigserial   PRIMARY KEY,
    event_id    text        NOT NULL UNIQUE,
    event_type  text        NOT NULL,
    received_at timestamptz NOT NULL DEFAULT now()
);
