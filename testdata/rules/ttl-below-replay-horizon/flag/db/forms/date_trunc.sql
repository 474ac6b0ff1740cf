-- postgres: skip (a retention job alone; its table is created by the migrations beside it, in another history)
-- Rounded to the start of the day, then three days back.
DELETE FROM processed_stripe_events -- expect: delete-based-expiry
 WHERE received_at < date_trunc('day', now()) - interval '3 days'; -- expect: ttl-below-replay-horizon
