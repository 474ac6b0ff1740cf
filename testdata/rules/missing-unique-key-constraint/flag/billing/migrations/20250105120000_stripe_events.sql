-- Stripe deliveries, stored before they are applied. The handler looks the
-- event up by `event_id` first; the index below makes that lookup fast and
-- refuses nothing, so two concurrent deliveries of one event both insert.
CREATE TABLE stripe_events ( -- expect: missing-unique-key-constraint
    id          bigserial   PRIMARY KEY,
    event_id    text        NOT NULL,
    type        text        NOT NULL,
    payload     jsonb       NOT NULL,
    received_at timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX stripe_events_event_id_idx ON stripe_events (event_id);

-- PayPal deliveries keep PayPal's own event id (`WH-…`) as `id`.
CREATE TABLE paypal_webhook_events ( -- expect: missing-unique-key-constraint
    id          varchar(64) NOT NULL,
    event_type  text        NOT NULL,
    resource    jsonb,
    received_at timestamptz NOT NULL DEFAULT now()
);
