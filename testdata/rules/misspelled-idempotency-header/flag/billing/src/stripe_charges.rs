//! Outbound charges to Stripe, with retries that reuse one idempotency key.

use reqwest::header::{HeaderMap, HeaderValue};
use stripe::Client;

const STRIPE_API: &str = "https://api.stripe.com/v1/charges";

pub struct ChargeOutcome {
    pub id: String,
    pub replayed: bool,
}

pub async fn create_charge(
    http: &reqwest::Client,
    key: &str,
    form: &[(&str, String)],
) -> Result<ChargeOutcome, reqwest::Error> {
    let resp = http
        .post(STRIPE_API)
        .header("Idempotancy-Key", key) // expect: misspelled-idempotency-header
        .form(form)
        .send()
        .await?;
    // Stripe marks a replayed response so we do not book it twice.
    let replayed = resp
        .headers()
        .get("Idempotency-Replayed") // expect: misspelled-idempotency-header
        .is_some();
    let id = resp.text().await?;
    Ok(ChargeOutcome { id, replayed })
}

pub fn default_headers(key: &str) -> HeaderMap {
    let mut headers = HeaderMap::new();
    if let Ok(v) = HeaderValue::from_str(key) {
        headers.insert("idempotency_key", v); // expect: misspelled-idempotency-header
    }
    headers
}
