//! A service with no migration files: the key table is created at start-up.
//! A plain index makes the lookup fast but lets a replay insert a second row.

use sqlx::PgPool;

pub async fn ensure_schema(pool: &PgPool) -> Result<(), sqlx::Error> {
    sqlx::query(
        r#"CREATE TABLE IF NOT EXISTS refund_idempotency_keys ( -- expect: missing-unique-key-constraint
            id BIGSERIAL PRIMARY KEY,
            idempotency_key TEXT NOT NULL,
            request_hash BYTEA NOT NULL,
            response JSONB,
            created_at TIMESTAMPTZ NOT NULL DEFAULT now()
        )"#,
    )
    .execute(pool)
    .await?;
    sqlx::query(
        "CREATE INDEX IF NOT EXISTS refund_idempotency_keys_key_idx ON refund_idempotency_keys (idempotency_key)",
    )
    .execute(pool)
    .await?;
    Ok(())
}
