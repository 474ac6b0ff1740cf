//! Enqueue a job once per caller key.

pub async fn enqueue(pool: &sqlx::PgPool, key: &str, payload: serde_json::Value) -> sqlx::Result<bool> {
    let done = sqlx::query(
        "INSERT INTO job_runs (idempotency_key, payload) VALUES ($1, $2) ON CONFLICT DO NOTHING",
    )
    .bind(key)
    .bind(payload)
    .execute(pool)
    .await?;
    Ok(done.rows_affected() == 1)
}
