//! How the charge client paces its retries: seconds apart, a few times.

use std::time::Duration;

const MAX_PATIENT_ATTEMPTS: u32 = 6;

#[derive(Clone, Debug)]
pub enum Pacing {
    Once,
    Backoff(u32),
    Patient,
}

pub enum Decision {
    Stop,
    RetryAfter(Option<Duration>),
}

impl Pacing {
    pub fn decide(&self, status: Option<u16>, attempt: u32) -> Decision {
        if matches!(status, Some(400..=499)) {
            return Decision::Stop;
        }
        match (self, attempt) {
            (Pacing::Once, 0) => Decision::RetryAfter(None),
            (Pacing::Backoff(n), a) if a < *n => Decision::RetryAfter(Some(pause(a))),
            (Pacing::Patient, a) if a < MAX_PATIENT_ATTEMPTS => {
                Decision::RetryAfter(Some(Duration::from_secs(4u64.pow(a))))
            }
            _ => Decision::Stop,
        }
    }
}

fn pause(attempt: u32) -> Duration {
    Duration::from_secs(2u64.pow(attempt))
}
