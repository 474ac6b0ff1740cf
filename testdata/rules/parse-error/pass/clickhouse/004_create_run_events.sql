-- postgres: skip (ClickHouse syntax)
-- Analytics copy of task runs: ClickHouse, not the transactional store.
CREATE TABLE IF NOT EXISTS analytics.run_events_v1
(
    environment_id  LowCardinality(String),
    run_id          String,
    idempotency_key Nullable(String),
    status          Enum8('queued' = 1, 'running' = 2, 'done' = 3),
    inserted_at     DateTime64(3) CODEC(Delta(8), ZSTD(1)),
    _version        UInt64
)
ENGINE = ReplacingMergeTree(_version)
PARTITION BY toYYYYMM(inserted_at)
ORDER BY (environment_id, run_id)
TTL toDateTime(inserted_at) + INTERVAL 90 DAY;

CREATE MATERIALIZED VIEW IF NOT EXISTS analytics.run_events_by_key_mv
TO analytics.run_events_by_key AS
SELECT idempotency_key, count() AS runs FROM analytics.run_events_v1 GROUP BY idempotency_key;
