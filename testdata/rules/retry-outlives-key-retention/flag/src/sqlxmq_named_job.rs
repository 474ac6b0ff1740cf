//! A sqlxmq job with a name before its options: 10 retries from an hour,
//! doubling (sqlxmq's own SQL doubles the backoff after each attempt):
//! 1 + 2 + … + 512 h = 1,023 h, about 43 days, past Adyen's 31.
use sqlxmq::{job, CurrentJob};

#[job("payouts.adyen", retries = 10, backoff_secs = 3600)] // expect: retry-outlives-key-retention
pub async fn adyen_transfer(mut current: CurrentJob) -> Result<(), Error> {
    let args: TransferArgs = current.json()?.ok_or(Error::NoArgs)?;
    reqwest::Client::new()
        .post("https://balanceplatform-api-test.adyen.com/btl/v4/transfers")
        .header("Idempotency-Key", &args.reference)
        .json(&args.body)
        .send()
        .await?
        .error_for_status()?;
    current.complete().await?;
    Ok(())
}
