//! The Redis side of the idempotency cache: the claim is one `SET … NX PX`.

use std::time::Duration;

pub struct RedisCache {
    pool: bb8::Pool<bb8_redis::RedisConnectionManager>,
    client: fred::clients::Pool,
}

impl RedisCache {
    pub async fn set_if_not_exists(&self, key: &str, value: &[u8], ttl: Duration) -> anyhow::Result<bool> {
        let mut conn = self.pool.get().await?;
        let mut cmd = redis::Cmd::set(key, value);
        cmd.arg("PX").arg(ttl.as_millis() as u64).arg("NX");
        let reply: Option<String> = cmd.query_async(&mut *conn).await?;
        Ok(reply.is_some())
    }

    /// The same through fred.
    pub async fn set_key_if_not_exists_with_expiry(&self, key: &str, value: String, secs: i64) -> anyhow::Result<bool> {
        let set: Option<String> = self
            .client
            .set(key, value, Some(fred::types::Expiration::EX(secs)), Some(fred::types::SetOptions::NX), false)
            .await?;
        Ok(set.is_some())
    }
}
