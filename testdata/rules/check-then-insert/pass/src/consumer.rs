//! The same consumer against a table whose key is guarded: the second
//! insert of a race fails on the primary key (catch it and ack as a replay).

use lapin::{options::BasicAckOptions, message::Delivery};
use sqlx::PgPool;

pub async fn handle_delivery(pool: &PgPool, delivery: Delivery) -> anyhow::Result<()> {
    let event: OrderEvent = serde_json::from_slice(&delivery.data)?;
    let seen: bool = sqlx::query_scalar("SELECT EXISTS (SELECT 1 FROM processed_events WHERE event_id = $1)")
        .bind(&event.id)
        .fetch_one(pool)
        .await?;
    if seen {
        delivery.ack(BasicAckOptions::default()).await?;
        return Ok(());
    }
    if let Err(e) = sqlx::query("INSERT INTO processed_events (event_id) VALUES ($1)")
        .bind(&event.id)
        .execute(pool)
        .await
    {
        return replay_or_fail(e, delivery).await;
    }
    fulfil(pool, &event).await?;
    Ok(())
}

/// A check before an atomic claim is only a shortcut.
pub async fn handle_with_claim(pool: &PgPool, id: &str) -> anyhow::Result<()> {
    let seen: Option<(String,)> = sqlx::query_as("SELECT event_id FROM processed_events WHERE event_id = $1")
        .bind(id)
        .fetch_optional(pool)
        .await?;
    if seen.is_some() {
        return Ok(());
    }
    sqlx::query("INSERT INTO processed_events (event_id) VALUES ($1) ON CONFLICT DO NOTHING")
        .bind(id)
        .execute(pool)
        .await?;
    Ok(())
}
