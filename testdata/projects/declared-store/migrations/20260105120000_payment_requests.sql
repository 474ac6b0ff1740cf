CREATE TABLE payment_requests ( -- expect: missing-unique-key-constraint
    request_key   text        NOT NULL,
    request_hash bytea       NOT NULL,
    response     jsonb,
    created_at   timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX payment_requests_request_key_idx ON payment_requests (request_key);
