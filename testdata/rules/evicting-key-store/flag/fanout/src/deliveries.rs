//! Delivers each outgoing notification once per delivery id.

use fred::prelude::*;
use fred::types::{Expiration, SetOptions};

pub async fn first_delivery(pool: &RedisPool, delivery_id: &str) -> Result<bool, RedisError> {
    let reply: Option<String> = pool
        .set(
            format!("delivery:{delivery_id}"),
            "sent",
            Some(Expiration::EX(86_400)),
            Some(SetOptions::NX),
            false,
        )
        .await?;
    Ok(reply.is_some())
}
