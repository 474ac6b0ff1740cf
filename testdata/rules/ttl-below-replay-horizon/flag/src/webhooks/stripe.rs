//! Stripe webhook receiver: claims each event id in Redis before applying it.

use crate::settings::{SESSION_TTL_SECS, STRIPE_EVENT_TTL_SECS};
use redis::AsyncCommands;

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

pub async fn remember_paypal_event(con: &mut redis::aio::MultiplexedConnection, id: &str) -> redis::RedisResult<()> {
    con.set_ex(format!("dedup:paypal:{id}"), 1, 3 * 60 * 60).await // expect: ttl-below-replay-horizon
}

pub async fn touch_session(con: &mut redis::aio::MultiplexedConnection, sid: &str) -> redis::RedisResult<()> {
    con.set_ex(format!("session:{sid}"), 1, SESSION_TTL_SECS).await
}
