//! Finished responses of the idempotency middleware, kept in the service's
//! cache abstraction under the key the client sent, longer than clients
//! may retry.

use std::time::Duration;

pub struct IdempotencyKey(String);

const fn response_ttl() -> Duration {
    Duration::from_secs(40 * 24 * 60 * 60)
}

/// The in-flight claim: its few seconds are a lock, not a retention.
const fn in_flight_ttl() -> Duration {
    Duration::from_secs(10)
}

pub async fn store_response(
    cache: &Cache,
    key: &IdempotencyKey,
    resp: &StoredResponse,
) -> Result<(), CacheError> {
    cache.set(key, resp, response_ttl()).await
}

pub async fn claim(cache: &Cache, key: &IdempotencyKey) -> Result<bool, CacheError> {
    cache.set_if_not_exists(key, &StoredResponse::InFlight, in_flight_ttl()).await
}
