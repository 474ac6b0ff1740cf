-- postgres: skip (a MySQL scheduled event)
CREATE EVENT purge_processed_stripe_events
  ON SCHEDULE EVERY 1 DAY
  DO DELETE FROM processed_stripe_events -- expect: delete-based-expiry
     WHERE received_at < DATE_SUB(NOW(), INTERVAL 3 DAY); -- expect: ttl-below-replay-horizon
