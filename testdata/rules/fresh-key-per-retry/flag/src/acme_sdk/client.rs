//! The Acme SDK's transport: resends a failed POST until the strategy
//! says stop.

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
        let mut attempts = 0;
        loop {
            let mut req = self.http.post(url).json(body);
            if let Some(key) = strategy.request_key() { // expect: fresh-key-per-retry
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

    /// The same transport with a timeout per attempt: the attempt is an
    /// `async` block awaited under `tokio::time::timeout`.
    pub async fn post_with_timeout(
        &self,
        url: &str,
        body: &serde_json::Value,
        strategy: &SendStrategy,
    ) -> Result<reqwest::Response, TransportError> {
        let mut tries = 0;
        loop {
            let attempt = async {
                self.http
                    .post(url)
                    .header("Idempotency-Key", IdempotencyToken::random().as_str()) // expect: fresh-key-per-retry
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
}

#[derive(Debug)]
pub enum TransportError {
    Http(reqwest::Error),
    GaveUp,
}
