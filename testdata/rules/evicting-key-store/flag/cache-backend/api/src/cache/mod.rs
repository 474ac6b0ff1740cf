//! A key-value cache with a backend picked at start-up.

pub mod memory;
pub mod redis;

pub enum Cache {
    Memory(memory::MemoryCache),
    Redis(redis::RedisCache),
}

impl Cache {
    pub async fn get(&self, key: &str) -> Option<Vec<u8>> {
        match self {
            Cache::Memory(m) => m.get(key),
            Cache::Redis(r) => r.get(key).await,
        }
    }

    pub async fn put(&self, key: &str, value: &[u8], ttl: std::time::Duration) {
        match self {
            Cache::Memory(m) => m.put(key, value),
            Cache::Redis(r) => r.put(key, value, ttl).await,
        }
    }
}
