//! A webhook handler that books the ledger in one transaction and records
//! the event afterwards, on the pool.

use actix_web::{post, web, HttpResponse};
use sqlx::PgPool;

#[post("/webhooks/payments")]
pub async fn payment_webhook(pool: web::Data<PgPool>, body: web::Json<PaymentEvent>) -> HttpResponse {
    let event = body.into_inner();
    let mut tx = pool.begin().await.expect("begin");
    sqlx::query("INSERT INTO ledger_entries (account_id, amount, event_id) VALUES ($1, $2, $3)")
        .bind(event.account_id)
        .bind(event.amount)
        .bind(&event.id)
        .execute(&mut *tx)
        .await
        .expect("ledger");
    tx.commit().await.expect("commit");
    sqlx::query("INSERT INTO webhook_events (event_id) VALUES ($1) ON CONFLICT DO NOTHING") // expect: key-recorded-after-effect
        .bind(&event.id)
        .execute(pool.get_ref())
        .await
        .expect("record");
    HttpResponse::Ok().finish()
}

/// A queue consumer that books in SQL and remembers the message in Redis.
pub async fn consume(pool: &PgPool, redis: &mut redis::aio::MultiplexedConnection, msg: Delivery) -> anyhow::Result<()> {
    let event: Transfer = serde_json::from_slice(&msg.data)?;
    sqlx::query("UPDATE balances SET amount = amount - $2 WHERE account_id = $1")
        .bind(event.account_id)
        .bind(event.amount)
        .execute(pool)
        .await?;
    let _: () = redis::cmd("SET") // expect: key-recorded-after-effect
        .arg(format!("dedup:transfer:{}", event.id))
        .arg(1)
        .query_async(redis)
        .await?;
    Ok(())
}
