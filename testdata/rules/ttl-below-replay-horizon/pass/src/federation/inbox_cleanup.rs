//! Housekeeping for the federation inbox, kept past any peer's redelivery.

use diesel::dsl::{now, IntervalDsl};
use diesel::prelude::*;
use diesel_async::{AsyncPgConnection, RunQueryDsl};

use crate::schema::{outgoing_activities, received_activities};

pub async fn forget_old_activity_ids(conn: &mut AsyncPgConnection) -> QueryResult<usize> {
    // What we sent is no dedup record: an hour is plenty.
    diesel::delete(
        outgoing_activities::table.filter(outgoing_activities::sent_at.lt(now() - 1.hours())),
    )
    .execute(conn)
    .await?;
    diesel::delete(
        received_activities::table
            .filter(received_activities::received_at.lt(now() - IntervalDsl::days(40))),
    )
    .execute(conn)
    .await
}
