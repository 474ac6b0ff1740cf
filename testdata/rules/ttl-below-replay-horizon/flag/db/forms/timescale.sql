-- postgres: skip (needs the TimescaleDB extension)
SELECT add_retention_policy('processed_stripe_events', INTERVAL '3 days'); -- expect: ttl-below-replay-horizon
