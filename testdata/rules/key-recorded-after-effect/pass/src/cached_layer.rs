//! An idempotency middleware over the service's own cache abstraction (an
//! enum dispatched to Redis or to memory): the claim is taken on the cache
//! the response goes to, held longer than any request runs, and only the
//! request that won it runs the handler.

use std::time::Duration;

use axum::{extract::Request, middleware::Next, response::Response};

#[derive(Clone)]
pub enum ResponseCache {
    Redis(RedisResponseCache),
    Memory(MemoryResponseCache),
}

#[derive(serde::Serialize, serde::Deserialize)]
pub enum Slot {
    InFlight,
    Done { status: u16, body: Vec<u8> },
}

pub struct IdempotencyKey(String);

const fn in_flight_ttl() -> Duration {
    Duration::from_secs(30)
}

pub async fn held_claim(
    cache: &ResponseCache,
    key: IdempotencyKey,
    ttl: Duration,
    req: Request,
    next: Next,
) -> Response {
    let won = match cache.set_if_not_exists(&key, &Slot::InFlight, in_flight_ttl()).await {
        Ok(won) => won,
        Err(_) => return unavailable(),
    };
    if !won {
        // Someone else holds the key: answer from what it stored.
        return match cache.get(&key).await {
            Ok(Some(Slot::Done { status, body })) => replay(status, body),
            _ => conflict(),
        };
    }
    let resp = next.run(req).await;
    if cache.set(&key, &done(&resp), ttl).await.is_err() {
        return unavailable();
    }
    resp
}

pub async fn held_claim_retaken(
    cache: &ResponseCache,
    key: IdempotencyKey,
    ttl: Duration,
    req: Request,
    next: Next,
) -> Response {
    if let Ok(false) | Err(_) = cache.set_if_not_exists(&key, &Slot::InFlight, in_flight_ttl()).await {
        if !matches!(
            cache.set_if_not_exists(&key, &Slot::InFlight, in_flight_ttl()).await,
            Ok(true)
        ) {
            return conflict();
        }
    }
    let resp = next.run(req).await;
    let _ = cache.set(&key, &done(&resp), ttl).await;
    resp
}
