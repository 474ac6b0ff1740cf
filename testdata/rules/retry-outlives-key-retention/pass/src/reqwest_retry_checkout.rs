//! reqwest-retry with 3 retries and the default bounds: seconds.
use reqwest_middleware::ClientBuilder;
use reqwest_retry::{policies::ExponentialBackoff, RetryTransientMiddleware};

pub async fn pay(payment: &Payment) -> Result<Response, Error> {
    let policy = ExponentialBackoff::builder().build_with_max_retries(3);
    let client = ClientBuilder::new(reqwest::Client::new())
        .with(RetryTransientMiddleware::new_with_policy(policy))
        .build();
    client
        .post("https://api.checkout.com/payments")
        .header("Cko-Idempotency-Key", &payment.reference)
        .json(payment)
        .send()
        .await
}
