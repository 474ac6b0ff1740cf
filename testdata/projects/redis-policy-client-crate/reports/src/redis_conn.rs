//! The report renderer's own Redis: rendered charts, recomputed on a miss.

pub async fn open(url: &str) -> redis::RedisResult<redis::aio::ConnectionManager> {
    let client = redis::Client::open(url)?;
    let mut con = redis::aio::ConnectionManager::new(client).await?;
    let _: () = redis::cmd("CONFIG")
        .arg("SET")
        .arg("maxmemory-policy")
        .arg("allkeys-lru")
        .query_async(&mut con)
        .await?;
    Ok(con)
}
