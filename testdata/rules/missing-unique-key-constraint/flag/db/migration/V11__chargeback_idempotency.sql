CREATE TABLE chargeback_idempotency (
    idempotency_key text        NOT NULL,
    request_hash    bytea       NOT NULL,
    state           text        NOT NULL,
    created_at      timestamptz NOT NULL DEFAULT now()
);

-- Only completed requests are guarded: two in-flight replays both insert.
CREATE UNIQUE INDEX chargeback_idempotency_done_uniq -- expect: missing-unique-key-constraint
    ON chargeback_idempotency (idempotency_key) WHERE state = 'completed';
