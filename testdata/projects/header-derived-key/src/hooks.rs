//! Stripe deliveries: verified, recorded once, then applied.

use sqlx::PgPool;

pub async fn record_processed_event(pool: &PgPool, event: &stripe::Event, body: serde_json::Value) -> sqlx::Result<bool> {
    let seen: Option<i64> = sqlx::query_scalar("SELECT id FROM received_hooks WHERE ref = $1")
        .bind(event.id.as_str())
        .fetch_optional(pool)
        .await?;
    if seen.is_some() {
        return Ok(false);
    }
    sqlx::query("INSERT INTO received_hooks (source, ref, body) VALUES ('stripe', $1, $2)") // expect: check-then-insert
        .bind(event.id.as_str())
        .bind(body)
        .execute(pool)
        .await?;
    Ok(true)
}
