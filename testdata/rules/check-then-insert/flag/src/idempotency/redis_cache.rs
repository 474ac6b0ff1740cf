//! The Redis side of the idempotency cache. `set_if_not_exists` is what the
//! middleware claims keys with, but its `SET` carries only the expiry.

use std::time::Duration;

pub struct RedisCache {
    pool: bb8::Pool<bb8_redis::RedisConnectionManager>,
}

impl RedisCache {
    pub async fn set_if_not_exists(&self, key: &str, value: &[u8], ttl: Duration) -> anyhow::Result<bool> {
        let mut conn = self.pool.get().await?;
        let mut cmd = redis::Cmd::set(key, value); // expect: check-then-insert
        cmd.arg("PX").arg(ttl.as_millis() as u64);
        let reply: Option<String> = cmd.query_async(&mut *conn).await?;
        Ok(reply.is_some())
    }
}
