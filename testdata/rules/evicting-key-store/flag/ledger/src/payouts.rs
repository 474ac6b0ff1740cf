//! Sends each approved payout once, even when the scheduler fires twice.

use crate::kv::pool::Kv;

pub async fn send_payout(kv: &Kv, payout_id: &str) -> anyhow::Result<()> {
    let lock = format!("payout:{payout_id}");
    if !kv.claim_once(&lock, 600).await? {
        return Ok(()); // another worker is sending it
    }
    crate::bank::transfer(payout_id).await
}
