-- A job queue: the run rows carry the caller's idempotency key, and the key
-- itself is claimed in its own table with a primary key. The runs are not
-- where the key is kept, so they need no unique guard of their own.
CREATE TABLE queue_idempotency_keys (
    tenant_id   uuid        NOT NULL,
    key         text        NOT NULL,
    expires_at  timestamptz NOT NULL,
    claimed_by  uuid,
    PRIMARY KEY (tenant_id, key)
);

CREATE TABLE job_runs (
    id              bigint      GENERATED ALWAYS AS IDENTITY,
    tenant_id       uuid        NOT NULL,
    idempotency_key text,
    status          text        NOT NULL,
    inserted_at     timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (id, inserted_at)
) PARTITION BY RANGE (inserted_at);

CREATE TABLE workflow_graphs (
    id              bigint      PRIMARY KEY,
    tenant_id       uuid        NOT NULL,
    idempotency_key text
);
