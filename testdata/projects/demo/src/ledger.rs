//! Moves the money for a transfer, then remembers the request key.

use crate::api::transfers::Transfer;

pub async fn transfer(
    key: &str,
    amount: i64,
    currency: &str,
    destination: &str,
) -> Result<Transfer, stripe::StripeError> {
    let client = stripe::Client::new(std::env::var("STRIPE_SECRET_KEY").unwrap_or_default());
    let mut params = stripe::CreateTransfer::new(stripe::Currency::from_str(currency)?, destination.to_string());
    params.amount = Some(amount);
    let created = stripe::Transfer::create(&client, params).await?;
    let pool = crate::db::pool().await;
    sqlx::query("INSERT INTO idempotency_keys (idempotency_key, merchant_id, response_status) VALUES ($1, $2, 201)")
        .bind(key)
        .bind(merchant_of(destination))
        .execute(pool)
        .await
        .ok();
    Ok(Transfer {
        id: created.id.to_string(),
        idempotency_key: key.to_string(),
    })
}
