-- One row per reported event: the guard the repository's upsert leans on.
CREATE UNIQUE INDEX IF NOT EXISTS client_events_id_event_idx ON client_events (event, id);
CREATE UNIQUE INDEX IF NOT EXISTS client_events_email_idx ON client_events (lower(email));
