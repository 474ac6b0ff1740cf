//! A background task that purges old Stripe idempotency keys every hour.

pub async fn reap_stripe_idempotency_keys(pool: &sqlx::PgPool) -> Result<(), sqlx::Error> {
    loop {
        sqlx::query("DELETE FROM stripe_idempotency_keys WHERE created_at < now() - interval '24 hours'") // expect: ttl-below-replay-horizon
            .execute(pool)
            .await?;
        tokio::time::sleep(std::time::Duration::from_secs(3600)).await;
    }
}
