//! Command wrappers over the shared client.

use super::pool::Kv;

impl Kv {
    /// Takes `key` for `ttl_secs` unless someone holds it already.
    pub async fn claim_once(&self, key: &str, ttl_secs: u64) -> redis::RedisResult<bool> {
        let mut conn = self.conn.clone();
        let set: Option<String> = redis::cmd("SET")
            .arg(key)
            .arg("1")
            .arg("NX")
            .arg("EX")
            .arg(ttl_secs)
            .query_async(&mut conn)
            .await?;
        Ok(set.is_some())
    }
}
