//! In-process claims for single-node deployments: the key maps to the
//! moment it was claimed, behind a tokio lock.

use std::collections::HashMap;
use std::sync::Arc;
use tokio::sync::{Mutex, RwLock};
use tokio::time::Instant;

#[derive(Clone, Default)]
pub struct LocalClaims {
    claimed: Arc<RwLock<HashMap<String, Instant>>>,
}

impl LocalClaims {
    /// Claims `key`; false when another request holds it.
    pub async fn claim_if_absent(&self, key: &str) -> bool {
        if self.claimed.read().await.contains_key(key) {
            return false;
        }
        let mut claimed = self.claimed.write().await;
        claimed.insert(key.to_owned(), Instant::now()); // expect: check-then-insert
        true
    }
}

pub struct PaymentLocks {
    held: Mutex<HashMap<u64, ()>>,
}

impl PaymentLocks {
    pub async fn lock_if_not_set(&self, payment_id: u64) -> bool {
        let seen = { self.held.lock().await.get(&payment_id).is_some() };
        if seen {
            return false;
        }
        self.held.lock().await.insert(payment_id, ()); // expect: check-then-insert
        true
    }
}
