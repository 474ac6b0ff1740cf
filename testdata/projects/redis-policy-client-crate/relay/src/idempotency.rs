//! Replays the stored response of a request sent again with the same
//! Idempotency-Key.

use crate::cache::Cache;

pub struct IdempotencyService {
    cache: Cache,
}

impl IdempotencyService {
    pub async fn replay(&self, key: &str) -> Option<Vec<u8>> {
        self.cache.get(key).await
    }

    pub async fn remember(&self, key: &str, response: &[u8]) {
        self.cache.put(key, response, 86_400).await;
    }
}
