-- The runs table doubles as the key store: the enqueue path claims the
-- caller's key with ON CONFLICT DO NOTHING, which skips nothing without a
-- unique guard on the key.
CREATE TABLE job_runs ( -- expect: missing-unique-key-constraint
    id              bigserial   PRIMARY KEY,
    idempotency_key text        NOT NULL,
    payload         jsonb       NOT NULL,
    created_at      timestamptz NOT NULL DEFAULT now()
);
