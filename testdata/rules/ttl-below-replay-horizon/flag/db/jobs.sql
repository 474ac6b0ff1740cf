-- Nightly clean-up, scheduled with pg_cron.
SELECT cron.schedule('purge-stripe-events', '0 3 * * *', $$
    DELETE FROM processed_stripe_events -- expect: delete-based-expiry
     WHERE received_at < now() - interval '3 days' -- expect: ttl-below-replay-horizon
$$);

SELECT cron.schedule('purge-adyen-events', '10 3 * * *', $$
    DELETE FROM adyen_processed_events -- expect: delete-based-expiry
     WHERE received_at < now() - interval '32 days' -- expect: ttl-below-replay-horizon
$$);
