//! In-process claims for single-node deployments, decided under the one
//! write lock that also inserts.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use tokio::sync::{Mutex, RwLock};
use tokio::time::Instant;

#[derive(Clone, Default)]
pub struct LocalClaims {
    claimed: Arc<RwLock<HashMap<String, Instant>>>,
}

impl LocalClaims {
    pub async fn claim_if_absent(&self, key: &str) -> bool {
        let mut claimed = self.claimed.write().await;
        if claimed.contains_key(key) {
            return false;
        }
        claimed.insert(key.to_owned(), Instant::now());
        true
    }

    /// A cheap read first, then the decision again under the write lock.
    pub async fn claim_if_absent_fast(&self, key: &str) -> bool {
        if self.claimed.read().await.contains_key(key) {
            return false;
        }
        let mut claimed = self.claimed.write().await;
        if claimed.contains_key(key) {
            return false;
        }
        claimed.insert(key.to_owned(), Instant::now());
        true
    }
}

pub struct PaymentLocks {
    held: Mutex<HashSet<u64>>,
}

impl PaymentLocks {
    /// `insert` answers whether the id was absent, under the lock.
    pub async fn lock_if_not_set(&self, payment_id: u64) -> bool {
        if self.held.lock().await.contains(&payment_id) {
            return false;
        }
        self.held.lock().await.insert(payment_id)
    }
}
