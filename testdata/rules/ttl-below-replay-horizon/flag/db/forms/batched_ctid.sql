-- postgres: skip (a retention job alone; its table is created by the migrations beside it, in another history)
-- Batched purge: a few thousand rows at a time, so the lock stays short.
DELETE FROM processed_paypal_webhooks -- expect: delete-based-expiry
 WHERE ctid IN (
   SELECT ctid FROM processed_paypal_webhooks
    WHERE received_at < now() - interval '2 days' -- expect: ttl-below-replay-horizon
    LIMIT 5000
 );
