//! Idempotency middleware that caches responses in Redis after the handler ran.

use axum::{body::Body, extract::Request, middleware::Next, response::Response};
use redis::AsyncCommands;
use std::task::{Context, Poll};

pub async fn idempotency(
    mut redis: redis::aio::ConnectionManager,
    req: Request,
    next: Next,
) -> Result<Response, StatusCode> {
    let Some(id) = req.headers().get("Idempotency-Key").cloned() else {
        return Ok(next.run(req).await);
    };
    let key = format!("idem:resp:{}", id.to_str().unwrap_or_default());
    let cached: Option<Vec<u8>> = redis.get(&key).await.map_err(internal)?;
    if let Some(bytes) = cached {
        return Ok(replay(bytes));
    }
    let response = next.run(req).await;
    let (parts, bytes) = buffer(response).await?;
    let _: () = redis.set(&key, encode(&parts, &bytes)).await.map_err(internal)?; // expect: key-recorded-after-effect, check-then-insert
    Ok(rebuild(parts, bytes))
}

/// A tower layer's service: stores the response only when the inner call succeeded.
pub struct IdempotencyService<S> {
    inner: S,
    redis: redis::aio::MultiplexedConnection,
}

impl<S> tower::Service<Request> for IdempotencyService<S>
where
    S: tower::Service<Request, Response = Response> + Clone + Send + 'static,
{
    type Response = Response;
    type Error = S::Error;
    type Future = BoxFuture<Result<Response, S::Error>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, req: Request) -> Self::Future {
        let mut inner = self.inner.clone();
        let mut redis = self.redis.clone();
        Box::pin(async move {
            let key = format!("idempotency:{}", header_key(&req));
            match inner.call(req).await {
                Ok(resp) => {
                    let _: Result<(), _> = redis.set_ex(&key, snapshot(&resp), 40 * 86_400).await; // expect: key-recorded-after-effect
                    Ok(resp)
                }
                Err(e) => Err(e),
            }
        })
    }
}
