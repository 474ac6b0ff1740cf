//! Starts a payout once per idempotency key: a second start with the same
//! key gets the first run's id back.

use sqlx::PgPool;

pub async fn start_payout(
    pool: &PgPool,
    idempotency_key: &str,
    amount_minor: i64,
    currency: &str,
) -> sqlx::Result<i64> {
    let run_id: i64 = sqlx::query_scalar(
        "INSERT INTO payout_runs (idempotency_key, amount_minor, currency) \
         VALUES ($1, $2, $3) \
         ON CONFLICT (idempotency_key) DO UPDATE SET idempotency_key = EXCLUDED.idempotency_key \
         RETURNING id",
    )
    .bind(idempotency_key)
    .bind(amount_minor)
    .bind(currency)
    .fetch_one(pool)
    .await?;
    Ok(run_id)
}
