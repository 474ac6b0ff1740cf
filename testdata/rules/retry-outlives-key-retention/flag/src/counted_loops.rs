//! Loops that count their own attempts. A Stripe payout tried 12 times with
//! the wait doubling from a minute (about 34 hours of waits), and a
//! Checkout.com capture tried 48 times an hour apart (47 hours).
use std::time::Duration;

pub async fn pay_out(http: &reqwest::Client, payout: &Payout) -> Result<(), Error> {
    let key = format!("payout-{}", payout.id);
    let mut attempt = 0;
    let mut delay = Duration::from_secs(60);
    loop {
        attempt += 1;
        let sent = http
            .post("https://api.stripe.com/v1/payouts")
            .header("Idempotency-Key", &key)
            .form(&payout.params)
            .send()
            .await;
        match sent {
            Ok(r) if r.status().is_success() => return Ok(()),
            _ if attempt >= 12 => return Err(Error::GaveUp), // expect: retry-outlives-key-retention
            _ => {}
        }
        tokio::time::sleep(delay).await;
        delay *= 2;
    }
}

pub async fn capture(http: &reqwest::Client, capture: &Capture) -> Result<(), Error> {
    let mut tries = 0u32;
    while tries < 48 { // expect: retry-outlives-key-retention
        let sent = http
            .post(format!("https://api.checkout.com/payments/{}/captures", capture.payment_id))
            .header("Cko-Idempotency-Key", &capture.reference)
            .json(capture)
            .send()
            .await;
        if sent.is_ok() {
            return Ok(());
        }
        tries += 1;
        tokio::time::sleep(Duration::from_secs(3600)).await;
    }
    Err(Error::GaveUp)
}
