//! The same worker with keys that stay the same across attempts.

use std::time::Duration;
use uuid::Uuid;

pub async fn send_payout(http: &reqwest::Client, job: &PayoutJob) -> Result<(), PayoutError> {
    let idempotency_key = Uuid::new_v4().to_string();
    for attempt in 0..5u32 {
        let sent = http
            .post("https://api.provider.example/v1/payouts")
            .header("Idempotency-Key", &idempotency_key)
            .json(&job.body())
            .send()
            .await;
        match sent {
            Ok(resp) if resp.status().is_success() => return Ok(()),
            _ => tokio::time::sleep(Duration::from_secs(2u64.pow(attempt))).await,
        }
    }
    Err(PayoutError::GaveUp)
}

pub async fn payout_job(http: &reqwest::Client, job: &Job) -> Result<(), reqwest::Error> {
    let strategy = tokio_retry::strategy::ExponentialBackoff::from_millis(10).take(4);
    tokio_retry::Retry::spawn(strategy, || async {
        let key = format!("payout-{}", job.id);
        // a fresh request id for tracing is no idempotency key
        let trace_id = Uuid::new_v4();
        http.post("https://api.provider.example/v1/payouts")
            .header("Idempotency-Key", key)
            .header("X-Trace-Id", trace_id.to_string())
            .send()
            .await
    })
    .await
    .map(|_| ())
}

pub async fn import_rows(rows: &[Row], db: &Db) {
    for row in rows {
        let id = Uuid::new_v4();
        db.insert(id, row).await;
    }
}
