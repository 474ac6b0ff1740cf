//! Job queues that re-run a job with its stored arguments, so every run
//! sends the job's own key again.
//!
//! - apalis: 40 retries on a tower backoff from a minute to an hour: about
//!   35 hours against Stripe API v1;
//! - sqlxmq: spawned with 12 retries from 5 minutes, doubling: about 14 days;
//! - underway: 40 attempts from a minute to an hour: about 34 hours against
//!   Checkout.com;
//! - fang: a flat hour between 48 retries against Stripe API v1.
use apalis::layers::retry::backoff::{ExponentialBackoffMaker, MakeBackoff};
use apalis::layers::retry::{HasherRng, RetryPolicy};
use apalis::prelude::*;
use fang::asynk::async_queue::AsyncQueueable;
use fang::{async_trait, AsyncRunnable, FangError};
use sqlxmq::{job, CurrentJob};
use std::time::Duration;
use underway::task::{Result as TaskResult, RetryPolicy as TaskRetryPolicy};
use underway::Task;

pub async fn payout_worker_job(job: PayoutJob, http: Data<reqwest::Client>) -> Result<(), Error> {
    http.post("https://api.stripe.com/v1/payouts")
        .header("Idempotency-Key", &job.reference)
        .form(&job.params)
        .send()
        .await?;
    Ok(())
}

pub fn payout_worker(storage: PostgresStorage<PayoutJob>) -> Result<Worker, Error> {
    let backoff = ExponentialBackoffMaker::new(
        Duration::from_secs(60),
        Duration::from_secs(3600),
        0.5,
        HasherRng::default(),
    )?
    .make_backoff();
    Ok(WorkerBuilder::new("payouts")
        .retry(RetryPolicy::retries(40).with_backoff(backoff)) // expect: retry-outlives-key-retention
        .backend(storage)
        .build_fn(payout_worker_job))
}

#[job]
pub async fn release_escrow(mut current: CurrentJob) -> Result<(), Error> {
    let args: EscrowArgs = current.json()?.ok_or(Error::NoArgs)?;
    reqwest::Client::new()
        .post("https://api.stripe.com/v1/transfers")
        .header("Idempotency-Key", &args.reference)
        .form(&args.params)
        .send()
        .await?;
    current.complete().await?;
    Ok(())
}

pub async fn schedule_release(pool: &sqlx::PgPool, args: &EscrowArgs) -> Result<(), Error> {
    release_escrow
        .builder()
        .set_retries(12) // expect: retry-outlives-key-retention
        .set_retry_backoff(Duration::from_secs(300))
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
            .json(&input)
            .send()
            .await
            .map_err(|e| underway::task::Error::Retryable(e.to_string()))?;
        Ok(())
    }

    fn retry_policy(&self) -> TaskRetryPolicy {
        TaskRetryPolicy::builder()
            .max_attempts(40) // expect: retry-outlives-key-retention
            .initial_interval_ms(60_000)
            .max_interval_ms(3_600_000)
            .build()
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
        48 // expect: retry-outlives-key-retention
    }

    fn backoff(&self, _attempt: u32) -> u32 {
        3600
    }
}
