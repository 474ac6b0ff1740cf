use sqlx::PgPool;

/// Takes one notification off the acquirer's queue. Returns false for one
/// already taken.
pub async fn take(pool: &PgPool, psp_reference: &str, event_code: &str, body: &serde_json::Value) -> sqlx::Result<bool> {
    let taken: i64 = sqlx::query_scalar("SELECT count(*) FROM adyen_notifications WHERE psp_reference = $1")
        .bind(psp_reference)
        .fetch_one(pool)
        .await?;
    if taken > 0 {
        return Ok(false);
    }
    sqlx::query("INSERT INTO adyen_notifications (psp_reference, event_code, body) VALUES ($1, $2, $3)") // expect: check-then-insert
        .bind(psp_reference)
        .bind(event_code)
        .bind(body)
        .execute(pool)
        .await?;
    Ok(true)
}
