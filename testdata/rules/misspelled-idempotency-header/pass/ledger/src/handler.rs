//! The transfer endpoint: replays return the stored response and say so with
//! the same header Stripe uses.

use axum::http::{HeaderMap, HeaderValue, StatusCode};
use crate::store::Responses;

pub async fn create_transfer(store: Responses, headers: HeaderMap) -> (StatusCode, HeaderMap, String) {
    let key = headers
        .get("idempotency-key")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_string();
    let stored: Option<String> = store.response_for(&key).await;
    let mut out = HeaderMap::new();
    if let Some(body) = stored {
        out.insert("idempotent-replayed", HeaderValue::from_static("true"));
        return (StatusCode::OK, out, body);
    }
    (StatusCode::CREATED, out, String::new())
}

pub fn twilio_dedup(headers: &HeaderMap) -> Option<&HeaderValue> {
    headers
        .get("I-Twilio-Idempotency-Token")
        .or_else(|| headers.get("webhook-id"))
}
