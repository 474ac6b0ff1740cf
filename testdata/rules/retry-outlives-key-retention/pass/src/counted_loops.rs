//! Counted loops that stay short or cannot be bounded: five tries two
//! seconds apart, a limit passed in by the caller (not guessed), and a
//! worker loop that takes a new batch of payouts each pass.
use std::time::Duration;

pub async fn pay_out(http: &reqwest::Client, payout: &Payout) -> Result<(), Error> {
    let mut attempt = 0;
    loop {
        attempt += 1;
        let sent = http
            .post("https://api.stripe.com/v1/payouts")
            .header("Idempotency-Key", &payout.reference)
            .send()
            .await;
        if sent.is_ok() {
            return Ok(());
        }
        if attempt >= 5 {
            return Err(Error::GaveUp);
        }
        tokio::time::sleep(Duration::from_secs(2)).await;
    }
}

pub async fn refund(http: &reqwest::Client, refund: &Refund, max_tries: u32) -> Result<(), Error> {
    let mut tries = 0;
    while tries < max_tries {
        if http
            .post("https://api.stripe.com/v1/refunds")
            .header("Idempotency-Key", &refund.reference)
            .send()
            .await
            .is_ok()
        {
            return Ok(());
        }
        tries += 1;
        tokio::time::sleep(Duration::from_secs(3600)).await;
    }
    Err(Error::GaveUp)
}

pub async fn drain(http: &reqwest::Client, queue: &Queue) {
    let mut rounds = 0;
    loop {
        rounds += 1;
        for p in queue.due().await {
            let _ = http
                .post("https://api.stripe.com/v1/payouts")
                .header("Idempotency-Key", &p.reference)
                .send()
                .await;
        }
        if rounds > 1000 {
            break;
        }
        tokio::time::sleep(Duration::from_secs(600)).await;
    }
}
