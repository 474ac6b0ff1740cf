//! tokio-retry2 schedules that end inside the window:
//!
//! - refunds: 2^n s for 10 tries, 2 + 4 + … + 1024 s = 2,046 s, about 34
//!   minutes, against Checkout.com's 24 h;
//! - orders: no `.take(n)`, but `max_duration` stops it after 2 hours,
//!   inside PayPal Orders' 6 h.
use std::time::Duration;
use tokio_retry2::strategy::{ExponentialBackoff, ExponentialFactorBackoff, MaxInterval};
use tokio_retry2::{Retry, RetryError};

pub async fn refund(http: &reqwest::Client, r: &RefundRequest) -> Result<Response, reqwest::Error> {
    let strategy = ExponentialBackoff::from_millis(2).factor(1000).take(10);
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
    let strategy = ExponentialFactorBackoff::from_millis(30_000, 2.0)
        .max_delay(Duration::from_secs(900))
        .max_duration(Duration::from_secs(2 * 3600));
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
