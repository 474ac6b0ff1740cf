//! Job queues with short retry schedules: apalis retrying at once, and on a
//! backoff of a second to a minute; sqlxmq spawned with 3 retries; underway
//! at its defaults (5 attempts from a second: 15 s); fang with half a
//! minute between 10 retries.
use apalis::layers::retry::backoff::{ExponentialBackoffMaker, MakeBackoff};
use apalis::layers::retry::{HasherRng, RetryPolicy};
use apalis::prelude::*;
use fang::asynk::async_queue::AsyncQueueable;
use fang::{async_trait, AsyncRunnable, FangError};
use sqlxmq::{job, CurrentJob};
use std::time::Duration;
use underway::task::Result as TaskResult;
use underway::Task;

pub async fn refund_job(job: RefundJob, http: Data<reqwest::Client>) -> Result<(), Error> {
    http.post("https://api.stripe.com/v1/refunds")
        .header("Idempotency-Key", &job.reference)
        .send()
        .await?;
    Ok(())
}

pub async fn payout_job(job: PayoutJob, http: Data<reqwest::Client>) -> Result<(), Error> {
    http.post("https://api.stripe.com/v1/payouts")
        .header("Idempotency-Key", &job.reference)
        .send()
        .await?;
    Ok(())
}

pub fn workers(refunds: PostgresStorage<RefundJob>, payouts: PostgresStorage<PayoutJob>) -> Result<(Worker, Worker), Error> {
    let refund = WorkerBuilder::new("refunds")
        .retry(RetryPolicy::retries(5))
        .backend(refunds)
        .build_fn(refund_job);
    let backoff = ExponentialBackoffMaker::new(
        Duration::from_secs(1),
        Duration::from_secs(60),
        0.5,
        HasherRng::default(),
    )?
    .make_backoff();
    let payout = WorkerBuilder::new("payouts")
        .retry(RetryPolicy::retries(8).with_backoff(backoff))
        .backend(payouts)
        .build_fn(payout_job);
    Ok((refund, payout))
}

#[job]
pub async fn release_escrow(mut current: CurrentJob) -> Result<(), Error> {
    let args: EscrowArgs = current.json()?.ok_or(Error::NoArgs)?;
    reqwest::Client::new()
        .post("https://api.stripe.com/v1/transfers")
        .header("Idempotency-Key", &args.reference)
        .send()
        .await?;
    current.complete().await?;
    Ok(())
}

pub async fn schedule_release(pool: &sqlx::PgPool, args: &EscrowArgs) -> Result<(), Error> {
    release_escrow
        .builder()
        .set_retries(3)
        .set_json(args)?
        .spawn(pool)
        .await?;
    Ok(())
}

pub struct CaptureTask {
    http: reqwest::Client,
}

impl Task for CaptureTask {
    type Input = CaptureInput;
    type Output = ();

    async fn execute(&self, _tx: Transaction<'_, Postgres>, input: CaptureInput) -> TaskResult<()> {
        self.http
            .post("https://api.checkout.com/payments/pay_123/captures")
            .header("Cko-Idempotency-Key", &input.reference)
            .send()
            .await
            .map_err(|e| underway::task::Error::Retryable(e.to_string()))?;
        Ok(())
    }
}

pub struct SettlementTask {
    pub settlement_id: String,
}

#[async_trait]
impl AsyncRunnable for SettlementTask {
    async fn run(&self, _queue: &mut dyn AsyncQueueable) -> Result<(), FangError> {
        reqwest::Client::new()
            .post("https://api.stripe.com/v1/payouts")
            .header("Idempotency-Key", &self.settlement_id)
            .send()
            .await
            .map(|_| ())
            .map_err(FangError::from)
    }

    fn max_retries(&self) -> i32 {
        10
    }

    fn backoff(&self, _attempt: u32) -> u32 {
        30
    }
}
