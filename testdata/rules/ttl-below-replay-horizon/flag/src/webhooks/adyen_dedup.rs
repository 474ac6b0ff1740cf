//! Adyen sends each notification at least once; remember the PSP
//! references we have applied so a redelivery is acknowledged and skipped.

use crate::clock::SECS_PER_HOUR;
use redis::AsyncCommands;
use std::time::Duration;

const ADYEN_DEDUP_WINDOW: Duration = Duration::from_secs(24 * SECS_PER_HOUR); // expect: ttl-below-replay-horizon

pub async fn remember(
    con: &mut redis::aio::ConnectionManager,
    psp_reference: &str,
) -> redis::RedisResult<()> {
    con.set_ex(
        format!("dedup:adyen:{psp_reference}"),
        1,
        ADYEN_DEDUP_WINDOW.as_secs(),
    )
    .await
}
