//! sqlxmq jobs whose attribute options end the retries early, and one whose
//! `proto` may set the count, which is then not read:
//!
//! - refunds: 3 retries from 2 s, doubling: 2 + 4 + 8 = 14 s;
//! - transfers: 6 retries from 30 s: 30 × (1 + 2 + … + 32) = 1,890 s,
//!   about half an hour;
//! - settlements: the backoff is written, the count comes from `slow`.
use sqlxmq::{job, CurrentJob, JobBuilder};

#[job(retries = 3, backoff_secs = 2)]
pub async fn refund(mut current: CurrentJob) -> Result<(), Error> {
    let args: RefundArgs = current.json()?.ok_or(Error::NoArgs)?;
    reqwest::Client::new()
        .post("https://api.stripe.com/v1/refunds")
        .header("Idempotency-Key", &args.reference)
        .form(&args.params)
        .send()
        .await?;
    current.complete().await?;
    Ok(())
}

#[job(channel_name = "transfers", retries = 6, backoff_secs = 30.0)]
pub async fn transfer(mut current: CurrentJob) -> Result<(), Error> {
    let args: TransferArgs = current.json()?.ok_or(Error::NoArgs)?;
    reqwest::Client::new()
        .post("https://api.stripe.com/v1/transfers")
        .header("Idempotency-Key", &args.reference)
        .form(&args.params)
        .send()
        .await?;
    current.complete().await?;
    Ok(())
}

fn slow<'a, 'b>(builder: &'a mut JobBuilder<'b>) -> &'a mut JobBuilder<'b> {
    builder.set_retries(1).set_channel_name("settlements")
}

#[job(proto(slow), backoff_secs = 7200)]
pub async fn settle(mut current: CurrentJob) -> Result<(), Error> {
    let args: SettleArgs = current.json()?.ok_or(Error::NoArgs)?;
    reqwest::Client::new()
        .post("https://api.stripe.com/v1/payouts")
        .header("Idempotency-Key", &args.reference)
        .form(&args.params)
        .send()
        .await?;
    current.complete().await?;
    Ok(())
}
