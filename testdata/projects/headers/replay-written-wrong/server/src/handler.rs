use crate::headers::REPLAYED;
use axum::http::{HeaderMap, HeaderValue};

pub fn mark_replay(out: &mut HeaderMap) {
    out.insert(REPLAYED, HeaderValue::from_static("true"));
}
