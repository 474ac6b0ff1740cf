-- Client-supplied Idempotency-Key header values for POST /v1/payments.
CREATE TABLE idempotency_keys (
    id              bigserial PRIMARY KEY,
    idempotency_key text        NOT NULL,
    request_hash    bytea       NOT NULL,
    status_code     smallint,
    response_body   jsonb,
    created_at      timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT idempotency_keys_key_uniq UNIQUE (idempotency_key)
);
