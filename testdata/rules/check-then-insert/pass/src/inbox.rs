//! The same worker with the message id unique in the start-up schema: a
//! concurrent duplicate fails on the insert instead of paying twice.

use tokio_postgres::Client;

const SCHEMA: &str = "CREATE TABLE IF NOT EXISTS payout_inbox (message_id TEXT PRIMARY KEY, received_at TIMESTAMPTZ NOT NULL DEFAULT now())";

pub async fn init(client: &Client) -> Result<(), tokio_postgres::Error> {
    client.batch_execute(SCHEMA).await
}

pub async fn on_message(client: &Client, message_id: &str, payout: &Payout) -> anyhow::Result<()> {
    let seen = client
        .query_opt("SELECT 1 FROM payout_inbox WHERE message_id = $1", &[&message_id])
        .await?;
    if seen.is_some() {
        return Ok(());
    }
    client
        .execute("INSERT INTO payout_inbox (message_id) VALUES ($1)", &[&message_id])
        .await?;
    send_payout(payout).await
}
