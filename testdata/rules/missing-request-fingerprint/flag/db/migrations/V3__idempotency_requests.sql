-- A reused key with a different amount gets the first request's response.
CREATE TABLE idempotency_requests ( -- expect: missing-request-fingerprint
    idempotency_key text        PRIMARY KEY,
    response_status smallint,
    response_body   jsonb,
    locked_at       timestamptz,
    created_at      timestamptz NOT NULL DEFAULT now()
);
