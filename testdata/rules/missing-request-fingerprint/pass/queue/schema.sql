-- A pure dedup table: a claimed key says "already seen" and the caller
-- gets the existing run's id from the runs table; no response is kept here
-- to be replayed to a different body.
CREATE TABLE job_idempotency_keys (
    tenant_id   uuid        NOT NULL,
    key         text        NOT NULL,
    expires_at  timestamptz NOT NULL,
    claimed_by  uuid,
    PRIMARY KEY (tenant_id, key)
);
