//! Stripe webhook receiver. Each event id is claimed in Redis before the
//! event is applied, so a redelivered event is acknowledged and skipped.

use crate::AppState;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};

/// Stripe resends for up to 30 days; keep claims a little longer.
const EVENT_DEDUP_TTL_SECS: u64 = 35 * 24 * 60 * 60;

pub async fn receive(
    State(mut state): State<AppState>,
    headers: HeaderMap,
    body: String,
) -> StatusCode {
    let Some(event) = verify(&headers, &body, &state.webhook_secret) else {
        return StatusCode::BAD_REQUEST;
    };
    let first: Option<String> = match redis::cmd("SET")
        .arg(format!("stripe:event:{}", event.id))
        .arg(1)
        .arg("NX")
        .arg("EX")
        .arg(EVENT_DEDUP_TTL_SECS)
        .query_async(&mut state.redis)
        .await
    {
        Ok(v) => v,
        Err(_) => return StatusCode::SERVICE_UNAVAILABLE,
    };
    if first.is_none() {
        return StatusCode::OK;
    }
    apply(&event).await;
    StatusCode::OK
}

pub struct Event {
    pub id: String,
    pub kind: String,
}

fn verify(headers: &HeaderMap, body: &str, _secret: &str) -> Option<Event> {
    headers.get("Stripe-Signature")?;
    let id = body.split('"').nth(3)?.to_string();
    Some(Event { id, kind: "payment_intent.succeeded".to_string() })
}

async fn apply(_event: &Event) {}
