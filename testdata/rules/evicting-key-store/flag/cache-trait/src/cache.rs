//! The response cache and its backends.

use async_trait::async_trait;
use redis::AsyncCommands;

#[async_trait]
pub trait ResponseCache {
    async fn load(&self, key: &str) -> Option<Vec<u8>>;
    async fn save(&self, key: &str, value: &[u8]);
}

pub struct RedisCache {
    con: redis::aio::ConnectionManager,
}

#[async_trait]
impl ResponseCache for RedisCache {
    async fn load(&self, key: &str) -> Option<Vec<u8>> {
        self.con.clone().get(key).await.ok()
    }

    async fn save(&self, key: &str, value: &[u8]) {
        let _: Result<(), _> = self.con.clone().set(key, value).await;
    }
}
