-- postgres: skip (needs the TimescaleDB extension)
-- The policy's length comes from a psql variable.
SELECT add_retention_policy('processed_stripe_events', :'retention'::interval);
