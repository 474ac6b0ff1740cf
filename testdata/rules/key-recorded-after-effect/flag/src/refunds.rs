//! Refunds through the team's PSP client, reached from the shared state:
//! the key is looked up, the refund is sent, and the key is stored after.

use crate::state::AppState;
use axum::extract::{Path, State};
use axum::http::HeaderMap;
use axum::Json;

pub async fn refund_payment(
    State(state): State<AppState>,
    Path(payment_id): Path<String>,
    headers: HeaderMap,
    Json(req): Json<RefundRequest>,
) -> Result<Json<RefundResponse>, ApiError> {
    let key = require_key(&headers)?;
    if let Some(done) = sqlx::query_scalar::<_, serde_json::Value>(
        "SELECT response FROM idempotency_keys WHERE key = $1",
    )
    .bind(&key)
    .fetch_optional(&state.db)
    .await?
    {
        return Ok(Json(serde_json::from_value(done)?));
    }
    let refund = state.psp.refund(&payment_id, req.amount_minor).await?;
    let resp = RefundResponse { refund_id: refund.id, status: refund.status };
    sqlx::query("INSERT INTO idempotency_keys (key, response) VALUES ($1, $2)") // expect: key-recorded-after-effect
        .bind(&key)
        .bind(serde_json::to_value(&resp)?)
        .execute(&state.db)
        .await?;
    Ok(Json(resp))
}
