//! Refund requests carry an Idempotency-Key; the first response is kept and
//! replayed to any retry of the same request.

use crate::cache::ResponseCache;
use std::sync::Arc;

pub struct IdempotencyGuard {
    responses: Arc<dyn ResponseCache + Send + Sync>,
}

impl IdempotencyGuard {
    pub fn new(responses: Arc<dyn ResponseCache + Send + Sync>) -> Self {
        IdempotencyGuard { responses }
    }

    pub async fn replay(&self, key: &str) -> Option<Vec<u8>> {
        self.responses.load(key).await
    }
}
