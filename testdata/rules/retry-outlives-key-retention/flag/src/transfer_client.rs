//! The Stripe transfer request, keyed by the transfer's own reference.

pub async fn send_transfer(
    http: &reqwest::Client,
    t: &Transfer,
) -> Result<reqwest::Response, reqwest::Error> {
    http.post("https://api.stripe.com/v1/transfers")
        .header("Idempotency-Key", &t.reference)
        .form(&t.params)
        .send()
        .await
}
