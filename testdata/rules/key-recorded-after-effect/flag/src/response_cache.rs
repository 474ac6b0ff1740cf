// Responses are kept 35 days (the default 30-day horizon and a 5-day margin):
// this fixture is about the order of claim, effect and record, not retention.
//! An axum middleware that replays stored responses: it runs the handler
//! first and stores the response under a key made from the request header,
//! with nothing claimed before the handler ran.

use axum::{body::Body, extract::{Request, State}, middleware::Next, response::Response};
use redis::AsyncCommands;

const HEADER: &str = "Idempotency-Key";

pub async fn replay_responses(
    State(mut cache): State<redis::aio::ConnectionManager>,
    req: Request,
    next: Next,
) -> Result<Response, AppError> {
    let Some(value) = req.headers().get(HEADER).and_then(|v| v.to_str().ok()).map(str::to_owned) else {
        return Ok(next.run(req).await);
    };
    let slot = format!("responses:{}:{}", req.uri().path(), value);
    let stored: Option<Vec<u8>> = cache.get(&slot).await?;
    if let Some(bytes) = stored {
        return Ok(decode_response(&bytes)?);
    }
    let response = next.run(req).await;
    let (response, bytes) = encode_response(response).await?;
    let _: () = cache.set_ex(&slot, bytes, 3_024_000).await?; // expect: key-recorded-after-effect, check-then-insert
    Ok(response)
}
