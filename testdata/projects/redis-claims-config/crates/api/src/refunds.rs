//! Refund requests: one refund in flight per payment.

use kv::KvPool;

pub async fn start_refund(kv: &KvPool, payment_id: &str) -> anyhow::Result<bool> {
    let guard = format!("refund_in_flight_{payment_id}");
    let first = kv.put_if_absent_for(&guard, "1", 900).await?;
    Ok(first)
}
