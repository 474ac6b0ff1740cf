-- Transfers between wallets, deduplicated by the client's key.
CREATE TABLE wallet_transfer_idempotency (
    wallet_id       uuid        NOT NULL,
    idempotency_key text        NOT NULL,
    request_hash    bytea       NOT NULL,
    response_body   jsonb,
    created_at      timestamptz NOT NULL DEFAULT now(),
    UNIQUE (idempotency_key) -- expect: unscoped-idempotency-key
);
