// The keys this service sends to Stripe, remembered so that a retry of the
// same charge reuses the same `Idempotency-Key`. Stripe API v1 keeps a key at
// least 24 hours, so remembering it for 24 hours is enough.
const STRIPE_IDEMPOTENCY_KEY_SENT_TTL_SECS: u64 = 24 * 60 * 60;

pub async fn remember_sent_key(
    redis: &mut redis::aio::ConnectionManager,
    charge_id: &str,
    key: &str,
) -> redis::RedisResult<()> {
    let cache_key = format!("stripe:api:idempotency:sent:{charge_id}");
    redis
        .set_ex(&cache_key, key, STRIPE_IDEMPOTENCY_KEY_SENT_TTL_SECS)
        .await
}
