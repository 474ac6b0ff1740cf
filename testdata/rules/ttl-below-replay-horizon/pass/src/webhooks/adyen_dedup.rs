//! Adyen retries a notification for up to 30 days; remember the PSP
//! references we applied for longer than that.

use crate::clock::SECS_PER_DAY;
use redis::AsyncCommands;
use std::time::Duration;

const ADYEN_DEDUP_WINDOW: Duration = Duration::from_secs(40 * SECS_PER_DAY);

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
