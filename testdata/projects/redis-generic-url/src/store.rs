pub struct IdempotencyStore {
    con: redis::aio::MultiplexedConnection,
}

impl IdempotencyStore {
    pub async fn connect(url: &str) -> redis::RedisResult<Self> {
        let client = redis::Client::open(url)?;
        Ok(Self { con: client.get_multiplexed_async_connection().await? })
    }
}
