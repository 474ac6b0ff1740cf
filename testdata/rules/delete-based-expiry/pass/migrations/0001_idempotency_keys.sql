-- Daily partitions; pg_partman drops whole partitions past the floor.
CREATE TABLE idempotency_keys (
    idempotency_key text        NOT NULL,
    request_hash    bytea       NOT NULL,
    response_body   jsonb,
    created_at      timestamptz NOT NULL DEFAULT now()
) PARTITION BY HASH (idempotency_key);

CREATE TABLE idempotency_keys_p0 PARTITION OF idempotency_keys FOR VALUES WITH (MODULUS 2, REMAINDER 0);
CREATE TABLE idempotency_keys_p1 PARTITION OF idempotency_keys FOR VALUES WITH (MODULUS 2, REMAINDER 1);
CREATE UNIQUE INDEX idempotency_keys_key_uniq ON idempotency_keys (idempotency_key);

CREATE TABLE stripe_webhook_events (
    event_id    text        PRIMARY KEY,
    received_at timestamptz NOT NULL DEFAULT now()
);
