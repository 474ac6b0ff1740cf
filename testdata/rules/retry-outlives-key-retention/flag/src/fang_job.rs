//! A fang job left at fang's defaults: 20 retries, 2^n seconds apart,
//! about 12 days, through a helper in another file.
use fang::asynk::async_queue::AsyncQueueable;
use fang::{async_trait, AsyncRunnable, FangError};

pub struct PayoutTask {
    pub payout_id: String,
}

#[async_trait]
impl AsyncRunnable for PayoutTask { // expect: retry-outlives-key-retention
    async fn run(&self, _queue: &mut dyn AsyncQueueable) -> Result<(), FangError> {
        crate::stripe_client::create_payout(&self.payout_id).await
    }
}
