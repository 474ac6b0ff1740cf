//! Workers whose retry settings come from configuration: the payout worker
//! from `config/settings.yaml` (`payout_worker.max_retries: 48`, one hour
//! apart: 48 h against Stripe's 24 h), the refund worker from the
//! environment (`REFUND_WORKER_MAX_RETRIES=2000` in `.env`, a minute apart:
//! about 33 h against Checkout.com's 24 h), the evidence worker from
//! `config/worker.toml` (400 tries 15 minutes apart: 100 h).
use backon::{ConstantBuilder, Retryable};
use serde::Deserialize;
use std::time::Duration;
use tokio_retry::strategy::FixedInterval;
use tokio_retry::Retry;

#[derive(Debug, Deserialize)]
pub struct WorkerSettings {
    pub queue: String,
    pub max_retries: usize,
    pub retry_delay_secs: u64,
}

#[derive(Debug, Deserialize)]
pub struct EvidenceSettings {
    pub max_attempts: usize,
    #[serde(with = "humantime_serde")]
    pub retry_delay: Duration,
}

#[derive(Debug, Deserialize)]
pub struct Settings {
    pub payout_worker: WorkerSettings,
    pub evidence_worker: EvidenceSettings,
}

pub async fn submit_payout(
    settings: &Settings,
    http: &reqwest::Client,
    payout: &Payout,
) -> Result<reqwest::Response, reqwest::Error> {
    let key = payout.reference.clone();
    let policy = ConstantBuilder::default()
        .with_delay(Duration::from_secs(settings.payout_worker.retry_delay_secs))
        .with_max_times(settings.payout_worker.max_retries); // expect: retry-outlives-key-retention
    (|| async {
        http.post("https://api.stripe.com/v1/payouts")
            .header("Idempotency-Key", &key)
            .form(&payout.form())
            .send()
            .await
    })
    .retry(policy)
    .await
}

pub async fn refund_payment(
    http: &reqwest::Client,
    payment_id: &str,
    refund: &Refund,
) -> Result<reqwest::Response, reqwest::Error> {
    let retries: usize = std::env::var("REFUND_WORKER_MAX_RETRIES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(5);
    let key = refund.reference.clone();
    let url = format!("https://api.checkout.com/payments/{payment_id}/refunds");
    let strategy = FixedInterval::from_millis(60_000).take(retries); // expect: retry-outlives-key-retention
    Retry::spawn(strategy, || async {
        http.post(&url)
            .header("Cko-Idempotency-Key", &key)
            .json(refund)
            .send()
            .await
    })
    .await
}

pub async fn submit_evidence(
    settings: &Settings,
    http: &reqwest::Client,
    dispute_id: &str,
    evidence: &Evidence,
) -> Result<reqwest::Response, reqwest::Error> {
    let worker = &settings.evidence_worker;
    let key = evidence.reference.clone();
    let url = format!("https://api.stripe.com/v1/disputes/{dispute_id}");
    let policy = ConstantBuilder::default()
        .with_delay(worker.retry_delay)
        .with_max_times(worker.max_attempts); // expect: retry-outlives-key-retention
    (|| async {
        http.post(&url)
            .header("Idempotency-Key", &key)
            .form(&evidence.form())
            .send()
            .await
    })
    .retry(policy)
    .await
}
