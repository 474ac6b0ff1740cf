-- postgres: skip (SQLite schema: CURRENT_TIMESTAMP default, SQLite path)
-- Files a peer uploaded that the importer has already read; the receive time
-- is in the key, so a re-upload of the same file is read again.
CREATE TABLE processed_inbound_files (
    file_name   TEXT NOT NULL,
    received_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
    PRIMARY KEY (file_name, received_at) -- expect: missing-unique-key-constraint
);

CREATE TABLE relay_cursors (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    peer TEXT NOT NULL,
    seq INTEGER NOT NULL
);
CREATE INDEX relay_cursors_peer_seq_uniq ON relay_cursors (peer, seq); -- expect: missing-unique-key-constraint
