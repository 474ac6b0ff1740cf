//! Redis deduplication by one atomic command.

use axum::{extract::State, http::StatusCode, Json};
use redis::AsyncCommands;

pub async fn receive(
    State(mut redis): State<redis::aio::ConnectionManager>,
    Json(event): Json<ProviderEvent>,
) -> StatusCode {
    let key = format!("webhook:event:{}", event.id);
    let cached: Option<String> = redis.get(&key).await.unwrap_or(None);
    if cached.is_some() {
        return StatusCode::OK;
    }
    let fresh: bool = redis::cmd("SET").arg(&key).arg(1).arg("NX").arg("EX").arg(40 * 86_400).query_async(&mut redis).await.unwrap_or(false);
    if fresh {
        enqueue(event).await;
    }
    StatusCode::OK
}
