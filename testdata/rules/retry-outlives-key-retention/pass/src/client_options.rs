//! Options of the ledger client, as deserialised from the service config.

use std::time::Duration;

#[derive(Debug, Clone, serde::Deserialize)]
pub struct LedgerClientConfig {
    pub base_url: String,
    pub retry_schedule_ms: Option<Vec<u64>>,
    pub retry_delay_ms: u64,
    pub backoff_cap_secs: u64,
}

pub struct ClientOptions {
    pub base_url: String,
    pub retry_schedule: Option<Vec<Duration>>,
    pub first_retry: Duration,
    pub backoff_cap: Duration,
}

impl From<LedgerClientConfig> for ClientOptions {
    fn from(c: LedgerClientConfig) -> Self {
        ClientOptions {
            base_url: c.base_url,
            retry_schedule: c
                .retry_schedule_ms
                .map(|s| s.into_iter().map(Duration::from_millis).collect()),
            first_retry: Duration::from_millis(c.retry_delay_ms),
            backoff_cap: Duration::from_secs(c.backoff_cap_secs),
        }
    }
}
