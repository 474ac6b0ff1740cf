//! backon told never to stop counting: the transfer is resent with the same
//! key for as long as it fails.
use backon::{ConstantBuilder, Retryable};
use std::time::Duration;

pub async fn transfer(http: &reqwest::Client, t: &Transfer) -> Result<Response, Error> {
    let policy = ConstantBuilder::default()
        .with_delay(Duration::from_secs(300))
        .without_max_times(); // expect: retry-outlives-key-retention
    (|| async {
        http.post("https://api.stripe.com/v1/transfers")
            .header("Idempotency-Key", &t.reference)
            .form(&t.params)
            .send()
            .await
    })
    .retry(policy)
    .await
}
