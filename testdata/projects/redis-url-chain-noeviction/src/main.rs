use anyhow::Context;

mod webhooks;

#[derive(Clone)]
pub struct AppState {
    pub redis: redis::aio::ConnectionManager,
    pub webhook_secret: String,
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let redis_url = std::env::var("REDIS_URL").context("REDIS_URL is not set")?;
    let client = redis::Client::open(redis_url.as_str())?;
    let redis = redis::aio::ConnectionManager::new(client).await?;
    let state = AppState {
        redis,
        webhook_secret: std::env::var("STRIPE_WEBHOOK_SECRET")?,
    };
    let app = axum::Router::new()
        .route("/webhooks/stripe", axum::routing::post(webhooks::stripe::receive))
        .with_state(state);
    let listener = tokio::net::TcpListener::bind("0.0.0.0:8080").await?;
    axum::serve(listener, app).await?;
    Ok(())
}
