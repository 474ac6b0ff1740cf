//! Finished responses of the idempotency middleware, kept in the service's
//! cache abstraction (an enum over a Redis and an in-memory backend) under
//! the key the client sent.

use std::time::Duration;

pub struct IdempotencyKey(String);

/// How long a finished response is replayed.
const fn response_ttl() -> Duration {
    Duration::from_secs(60 * 5) // expect: ttl-below-replay-horizon
}

pub async fn store_response(
    cache: &Cache,
    key: &IdempotencyKey,
    resp: &StoredResponse,
) -> Result<(), CacheError> {
    cache.set(key, resp, response_ttl()).await
}
