//! A checkout service generic over its gateway; the Stripe gateway is the
//! one the workspace implements. The capture runs before the key is kept.

use sqlx::PgPool;

pub trait PaymentGateway {
    async fn capture(&self, intent_id: &str) -> anyhow::Result<()>;
}

pub struct StripeGateway {
    client: stripe::Client,
}

impl PaymentGateway for StripeGateway {
    async fn capture(&self, intent_id: &str) -> anyhow::Result<()> {
        let id = intent_id.parse()?;
        stripe::PaymentIntent::capture(&self.client, &id, Default::default()).await?;
        Ok(())
    }
}

pub struct CheckoutService<G: PaymentGateway> {
    gateway: G,
    pool: PgPool,
}

impl<G: PaymentGateway> CheckoutService<G> {
    pub async fn complete(&self, key: &str, intent_id: &str) -> anyhow::Result<()> {
        let done: Option<(i64,)> = sqlx::query_as("SELECT 1 FROM idempotency_keys WHERE key = $1")
            .bind(key)
            .fetch_optional(&self.pool)
            .await?;
        if done.is_some() {
            return Ok(());
        }
        self.gateway.capture(intent_id).await?;
        sqlx::query("INSERT INTO idempotency_keys (key) VALUES ($1)") // expect: key-recorded-after-effect
            .bind(key)
            .execute(&self.pool)
            .await?;
        Ok(())
    }
}

/// The same, with the gateway a generic parameter of the function.
pub async fn capture_order<P>(psp: &P, pool: &PgPool, key: &str, intent_id: &str) -> anyhow::Result<()>
where
    P: PaymentGateway + Sync,
{
    psp.capture(intent_id).await?;
    sqlx::query("INSERT INTO idempotency_keys (key) VALUES ($1) ON CONFLICT DO NOTHING") // expect: key-recorded-after-effect
        .bind(key)
        .execute(pool)
        .await?;
    Ok(())
}
