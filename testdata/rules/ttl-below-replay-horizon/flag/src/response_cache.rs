//! Responses to keyed requests, kept in process for replays.

use std::collections::HashMap;
use std::time::{Duration, Instant};

pub struct CachedResponse {
    pub status: u16,
    pub body: Vec<u8>,
    pub stored_at: Instant,
    pub ttl: Duration,
}

impl CachedResponse {
    /// Whether a replay may still be answered from this entry.
    pub fn is_fresh(&self) -> bool {
        self.stored_at.elapsed().as_millis() < self.ttl.as_secs() as u128 // expect: ttl-below-replay-horizon
    }
}

pub fn sweep_expired(entries: &mut HashMap<String, CachedResponse>, now: chrono::DateTime<chrono::Utc>, written: chrono::DateTime<chrono::Utc>, ttl: chrono::Duration) -> bool {
    entries.retain(|_, e| e.is_fresh());
    (now - written).num_milliseconds() > ttl.num_seconds() // expect: ttl-below-replay-horizon
}
