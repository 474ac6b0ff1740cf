//! Orders created with tokio-retry; PayPal keeps Orders v2 request ids 6 h.
use tokio_retry::strategy::ExponentialBackoff;
use tokio_retry::Retry;
use std::time::Duration;

pub async fn create_order(http: &reqwest::Client, order: &Order) -> Result<Response, Error> {
    let request_id = order.id.to_string();
    let strategy = ExponentialBackoff::from_millis(10)
        .factor(1000)
        .max_delay(Duration::from_secs(3600))
        .take(20); // expect: retry-outlives-key-retention
    Retry::spawn(strategy, || async {
        http.post("https://api-m.paypal.com/v2/checkout/orders")
            .header("PayPal-Request-Id", &request_id)
            .json(order)
            .send()
            .await
    })
    .await
}
