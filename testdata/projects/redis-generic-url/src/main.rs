//! Payments API: request keys in Redis, rendered pages in a cache that may
//! forget anything.

mod store;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let keys = store::IdempotencyStore::connect(&std::env::var("REDIS_URL")?).await?;
    let pages = redis::Client::open(std::env::var("CACHE_URL")?)?;
    api::serve(keys, pages).await
}
