//! Stripe webhook deduplication: claims the event id in Redis for a day.

const STRIPE_EVENT_TTL: u64 = 24 * 60 * 60; // expect: ttl-below-replay-horizon

pub async fn claim_stripe_event(con: &mut redis::aio::MultiplexedConnection, event_id: &str) -> redis::RedisResult<bool> {
    let key = format!("idem:stripe:event:{event_id}");
    redis::cmd("SET")
        .arg(&key)
        .arg("1")
        .arg("NX")
        .arg("EX")
        .arg(STRIPE_EVENT_TTL)
        .query_async(con)
        .await
}
