-- Not an idempotency store: idemlint.toml excludes it.
CREATE TABLE search_dedup_cache (
    query_hash text NOT NULL,
    results    jsonb
);
