//! Exchanging an identity provider's token for a short-lived access token.
//! Each token may be exchanged once: its id is recorded in `used_jtis` until
//! the token could no longer be accepted.

use chrono::{DateTime, Duration, Utc};

use crate::models::{NewSession, NewUsedJti, UsedJtiRow};
use crate::tokens::validation::TOKEN_LEEWAY;

pub async fn remember(conn: &mut DbConn, jti: &str, exp: DateTime<Utc>) -> Result<(), ExchangeError> {
    let row = NewUsedJti::new(jti, exp + TOKEN_LEEWAY);
    match row.insert(conn).await {
        Ok(_) => Ok(()),
        Err(e) if e.is_unique_violation() => Err(ExchangeError::AlreadyUsed),
        Err(e) => Err(e.into()),
    }
}

pub fn row_for(claims: &Claims) -> UsedJtiRow {
    UsedJtiRow {
        jti: claims.jti.clone(),
        expires_at: claims.exp + TOKEN_LEEWAY,
    }
}

/// The access token we hand out lives an hour from now: not a replay guard.
pub fn session_for(user_id: i64) -> NewSession {
    NewSession {
        user_id,
        expires_at: Utc::now() + Duration::hours(1),
    }
}
