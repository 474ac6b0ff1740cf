//! A Checkout.com client whose middleware retries for 48 hours.
use reqwest_middleware::{ClientBuilder, ClientWithMiddleware};
use reqwest_retry::{policies::ExponentialBackoff, RetryTransientMiddleware};
use std::time::Duration;

pub struct Cko {
    http: ClientWithMiddleware,
}

impl Cko {
    pub fn new() -> Self {
        let policy = ExponentialBackoff::builder()
            .build_with_total_retry_duration(Duration::from_secs(48 * 3600)); // expect: retry-outlives-key-retention
        Cko {
            http: ClientBuilder::new(reqwest::Client::new())
                .with(RetryTransientMiddleware::new_with_policy(policy))
                .build(),
        }
    }

    pub async fn pay(&self, payment: &Payment) -> Result<Response, Error> {
        self.http
            .post("https://api.checkout.com/payments")
            .header("Cko-Idempotency-Key", &payment.reference)
            .json(payment)
            .send()
            .await
    }
}
