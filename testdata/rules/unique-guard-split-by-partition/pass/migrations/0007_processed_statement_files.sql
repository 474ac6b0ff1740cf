-- Statement files already imported, kept in one table and pruned by a job.
CREATE TABLE processed_statement_files (
    object_key  TEXT        NOT NULL PRIMARY KEY,
    imported_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
