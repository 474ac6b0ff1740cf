//! Outbound charges to Stripe. The key is sent as `Idempotency-Key` and a
//! replay is recognised by Stripe's `Idempotent-Replayed` response header.

use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use serde::Serialize;
use stripe::Client;

const STRIPE_API: &str = "https://api.stripe.com/v1/charges";
const IDEMPOTENCY_KEY: HeaderName = HeaderName::from_static("idempotency-key");
const REPLAYED: &str = "Idempotent-Replayed";

#[derive(Serialize)]
pub struct ChargeRecord {
    /// Stored with the charge so support can find the request.
    pub idempotency_key: String,
    pub amount: i64,
}

pub async fn create_charge(
    http: &reqwest::Client,
    key: &str,
    form: &[(&str, String)],
) -> Result<(String, bool), reqwest::Error> {
    let mut headers = HeaderMap::new();
    if let Ok(v) = HeaderValue::from_str(key) {
        headers.insert(IDEMPOTENCY_KEY, v);
    }
    let resp = http
        .post(STRIPE_API)
        .headers(headers)
        .header("Stripe-Version", "2024-06-20")
        .form(form)
        .send()
        .await?;
    let replayed = resp.headers().get(REPLAYED).is_some();
    Ok((resp.text().await?, replayed))
}

pub fn record(key: &str, amount: i64, body: &serde_json::Value) -> ChargeRecord {
    let stored = body.get("idempotency_key").and_then(|v| v.as_str());
    let _metric = "idempotency-keys";
    let _env = std::env::var("IDEMPOTENCY_KEY_HEADER");
    ChargeRecord {
        idempotency_key: stored.unwrap_or(key).to_string(),
        amount,
    }
}

pub fn other_providers(b: reqwest::RequestBuilder, key: &str) -> reqwest::RequestBuilder {
    b.header("X-Idempotency-Key", key)
        .header("Cko-Idempotency-Key", key)
        .header("PayPal-Request-Id", key)
        .header("Idempotence-Key", key)
        .header("X-Payout-Idempotency", key)
}
