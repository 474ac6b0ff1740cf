//! The billing service's Stripe client: async-stripe with a retrying
//! strategy as the default for every call, and a per-call override.

use stripe::{Client, CreateRefund, RequestStrategy, StripeError};

/// Attempts for a refund that times out: async-stripe sleeps 2^n seconds
/// before each one.
const REFUND_ATTEMPTS: u32 = 20;

pub struct BillingSettings {
    pub secret_key: String,
    pub strategy: Option<RequestStrategy>,
}

pub fn billing_client(settings: &BillingSettings) -> Client {
    let strategy = settings
        .strategy
        .clone()
        .unwrap_or(RequestStrategy::ExponentialBackoff(17)); // expect: retry-outlives-key-retention
    Client::new(settings.secret_key.clone()).with_strategy(strategy)
}

pub async fn refund_charge(client: &Client, charge: &str) -> Result<(), StripeError> {
    CreateRefund::new()
        .charge(charge)
        .customize()
        .request_strategy(RequestStrategy::ExponentialBackoff(REFUND_ATTEMPTS)) // expect: retry-outlives-key-retention
        .send(client)
        .await?;
    Ok(())
}
