-- postgres: skip (SQLite: AUTOINCREMENT, BLOB)
-- SQLite: a workflow engine's runs, a workflow id unique per namespace.
CREATE TABLE namespaces (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  name TEXT NOT NULL UNIQUE
);

CREATE TABLE current_runs (
  shard_id INTEGER NOT NULL,
  namespace_id BLOB NOT NULL,
  workflow_id VARCHAR(255) NOT NULL,
  run_id BLOB NOT NULL,
  create_request_id VARCHAR(255) NOT NULL,
  state INTEGER NOT NULL,
  PRIMARY KEY (shard_id, namespace_id, workflow_id)
);

CREATE TABLE run_history (
  shard_id INTEGER NOT NULL,
  namespace_id BLOB NOT NULL,
  workflow_id VARCHAR(255) NOT NULL,
  run_id BLOB NOT NULL,
  create_request_id VARCHAR(255) NOT NULL,
  event_id INTEGER NOT NULL,
  data BLOB NOT NULL,
  PRIMARY KEY (shard_id, namespace_id, workflow_id, run_id, event_id)
);
