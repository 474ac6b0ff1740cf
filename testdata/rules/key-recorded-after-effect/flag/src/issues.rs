//! Publishing an issue: the saved response is looked up, the issue and its
//! deliveries are written in a transaction, and the key's row is only
//! updated there: nothing inserted it before, so the update guards nothing.

use sqlx::{PgPool, Postgres, Transaction};

pub async fn publish_issue(pool: &PgPool, key: &str, issue: &NewIssue) -> anyhow::Result<()> {
    let mut tx = pool.begin().await?;
    let saved: Option<(i16,)> = sqlx::query_as("SELECT status FROM idempotency_keys WHERE key = $1")
        .bind(key)
        .fetch_optional(&mut *tx)
        .await?;
    if saved.is_some() {
        return Ok(());
    }
    enqueue_deliveries(&mut tx, issue).await?;
    sqlx::query("UPDATE idempotency_keys SET status = 303 WHERE key = $1") // expect: key-recorded-after-effect
        .bind(key)
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;
    Ok(())
}

async fn enqueue_deliveries(tx: &mut Transaction<'_, Postgres>, issue: &NewIssue) -> sqlx::Result<()> {
    sqlx::query("INSERT INTO delivery_queue (issue_id, email) SELECT $1, email FROM subscribers")
        .bind(issue.id)
        .execute(&mut **tx)
        .await?;
    Ok(())
}
