//! The Stripe call the fang job makes.
pub async fn create_payout(payout_id: &str) -> Result<(), fang::FangError> {
    let http = reqwest::Client::new();
    http.post("https://api.stripe.com/v1/payouts")
        .header("Idempotency-Key", payout_id)
        .send()
        .await
        .map(|_| ())
        .map_err(fang::FangError::from)
}
