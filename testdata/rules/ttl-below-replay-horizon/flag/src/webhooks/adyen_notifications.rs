//! Adyen notification intake: a notification is processed once per PSP
//! reference and event code.

use redis::AsyncCommands;

pub async fn first_time(
    con: &mut redis::aio::ConnectionManager,
    psp_reference: &str,
    event_code: &str,
) -> anyhow::Result<bool> {
    let ttl: u64 = std::env::var("ADYEN_NOTIFICATION_TTL")?.parse()?;
    let key = format!("dedup:adyen:{psp_reference}:{event_code}");
    let fresh: bool = con.set_nx(&key, 1).await?;
    if fresh {
        con.expire::<_, ()>(&key, ttl as i64).await?;
    }
    Ok(fresh)
}
