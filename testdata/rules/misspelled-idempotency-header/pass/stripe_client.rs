use stripe::Client;

pub async fn charge(http: &reqwest::Client, key: &str, body: &serde_json::Value) -> Result<bool, reqwest::Error> {
    let _field = body.get("idempotency_key");
    let resp = http
        .post("https://api.stripe.com/v1/charges")
        .header("Idempotency-Key", key)
        .header("X-Idempotency-Key", key)
        .header("Cko-Idempotency-Key", key)
        .header("PayPal-Request-Id", key)
        .header("Idempotence-Key", key)
        .send()
        .await?;
    Ok(resp.headers().get("Idempotent-Replayed").is_some())
}
