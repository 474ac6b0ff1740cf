//! Retries that stay inside Stripe's 24 hours: an explicit 15 minutes, and
//! backoff's default (also 15 minutes).
use backoff::ExponentialBackoff;
use std::time::Duration;

pub async fn pay_out(http: &reqwest::Client, job: &PayoutJob) -> Result<(), Error> {
    let key = format!("payout-{}", job.id);
    let policy = ExponentialBackoff {
        max_elapsed_time: Some(Duration::from_secs(15 * 60)),
        ..Default::default()
    };
    backoff::future::retry(policy, || async {
        http.post("https://api.stripe.com/v1/payouts")
            .header("Idempotency-Key", &key)
            .send()
            .await
            .map_err(backoff::Error::transient)
    })
    .await?;
    backoff::future::retry(ExponentialBackoff::default(), || async {
        http.post("https://api.stripe.com/v1/transfers")
            .header("Idempotency-Key", &key)
            .send()
            .await
            .map_err(backoff::Error::transient)
    })
    .await?;
    Ok(())
}

/// API v2: Stripe states a v2 retry does not repeat a successful operation.
pub async fn account(http: &reqwest::Client, key: &str) -> Result<(), Error> {
    let policy = ExponentialBackoff {
        max_elapsed_time: Some(Duration::from_secs(3 * 24 * 3600)),
        ..Default::default()
    };
    backoff::future::retry(policy, || async {
        http.post("https://api.stripe.com/v2/core/accounts")
            .header("Idempotency-Key", key)
            .send()
            .await
            .map_err(backoff::Error::transient)
    })
    .await?;
    Ok(())
}
