DELETE FROM processed_adyen_notifications -- expect: delete-based-expiry
 WHERE received_at < now() - make_interval(days => 3); -- expect: ttl-below-replay-horizon
