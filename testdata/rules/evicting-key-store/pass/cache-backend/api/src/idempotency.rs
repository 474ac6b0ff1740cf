//! Answers a replayed request (same Idempotency-Key) with the stored response.

use crate::cache::Cache;
use std::time::Duration;

pub struct IdempotencyLayer {
    cache: Cache,
    keep_for: Duration,
}

impl IdempotencyLayer {
    pub fn new(cache: Cache, keep_for: Duration) -> Self {
        IdempotencyLayer { cache, keep_for }
    }

    pub async fn stored(&self, key: &str) -> Option<Vec<u8>> {
        self.cache.get(key).await
    }

    pub async fn remember(&self, key: &str, response: &[u8]) {
        self.cache.put(key, response, self.keep_for).await;
    }
}
