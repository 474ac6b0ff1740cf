CREATE TABLE payout_idempotency (
    merchant_id     bigint      NOT NULL,
    idempotency_key text        NOT NULL,
    request_hash    bytea       NOT NULL,
    response        jsonb,
    created_at      timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (merchant_id, idempotency_key)
);

-- Nullable legacy column; NULLs never collide, so this guards every key.
ALTER TABLE payout_idempotency ADD COLUMN legacy_request_id text;
CREATE UNIQUE INDEX payout_idempotency_legacy_uniq ON payout_idempotency (legacy_request_id)
    WHERE legacy_request_id IS NOT NULL;
