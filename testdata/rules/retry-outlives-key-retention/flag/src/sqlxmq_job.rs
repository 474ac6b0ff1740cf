//! A sqlxmq job: 10 retries from 10 minutes, doubling, about 7 days, sent
//! with async-stripe's idempotent request strategy (Stripe API v1).
use sqlxmq::{job, CurrentJob};
use stripe::{Client, RequestStrategy};

#[job(retries = 10, backoff_secs = 600.0)] // expect: retry-outlives-key-retention
pub async fn send_transfer(mut current: CurrentJob) -> Result<(), Error> {
    let args: TransferArgs = current.json()?.unwrap();
    let client = Client::new(secret()).with_strategy(RequestStrategy::Idempotent(args.key.clone()));
    stripe::Transfer::create(&client, args.params()).await?;
    current.complete().await?;
    Ok(())
}
