//! The team's own client for the payment service provider's REST API.

use reqwest::Client;
use serde::{Deserialize, Serialize};

pub struct PspClient {
    http: Client,
    base_url: String,
    api_key: String,
}

#[derive(Serialize)]
struct RefundBody<'a> {
    payment_id: &'a str,
    amount_minor: i64,
}

#[derive(Deserialize)]
pub struct PspRefund {
    pub id: String,
    pub status: String,
}

impl PspClient {
    pub fn new(base_url: String, api_key: String) -> Self {
        PspClient { http: Client::new(), base_url, api_key }
    }

    pub async fn refund(&self, payment_id: &str, amount_minor: i64) -> Result<PspRefund, reqwest::Error> {
        self.http
            .post(format!("{}/v1/refunds", self.base_url))
            .bearer_auth(&self.api_key)
            .json(&RefundBody { payment_id, amount_minor })
            .send()
            .await?
            .error_for_status()?
            .json()
            .await
    }
}
