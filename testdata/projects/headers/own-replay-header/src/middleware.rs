use axum::http::{HeaderMap, HeaderValue};

/// Our API marks replays with its own header (documented for our clients).
pub fn mark_replay(headers: &mut HeaderMap) {
    headers.insert("idempotency-replayed", HeaderValue::from_static("true"));
}
