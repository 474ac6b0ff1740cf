-- postgres: skip (mysql syntax)
-- Nightly purge run by the ops cron against the MySQL ledger replica.
DELETE FROM `processed_stripe_events` -- expect: delete-based-expiry
 WHERE `created_at` < DATE_SUB(UTC_TIMESTAMP(), INTERVAL 3 DAY) -- expect: ttl-below-replay-horizon
 LIMIT 10000;
