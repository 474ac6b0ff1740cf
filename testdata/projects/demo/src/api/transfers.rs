//! `POST /v1/transfers`: our own API. Clients send `Idempotency-Key`; a replay
//! returns the stored response and says so with the header Stripe uses.

use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::Json;
use serde::{Deserialize, Serialize};

#[derive(Deserialize)]
pub struct TransferRequest {
    pub amount: i64,
    pub currency: String,
    pub destination: String,
}

#[derive(Clone, Serialize)]
pub struct Transfer {
    pub id: String,
    pub idempotency_key: String,
}

pub async fn create_transfer(
    headers: HeaderMap,
    Json(req): Json<TransferRequest>,
) -> Result<(StatusCode, HeaderMap, Json<Transfer>), StatusCode> {
    let key = headers
        .get("idempotency-key")
        .and_then(|v| v.to_str().ok())
        .ok_or(StatusCode::BAD_REQUEST)?
        .to_string();
    let mut out = HeaderMap::new();
    if let Some(stored) = crate::store::stored_transfer(&key).await {
        out.insert("idempotent-replayed", HeaderValue::from_static("true"));
        return Ok((StatusCode::OK, out, Json(stored)));
    }
    let transfer = crate::ledger::transfer(&key, req.amount, &req.currency, &req.destination)
        .await
        .map_err(|_| StatusCode::BAD_GATEWAY)?;
    Ok((StatusCode::CREATED, out, Json(transfer)))
}
