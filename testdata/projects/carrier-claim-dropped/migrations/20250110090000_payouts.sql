-- Payout runs: one row per payout the scheduler starts. The API's own
-- request keys live in api_idempotency_keys; the payout worker relies on
-- the runs table itself to refuse a second run for the same key.
CREATE TABLE api_idempotency_keys (
    tenant_id       uuid        NOT NULL,
    idempotency_key text        NOT NULL,
    request_hash    bytea       NOT NULL,
    response_body   jsonb,
    created_at      timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant_id, idempotency_key)
);

CREATE TABLE payout_runs (
    id              bigserial   PRIMARY KEY,
    idempotency_key text        NOT NULL,
    amount_minor    bigint      NOT NULL,
    currency        char(3)     NOT NULL,
    state           text        NOT NULL DEFAULT 'pending',
    created_at      timestamptz NOT NULL DEFAULT now()
);

CREATE UNIQUE INDEX payout_runs_idempotency_key_key ON payout_runs (idempotency_key);
