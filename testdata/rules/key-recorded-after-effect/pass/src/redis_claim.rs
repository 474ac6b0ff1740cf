//! A Redis `SET NX` claim before the provider call, the response stored after.

use redis::AsyncCommands;

pub async fn send_payout(
    redis: &mut redis::aio::ConnectionManager,
    http: &reqwest::Client,
    payout: &Payout,
) -> anyhow::Result<()> {
    let key = format!("idem:payout:{}", payout.id);
    let claimed: bool = redis::cmd("SET")
        .arg(&key)
        .arg("in-flight")
        .arg("NX")
        .arg("EX")
        .arg(40 * 86_400)
        .query_async(redis)
        .await?;
    if !claimed {
        return Ok(());
    }
    let resp = http
        .post("https://payouts.example.com/v1/payouts")
        .header("Idempotency-Key", payout.id.to_string())
        .json(payout)
        .send()
        .await?;
    let _: () = redis.set(&key, resp.status().as_u16()).await?;
    Ok(())
}

/// Middleware that claims with `SET NX` before running the handler.
pub async fn guard(
    mut redis: redis::aio::MultiplexedConnection,
    req: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    let key = format!("idem:req:{}", header_key(&req));
    let fresh: bool = redis.set_nx(&key, "in-flight").await.unwrap_or(false);
    if !fresh {
        return conflict();
    }
    let resp = next.run(req).await;
    let _: Result<(), _> = redis.set(&key, snapshot(&resp)).await;
    resp
}

#[cfg(test)]
mod tests {
    #[tokio::test]
    async fn records_after_sending_in_a_test_is_not_judged() {
        let resp = client().post(URL).json(&body()).send().await.unwrap();
        let _: () = redis().set("idem:test:1", resp.status().as_u16()).await.unwrap();
    }
}
