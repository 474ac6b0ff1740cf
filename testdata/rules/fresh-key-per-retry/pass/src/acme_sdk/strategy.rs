//! How the Acme SDK sends a request: once, with a caller's key, or again
//! after failures with a key of its own.

use std::time::Duration;

#[derive(Clone, Debug)]
pub enum SendStrategy {
    Once,
    WithKey(IdempotencyToken),
    Retry(u32),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IdempotencyToken(String);

impl IdempotencyToken {
    /// A random key for a caller who gave none.
    pub fn random() -> Self {
        IdempotencyToken(uuid::Uuid::new_v4().to_string())
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl SendStrategy {
    /// The idempotency key the next request carries.
    pub fn request_key(&self) -> Option<IdempotencyToken> {
        match self {
            SendStrategy::Once => None,
            SendStrategy::WithKey(k) => Some(k.clone()),
            SendStrategy::Retry(_) => Some(IdempotencyToken::random()),
        }
    }

    pub fn delay(&self, attempt: u32) -> Option<Duration> {
        match self {
            SendStrategy::Retry(n) if attempt < *n => Some(Duration::from_millis(250 << attempt)),
            _ => None,
        }
    }
}
