//! backon's `FibonacciBuilder` at its defaults (from 1 s, at most 60 s)
//! with 10 tries. By hand: 1 + 1 + 2 + 3 + 5 + 8 + 13 + 21 + 34 + 55 =
//! 143 s, under two and a half minutes, well inside Stripe API v1's 24 h.
use backon::{FibonacciBuilder, Retryable};

pub async fn pay_out(http: &reqwest::Client, payout: &Payout) -> Result<Response, Error> {
    (|| async {
        http.post("https://api.stripe.com/v1/payouts")
            .header("Idempotency-Key", &payout.reference)
            .form(&payout.params)
            .send()
            .await
    })
    .retry(FibonacciBuilder::default().with_max_times(10))
    .await
}
