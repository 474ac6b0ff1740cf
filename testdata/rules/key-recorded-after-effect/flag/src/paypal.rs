//! Capturing a PayPal order from a checkout callback: the capture runs first
//! and the key is remembered only once PayPal has answered.

use paypal_rs::api::orders::CaptureOrder;
use paypal_rs::Client;
use sqlx::PgPool;

pub async fn capture_checkout(pool: &PgPool, paypal: &mut Client, order_id: &str, idempotency_key: &str) -> anyhow::Result<()> {
    let seen: Option<(String,)> = sqlx::query_as("SELECT idempotency_key FROM idempotency_keys WHERE idempotency_key = $1")
        .bind(idempotency_key)
        .fetch_optional(pool)
        .await?;
    if seen.is_some() {
        return Ok(());
    }
    let captured = paypal.execute(&CaptureOrder::new(order_id)).await?;
    sqlx::query("INSERT INTO idempotency_keys (idempotency_key, response) VALUES ($1, $2)") // expect: key-recorded-after-effect
        .bind(idempotency_key)
        .bind(serde_json::to_value(&captured)?)
        .execute(pool)
        .await?;
    Ok(())
}
