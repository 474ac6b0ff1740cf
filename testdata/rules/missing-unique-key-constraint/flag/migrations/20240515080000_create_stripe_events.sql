-- Deliveries from the payment provider, kept so that a redelivery can be
-- recognised and answered without booking the payment again.
CREATE TABLE stripe_events ( -- expect: missing-unique-key-constraint
    id          BIGSERIAL   PRIMARY KEY,
    event_id    TEXT        NOT NULL,
    event_type  TEXT        NOT NULL,
    payload     JSONB       NOT NULL,
    received_at TIMESTAMPTZ NOT NULL DEFAULT now()
);

CREATE INDEX stripe_events_event_id_idx ON stripe_events (event_id);
CREATE INDEX stripe_events_received_at_idx ON stripe_events (received_at);
