//! A refund job table whose bound is checked in Rust: 10 attempts, the wait
//! doubling from 30 minutes in SQL (about 10 days in all).

const MAX_REFUND_ATTEMPTS: i32 = 10;

pub async fn run_refund(pool: &sqlx::PgPool, http: &reqwest::Client, job: RefundJob) -> sqlx::Result<()> {
    if job.attempts >= MAX_REFUND_ATTEMPTS { // expect: retry-outlives-key-retention
        sqlx::query("UPDATE refund_jobs SET state = 'failed' WHERE id = $1")
            .bind(job.id)
            .execute(pool)
            .await?;
        return Ok(());
    }
    let sent = http
        .post("https://api.stripe.com/v1/refunds")
        .header("Idempotency-Key", &job.idempotency_key)
        .form(&job.params)
        .send()
        .await;
    if sent.is_err() {
        sqlx::query("UPDATE refund_jobs SET attempts = attempts + 1, run_at = now() + interval '30 minutes' * power(2, attempts) WHERE id = $1")
            .bind(job.id)
            .execute(pool)
            .await?;
    }
    Ok(())
}
