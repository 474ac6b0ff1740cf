//! The key under which the API keeps a keyed POST's response: a digest of
//! who asked, the client's key and the path.

use axum::http::request::Parts;
use sha2::{Digest, Sha256};

pub struct ReplayKey(String);

impl ReplayKey {
    pub fn new(account_id: &str, idempotency_key: &str, path: &str) -> Self { // expect: unscoped-idempotency-key
        let mut h = Sha256::new();
        h.update(idempotency_key.as_bytes());
        h.update(b"\n");
        h.update(path.as_bytes());
        ReplayKey(hex::encode(h.finalize()))
    }
}

/// The stored key of a request, or none when it carries no key.
pub fn replay_key(parts: &Parts) -> Option<String> {
    let key = parts.headers.get("Idempotency-Key")?.to_str().ok()?;
    let caller = parts.headers.get(http::header::AUTHORIZATION)?.to_str().ok()?; // expect: unscoped-idempotency-key
    Some(format!("replay:{}:{}", parts.uri.path(), key))
}
