//! Claims Stripe event ids before the handler applies them.

use crate::app_config::AppConfig;
use serde::Deserialize;
use std::time::Duration;

/// The `[stripe_webhooks]` section of the settings.
#[derive(Debug, Clone, Deserialize)]
pub struct StripeWebhookConfig {
    pub signing_tolerance_secs: u64,
    #[serde(rename = "event_ttl")]
    pub event_ttl_secs: u64,
}

pub struct EventClaims {
    redis: redis::aio::ConnectionManager,
    ttl: Duration,
}

impl EventClaims {
    pub fn new(redis: redis::aio::ConnectionManager, config: &AppConfig) -> Self {
        Self {
            redis,
            ttl: Duration::from_secs(config.stripe_webhooks.event_ttl_secs),
        }
    }

    /// True the first time an event id is seen.
    pub async fn claim(&mut self, event_id: &str) -> redis::RedisResult<bool> {
        let claimed: Option<String> = redis::cmd("SET")
            .arg(format!("idem:stripe:evt:{event_id}"))
            .arg("1")
            .arg("NX")
            .arg("EX")
            .arg(self.ttl.as_secs())
            .query_async(&mut self.redis)
            .await?;
        Ok(claimed.is_some())
    }
}
