//! Claims a payment request's idempotency key in Redis before the charge runs.
use redis::AsyncCommands;

pub struct PaymentRequest {
    pub merchant_id: String,
    pub idempotency_key: String,
    pub amount_minor: i64,
}

/// The merchant is known here, yet the key is shared by every merchant.
pub async fn claim(
    con: &mut redis::aio::MultiplexedConnection,
    req: &PaymentRequest,
) -> redis::RedisResult<bool> {
    tracing::debug!(merchant = %req.merchant_id, "claiming idempotency key");
    let key = format!("idem:{}", req.idempotency_key); // expect: unscoped-idempotency-key
    con.set_nx(&key, "started").await
}

/// A single-caller service: no caller is at hand, so this is only a note.
pub async fn remember(
    con: &mut redis::aio::MultiplexedConnection,
    key: &str,
    body: &str,
) -> redis::RedisResult<bool> {
    con.set_nx(format!("idempotency:{key}"), body).await // expect: unscoped-idempotency-key
}
