use stripe::Client;

pub async fn charge(http: &reqwest::Client, key: &str) -> Result<bool, reqwest::Error> {
    let resp = http
        .post("https://api.stripe.com/v1/charges")
        .header("Idempotency-Key", key)
        .send()
        .await?;
    Ok(resp.headers().get("Idempotency-Replayed").is_some())
}
