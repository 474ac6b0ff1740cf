-- Tables built from a column template with `LIKE ... INCLUDING ...`: the
-- options are PostgreSQL's, and the store's own unique constraint is read.
CREATE TABLE audit_columns (
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE refund_idempotency_keys (
    LIKE audit_columns INCLUDING DEFAULTS INCLUDING COMMENTS,
    merchant_id     uuid  NOT NULL,
    idempotency_key text  NOT NULL,
    request_hash    bytea NOT NULL,
    response_status integer,
    response_body   jsonb,
    CONSTRAINT refund_idempotency_keys_merchant_key UNIQUE (merchant_id, idempotency_key)
);
