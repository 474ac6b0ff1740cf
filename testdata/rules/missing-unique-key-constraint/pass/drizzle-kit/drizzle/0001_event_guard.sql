CREATE UNIQUE INDEX IF NOT EXISTS "stripe_webhook_events_event_id_key" ON "stripe_webhook_events" ("event_id");
