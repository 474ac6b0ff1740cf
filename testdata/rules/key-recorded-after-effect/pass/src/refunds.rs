//! Refunds: the key is claimed (a row inserted under its unique guard)
//! before the gateway is called, and the response stored on that row.

use crate::gateway::Gateway;
use sqlx::PgPool;

pub struct RefundService {
    gateway: Gateway,
    pool: PgPool,
}

impl RefundService {
    pub async fn refund(&self, key: &str, payment_id: &str, amount_minor: i64) -> anyhow::Result<Option<String>> {
        let claimed = sqlx::query(
            "INSERT INTO refund_requests (idempotency_key, payment_id) VALUES ($1, $2) ON CONFLICT DO NOTHING",
        )
        .bind(key)
        .bind(payment_id)
        .execute(&self.pool)
        .await?
        .rows_affected()
            == 1;
        if !claimed {
            return Ok(None);
        }
        let refund_id = self.gateway.refund(payment_id, amount_minor, key).await?;
        sqlx::query("UPDATE refund_requests SET state = 'done', response = $2 WHERE idempotency_key = $1")
            .bind(key)
            .bind(serde_json::json!({ "refund_id": refund_id }))
            .execute(&self.pool)
            .await?;
        Ok(Some(refund_id))
    }

    /// Reads the refund's state at the gateway before recording the key:
    /// the gateway call only reads, so nothing is done twice.
    pub async fn remember_state(&self, key: &str, payment_id: &str, refund_id: &str) -> anyhow::Result<()> {
        let known: Option<(String,)> =
            sqlx::query_as("SELECT state FROM refund_requests WHERE idempotency_key = $1")
                .bind(key)
                .fetch_optional(&self.pool)
                .await?;
        if known.is_some() {
            return Ok(());
        }
        let state = self.gateway.refund_state(refund_id).await?;
        sqlx::query("INSERT INTO refund_requests (idempotency_key, payment_id, state) VALUES ($1, $2, $3)")
            .bind(key)
            .bind(payment_id)
            .bind(state)
            .execute(&self.pool)
            .await?;
        Ok(())
    }
}

/// The refund row and its key written in one transaction: a duplicate key
/// rolls the refund back with it.
pub async fn book_refund(pool: &PgPool, key: &str, payment_id: &str, amount_minor: i64) -> sqlx::Result<()> {
    let mut tx = pool.begin().await?;
    sqlx::query("INSERT INTO refunds (payment_id, amount_minor) VALUES ($1, $2)")
        .bind(payment_id)
        .bind(amount_minor)
        .execute(&mut *tx)
        .await?;
    sqlx::query("INSERT INTO refund_requests (idempotency_key, payment_id, state) VALUES ($1, $2, 'booked')")
        .bind(key)
        .bind(payment_id)
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;
    Ok(())
}
