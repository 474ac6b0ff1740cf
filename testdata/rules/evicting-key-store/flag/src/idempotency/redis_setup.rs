//! Boot-time setup of the Redis that holds idempotency keys.

pub fn configure(conn: &mut redis::Connection) -> redis::RedisResult<()> {
    redis::cmd("CONFIG")
        .arg("SET")
        .arg("maxmemory-policy")
        .arg("allkeys-lru") // expect: evicting-key-store
        .query(conn)
}
