//! A key-value cache whose backend the configuration picks.

pub mod redis;

pub enum Cache {
    Redis(redis::RedisCache),
    Disabled,
}

impl Cache {
    pub async fn get(&self, key: &str) -> Option<Vec<u8>> {
        match self {
            Cache::Redis(r) => r.get(key).await,
            Cache::Disabled => None,
        }
    }

    pub async fn put(&self, key: &str, value: &[u8], secs: u64) {
        if let Cache::Redis(r) = self {
            r.put(key, value, secs).await;
        }
    }
}
