CREATE TABLE payment_idempotency_keys (
    id              bigserial   PRIMARY KEY,
    idempotency_key text        NOT NULL,
    request_hash    bytea       NOT NULL,
    response        jsonb,
    created_at      timestamptz NOT NULL DEFAULT now()
);
