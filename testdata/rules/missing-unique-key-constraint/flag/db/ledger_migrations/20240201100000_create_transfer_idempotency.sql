CREATE TABLE transfer_idempotency (
    id              bigserial PRIMARY KEY,
    idempotency_key text      NOT NULL,
    request_hash    bytea     NOT NULL,
    response_body   jsonb,
    created_at      timestamptz NOT NULL DEFAULT now()
);

CREATE UNIQUE INDEX CONCURRENTLY transfer_idempotency_key_idx ON transfer_idempotency (idempotency_key);
