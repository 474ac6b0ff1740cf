-- postgres: skip (SQLite schema: CURRENT_TIMESTAMP default, SQLite path)
CREATE TABLE processed_inbound_files (
    file_name   TEXT NOT NULL PRIMARY KEY,
    received_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP
);

CREATE TABLE relay_cursors (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    peer TEXT NOT NULL,
    seq INTEGER NOT NULL
);
CREATE UNIQUE INDEX relay_cursors_peer_seq_uniq ON relay_cursors (peer, seq);
