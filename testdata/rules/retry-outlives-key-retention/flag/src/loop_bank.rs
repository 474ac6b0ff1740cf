//! A hand-written loop: 8 tries, the wait doubling from an hour, 127 hours
//! in all, against a bank whose key retention is unknown.
use std::time::Duration;

pub async fn transfer(http: &reqwest::Client, t: &Transfer) -> Result<(), Error> {
    let key = t.reference.clone();
    let mut delay = Duration::from_secs(3600);
    for _attempt in 0..8 { // expect: retry-outlives-key-retention
        let sent = http
            .post("https://api.examplebank.test/transfers")
            .header("Idempotency-Key", &key)
            .json(t)
            .send()
            .await;
        if sent.is_ok() {
            return Ok(());
        }
        tokio::time::sleep(delay).await;
        delay *= 2;
    }
    Err(Error::GaveUp)
}
