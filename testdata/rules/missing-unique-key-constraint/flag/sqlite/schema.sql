-- postgres: skip (SQLite schema: strftime defaults)
CREATE TABLE IF NOT EXISTS processed_stripe_events ( -- expect: missing-unique-key-constraint
    stripe_event_id TEXT NOT NULL,
    kind            TEXT NOT NULL,
    processed_at    INTEGER NOT NULL DEFAULT (strftime('%s', 'now'))
);

CREATE INDEX IF NOT EXISTS processed_stripe_events_by_id ON processed_stripe_events (stripe_event_id);
