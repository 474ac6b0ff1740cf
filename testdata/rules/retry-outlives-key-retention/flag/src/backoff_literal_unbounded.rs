//! A `backoff` policy written as a struct literal that never gives up.
use backoff::ExponentialBackoff;

pub async fn top_up(http: &reqwest::Client, top_up: &TopUp) -> Result<(), Error> {
    let policy = ExponentialBackoff {
        max_elapsed_time: None, // expect: retry-outlives-key-retention
        ..ExponentialBackoff::default()
    };
    backoff::future::retry(policy, || async {
        http.post("https://api.stripe.com/v1/topups")
            .header("Idempotency-Key", &top_up.reference)
            .form(&top_up.params)
            .send()
            .await
            .map_err(backoff::Error::transient)
    })
    .await?;
    Ok(())
}
