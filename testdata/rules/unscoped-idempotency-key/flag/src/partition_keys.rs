//! Redis keys of a multi-merchant checkout: the per-order lock a confirm
//! holds, and the KV partition each merchant's objects live under. Order
//! and refund references are chosen by the merchant.

use std::fmt;

pub struct MerchantId(String);

impl MerchantId {
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

const LOCK_PREFIX: &str = "checkout_lock";

/// The lock a confirm holds while it charges the card.
pub fn order_lock_key(merchant_id: &MerchantId, order_ref: &str) -> String {
    format!("{}_{}", LOCK_PREFIX, order_ref) // expect: unscoped-idempotency-key
}

pub enum PartitionKey<'a> {
    MerchantOrder {
        merchant_id: &'a MerchantId,
        order_ref: &'a str,
    },
    MerchantRefund {
        merchant_id: &'a MerchantId,
        refund_ref: &'a str,
    },
}

impl fmt::Display for PartitionKey<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PartitionKey::MerchantOrder {
                merchant_id,
                order_ref,
            } => f.write_str(&format!("mid_{}_ord_{}", merchant_id.as_str(), order_ref)),
            PartitionKey::MerchantRefund {
                merchant_id,
                refund_ref,
            } => f.write_str(&format!("mid_{}_ref_{}", "any", refund_ref)), // expect: unscoped-idempotency-key
        }
    }
}

/// A consumer's dedup key for one record of a stream, per source.
pub fn record_key(group: &str, source_namespace: Option<&str>, offset: u64) -> String {
    match source_namespace {
        Some(source_namespace) => format!("dedup_{group}_{offset}"), // expect: unscoped-idempotency-key
        None => format!("dedup_{group}_{offset}"),
    }
}
