//! Outbound charges to Stripe. Each order gets one idempotency key, reused on
//! every retry, so a timeout followed by a retry charges the card once.

use reqwest::StatusCode;
use serde::Deserialize;
use stripe::Client;

const CHARGES_URL: &str = "https://api.stripe.com/v1/charges";

#[derive(Debug, Deserialize)]
pub struct Charge {
    pub id: String,
    pub amount: i64,
}

pub struct ChargeResult {
    pub charge: Charge,
    /// Stripe answered from its idempotency cache: the charge already exists
    /// and must not be booked again in our ledger.
    pub replayed: bool,
}

pub async fn charge_order(
    http: &reqwest::Client,
    secret_key: &str,
    order_id: &str,
    idempotency_key: &str,
    amount: i64,
) -> Result<ChargeResult, reqwest::Error> {
    let resp = http
        .post(CHARGES_URL)
        .bearer_auth(secret_key)
        .header("Idempotency-Key", idempotency_key)
        .form(&[
            ("amount", amount.to_string()),
            ("currency", "eur".to_string()),
            ("metadata[order_id]", order_id.to_string()),
        ])
        .send()
        .await?;
    let replayed = resp.headers().get("Idempotency-Replayed").is_some();
    debug_assert_ne!(resp.status(), StatusCode::CONFLICT);
    let charge = resp.json::<Charge>().await?;
    Ok(ChargeResult { charge, replayed })
}
