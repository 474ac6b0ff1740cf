// A charge client that remembers the Idempotency-Key it sent for an order,
// so that a retry of the same order sends the same key. Nothing in the names
// says "sent" or "outbound": the key goes to Stripe through
// `RequestStrategy::Idempotent`, and Stripe API v1 keeps a key at least
// 24 hours, so remembering it for 24 hours is right.
const STRIPE_IDEMPOTENCY_KEY_TTL_SECS: u64 = 24 * 60 * 60;

pub async fn charge(
    redis: &mut redis::aio::ConnectionManager,
    client: &stripe::Client,
    order_id: &str,
) -> anyhow::Result<()> {
    let cache_key = format!("stripe:idempotency:{order_id}");
    let fresh = uuid::Uuid::new_v4().to_string();
    let _: Option<String> = redis::cmd("SET")
        .arg(&cache_key)
        .arg(&fresh)
        .arg("NX")
        .arg("EX")
        .arg(STRIPE_IDEMPOTENCY_KEY_TTL_SECS)
        .query_async(redis)
        .await?;
    let key: String = redis::cmd("GET").arg(&cache_key).query_async(redis).await?;
    let client = client
        .clone()
        .with_strategy(stripe::RequestStrategy::Idempotent(key));
    stripe::PaymentIntent::create(&client, Default::default()).await?;
    Ok(())
}

// The same with reqwest: the key cached for a payout is sent as a header.
const PAYOUT_KEY_TTL_SECS: u64 = 86_400;

pub async fn payout(
    redis: &mut redis::aio::ConnectionManager,
    http: &reqwest::Client,
    payout_id: &str,
    key: &str,
) -> anyhow::Result<()> {
    redis
        .set_ex(format!("stripe:idempotency:payout:{payout_id}"), key, PAYOUT_KEY_TTL_SECS)
        .await?;
    http.post("https://api.stripe.com/v1/payouts")
        .header("Idempotency-Key", key)
        .send()
        .await?;
    Ok(())
}
