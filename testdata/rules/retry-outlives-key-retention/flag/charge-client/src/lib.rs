//! A small Stripe charge client with its own retry pacing.

pub mod pacing;

use pacing::{Decision, Pacing};

const API_BASE: &str = "https://api.stripe.com/v1";

pub struct ChargeClient {
    http: reqwest::Client,
    secret: String,
}

#[derive(Debug)]
pub enum ChargeError {
    Http(reqwest::Error),
    Failed(u16),
}

impl ChargeClient {
    pub async fn create_charge(
        &self,
        form: &[(&str, String)],
        idempotency_key: &str,
        pacing: Pacing,
    ) -> Result<String, ChargeError> {
        let request = self
            .http
            .post(format!("{API_BASE}/charges"))
            .bearer_auth(&self.secret)
            .header("Idempotency-Key", idempotency_key)
            .form(form);
        let mut attempt: u32 = 0;
        let mut last_status = None;
        loop {
            match pacing.decide(last_status, attempt) {
                Decision::Stop => return Err(ChargeError::Failed(last_status.unwrap_or(0))),
                Decision::RetryAfter(wait) => {
                    if let Some(wait) = wait {
                        tokio::time::sleep(wait).await;
                    }
                }
            }
            let Some(req) = request.try_clone() else {
                return Err(ChargeError::Failed(0));
            };
            match req.send().await {
                Ok(resp) if resp.status().is_success() => {
                    return resp.text().await.map_err(ChargeError::Http)
                }
                Ok(resp) => last_status = Some(resp.status().as_u16()),
                Err(_) => last_status = None,
            }
            attempt += 1;
        }
    }
}
