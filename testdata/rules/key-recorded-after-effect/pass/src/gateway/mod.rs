//! The team's gateway client: refunds it sends, statuses it only reads.

pub struct Gateway {
    http: reqwest::Client,
    base: String,
}

impl Gateway {
    pub async fn refund(&self, payment_id: &str, amount_minor: i64, key: &str) -> reqwest::Result<String> {
        self.http
            .post(format!("{}/refunds", self.base))
            .header("Idempotency-Key", key)
            .json(&(payment_id, amount_minor))
            .send()
            .await?
            .text()
            .await
    }

    pub async fn refund_state(&self, refund_id: &str) -> reqwest::Result<String> {
        self.http
            .get(format!("{}/refunds/{}", self.base, refund_id))
            .send()
            .await?
            .text()
            .await
    }
}
