-- pg_cron jobs whose command is a plain string literal, quotes doubled
-- inside it, as many teams write them after pg_cron's README.
SELECT cron.schedule('purge-stripe-events-quoted', '30 3 * * *',
    'DELETE FROM processed_stripe_events WHERE received_at < now() - interval ''4 days'''); -- expect: delete-based-expiry, ttl-below-replay-horizon
