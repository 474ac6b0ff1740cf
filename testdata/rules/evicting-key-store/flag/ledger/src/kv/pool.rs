//! The ledger's Redis client: opened once at start-up and shared by every
//! command wrapper in `kv::commands`.

use redis::aio::ConnectionManager;

pub struct Kv {
    pub(crate) conn: ConnectionManager,
}

impl Kv {
    pub async fn connect(url: &str) -> redis::RedisResult<Kv> {
        let client = redis::Client::open(url)?;
        let mut conn = ConnectionManager::new(client).await?;
        // Keep memory bounded on small instances.
        let _: () = redis::cmd("CONFIG")
            .arg("SET")
            .arg("maxmemory-policy")
            .arg("allkeys-lru") // expect: evicting-key-store
            .query_async(&mut conn)
            .await?;
        Ok(Kv { conn })
    }
}
