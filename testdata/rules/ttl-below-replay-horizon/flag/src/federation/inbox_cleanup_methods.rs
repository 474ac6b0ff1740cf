//! The same housekeeping written with diesel's integer interval methods.

use diesel::dsl::{now, IntervalDsl};
use diesel::prelude::*;

use crate::schema::processed_webhook_events;

pub fn trim(conn: &mut PgConnection) -> QueryResult<usize> {
    diesel::delete(
        processed_webhook_events::table
            .filter(processed_webhook_events::created_at.lt(now() - 2.days())), // expect: ttl-below-replay-horizon
    )
    .execute(conn)
}
