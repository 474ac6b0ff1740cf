//! The cache's Redis backend.

use crate::redis_conn::RedisConn;
use redis::AsyncCommands;

pub struct RedisCache {
    conn: RedisConn,
}

impl RedisCache {
    pub async fn get(&self, key: &str) -> Option<Vec<u8>> {
        self.conn.handle().get(key).await.ok()
    }

    pub async fn put(&self, key: &str, value: &[u8], secs: u64) {
        let _: redis::RedisResult<()> = self.conn.handle().set_ex(key, value, secs).await;
    }
}
