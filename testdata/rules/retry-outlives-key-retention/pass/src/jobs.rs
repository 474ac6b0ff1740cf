//! Job queues with short retry schedules: fang with 3 retries (7 s), and
//! sqlxmq's defaults (4 retries from 1 s: 15 s).
use fang::asynk::async_queue::AsyncQueueable;
use fang::{async_trait, AsyncRunnable, FangError};
use sqlxmq::{job, CurrentJob};

pub struct PayoutTask {
    pub payout_id: String,
}

#[async_trait]
impl AsyncRunnable for PayoutTask {
    async fn run(&self, _queue: &mut dyn AsyncQueueable) -> Result<(), FangError> {
        let http = reqwest::Client::new();
        http.post("https://api.stripe.com/v1/payouts")
            .header("Idempotency-Key", &self.payout_id)
            .send()
            .await
            .map(|_| ())
            .map_err(FangError::from)
    }

    fn max_retries(&self) -> i32 {
        3
    }
}

#[job]
pub async fn send_transfer(current: CurrentJob) -> Result<(), Error> {
    let http = reqwest::Client::new();
    http.post("https://api.stripe.com/v1/transfers")
        .header("Idempotency-Key", current.id().to_string())
        .send()
        .await?;
    Ok(())
}
