//! Refunds are retried in the background until Stripe answers: the same key
//! for up to three days.

use backoff::ExponentialBackoff;
use std::time::Duration;

const RETRY_FOR: Duration = Duration::from_secs(72 * 3600);

pub async fn refund_order(http: &reqwest::Client, order_id: &str, cents: i64) -> anyhow::Result<()> {
    let idempotency_key = format!("refund-{order_id}");
    let policy = ExponentialBackoff {
        max_elapsed_time: Some(RETRY_FOR),
        ..Default::default()
    };
    backoff::future::retry(policy, || async {
        http.post("https://api.stripe.com/v1/refunds")
            .header("Idempotency-Key", &idempotency_key)
            .form(&[("amount", cents.to_string()), ("metadata[order_id]", order_id.to_string())])
            .send()
            .await
            .map_err(backoff::Error::transient)
    })
    .await?;
    Ok(())
}
