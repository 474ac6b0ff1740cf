//! An order-events consumer: asks whether the event was seen, then records it.

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
    sqlx::query("INSERT INTO processed_events (event_id) VALUES ($1)") // expect: check-then-insert
        .bind(&event.id)
        .execute(pool)
        .await?;
    fulfil(pool, &event).await?;
    delivery.ack(BasicAckOptions::default()).await?;
    Ok(())
}
