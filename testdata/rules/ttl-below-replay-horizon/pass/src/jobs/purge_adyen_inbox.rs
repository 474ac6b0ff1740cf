//! Prunes the Adyen notification inbox (diesel).

use chrono::{Duration, Utc};
use diesel::prelude::*;

use crate::schema::adyen_webhook_events;

pub fn prune(conn: &mut PgConnection) -> QueryResult<usize> {
    diesel::delete(
        adyen_webhook_events::table
            .filter(adyen_webhook_events::received_at.lt(Utc::now() - Duration::days(40))),
    )
    .execute(conn)
}
