CREATE TABLE adyen_notifications ( -- expect: missing-unique-key-constraint
    psp_reference TEXT        NOT NULL,
    event_code    TEXT        NOT NULL,
    body          JSONB       NOT NULL,
    received_at   TIMESTAMPTZ NOT NULL DEFAULT now()
);

CREATE TABLE seen_events ( -- expect: missing-unique-key-constraint
    event_id TEXT        NOT NULL,
    seen_at  TIMESTAMPTZ NOT NULL DEFAULT now()
);
