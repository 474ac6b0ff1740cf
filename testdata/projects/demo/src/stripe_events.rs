//! Stripe webhook deduplication on the cache Redis: a read, then a write.

use redis::AsyncCommands;

pub async fn first_delivery(redis: &mut redis::aio::ConnectionManager, event_id: &str) -> bool {
    let key = format!("dedup:stripe:{event_id}");
    let seen: bool = redis.exists(&key).await.unwrap_or(true);
    if seen {
        return false;
    }
    let _: Result<(), _> = redis.set(&key, 1).await;
    true
}
