//! The relay's Redis connection, shared by its cache and its queue.

pub struct RedisConn(redis::aio::ConnectionManager);

impl RedisConn {
    pub async fn open(dsn: &str) -> redis::RedisResult<RedisConn> {
        let client = redis::Client::open(dsn)?;
        let mut con = redis::aio::ConnectionManager::new(client).await?;
        let _: () = redis::cmd("CONFIG")
            .arg("SET")
            .arg("maxmemory-policy")
            .arg("allkeys-random") // expect: evicting-key-store
            .query_async(&mut con)
            .await?;
        Ok(RedisConn(con))
    }

    pub fn handle(&self) -> redis::aio::ConnectionManager {
        self.0.clone()
    }
}
