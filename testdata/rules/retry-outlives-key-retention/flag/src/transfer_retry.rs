//! Transfers retried with `backoff`. The request and its key are built in
//! `transfer_client.rs`: this file names no key itself.
use crate::transfer_client::send_transfer;
use backoff::ExponentialBackoff;

pub async fn transfer_with_retry(http: &reqwest::Client, t: &Transfer) -> Result<(), Error> {
    let policy = ExponentialBackoff {
        max_elapsed_time: None, // expect: retry-outlives-key-retention
        ..ExponentialBackoff::default()
    };
    backoff::future::retry(policy, || async {
        send_transfer(http, t)
            .await
            .map_err(backoff::Error::transient)
    })
    .await?;
    Ok(())
}
