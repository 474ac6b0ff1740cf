//! Loops that are not long retries: three tries a second apart, and a loop
//! over different payouts (each its own key).
use std::time::Duration;

pub async fn transfer(http: &reqwest::Client, t: &Transfer) -> Result<(), Error> {
    for _ in 0..3 {
        if http
            .post("https://api.examplebank.test/transfers")
            .header("Idempotency-Key", &t.reference)
            .send()
            .await
            .is_ok()
        {
            return Ok(());
        }
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
    Err(Error::GaveUp)
}

pub async fn all(http: &reqwest::Client, payouts: &[Payout]) {
    for p in payouts {
        let _ = http
            .post("https://api.stripe.com/v1/payouts")
            .header("Idempotency-Key", &p.reference)
            .send()
            .await;
        tokio::time::sleep(Duration::from_secs(3600)).await;
    }
}
