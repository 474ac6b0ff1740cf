-- Nightly clean-up (pg_cron).
SELECT cron.schedule('purge-stripe-events', '0 3 * * *', $$
    DELETE FROM processed_stripe_events WHERE received_at < now() - interval '24 hours'
$$);
