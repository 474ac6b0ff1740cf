//! The transfer endpoint: replays return the stored response and say so.

use crate::headers::{IDEMPOTENCY_KEY, REPLAYED};
use axum::http::{HeaderMap, HeaderValue, StatusCode};

pub async fn create_transfer(headers: HeaderMap) -> (StatusCode, HeaderMap, String) {
    let key = headers
        .get(IDEMPOTENCY_KEY)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_string();
    let mut out = HeaderMap::new();
    if let Some(stored) = lookup(&key) {
        out.insert(REPLAYED, HeaderValue::from_static("true"));
        return (StatusCode::OK, out, stored);
    }
    (StatusCode::CREATED, out, String::new())
}

fn lookup(_key: &str) -> Option<String> {
    None
}
