-- postgres: skip (psql variables are set by the caller: psql -v retention='40 days')
DELETE FROM processed_stripe_events
 WHERE received_at < now() - :'retention'::interval;
