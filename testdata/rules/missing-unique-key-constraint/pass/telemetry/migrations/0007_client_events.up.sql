-- Events the apps report; a client resends an event until it gets a 2xx.
CREATE TABLE IF NOT EXISTS client_events (
    id         TEXT   NOT NULL,
    event      TEXT   NOT NULL,
    app        TEXT   NOT NULL,
    data       JSONB  NOT NULL DEFAULT '{}'::jsonb,
    email      TEXT,
    user_id    BIGINT,
    created_at TIMESTAMPTZ NOT NULL DEFAULT now()
);

CREATE INDEX IF NOT EXISTS client_events_user_id_idx ON client_events (user_id);
