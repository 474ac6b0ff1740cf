//! The key under which the API keeps a keyed POST's response: a digest of
//! who asked, the client's key and the path.

use axum::http::request::Parts;
use sha2::{Digest, Sha256};

pub struct ReplayKey(String);

impl ReplayKey {
    pub fn new(account_id: &str, idempotency_key: &str, path: &str) -> Self {
        let mut h = Sha256::new();
        h.update(account_id.as_bytes());
        h.update(b"\n");
        h.update(idempotency_key.as_bytes());
        h.update(b"\n");
        h.update(path.as_bytes());
        ReplayKey(hex::encode(h.finalize()))
    }

    /// One global namespace on purpose: the service has a single caller.
    pub fn global(_tenant: &str, idempotency_key: &str) -> Self {
        ReplayKey(idempotency_key.to_owned())
    }
}

pub fn replay_key(parts: &Parts) -> Option<ReplayKey> {
    let key = parts.headers.get("Idempotency-Key")?.to_str().ok()?;
    let caller = parts.headers.get(http::header::AUTHORIZATION)?.to_str().ok()?;
    Some(ReplayKey::new(caller, key, parts.uri.path()))
}
