CREATE TABLE processed_stripe_events (
    event_id    text        PRIMARY KEY,
    event_type  text        NOT NULL,
    received_at timestamptz NOT NULL DEFAULT now()
);
