//! How the charge client paces its retries: the caller picks a pacing per
//! request, and `decide` answers after every failed attempt.

use std::time::Duration;

const MAX_PATIENT_ATTEMPTS: u32 = 8;

#[derive(Clone, Debug)]
pub enum Pacing {
    Once,
    Hourly(u32),
    Patient,
    Persistent,
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
            (Pacing::Hourly(n), a) if a < *n => Decision::RetryAfter(Some(pause(a))), // expect: retry-outlives-key-retention
            (Pacing::Patient, a) if a < MAX_PATIENT_ATTEMPTS => Decision::RetryAfter(Some(Duration::from_secs(60 * 4u64.pow(a)))), // expect: retry-outlives-key-retention
            (Pacing::Persistent, a) => Decision::RetryAfter(Some(Duration::from_millis(500 * 2u64.pow(a)))), // expect: retry-outlives-key-retention
            _ => Decision::Stop,
        }
    }
}

fn pause(attempt: u32) -> Duration {
    Duration::from_secs(3600 * 2u64.pow(attempt))
}
