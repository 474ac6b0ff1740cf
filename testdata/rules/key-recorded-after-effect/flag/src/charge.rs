//! An axum handler that looks the key up, charges, and only then records it.

use axum::extract::State;
use axum::http::HeaderMap;
use axum::Json;
use sqlx::PgPool;
use stripe::{Charge, CreateCharge};

pub async fn create_charge(
    State(pool): State<PgPool>,
    State(stripe): State<stripe::Client>,
    headers: HeaderMap,
    Json(req): Json<ChargeRequest>,
) -> Result<Json<ChargeResponse>, ApiError> {
    let key = idempotency_key(&headers)?;
    let cached: Option<ChargeResponse> =
        sqlx::query_as("SELECT response FROM idempotency_keys WHERE key = $1")
            .bind(&key)
            .fetch_optional(&pool)
            .await?;
    if let Some(resp) = cached {
        return Ok(Json(resp));
    }
    let charge = Charge::create(&stripe, CreateCharge::from(&req)).await?;
    let resp = ChargeResponse::from(&charge);
    sqlx::query("INSERT INTO idempotency_keys (key, response) VALUES ($1, $2)") // expect: key-recorded-after-effect
        .bind(&key)
        .bind(sqlx::types::Json(&resp))
        .execute(&pool)
        .await?;
    Ok(Json(resp))
}
