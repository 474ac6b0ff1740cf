CREATE TABLE idempotency_requests (
    idempotency_key text        PRIMARY KEY,
    request_fingerprint bytea   NOT NULL,
    response_status smallint,
    response_body   jsonb,
    locked_at       timestamptz,
    created_at      timestamptz NOT NULL DEFAULT now()
);
