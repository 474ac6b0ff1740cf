-- Attempts are kept by month and old months are detached to cold storage.
-- The API inserts an attempt per request and answers a duplicate key with
-- the first attempt; the unique constraint below is meant to refuse the
-- duplicate.
CREATE TABLE payment_attempts (
    id              uuid        NOT NULL DEFAULT gen_random_uuid(),
    merchant_id     uuid        NOT NULL,
    idempotency_key text        NOT NULL,
    amount_minor    bigint      NOT NULL,
    currency        char(3)     NOT NULL,
    status          text        NOT NULL,
    created_at      timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (id, created_at),
    UNIQUE (merchant_id, idempotency_key, created_at) -- expect: unique-guard-split-by-partition
) PARTITION BY RANGE (created_at);

CREATE TABLE payment_attempts_2026_11 PARTITION OF payment_attempts
    FOR VALUES FROM ('2026-11-01') TO ('2026-12-01');
CREATE TABLE payment_attempts_2026_12 PARTITION OF payment_attempts
    FOR VALUES FROM ('2026-12-01') TO ('2027-01-01');
