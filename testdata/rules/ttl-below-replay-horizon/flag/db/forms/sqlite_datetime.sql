-- postgres: skip (SQLite date functions)
DELETE FROM processed_stripe_events -- expect: delete-based-expiry
 WHERE received_at < datetime('now', '-3 days'); -- expect: ttl-below-replay-horizon
