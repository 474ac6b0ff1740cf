//! A job table retried five times a minute apart (4 minutes in all), and
//! one whose bound is not written anywhere (nothing is guessed).

pub async fn claim(pool: &sqlx::PgPool) -> sqlx::Result<Option<PayoutJob>> {
    sqlx::query_as("SELECT * FROM payout_jobs WHERE attempts < 5 AND run_at <= now() LIMIT 1")
        .fetch_optional(pool)
        .await
}

pub async fn work(pool: &sqlx::PgPool, http: &reqwest::Client, job: PayoutJob) -> sqlx::Result<()> {
    if http
        .post("https://api.stripe.com/v1/payouts")
        .header("Idempotency-Key", &job.key)
        .send()
        .await
        .is_err()
    {
        sqlx::query("UPDATE payout_jobs SET attempts = attempts + 1, run_at = now() + interval '1 minute' WHERE id = $1")
            .bind(job.id)
            .execute(pool)
            .await?;
        sqlx::query("UPDATE email_jobs SET retries = retries + 1, run_at = now() + interval '1 day' WHERE id = $1")
            .bind(job.id)
            .execute(pool)
            .await?;
    }
    Ok(())
}
