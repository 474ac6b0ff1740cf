//! A Stripe payout retried with backon's `FibonacciBuilder`: each delay is
//! the sum of the two before it, from a minute, at most an hour, 40 times.
//!
//! By hand, in minutes: 1 + 1 + 2 + 3 + 5 + 8 + 13 + 21 + 34 + 55 = 143 for
//! the first 10 delays, then 30 at the hour: 143 + 30 × 60 = 1,943 min,
//! 32 h 23 min, past Stripe API v1's 24 h. (backon lets the delay that
//! crosses the hour through, 55 + 34 = 89 min, and holds it there: 143 +
//! 30 × 89 = 2,813 min. idemlint counts 60, a lower bound.)
use backon::{FibonacciBuilder, Retryable};
use std::time::Duration;

pub async fn pay_out(http: &reqwest::Client, payout: &Payout) -> Result<Response, Error> {
    let policy = FibonacciBuilder::default()
        .with_min_delay(Duration::from_secs(60))
        .with_max_delay(Duration::from_secs(3600))
        .with_max_times(40); // expect: retry-outlives-key-retention
    (|| async {
        http.post("https://api.stripe.com/v1/payouts")
            .header("Idempotency-Key", &payout.reference)
            .form(&payout.params)
            .send()
            .await
    })
    .retry(policy)
    .await
}
