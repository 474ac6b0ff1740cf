-- Queue runs, partitioned by the day they were enqueued. A producer that
-- retries an enqueue sends the same dedup key.
CREATE TABLE task_runs (
    id          bigserial,
    queue       text        NOT NULL,
    dedup_key   text,
    payload     jsonb       NOT NULL,
    enqueued_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (id, enqueued_at)
) PARTITION BY RANGE (enqueued_at);

CREATE UNIQUE INDEX task_runs_queue_dedup_key_uq -- expect: unique-guard-split-by-partition
    ON task_runs (queue, dedup_key, enqueued_at);
