//! The Acme SDK's transport: the key is taken from the strategy once per
//! request, before the first attempt, and every resend carries it.

use super::strategy::{IdempotencyToken, SendStrategy};

pub struct Transport {
    http: reqwest::Client,
}

impl Transport {
    pub async fn post(
        &self,
        url: &str,
        body: &serde_json::Value,
        strategy: &SendStrategy,
    ) -> Result<reqwest::Response, reqwest::Error> {
        let key = strategy.request_key();
        let mut attempts = 0;
        loop {
            let mut req = self.http.post(url).json(body);
            if let Some(key) = &key {
                req = req.header("Idempotency-Key", key.as_str());
            }
            match req.send().await {
                Ok(resp) if !resp.status().is_server_error() => return Ok(resp),
                other => match strategy.delay(attempts) {
                    Some(d) => tokio::time::sleep(d).await,
                    None => return other,
                },
            }
            attempts += 1;
        }
    }

    pub async fn post_with_timeout(
        &self,
        url: &str,
        body: &serde_json::Value,
        strategy: &SendStrategy,
    ) -> Result<reqwest::Response, TransportError> {
        let key = IdempotencyToken::random();
        let mut tries = 0;
        loop {
            let attempt = async {
                self.http
                    .post(url)
                    .header("Idempotency-Key", key.as_str())
                    .json(body)
                    .send()
                    .await
                    .map_err(TransportError::Http)
            };
            match tokio::time::timeout(std::time::Duration::from_secs(10), attempt).await {
                Ok(Ok(resp)) => return Ok(resp),
                _ if strategy.delay(tries).is_none() => return Err(TransportError::GaveUp),
                _ => {}
            }
            tries += 1;
        }
    }

    /// One request per order in the batch, each with its own key: a new
    /// operation each pass, not a retry.
    pub async fn post_batch(&self, url: &str, orders: &[serde_json::Value]) {
        for order in orders {
            let key = IdempotencyToken::random();
            let _ = self
                .http
                .post(url)
                .header("Idempotency-Key", key.as_str())
                .json(order)
                .send()
                .await;
        }
    }
}

#[derive(Debug)]
pub enum TransportError {
    Http(reqwest::Error),
    GaveUp,
}
