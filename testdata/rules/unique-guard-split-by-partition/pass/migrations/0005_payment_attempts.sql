-- Attempts spread over 16 partitions by their key: every unique index over
-- the key holds across the whole table.
CREATE TABLE payment_attempts (
    id              uuid        NOT NULL DEFAULT gen_random_uuid(),
    merchant_id     uuid        NOT NULL,
    idempotency_key text        NOT NULL,
    amount_minor    bigint      NOT NULL,
    status          text        NOT NULL,
    created_at      timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (merchant_id, idempotency_key)
) PARTITION BY HASH (idempotency_key);

CREATE TABLE payment_attempts_p0 PARTITION OF payment_attempts
    FOR VALUES WITH (MODULUS 2, REMAINDER 0);
CREATE TABLE payment_attempts_p1 PARTITION OF payment_attempts
    FOR VALUES WITH (MODULUS 2, REMAINDER 1);

-- Queue runs by day; the dedup key is claimed in its own unpartitioned
-- table first, so the runs only carry it.
CREATE TABLE task_run_dedup (
    queue      text        NOT NULL,
    dedup_key  text        NOT NULL,
    run_id     bigint      NOT NULL,
    claimed_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (queue, dedup_key)
);

CREATE TABLE task_runs (
    id          bigserial,
    queue       text        NOT NULL,
    dedup_key   text,
    payload     jsonb       NOT NULL,
    enqueued_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (id, enqueued_at)
) PARTITION BY RANGE (enqueued_at);

CREATE INDEX task_runs_dedup_key_idx ON task_runs (dedup_key, enqueued_at);

-- An audit trail of the service's own events: the event id and time are
-- the row's identity, not a replay guard.
CREATE TABLE audit_events (
    event_id    uuid        NOT NULL,
    actor       text        NOT NULL,
    action      text        NOT NULL,
    occurred_at timestamptz NOT NULL,
    UNIQUE (event_id, occurred_at)
) PARTITION BY RANGE (occurred_at);
