-- The consumer's dedup table: an index speeds the lookup, but guards nothing.
CREATE TABLE processed_events ( -- expect: missing-unique-key-constraint
    event_id    text        NOT NULL,
    received_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX processed_events_event_id_idx ON processed_events (event_id);
