-- postgres: skip (SQLite schema: strftime defaults)
CREATE TABLE IF NOT EXISTS processed_stripe_events (
    stripe_event_id TEXT PRIMARY KEY NOT NULL,
    kind            TEXT NOT NULL,
    processed_at    INTEGER NOT NULL DEFAULT (strftime('%s', 'now'))
);

CREATE TABLE IF NOT EXISTS adyen_notifications (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    psp_reference TEXT NOT NULL UNIQUE,
    event_code    TEXT NOT NULL,
    received_at   INTEGER NOT NULL
);
