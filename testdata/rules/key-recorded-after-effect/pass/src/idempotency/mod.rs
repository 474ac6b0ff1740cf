//! The idempotency claim, behind a small API.

mod store;

pub async fn begin(tx: &mut sqlx::PgConnection, key: &str) -> Result<bool, sqlx::Error> {
    store::claim(tx, key).await
}
