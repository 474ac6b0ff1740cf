//! Transfers to connected accounts: the key is looked up, the provider
//! behind a trait object is called, and the key is kept only afterwards.

use axum::extract::State;
use axum::http::HeaderMap;
use axum::Json;
use std::sync::Arc;

/// The provider is chosen from configuration at start-up.
pub struct AppState {
    pub pool: sqlx::PgPool,
    pub provider: Arc<dyn TransferProvider + Send + Sync>,
}

#[async_trait::async_trait]
pub trait TransferProvider {
    async fn create_transfer(&self, account: &str, amount_minor: i64) -> anyhow::Result<String>;
}

pub async fn create_transfer(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
    Json(req): Json<TransferRequest>,
) -> Result<Json<TransferResponse>, ApiError> {
    let key = idempotency_key(&headers)?;
    let known: Option<String> = sqlx::query_scalar("SELECT transfer_id FROM idempotency_keys WHERE key = $1")
        .bind(&key)
        .fetch_optional(&state.pool)
        .await?;
    if let Some(transfer_id) = known {
        return Ok(Json(TransferResponse { transfer_id }));
    }
    let transfer_id = state.provider.create_transfer(&req.account, req.amount_minor).await?;
    sqlx::query("INSERT INTO idempotency_keys (key, transfer_id) VALUES ($1, $2)") // expect: key-recorded-after-effect
        .bind(&key)
        .bind(&transfer_id)
        .execute(&state.pool)
        .await?;
    Ok(Json(TransferResponse { transfer_id }))
}
