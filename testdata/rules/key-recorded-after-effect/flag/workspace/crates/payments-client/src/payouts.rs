use serde::{Deserialize, Serialize};

pub struct AdyenClient {
    http: reqwest::Client,
    endpoint: String,
}

#[derive(Serialize)]
struct SubmitPayout<'a> {
    reference: &'a str,
    amount: i64,
    currency: &'a str,
}

#[derive(Deserialize)]
pub struct PayoutResult {
    #[serde(rename = "pspReference")]
    pub psp_reference: String,
}

impl AdyenClient {
    pub async fn submit_payout(&self, reference: &str, amount: i64, currency: &str) -> reqwest::Result<PayoutResult> {
        let url = format!("{}/pal/servlet/Payout/v68/payout", self.endpoint);
        self.http
            .post(url)
            .json(&SubmitPayout { reference, amount, currency })
            .send()
            .await?
            .json()
            .await
    }

    pub async fn payout_status(&self, psp_reference: &str) -> reqwest::Result<String> {
        let url = format!("{}/payouts/{}", self.endpoint, psp_reference);
        self.http.get(url).send().await?.text().await
    }
}
