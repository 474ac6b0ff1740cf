-- postgres: skip (a retention job alone; its table is created by the migrations beside it, in another history)
-- Purge job that reports how many rows it removed.
WITH purged AS (
  DELETE FROM processed_stripe_events -- expect: delete-based-expiry
   WHERE received_at < now() - interval '3 days' -- expect: ttl-below-replay-horizon
  RETURNING 1
)
SELECT count(*) FROM purged;
