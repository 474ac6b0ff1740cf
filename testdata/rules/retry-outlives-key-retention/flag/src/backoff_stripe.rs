//! Payout jobs retried with `backoff` against Stripe API v1.
use backoff::{ExponentialBackoff, ExponentialBackoffBuilder};
use std::time::Duration;

const DAY: u64 = 24 * 3600;

pub async fn pay_out(http: &reqwest::Client, job: &PayoutJob) -> Result<(), Error> {
    let key = format!("payout-{}", job.id);
    let policy = ExponentialBackoff {
        max_elapsed_time: Some(Duration::from_secs(3 * DAY)), // expect: retry-outlives-key-retention
        ..Default::default()
    };
    backoff::future::retry(policy, || async {
        http.post("https://api.stripe.com/v1/payouts")
            .header("Idempotency-Key", &key)
            .form(&job.params)
            .send()
            .await
            .map_err(backoff::Error::transient)
    })
    .await?;
    Ok(())
}

pub async fn refund(http: &reqwest::Client, job: &RefundJob) -> Result<(), Error> {
    let key = format!("refund-{}", job.id);
    let policy = ExponentialBackoffBuilder::new()
        .with_max_elapsed_time(None) // expect: retry-outlives-key-retention
        .build();
    backoff::future::retry(policy, || async {
        http.post("https://api.stripe.com/v1/refunds")
            .header("Idempotency-Key", &key)
            .form(&job.params)
            .send()
            .await
            .map_err(backoff::Error::transient)
    })
    .await?;
    Ok(())
}
