//! Exchanging an identity provider's token for a short-lived access token.
//! Each token may be exchanged once: its id is recorded in `used_jtis`.

use chrono::{DateTime, Utc};

use crate::models::{NewUsedJti, UsedJtiRow};
use crate::tokens::validation::TOKEN_LEEWAY;

pub async fn remember(conn: &mut DbConn, jti: &str, exp: DateTime<Utc>) -> Result<(), ExchangeError> {
    let row = NewUsedJti::new(jti, exp); // expect: ttl-below-replay-horizon
    match row.insert(conn).await {
        Ok(_) => Ok(()),
        Err(e) if e.is_unique_violation() => Err(ExchangeError::AlreadyUsed),
        Err(e) => Err(e.into()),
    }
}

pub fn row_for(claims: &Claims) -> UsedJtiRow {
    UsedJtiRow {
        jti: claims.jti.clone(),
        expires_at: Utc::now() + TOKEN_LEEWAY, // expect: ttl-below-replay-horizon
    }
}
