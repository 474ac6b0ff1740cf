//! Redis keys of a multi-merchant checkout: the per-order lock a confirm
//! holds, and the KV partition each merchant's objects live under.

use std::fmt;

pub struct MerchantId(String);

impl MerchantId {
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

const LOCK_PREFIX: &str = "checkout_lock";

pub fn order_lock_key(merchant_id: &MerchantId, order_ref: &str) -> String {
    format!("{}_{}_{}", LOCK_PREFIX, merchant_id.as_str(), order_ref)
}

/// Global ids need no merchant; the parameter is kept for the trait's shape.
pub fn payout_lock_key(_merchant_id: &MerchantId, payout_id: &str) -> String {
    format!("payout_lock_{payout_id}")
}

/// A message for the merchant's dashboard, not a key.
pub fn not_found(merchant_id: &MerchantId, order_ref: &str) -> String {
    format!("order {order_ref} not found")
}

pub enum PartitionKey<'a> {
    MerchantOrder {
        merchant_id: &'a MerchantId,
        order_ref: &'a str,
    },
    Global {
        id: &'a str,
    },
}

impl fmt::Display for PartitionKey<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PartitionKey::MerchantOrder {
                merchant_id,
                order_ref,
            } => f.write_str(&format!("mid_{}_ord_{}", merchant_id.as_str(), order_ref)),
            PartitionKey::Global { id } => f.write_str(&format!("global_{id}")),
        }
    }
}

pub fn record_key(group: &str, source_namespace: Option<&str>, offset: u64) -> String {
    match source_namespace {
        Some(ns) => format!("dedup_{group}_{ns}_{offset}"),
        None => format!("dedup_{group}_{offset}"),
    }
}
