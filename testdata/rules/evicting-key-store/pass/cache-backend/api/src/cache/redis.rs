use redis::AsyncCommands;

pub struct RedisCache {
    pool: redis::aio::ConnectionManager,
}

impl RedisCache {
    pub async fn get(&self, key: &str) -> Option<Vec<u8>> {
        let mut con = self.pool.clone();
        con.get(key).await.ok()
    }

    pub async fn put(&self, key: &str, value: &[u8], ttl: std::time::Duration) {
        let mut con = self.pool.clone();
        let _: Result<(), _> = con.set_ex(key, value, ttl.as_secs()).await;
    }
}
