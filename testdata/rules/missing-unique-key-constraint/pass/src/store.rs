//! Start-up schema with the key guarded by the database: the unique index is
//! what makes a concurrent replay fail instead of inserting a second row.

use tokio_postgres::Client;

const CREATE_KEYS: &str = "CREATE TABLE IF NOT EXISTS payout_idempotency_keys (
    merchant_id UUID NOT NULL,
    idempotency_key TEXT NOT NULL,
    request_hash BYTEA NOT NULL,
    response JSONB,
    created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (merchant_id, idempotency_key)
)";

pub async fn ensure_schema(client: &Client) -> Result<(), tokio_postgres::Error> {
    client.batch_execute(CREATE_KEYS).await?;
    client
        .execute(
            "CREATE TABLE IF NOT EXISTS webhook_dedup (provider TEXT NOT NULL, event_id TEXT NOT NULL, received_at TIMESTAMPTZ NOT NULL DEFAULT now())",
            &[],
        )
        .await?;
    client
        .execute(
            "CREATE UNIQUE INDEX IF NOT EXISTS webhook_dedup_event_id_key ON webhook_dedup (provider, event_id)",
            &[],
        )
        .await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    #[sqlx::test]
    async fn scratch_table(pool: sqlx::PgPool) {
        sqlx::query("CREATE TEMP TABLE idempotency_scratch (idempotency_key TEXT)")
            .execute(&pool)
            .await
            .unwrap();
    }
}
