//! Five tries half a second apart.
use tokio_retry::strategy::FixedInterval;
use tokio_retry::Retry;

pub async fn create_order(http: &reqwest::Client, order: &Order) -> Result<Response, Error> {
    let request_id = order.id.to_string();
    Retry::spawn(FixedInterval::from_millis(500).take(5), || async {
        http.post("https://api-m.paypal.com/v2/checkout/orders")
            .header("PayPal-Request-Id", &request_id)
            .json(order)
            .send()
            .await
    })
    .await
}
