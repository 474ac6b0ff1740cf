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
    pub fn is_fresh(&self) -> bool {
        self.stored_at.elapsed() < self.ttl
    }

    /// Both sides in milliseconds.
    pub fn is_fresh_ms(&self) -> bool {
        self.stored_at.elapsed().as_millis() < self.ttl.as_millis()
    }

    /// Seconds scaled to milliseconds before the comparison.
    pub fn is_fresh_scaled(&self) -> bool {
        self.stored_at.elapsed().as_millis() < u128::from(self.ttl.as_secs()) * 1000
    }
}

pub fn sweep_expired(entries: &mut HashMap<String, CachedResponse>) {
    entries.retain(|_, e| e.is_fresh());
}
