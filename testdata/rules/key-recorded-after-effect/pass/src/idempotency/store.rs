pub async fn claim(conn: &mut sqlx::PgConnection, key: &str) -> Result<bool, sqlx::Error> {
    let row: Option<(String,)> = sqlx::query_as(
        "INSERT INTO idempotency_keys (key) VALUES ($1) ON CONFLICT (key) DO NOTHING RETURNING key",
    )
    .bind(key)
    .fetch_optional(conn)
    .await?;
    Ok(row.is_some())
}
