//! Nightly cleanup of the webhook inbox tables: rows are kept past the
//! longest window a provider may resend in.

use chrono::{DateTime, Duration, Utc};
use sqlx::PgPool;

const INBOX_RETENTION: Duration = Duration::days(45);

pub async fn purge_stripe_deliveries(pool: &PgPool) -> Result<u64, sqlx::Error> {
    let cutoff = Utc::now() - INBOX_RETENTION;
    let done = sqlx::query("DELETE FROM stripe_webhook_events WHERE received_at < $1")
        .bind(cutoff)
        .execute(pool)
        .await?;
    Ok(done.rows_affected())
}

pub async fn purge_paypal_deliveries(pool: &PgPool) -> Result<u64, sqlx::Error> {
    let done = sqlx::query!(
        "DELETE FROM processed_paypal_webhooks WHERE processed_at < $1",
        time::OffsetDateTime::now_utc() - time::Duration::days(40)
    )
    .execute(pool)
    .await?;
    Ok(done.rows_affected())
}

/// An operator's purge: the cut-off is theirs to choose.
pub async fn purge_before(pool: &PgPool, before: DateTime<Utc>) -> Result<u64, sqlx::Error> {
    let done = sqlx::query("DELETE FROM stripe_webhook_events WHERE received_at < $1")
        .bind(before)
        .execute(pool)
        .await?;
    Ok(done.rows_affected())
}
