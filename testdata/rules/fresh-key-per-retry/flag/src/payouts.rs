//! A payout worker that retries its provider call.

use std::time::Duration;
use uuid::Uuid;

pub async fn send_payout(http: &reqwest::Client, job: &PayoutJob) -> Result<(), PayoutError> {
    for attempt in 0..5u32 {
        let idempotency_key = Uuid::new_v4().to_string(); // expect: fresh-key-per-retry
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

pub async fn refund_with_backoff(http: &reqwest::Client, refund: &Refund) -> Result<(), reqwest::Error> {
    backoff::future::retry(backoff::ExponentialBackoff::default(), || async {
        http.post("https://api.provider.example/v1/refunds")
            .header("Idempotency-Key", ulid::Ulid::new().to_string()) // expect: fresh-key-per-retry
            .json(refund)
            .send()
            .await
            .map_err(backoff::Error::transient)
    })
    .await
    .map(|_| ())
}

pub async fn capture(client: &ProviderClient, order: &Order) -> Result<Capture, ProviderError> {
    use backon::Retryable;
    (|| async {
        let key = format!("capture-{}", Uuid::new_v4()); // expect: fresh-key-per-retry
        client.capture(&order.id, CaptureOptions { idempotency_key: key.clone() }).await
    })
    .retry(backon::ExponentialBuilder::default())
    .await
}
