-- postgres: skip (a retention job alone; its table is created by the migrations beside it, in another history)
DELETE FROM processed_adyen_notifications -- expect: delete-based-expiry
 WHERE received_at < now() - make_interval(days => 3); -- expect: ttl-below-replay-horizon
