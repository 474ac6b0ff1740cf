//! Stripe webhook receiver: claims each event id in Redis before applying it.

use crate::settings::{IDEMPOTENCY_LOCK_TTL, RATE_LIMIT_WINDOW_SECS, SESSION_TTL_SECS, STRIPE_EVENT_TTL_SECS};
use redis::AsyncCommands;
use std::time::Duration;

/// Signed payloads older than this are refused (the `Stripe-Signature` `t=`).
const SIGNATURE_REPLAY_WINDOW: Duration = Duration::from_secs(300);

pub async fn claim_event(con: &mut redis::aio::MultiplexedConnection, event_id: &str) -> redis::RedisResult<bool> {
    let key = format!("idem:stripe:{}", event_id);
    let claimed: Option<String> = redis::cmd("SET")
        .arg(&key)
        .arg("1")
        .arg("NX")
        .arg("EX")
        .arg(STRIPE_EVENT_TTL_SECS)
        .query_async(con)
        .await?;
    Ok(claimed.is_some())
}

pub async fn lock_event(con: &mut redis::aio::MultiplexedConnection, event_id: &str) -> redis::RedisResult<bool> {
    let opts = redis::SetOptions::default()
        .conditional_set(redis::ExistenceCheck::NX)
        .with_expiration(redis::SetExpiry::EX(IDEMPOTENCY_LOCK_TTL.as_secs()));
    con.set_options(format!("idem:lock:{event_id}"), 1, opts).await
}

/// The caller chooses the expiry; nothing here says how long.
pub async fn remember(con: &mut redis::aio::MultiplexedConnection, id: &str, ttl_secs: u64) -> redis::RedisResult<()> {
    con.set_ex(format!("dedup:stripe:{id}"), 1, ttl_secs).await
}

pub async fn touch_session(con: &mut redis::aio::MultiplexedConnection, sid: &str) -> redis::RedisResult<()> {
    con.set_ex(format!("session:{sid}"), 1, SESSION_TTL_SECS).await
}

pub async fn count_request(con: &mut redis::aio::MultiplexedConnection, ip: &str) -> redis::RedisResult<u64> {
    let key = format!("ratelimit:webhook:{ip}");
    let n: u64 = con.incr(&key, 1).await?;
    con.expire(&key, RATE_LIMIT_WINDOW_SECS as i64).await?;
    Ok(n)
}
