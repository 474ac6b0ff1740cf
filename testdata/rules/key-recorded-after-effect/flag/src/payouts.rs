//! Payouts through a provider chosen at start-up (a trait object): which
//! provider runs is not known here, so the call is taken for the effect.

use crate::state::AppState;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::Json;

#[async_trait::async_trait]
pub trait PayoutProvider {
    async fn create_transfer(&self, account: &str, amount_minor: i64) -> anyhow::Result<String>;
}

pub async fn create_payout(
    State(state): State<AppState>,
    headers: HeaderMap,
    Json(req): Json<PayoutRequest>,
) -> Result<Json<PayoutResponse>, ApiError> {
    let key = require_key(&headers)?;
    let seen: Option<(String,)> = sqlx::query_as("SELECT transfer_id FROM idempotency_keys WHERE key = $1")
        .bind(&key)
        .fetch_optional(&state.db)
        .await?;
    if let Some((transfer_id,)) = seen {
        return Ok(Json(PayoutResponse { transfer_id }));
    }
    let transfer_id = state.provider.create_transfer(&req.account, req.amount_minor).await?;
    sqlx::query("INSERT INTO idempotency_keys (key, transfer_id) VALUES ($1, $2)") // expect: key-recorded-after-effect
        .bind(&key)
        .bind(&transfer_id)
        .execute(&state.db)
        .await?;
    Ok(Json(PayoutResponse { transfer_id }))
}
