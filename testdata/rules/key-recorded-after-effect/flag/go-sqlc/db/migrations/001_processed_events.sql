CREATE TABLE processed_dispute_events ( -- expect: missing-unique-key-constraint
    event_id     text        NOT NULL,
    processed_at timestamptz NOT NULL DEFAULT now()
);
