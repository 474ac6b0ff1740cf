-- Transfers between wallets: a key is unique within its wallet.
CREATE TABLE wallet_transfer_idempotency (
    wallet_id       uuid        NOT NULL,
    idempotency_key text        NOT NULL,
    request_hash    bytea       NOT NULL,
    response_body   jsonb,
    created_at      timestamptz NOT NULL DEFAULT now(),
    UNIQUE (wallet_id, idempotency_key)
);

-- Ledger postings: the ledger is part of the key.
CREATE TABLE ledger_idempotency_keys (
    ledger_id       bigint      NOT NULL,
    idempotency_key text        NOT NULL,
    request_hash    text        NOT NULL,
    response        jsonb,
    PRIMARY KEY (ledger_id, idempotency_key)
);
