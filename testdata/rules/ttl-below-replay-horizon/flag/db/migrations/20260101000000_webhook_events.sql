-- Inbound webhook deduplication: one row per provider event, claimed before the handler runs.
CREATE TABLE processed_stripe_events (
    event_id    text        PRIMARY KEY,
    event_type  text        NOT NULL,
    received_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE adyen_processed_events (
    psp_reference text        NOT NULL,
    event_code    text        NOT NULL,
    received_at   timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (psp_reference, event_code)
);
