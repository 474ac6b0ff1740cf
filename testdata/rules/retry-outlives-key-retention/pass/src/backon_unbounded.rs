//! backon without a limit on tries but with a total delay of 6 hours:
//! inside Stripe's 24 hours.
use backon::{ConstantBuilder, Retryable};
use std::time::Duration;

pub async fn transfer(http: &reqwest::Client, t: &Transfer) -> Result<Response, Error> {
    let policy = ConstantBuilder::default()
        .with_delay(Duration::from_secs(300))
        .without_max_times()
        .with_total_delay(Some(Duration::from_secs(6 * 3600)));
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
