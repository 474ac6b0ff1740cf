use sqlx::PgPool;

// Stripe retries a delivery for up to three days until it gets a 2xx, so
// the same event can arrive again while the first one is still running.
pub async fn first_delivery(pool: &PgPool, event_id: &str) -> sqlx::Result<bool> {
    let known: Option<String> =
        sqlx::query_scalar("SELECT event_id FROM seen_events WHERE event_id = $1")
            .bind(event_id)
            .fetch_optional(pool)
            .await?;
    if known.is_some() {
        return Ok(false);
    }
    sqlx::query("INSERT INTO seen_events (event_id) VALUES ($1)") // expect: check-then-insert
        .bind(event_id)
        .execute(pool)
        .await?;
    Ok(true)
}
