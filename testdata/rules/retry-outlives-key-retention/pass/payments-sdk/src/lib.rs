//! A hand-written client for the Checkout.com payments API whose settings
//! struct defaults the retry count; the schedule is built in `send.rs`.

mod send;

use std::time::Duration;

pub struct ClientOptions {
    pub api_base: Option<String>,
    pub max_retries: Option<u32>,
    pub timeout: Option<Duration>,
}

pub(crate) struct Settings {
    pub api_base: String,
    pub max_retries: u32,
    pub timeout: Duration,
    pub http: reqwest::Client,
}

pub struct PaymentsClient {
    settings: std::sync::Arc<Settings>,
}

impl PaymentsClient {
    pub fn new(options: ClientOptions) -> Self {
        let settings = Settings {
            api_base: options
                .api_base
                .unwrap_or_else(|| "https://api.checkout.com".to_string()),
            // Three resends, a few hundred milliseconds apart.
            max_retries: options.max_retries.unwrap_or(3),
            timeout: options.timeout.unwrap_or(Duration::from_secs(30)),
            http: reqwest::Client::new(),
        };
        PaymentsClient {
            settings: std::sync::Arc::new(settings),
        }
    }

    pub fn with_base(&self, api_base: String) -> Self {
        let settings = Settings {
            api_base,
            max_retries: self.settings.max_retries,
            timeout: self.settings.timeout,
            http: self.settings.http.clone(),
        };
        PaymentsClient {
            settings: std::sync::Arc::new(settings),
        }
    }
}
