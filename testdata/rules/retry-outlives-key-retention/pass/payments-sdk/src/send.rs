use crate::Settings;
use reqwest::header::{HeaderMap, HeaderValue};
use std::time::Duration;

pub(crate) struct Call {
    pub path: String,
    pub body: String,
    pub headers: HeaderMap,
}

#[derive(Debug)]
pub enum SendError {
    Http(reqwest::Error),
    GaveUp(u16),
}

impl Call {
    pub(crate) async fn send(mut self, settings: &Settings) -> Result<String, SendError> {
        if !self.headers.contains_key("Idempotency-Key") {
            let key = uuid::Uuid::new_v4().to_string();
            if let Ok(v) = HeaderValue::from_str(&key) {
                self.headers.insert("Idempotency-Key", v);
            }
        }
        const LONGEST_PAUSE: Duration = Duration::from_secs(3);
        let pauses: Vec<Duration> =
            std::iter::successors(Some(Duration::from_millis(100)), |p| {
                Some((*p * 2).min(LONGEST_PAUSE))
            })
            .take(settings.max_retries as usize)
            .collect();
        let mut pauses = pauses.into_iter();
        let url = format!("{}{}", settings.api_base, self.path);
        loop {
            let sent = settings
                .http
                .post(&url)
                .headers(self.headers.clone())
                .body(self.body.clone())
                .timeout(settings.timeout)
                .send()
                .await;
            let status = match sent {
                Ok(resp) if !resp.status().is_server_error() => {
                    return resp.text().await.map_err(SendError::Http)
                }
                Ok(resp) => resp.status().as_u16(),
                Err(e) if e.is_timeout() || e.is_connect() => 0,
                Err(e) => return Err(SendError::Http(e)),
            };
            let Some(pause) = pauses.next() else {
                return Err(SendError::GaveUp(status));
            };
            tokio::time::sleep(pause).await;
        }
    }
}
