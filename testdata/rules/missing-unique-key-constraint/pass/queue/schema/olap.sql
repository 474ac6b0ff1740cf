-- Reporting copies of the runs, for dashboards: each keeps the key for
-- display and search, and no request is ever deduplicated against it.
CREATE TABLE job_runs_olap (
    tenant_id       uuid        NOT NULL,
    run_id          bigint      NOT NULL,
    idempotency_key text,
    finished_at     timestamptz
);

CREATE TABLE job_event_log (
    tenant_id       uuid        NOT NULL,
    run_id          bigint      NOT NULL,
    idempotency_key bytea,
    logged_at       timestamptz NOT NULL DEFAULT now()
);
