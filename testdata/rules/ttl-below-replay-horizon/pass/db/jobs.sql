-- Stripe can resend an event for 30 days; we keep 40 (30d + margin for an outage and a restore).
-- idemlint: allow(delete-based-expiry) -- about 2,000 events a day: autovacuum keeps up with the delete
SELECT cron.schedule('purge-stripe-events', '0 3 * * *', $$DELETE FROM processed_stripe_events WHERE received_at < now() - interval '40 days'$$);
