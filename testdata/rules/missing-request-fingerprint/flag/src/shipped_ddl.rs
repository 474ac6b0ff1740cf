//! The table the Idempotency-Key middleware answers retried requests from,
//! shipped as DDL: the host application runs it with its own migrations.

/// Run once by the host application's migration tool.
pub const REPLAY_TABLE_DDL: &str = r#"
CREATE TABLE IF NOT EXISTS http_idempotency ( -- expect: missing-request-fingerprint
    caller_fingerprint TEXT NOT NULL,
    key TEXT NOT NULL,
    reservation_id UUID NOT NULL,
    response_status INT,
    response_body BYTEA,
    created_at TIMESTAMPTZ NOT NULL DEFAULT NOW(),
    expires_at TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (caller_fingerprint, key)
);

CREATE INDEX IF NOT EXISTS http_idempotency_expires_idx
    ON http_idempotency (expires_at);
"#;
