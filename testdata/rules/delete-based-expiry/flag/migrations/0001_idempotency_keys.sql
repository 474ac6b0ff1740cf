CREATE TABLE idempotency_keys (
    idempotency_key text        PRIMARY KEY,
    request_hash    bytea       NOT NULL,
    response_body   jsonb,
    created_at      timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE stripe_processed_events (
    event_id    text        PRIMARY KEY,
    received_at timestamptz NOT NULL DEFAULT now()
);

CREATE OR REPLACE FUNCTION purge_stripe_processed_events() RETURNS void
LANGUAGE plpgsql AS $fn$
BEGIN
    DELETE FROM stripe_processed_events -- expect: delete-based-expiry
     WHERE received_at < now() - interval '35 days';
END;
$fn$;
