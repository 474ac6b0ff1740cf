-- Forgetting one event on an operator's request is not expiry.
CREATE OR REPLACE FUNCTION forget_webhook_event(p_event_id text) RETURNS void
LANGUAGE plpgsql AS $fn$
BEGIN
    DELETE FROM stripe_webhook_events WHERE event_id = p_event_id;
END;
$fn$;

SELECT cron.schedule('trim-request-log', '0 4 * * *',
  $$DELETE FROM api_request_log WHERE created_at < now() - interval '7 days'$$);

-- idemlint: allow(delete-based-expiry) -- under 300 refunds a day; a nightly DELETE stays small
SELECT cron.schedule('purge-refund-keys', '15 3 * * *', $$DELETE FROM refund_idempotency_keys WHERE created_at < now() - interval '35 days'$$);
