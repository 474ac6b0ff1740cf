//! Job tables bounded in Rust that stay short or cannot be read: six
//! attempts doubling from a minute (31 minutes), and a delay the caller
//! passes in as a parameter (not guessed).

const MAX_REFUND_ATTEMPTS: i32 = 6;

pub async fn run_refund(pool: &sqlx::PgPool, http: &reqwest::Client, job: RefundJob) -> sqlx::Result<()> {
    if job.attempts >= MAX_REFUND_ATTEMPTS {
        return Ok(());
    }
    if http
        .post("https://api.stripe.com/v1/refunds")
        .header("Idempotency-Key", &job.idempotency_key)
        .send()
        .await
        .is_err()
    {
        sqlx::query("UPDATE refund_jobs SET attempts = attempts + 1, run_at = now() + interval '1 minute' * power(2, attempts) WHERE id = $1")
            .bind(job.id)
            .execute(pool)
            .await?;
    }
    Ok(())
}

pub async fn run_payout(pool: &sqlx::PgPool, http: &reqwest::Client, job: PayoutJob, backoff: i32) -> sqlx::Result<()> {
    if job.attempts > 40 {
        return Ok(());
    }
    if http
        .post("https://api.stripe.com/v1/payouts")
        .header("Idempotency-Key", &job.idempotency_key)
        .send()
        .await
        .is_err()
    {
        sqlx::query("UPDATE payout_jobs SET attempts = attempts + 1, run_at = now() + interval '1 hour' * $2 WHERE id = $1")
            .bind(job.id)
            .bind(backoff)
            .execute(pool)
            .await?;
    }
    Ok(())
}
