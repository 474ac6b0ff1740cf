//! The billing service's Stripe client: async-stripe retries a timed-out
//! call with one key, for minutes, well inside the 24 hours Stripe keeps
//! the key; past that the refund is looked up by its metadata instead.

use stripe::{Client, CreateRefund, RequestStrategy, StripeError};

/// 2 + 4 + … + 512 s: about 17 minutes from the first attempt to the last.
const REFUND_ATTEMPTS: u32 = 10;

pub struct BillingSettings {
    pub secret_key: String,
    pub strategy: Option<RequestStrategy>,
}

pub fn billing_client(settings: &BillingSettings) -> Client {
    let strategy = settings
        .strategy
        .clone()
        .unwrap_or(RequestStrategy::ExponentialBackoff(6));
    Client::new(settings.secret_key.clone()).with_strategy(strategy)
}

pub async fn refund_charge(client: &Client, charge: &str) -> Result<(), StripeError> {
    CreateRefund::new()
        .charge(charge)
        .customize()
        .request_strategy(RequestStrategy::ExponentialBackoff(REFUND_ATTEMPTS))
        .send(client)
        .await?;
    Ok(())
}

/// Retry(n) resends at once: no time passes between the attempts.
pub fn bulk_client(secret_key: &str) -> Client {
    Client::new(secret_key.to_string()).with_strategy(RequestStrategy::Retry(30))
}
