//! Answers a retried POST with the reply the first attempt produced. The
//! reply cache is keyed by what the caller sent in `Idempotency-Key`.

use axum::http::{HeaderMap, StatusCode};
use redis::AsyncCommands;

const REPLY_TTL_SECS: u64 = 60 * 60 * 24;

pub async fn cached_reply(
    headers: &HeaderMap,
    con: &mut redis::aio::MultiplexedConnection,
) -> Result<Option<String>, StatusCode> {
    let Some(token) = headers.get("Idempotency-Key").and_then(|v| v.to_str().ok()) else {
        return Err(StatusCode::BAD_REQUEST);
    };
    let slot = format!("rc:v2:{token}");
    let hit: Option<String> = con.get(&slot).await.map_err(|_| StatusCode::BAD_GATEWAY)?;
    Ok(hit)
}

pub async fn keep_reply(
    headers: &HeaderMap,
    con: &mut redis::aio::MultiplexedConnection,
    body: &str,
) -> redis::RedisResult<()> {
    let token = headers
        .get("Idempotency-Key")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default();
    let slot = format!("rc:v2:{}", token);
    con.set_ex::<_, _, ()>(&slot, body, REPLY_TTL_SECS).await // expect: ttl-below-replay-horizon
}
