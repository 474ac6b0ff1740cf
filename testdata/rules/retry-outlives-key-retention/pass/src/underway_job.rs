//! underway jobs whose steps give up well inside the window, or whose
//! policy the reader cannot see:
//!
//! - refund: 6 attempts, 5 delays from 2 seconds, doubling: 2 + 4 + 8 +
//!   16 + 32 = 62 s;
//! - its second step keeps underway's default (5 attempts from 1 s: 15 s);
//! - transfer: a policy built by a helper, not read (no finding, no guess).
use serde::{Deserialize, Serialize};
use underway::task::RetryPolicy;
use underway::{Job, To};

#[derive(Serialize, Deserialize)]
pub struct Refund {
    pub charge: String,
    pub reference: String,
}

#[derive(Serialize, Deserialize)]
pub struct Refunded {
    pub reference: String,
}

pub async fn refund_job(pool: sqlx::PgPool) -> Result<Job<Refund, ()>, underway::job::Error> {
    Job::builder()
        .step(|_cx, refund: Refund| async move {
            reqwest::Client::new()
                .post("https://api.stripe.com/v1/refunds")
                .header("Idempotency-Key", &refund.reference)
                .form(&[("charge", refund.charge.as_str())])
                .send()
                .await
                .map_err(|e| underway::task::Error::Retryable(e.to_string()))?;
            To::next(Refunded {
                reference: refund.reference,
            })
        })
        .retry_policy(
            RetryPolicy::builder()
                .max_attempts(6)
                .initial_interval_ms(2_000)
                .build(),
        )
        .step(|_cx, done: Refunded| async move {
            reqwest::Client::new()
                .post("https://api.stripe.com/v1/refunds/notify")
                .header("Idempotency-Key", format!("{}-notify", done.reference))
                .send()
                .await
                .map_err(|e| underway::task::Error::Retryable(e.to_string()))?;
            To::done()
        })
        .name("refund")
        .pool(pool)
        .build()
        .await
}

#[derive(Serialize, Deserialize)]
pub struct Transfer {
    pub reference: String,
    pub destination: String,
}

fn transfer_policy(attempts: i32) -> RetryPolicy {
    RetryPolicy::builder().max_attempts(attempts).build()
}

pub async fn transfer_job(pool: sqlx::PgPool, attempts: i32) -> Result<Job<Transfer, ()>, underway::job::Error> {
    Job::builder()
        .step(|_cx, t: Transfer| async move {
            reqwest::Client::new()
                .post("https://api.stripe.com/v1/transfers")
                .header("Idempotency-Key", &t.reference)
                .form(&[("destination", t.destination.as_str())])
                .send()
                .await
                .map_err(|e| underway::task::Error::Retryable(e.to_string()))?;
            To::done()
        })
        .retry_policy(transfer_policy(attempts))
        .name("transfer")
        .pool(pool)
        .build()
        .await
}
