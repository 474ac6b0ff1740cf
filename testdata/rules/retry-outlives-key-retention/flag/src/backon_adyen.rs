//! Adyen payouts retried with backon: 800 tries, an hour apart at most,
//! add up to about 33 days, past Adyen's 31.
use backon::{ExponentialBuilder, Retryable};
use std::time::Duration;

pub async fn submit(http: &reqwest::Client, payout: &Payout) -> Result<Response, Error> {
    let key = payout.reference.clone();
    let policy = ExponentialBuilder::default()
        .with_max_delay(Duration::from_secs(3600))
        .with_max_times(800); // expect: retry-outlives-key-retention
    (|| async {
        http.post("https://checkout-test.adyen.com/v71/payouts")
            .header("Idempotency-Key", key.as_str())
            .json(payout)
            .send()
            .await
    })
    .retry(policy)
    .await
}
