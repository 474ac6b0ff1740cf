-- The reporting copy of task runs: one row per run, keyed by the run's own
-- id and insertion time. It carries the caller's idempotency key for
-- display; the task table (elsewhere) is where keys are claimed.
CREATE TABLE tasks_olap (
    id              bigint      NOT NULL,
    inserted_at     timestamptz NOT NULL,
    idempotency_key text,
    status          text        NOT NULL,
    PRIMARY KEY (inserted_at, id)
);
