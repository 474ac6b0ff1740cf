//! A payout-events worker with no migration files: the inbox table is made at
//! start-up, keyed by a surrogate id only, and the worker asks before it
//! inserts.

use tokio_postgres::Client;

pub async fn init(client: &Client) -> Result<(), tokio_postgres::Error> {
    client
        .batch_execute(
            "CREATE TABLE IF NOT EXISTS payout_inbox (id BIGSERIAL PRIMARY KEY, message_id TEXT NOT NULL, received_at TIMESTAMPTZ NOT NULL DEFAULT now()) -- expect: missing-unique-key-constraint",
        )
        .await
}

pub async fn on_message(client: &Client, message_id: &str, payout: &Payout) -> anyhow::Result<()> {
    let seen = client
        .query_opt("SELECT 1 FROM payout_inbox WHERE message_id = $1", &[&message_id])
        .await?;
    if seen.is_some() {
        return Ok(());
    }
    client
        .execute("INSERT INTO payout_inbox (message_id) VALUES ($1)", &[&message_id]) // expect: check-then-insert
        .await?;
    send_payout(payout).await
}
