//! Claim, charge, store the response: in one transaction, the claim made by
//! a helper two calls deep in another module.

use crate::idempotency;
use axum::extract::State;
use axum::Json;
use sqlx::PgPool;

pub async fn create_payment(
    State(pool): State<PgPool>,
    headers: axum::http::HeaderMap,
    Json(req): Json<PaymentRequest>,
) -> Result<Json<Receipt>, ApiError> {
    let key = header_key(&headers)?;
    let mut tx = pool.begin().await?;
    if !idempotency::begin(&mut tx, &key).await? {
        return replay(&pool, &key).await;
    }
    let intent = stripe::PaymentIntent::create(&stripe_client(), req.params()).await?;
    let receipt = apply_charge(&mut tx, &req, &intent).await?;
    sqlx::query("UPDATE idempotency_keys SET response = $2 WHERE key = $1")
        .bind(&key)
        .bind(sqlx::types::Json(&receipt))
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;
    Ok(Json(receipt))
}

async fn apply_charge(
    tx: &mut sqlx::PgConnection,
    req: &PaymentRequest,
    intent: &stripe::PaymentIntent,
) -> Result<Receipt, ApiError> {
    sqlx::query("INSERT INTO payments (account_id, amount) VALUES ($1, $2)")
        .bind(req.account_id)
        .bind(req.amount)
        .execute(&mut *tx)
        .await?;
    Ok(Receipt::new(req, intent))
}

/// The effect first, then the key — but in the effect's own open
/// transaction: the two commit together and a duplicate rolls both back.
pub async fn book_transfer(pool: &PgPool, t: &Transfer) -> anyhow::Result<()> {
    let mut tx = pool.begin().await?;
    sqlx::query("INSERT INTO transfers (id, amount) VALUES ($1, $2)")
        .bind(t.id)
        .bind(t.amount)
        .execute(&mut *tx)
        .await?;
    sqlx::query("INSERT INTO idempotency_keys (key) VALUES ($1)")
        .bind(&t.key)
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;
    Ok(())
}

/// A call the effect catalogue does not know is not an effect.
pub async fn settle(pool: &PgPool, bank: &BankLink, id: &str) -> anyhow::Result<()> {
    bank.settle_batch(id).await?;
    sqlx::query("INSERT INTO idempotency_keys (key) VALUES ($1)")
        .bind(id)
        .execute(pool)
        .await?;
    Ok(())
}
