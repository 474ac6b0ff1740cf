//! A webhook receiver that deduplicates in Redis with a read and a write.

use axum::{extract::State, http::StatusCode, Json};
use redis::AsyncCommands;

pub async fn receive(
    State(mut redis): State<redis::aio::ConnectionManager>,
    Json(event): Json<ProviderEvent>,
) -> StatusCode {
    let key = format!("webhook:event:{}", event.id);
    let seen: bool = redis.exists(&key).await.unwrap_or(false);
    if seen {
        return StatusCode::OK;
    }
    let _: Result<(), _> = redis::cmd("SET").arg(&key).arg(1).arg("EX").arg(40 * 86_400).query_async(&mut redis).await; // expect: check-then-insert
    enqueue(event).await;
    StatusCode::OK
}
