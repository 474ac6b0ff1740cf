//! underway jobs built step by step: `.retry_policy(p)` sets the policy of
//! the step written just before it, and underway re-runs that step with the
//! same input, so each attempt sends the input's key again.
//!
//! - capture: 48 attempts, 47 delays from a minute, doubling, at most an
//!   hour: 1 + 2 + … + 32 = 63 min, then 41 × 60 min: 2,523 min, about 42 h
//!   against Checkout.com's 24 h;
//! - payout: a policy bound first, 20 attempts, 19 delays from 10 minutes,
//!   doubling, at most 6 hours: 10 + … + 320 = 630 min, then 13 × 360 min:
//!   5,310 min, about 3.7 days against Stripe API v1's 24 h.
use serde::{Deserialize, Serialize};
use underway::task::RetryPolicy;
use underway::{Job, To};

#[derive(Serialize, Deserialize)]
pub struct Capture {
    pub payment_id: String,
    pub reference: String,
    pub amount: i64,
}

#[derive(Serialize, Deserialize)]
pub struct Captured {
    pub reference: String,
}

pub async fn capture_job(pool: sqlx::PgPool) -> Result<Job<Capture, ()>, underway::job::Error> {
    Job::<Capture, ()>::builder()
        .step(|_cx, capture: Capture| async move {
            reqwest::Client::new()
                .post(format!(
                    "https://api.checkout.com/payments/{}/captures",
                    capture.payment_id
                ))
                .header("Cko-Idempotency-Key", &capture.reference)
                .json(&serde_json::json!({ "amount": capture.amount }))
                .send()
                .await
                .map_err(|e| underway::task::Error::Retryable(e.to_string()))?;
            To::next(Captured {
                reference: capture.reference,
            })
        })
        .retry_policy(
            RetryPolicy::builder()
                .max_attempts(48) // expect: retry-outlives-key-retention
                .initial_interval_ms(60_000)
                .max_interval_ms(3_600_000)
                .build(),
        )
        .step(|_cx, captured: Captured| async move {
            tracing::info!(reference = %captured.reference, "captured");
            To::done()
        })
        .name("capture")
        .pool(pool)
        .build()
        .await
}

#[derive(Serialize, Deserialize)]
pub struct Payout {
    pub reference: String,
    pub amount: i64,
    pub currency: String,
}

pub async fn payout_job(pool: sqlx::PgPool) -> Result<Job<Payout, ()>, underway::job::Error> {
    let policy = RetryPolicy::builder()
        .max_attempts(20) // expect: retry-outlives-key-retention
        .initial_interval_ms(600_000)
        .max_interval_ms(21_600_000)
        .build();
    Job::builder()
        .step(|_cx, payout: Payout| async move {
            reqwest::Client::new()
                .post("https://api.stripe.com/v1/payouts")
                .header("Idempotency-Key", &payout.reference)
                .form(&[
                    ("amount", payout.amount.to_string()),
                    ("currency", payout.currency.clone()),
                ])
                .send()
                .await
                .map_err(|e| underway::task::Error::Retryable(e.to_string()))?;
            To::done()
        })
        .retry_policy(policy)
        .name("payout")
        .pool(pool)
        .build()
        .await
}
