//! Claims a payment request's idempotency key in Redis, per merchant.
use redis::AsyncCommands;

pub struct PaymentRequest {
    pub merchant_id: String,
    pub idempotency_key: String,
}

pub async fn claim(
    con: &mut redis::aio::MultiplexedConnection,
    req: &PaymentRequest,
) -> redis::RedisResult<bool> {
    let key = format!("idem:{}:{}", req.merchant_id, req.idempotency_key);
    con.set_nx(&key, "started").await
}

pub async fn claim_inline(
    con: &mut redis::aio::MultiplexedConnection,
    tenant: &str,
    key: &str,
) -> redis::RedisResult<bool> {
    con.set_nx(format!("idem:{tenant}:{key}"), "started").await
}

/// The caller is folded into the key before the prefix is added.
pub async fn claim_scoped(
    con: &mut redis::aio::MultiplexedConnection,
    account_id: &str,
    key: &str,
) -> redis::RedisResult<bool> {
    let scoped = format!("{account_id}:{key}");
    con.set_nx(format!("idempotency:{}", scoped), "started").await
}

/// A digest of the caller and the key: scoped by construction.
pub async fn claim_digest(
    con: &mut redis::aio::MultiplexedConnection,
    request_hash: &str,
) -> redis::RedisResult<bool> {
    con.set_nx(format!("idem:{}", request_hash), "started").await
}

/// The lock of a claim in progress, not the key's record.
pub async fn lock(
    con: &mut redis::aio::MultiplexedConnection,
    merchant_id: &str,
    key: &str,
) -> redis::RedisResult<bool> {
    tracing::debug!(merchant_id, "locking");
    con.set_nx(format!("idem:lock:{key}"), "1").await
}
