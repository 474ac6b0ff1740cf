//! Rendered pages, kept while memory allows.

use redis::AsyncCommands;

pub async fn keep_page(
    conn: &mut redis::aio::ConnectionManager,
    path: &str,
    html: &str,
) -> redis::RedisResult<()> {
    conn.set_ex(format!("page:{path}"), html, 300).await
}
