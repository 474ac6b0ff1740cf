-- Bank statement files already imported. Partitioned by week so old weeks
-- are dropped instead of deleted, which put the import time in the key.
CREATE TABLE processed_statement_files (
    object_key  TEXT        NOT NULL,
    imported_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (object_key, imported_at) -- expect: unique-guard-split-by-partition
) PARTITION BY RANGE (imported_at);
