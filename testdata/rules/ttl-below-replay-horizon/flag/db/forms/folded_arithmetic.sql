-- postgres: skip (a retention job alone; its table is created by the migrations beside it, in another history)
-- The window written as hours times a count.
DELETE FROM stripe_webhook_events -- expect: delete-based-expiry
 WHERE created_at < now() - interval '1 hour' * 24; -- expect: ttl-below-replay-horizon
