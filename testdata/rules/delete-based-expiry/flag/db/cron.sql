-- pg_cron jobs, applied by hand after the migrations.
SELECT cron.schedule('purge-idempotency-keys', '15 3 * * *',
  $$DELETE FROM idempotency_keys WHERE created_at < now() - interval '35 days'$$); -- expect: delete-based-expiry
