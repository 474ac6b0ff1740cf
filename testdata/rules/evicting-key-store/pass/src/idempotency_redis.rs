//! Boot-time setup of the Redis that holds idempotency keys: never evict,
//! and refuse requests when a key cannot be written.

pub fn configure(conn: &mut redis::Connection) -> redis::RedisResult<()> {
    redis::cmd("CONFIG")
        .arg("SET")
        .arg("maxmemory-policy")
        .arg("noeviction")
        .query(conn)
}

/// The current policy, for the health check.
pub fn policy(conn: &mut redis::Connection) -> redis::RedisResult<Vec<String>> {
    redis::cmd("CONFIG").arg("GET").arg("maxmemory-policy").query(conn)
}
