//! The rendered-page cache: an LRU by design, nothing here must survive
//! memory pressure.

pub async fn page_cache(url: &str) -> redis::RedisResult<redis::aio::ConnectionManager> {
    let client = redis::Client::open(url)?;
    let mut conn = redis::aio::ConnectionManager::new(client).await?;
    let _: () = redis::cmd("CONFIG")
        .arg("SET")
        .arg("maxmemory-policy")
        .arg("allkeys-lru")
        .query_async(&mut conn)
        .await?;
    Ok(conn)
}
