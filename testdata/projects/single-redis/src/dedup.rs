//! Webhook deduplication: claim the Stripe event id in Redis before handling it.

use redis::AsyncCommands;

/// Stripe may resend an event for 30 days; keep ids past that.
const EVENT_ID_TTL_SECS: u64 = 40 * 24 * 60 * 60;

pub async fn claim_event(con: &mut redis::aio::MultiplexedConnection, event_id: &str) -> redis::RedisResult<bool> {
    let claimed: Option<String> = redis::cmd("SET")
        .arg(format!("idem:stripe:{event_id}"))
        .arg("1")
        .arg("NX")
        .arg("EX")
        .arg(EVENT_ID_TTL_SECS)
        .query_async(con)
        .await?;
    Ok(claimed.is_some())
}
