//! A refund booked in the business table and its key inserted next, on the
//! same pool, with no transaction around the two statements.

use sqlx::PgPool;

pub async fn book_refund(pool: &PgPool, key: &str, payment_id: i64, amount_minor: i64) -> sqlx::Result<()> {
    sqlx::query("INSERT INTO refunds (payment_id, amount_minor, state) VALUES ($1, $2, 'pending')")
        .bind(payment_id)
        .bind(amount_minor)
        .execute(pool)
        .await?;
    sqlx::query("INSERT INTO idempotency_keys (key, resource) VALUES ($1, 'refund')") // expect: key-recorded-after-effect
        .bind(key)
        .execute(pool)
        .await?;
    Ok(())
}
