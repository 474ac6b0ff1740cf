//! The payout worker: posts a payout to the bank partner, retrying on errors.

pub async fn post_payout(http: &reqwest::Client, payout_id: uuid::Uuid, cents: i64) -> anyhow::Result<()> {
    let mut attempt = 0;
    loop {
        let idempotency_key = uuid::Uuid::new_v4();
        let resp = http
            .post("https://bank.example/v2/payouts")
            .header("Idempotency-Key", idempotency_key.to_string())
            .json(&serde_json::json!({ "payout": payout_id, "amount": cents }))
            .send()
            .await;
        match resp {
            Ok(r) if r.status().is_success() => return Ok(()),
            _ if attempt < 5 => attempt += 1,
            _ => anyhow::bail!("payout {payout_id} failed"),
        }
    }
}
