//! backon with 30 tries and a 1-hour largest delay: about 19 hours, well
//! inside Adyen's 31 days.
use backon::{ExponentialBuilder, Retryable};
use std::time::Duration;

pub async fn submit(http: &reqwest::Client, payout: &Payout) -> Result<Response, Error> {
    let key = payout.reference.clone();
    let policy = ExponentialBuilder::default()
        .with_max_delay(Duration::from_secs(3600))
        .with_max_times(30);
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
