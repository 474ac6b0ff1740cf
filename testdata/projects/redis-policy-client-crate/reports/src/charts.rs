//! Rendered charts, kept while memory allows.

use redis::AsyncCommands;

pub async fn keep_chart(
    con: &mut redis::aio::ConnectionManager,
    id: &str,
    svg: &str,
) -> redis::RedisResult<()> {
    con.set_ex(format!("chart:{id}"), svg, 600).await
}
