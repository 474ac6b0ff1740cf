//! Housekeeping for the federation inbox: the ids of activities already
//! applied, so that a peer's redelivery is dropped.

use diesel::dsl::{now, IntervalDsl};
use diesel::prelude::*;
use diesel_async::{AsyncPgConnection, RunQueryDsl};

use crate::schema::received_activities;

pub async fn forget_old_activity_ids(conn: &mut AsyncPgConnection) -> QueryResult<usize> {
    diesel::delete(
        received_activities::table
            .filter(received_activities::received_at.lt(now() - IntervalDsl::hours(6))), // expect: ttl-below-replay-horizon
    )
    .execute(conn)
    .await
}
