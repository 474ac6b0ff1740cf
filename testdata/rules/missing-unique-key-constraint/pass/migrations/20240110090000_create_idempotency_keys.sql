CREATE TABLE idempotency_keys (
    id              bigserial PRIMARY KEY,
    idempotency_key text        NOT NULL,
    request_hash    bytea       NOT NULL,
    status_code     smallint,
    response_body   jsonb,
    created_at      timestamptz NOT NULL DEFAULT now()
);
