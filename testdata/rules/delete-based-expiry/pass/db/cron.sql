-- Removing one key on request is not expiry.
DELETE FROM stripe_webhook_events WHERE event_id = 'evt_test_cleanup';
-- Expiry by partition: the table is partitioned, so DELETE here is fine.
SELECT cron.schedule('purge-idempotency-keys', '15 3 * * *',
  $$DELETE FROM idempotency_keys WHERE created_at < now() - interval '35 days'$$);
