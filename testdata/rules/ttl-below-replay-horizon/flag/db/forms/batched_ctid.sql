-- Batched purge: a few thousand rows at a time, so the lock stays short.
DELETE FROM processed_paypal_webhooks -- expect: delete-based-expiry
 WHERE ctid IN (
   SELECT ctid FROM processed_paypal_webhooks
    WHERE received_at < now() - interval '2 days' -- expect: ttl-below-replay-horizon
    LIMIT 5000
 );
