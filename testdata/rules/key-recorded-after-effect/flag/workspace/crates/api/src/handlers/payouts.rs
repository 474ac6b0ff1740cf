//! Payouts through the workspace's Adyen client crate: submitted first, the
//! key kept after.

use payments_client::AdyenClient;
use sqlx::PgPool;

pub async fn submit(adyen: &AdyenClient, pool: &PgPool, key: &str, req: &PayoutRequest) -> anyhow::Result<String> {
    let existing: Option<String> = sqlx::query_scalar("SELECT psp_reference FROM idempotency_keys WHERE key = $1")
        .bind(key)
        .fetch_optional(pool)
        .await?;
    if let Some(r) = existing {
        return Ok(r);
    }
    let result = adyen.submit_payout(&req.reference, req.amount, &req.currency).await?;
    sqlx::query("INSERT INTO idempotency_keys (key, psp_reference) VALUES ($1, $2)") // expect: key-recorded-after-effect
        .bind(key)
        .bind(&result.psp_reference)
        .execute(pool)
        .await?;
    Ok(result.psp_reference)
}
