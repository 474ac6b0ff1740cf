//! A hand-rolled job table: a failed payout is put back an hour later, up
//! to 72 attempts (71 hours), with the job's own key each time.

pub async fn claim(pool: &sqlx::PgPool) -> sqlx::Result<Option<PayoutJob>> {
    sqlx::query_as("SELECT * FROM payout_jobs WHERE attempts < 72 AND run_at <= now() LIMIT 1 FOR UPDATE SKIP LOCKED")
        .fetch_optional(pool)
        .await
}

pub async fn work(pool: &sqlx::PgPool, http: &reqwest::Client, job: PayoutJob) -> sqlx::Result<()> {
    let sent = http
        .post("https://api.stripe.com/v1/payouts")
        .header("Idempotency-Key", &job.key)
        .send()
        .await;
    if sent.is_err() {
        sqlx::query("UPDATE payout_jobs SET attempts = attempts + 1, run_at = now() + interval '1 hour' WHERE id = $1") // expect: retry-outlives-key-retention
            .bind(job.id)
            .execute(pool)
            .await?;
    }
    Ok(())
}
