//! Workers that take their retry settings from configuration, each within
//! the provider's key window or with nothing that says otherwise.
use backon::{ConstantBuilder, Retryable};
use serde::Deserialize;
use std::time::Duration;

#[derive(Debug, Deserialize)]
pub struct WorkerSettings {
    pub queue: String,
    pub max_retries: usize,
    pub retry_delay_secs: u64,
}

#[derive(Debug, Deserialize)]
pub struct Settings {
    pub payout_worker: WorkerSettings,
    pub refund_worker: WorkerSettings,
}

/// `payout_worker` in config/settings.yaml: five tries a minute apart.
pub async fn submit_payout(
    settings: &Settings,
    http: &reqwest::Client,
    payout: &Payout,
) -> Result<reqwest::Response, reqwest::Error> {
    let key = payout.reference.clone();
    let policy = ConstantBuilder::default()
        .with_delay(Duration::from_secs(settings.payout_worker.retry_delay_secs))
        .with_max_times(settings.payout_worker.max_retries);
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

/// `refund_worker` is only set by the tests' settings: what production
/// uses is not in the repository.
pub async fn submit_refund(
    settings: &Settings,
    http: &reqwest::Client,
    refund: &Refund,
) -> Result<reqwest::Response, reqwest::Error> {
    let key = refund.reference.clone();
    let policy = ConstantBuilder::default()
        .with_delay(Duration::from_secs(settings.refund_worker.retry_delay_secs))
        .with_max_times(settings.refund_worker.max_retries);
    (|| async {
        http.post("https://api.stripe.com/v1/refunds")
            .header("Idempotency-Key", &key)
            .form(&refund.form())
            .send()
            .await
    })
    .retry(policy)
    .await
}

/// A bare `max_retries` with no section: `workers.payouts.max_retries: 50`
/// in config/workers.yaml may be another service's, so it is not joined.
pub async fn capture(
    cfg: &WorkerSettings,
    http: &reqwest::Client,
    capture: &Capture,
) -> Result<reqwest::Response, reqwest::Error> {
    let key = capture.reference.clone();
    let policy = ConstantBuilder::default()
        .with_delay(Duration::from_secs(3600))
        .with_max_times(cfg.max_retries);
    (|| async {
        http.post("https://api.stripe.com/v1/payment_intents/pi_1/capture")
            .header("Idempotency-Key", &key)
            .send()
            .await
    })
    .retry(policy)
    .await
}

/// An environment variable no file in the repository gives: unknown.
pub async fn transfer(
    http: &reqwest::Client,
    transfer: &Transfer,
) -> Result<reqwest::Response, reqwest::Error> {
    let tries: usize = std::env::var("TRANSFER_WORKER_MAX_RETRIES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3);
    let key = transfer.reference.clone();
    let policy = ConstantBuilder::default()
        .with_delay(Duration::from_secs(3600))
        .with_max_times(tries);
    (|| async {
        http.post("https://api.stripe.com/v1/transfers")
            .header("Idempotency-Key", &key)
            .form(&transfer.form())
            .send()
            .await
    })
    .retry(policy)
    .await
}
