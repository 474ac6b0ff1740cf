// Responses are kept 35 days (the default 30-day horizon and a 5-day margin):
// this fixture is about the order of claim, effect and record, not retention.
//! An axum middleware that claims the header's key with `SET NX` before
//! the handler runs, then stores the response under it.

use axum::{extract::{Request, State}, middleware::Next, response::Response};
use redis::{AsyncCommands, SetExpiry, SetOptions, ExistenceCheck};

pub async fn claim_then_run(
    State(mut redis): State<redis::aio::ConnectionManager>,
    req: Request,
    next: Next,
) -> Result<Response, AppError> {
    let Some(key) = req.headers().get("Idempotency-Key").and_then(|v| v.to_str().ok()).map(str::to_owned) else {
        return Ok(next.run(req).await);
    };
    let slot = format!("replies:{key}");
    let opts = SetOptions::default()
        .conditional_set(ExistenceCheck::NX)
        .with_expiration(SetExpiry::EX(3_024_000));
    let fresh: bool = redis.set_options(&slot, "in-flight", opts).await?;
    if !fresh {
        return replay_or_conflict(&mut redis, &slot).await;
    }
    let response = next.run(req).await;
    let (response, bytes) = encode_response(response).await?;
    let _: () = redis.set_ex(&slot, bytes, 3_024_000).await?;
    Ok(response)
}
