-- Deliveries already applied, by the provider's reference.
CREATE TABLE processed_deliveries (
  psp_reference text PRIMARY KEY,
  event_code text NOT NULL,
  received_at timestamptz NOT NULL DEFAULT now()
);

-- Nightly purge.
DELETE FROM processed_deliveries -- expect: delete-based-expiry
 WHERE received_at < now() - interval '3 days'; -- expect: ttl-below-replay-horizon
