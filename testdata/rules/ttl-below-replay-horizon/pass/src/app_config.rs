//! Settings, layered: config/default.toml, then config/{APP_ENV}.toml, then
//! `APP__SECTION__KEY` environment variables.

use crate::webhooks::stripe_claims::StripeWebhookConfig;
use serde::Deserialize;

#[derive(Debug, Clone, Deserialize)]
pub struct AppConfig {
    pub server: ServerConfig,
    pub stripe_webhooks: StripeWebhookConfig,
}

#[derive(Debug, Clone, Deserialize)]
pub struct ServerConfig {
    pub port: u16,
}


pub fn load() -> Result<AppConfig, config::ConfigError> {
    let env = std::env::var("APP_ENV").unwrap_or_else(|_| "local".into());
    config::Config::builder()
        .add_source(config::File::with_name("config/default"))
        .add_source(config::File::with_name(&format!("config/{env}")).required(false))
        .add_source(config::Environment::with_prefix("APP").separator("__"))
        .build()?
        .try_deserialize()
}
