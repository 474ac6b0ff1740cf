-- Stripe webhook deliveries already handled.
CREATE TABLE processed_stripe_events (
    event_id    text        PRIMARY KEY,
    received_at timestamptz NOT NULL DEFAULT now()
);
