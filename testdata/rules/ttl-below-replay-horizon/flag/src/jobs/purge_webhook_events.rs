//! Nightly cleanup of the webhook inbox tables.

use chrono::{Duration, Utc};
use sqlx::PgPool;

pub async fn purge_stripe_deliveries(pool: &PgPool) -> Result<u64, sqlx::Error> {
    let cutoff = Utc::now() - Duration::hours(24); // expect: ttl-below-replay-horizon
    let done = sqlx::query("DELETE FROM stripe_webhook_events WHERE received_at < $1")
        .bind(cutoff)
        .execute(pool)
        .await?;
    Ok(done.rows_affected())
}

pub async fn purge_paypal_deliveries(pool: &PgPool) -> Result<u64, sqlx::Error> {
    let done = sqlx::query!(
        "DELETE FROM processed_paypal_webhooks WHERE processed_at < $1",
        time::OffsetDateTime::now_utc() - time::Duration::days(3) // expect: ttl-below-replay-horizon
    )
    .execute(pool)
    .await?;
    Ok(done.rows_affected())
}
