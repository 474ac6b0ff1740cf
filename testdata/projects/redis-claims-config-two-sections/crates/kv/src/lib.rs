//! The workspace's Redis wrapper: every crate reaches Redis through it.

pub struct Settings {
    pub host: String,
    pub port: u16,
}

pub struct KvPool {
    conn: redis::aio::ConnectionManager,
}

impl KvPool {
    pub async fn new(settings: &Settings) -> redis::RedisResult<KvPool> {
        let url = format!("redis://{}:{}", settings.host, settings.port);
        let conn = redis::aio::ConnectionManager::new(redis::Client::open(url)?).await?;
        Ok(KvPool { conn })
    }

    /// Sets `key` only when it is absent, with an expiry.
    pub async fn put_if_absent_for(&self, key: &str, value: &str, secs: u64) -> redis::RedisResult<bool> {
        let mut conn = self.conn.clone();
        let reply: Option<String> = redis::cmd("SET")
            .arg(key)
            .arg(value)
            .arg("NX")
            .arg("EX")
            .arg(secs)
            .query_async(&mut conn)
            .await?;
        Ok(reply.is_some())
    }
}
