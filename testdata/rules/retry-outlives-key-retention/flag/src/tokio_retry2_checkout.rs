//! tokio-retry2, which reads like tokio-retry: the n-th delay of
//! `ExponentialBackoff::from_millis(2).factor(1000)` is 2^n s.
//!
//! - refunds: 80 delays, 2 + 4 + … + 1024 s = 2,046 s, then 70 × 1,800 s:
//!   128,046 s, about 35.6 h against Checkout.com's 24 h;
//! - orders: `ExponentialFactorBackoff` from a minute, × 1.5, stopped by
//!   `max_interval` after 3 days, against PayPal Orders' 6 h.
use std::time::Duration;
use tokio_retry2::strategy::{ExponentialBackoff, ExponentialFactorBackoff, MaxInterval};
use tokio_retry2::{Retry, RetryError};

pub async fn refund(http: &reqwest::Client, r: &RefundRequest) -> Result<Response, reqwest::Error> {
    let strategy = ExponentialBackoff::from_millis(2)
        .factor(1000)
        .max_delay(Duration::from_secs(1800))
        .take(80); // expect: retry-outlives-key-retention
    Retry::spawn(strategy, || async {
        http.post(format!("https://api.checkout.com/payments/{}/refunds", r.payment_id))
            .header("Cko-Idempotency-Key", &r.reference)
            .json(&r.body)
            .send()
            .await
            .map_err(RetryError::transient)
    })
    .await
}

pub async fn create_order(http: &reqwest::Client, order: &Order) -> Result<Response, reqwest::Error> {
    let request_id = order.request_id.clone();
    let strategy = ExponentialFactorBackoff::from_millis(60_000, 1.5)
        .max_delay_millis(3_600_000)
        .max_interval(3 * 24 * 3_600_000); // expect: retry-outlives-key-retention
    Retry::spawn(strategy, || async {
        http.post("https://api-m.paypal.com/v2/checkout/orders")
            .header("PayPal-Request-Id", &request_id)
            .json(order)
            .send()
            .await
            .map_err(RetryError::transient)
    })
    .await
}
