//! An idempotency middleware over the service's own cache abstraction: one
//! enum dispatched to a Redis backend or a process-local one. Each handler
//! below takes a claim that does not hold while the request runs.

use std::time::Duration;

use axum::{extract::Request, middleware::Next, response::Response};

#[derive(Clone)]
pub enum ResponseCache {
    Redis(RedisResponseCache),
    Local(LocalResponseCache),
}

#[derive(serde::Serialize, serde::Deserialize)]
pub enum Slot {
    InFlight,
    Done { status: u16, body: Vec<u8> },
}

pub struct IdempotencyKey(String);

/// How long an in-flight claim is held: far less than a request can take.
const fn in_flight_ttl() -> Duration {
    Duration::from_millis(250)
}

const CLAIM_TTL: Duration = Duration::from_secs(30);

/// The claim goes to a cache made for this request: no other replica, and
/// no other request of this one, ever sees it.
pub async fn claim_on_a_local_cache(
    cache: &ResponseCache,
    key: IdempotencyKey,
    ttl: Duration,
    req: Request,
    next: Next,
) -> Response {
    match LocalResponseCache::new().set_if_not_exists(&key, &Slot::InFlight, CLAIM_TTL).await { // expect: key-recorded-after-effect
        Ok(true) => {}
        _ => return conflict(),
    }
    let resp = next.run(req).await;
    let _ = cache.set(&key, &done(&resp), ttl).await;
    resp
}

/// Whether the claim was won is never looked at.
pub async fn claim_answer_dropped(
    cache: &ResponseCache,
    key: IdempotencyKey,
    ttl: Duration,
    req: Request,
    next: Next,
) -> Response {
    let _ = cache.set_if_not_exists(&key, &Slot::InFlight, CLAIM_TTL).await; // expect: key-recorded-after-effect
    let resp = next.run(req).await;
    let _ = cache.set(&key, &done(&resp), ttl).await;
    resp
}

/// Only errors are told apart: a request that lost the claim goes on.
pub async fn claim_only_checked_for_errors(
    cache: &ResponseCache,
    key: IdempotencyKey,
    ttl: Duration,
    req: Request,
    next: Next,
) -> Response {
    if !matches!(cache.set_if_not_exists(&key, &Slot::InFlight, CLAIM_TTL).await, Ok(_)) { // expect: key-recorded-after-effect
        return unavailable();
    }
    let resp = next.run(req).await;
    let _ = cache.set(&key, &done(&resp), ttl).await;
    resp
}

/// The claim is gone a quarter of a second later, long before a payment
/// call returns.
pub async fn claim_expires_at_once(
    cache: &ResponseCache,
    key: IdempotencyKey,
    ttl: Duration,
    req: Request,
    next: Next,
) -> Response {
    let won = cache
        .set_if_not_exists(&key, &Slot::InFlight, in_flight_ttl()) // expect: key-recorded-after-effect
        .await
        .unwrap_or(false);
    if !won {
        return conflict();
    }
    let resp = next.run(req).await;
    let _ = cache.set(&key, &done(&resp), ttl).await;
    resp
}
