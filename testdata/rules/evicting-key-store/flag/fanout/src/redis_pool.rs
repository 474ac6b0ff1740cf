//! The fred pool every notifier task shares.

use fred::prelude::*;

pub async fn pool(config: RedisConfig) -> Result<RedisPool, RedisError> {
    let pool = Builder::from_config(config).build_pool(4)?;
    pool.init().await?;
    pool.config_set::<(), _, _>("maxmemory-policy", "volatile-lru") // expect: evicting-key-store
        .await?;
    Ok(pool)
}
