//! The idempotency table the HTTP middleware keeps its keys in, shipped as
//! DDL for the service's own migration tool. Each key is scoped to the
//! caller by a fingerprint of its credentials.

pub const IDEMPOTENCY_DDL: &str = r#"
CREATE TABLE IF NOT EXISTS api_idempotency ( -- expect: missing-request-fingerprint
    caller_fingerprint TEXT NOT NULL,
    key TEXT NOT NULL,
    response_status INT,
    response_body BYTEA,
    created_at TIMESTAMPTZ NOT NULL DEFAULT NOW(),
    expires_at TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (caller_fingerprint, key)
);
"#;

/// Creates the table at start-up when the deployment's migrations have not.
pub async fn ensure_table(pool: &sqlx::PgPool) -> Result<(), sqlx::Error> {
    sqlx::query(IDEMPOTENCY_DDL).execute(pool).await?;
    Ok(())
}
