//! Background job: forget the ids of exchanged tokens once they are of no use.

use diesel::dsl::IntervalDsl;
use diesel::prelude::*;
use diesel_async::{AsyncPgConnection, RunQueryDsl};

use crate::schema::used_jtis;

pub async fn forget_expired_token_ids(conn: &mut AsyncPgConnection) -> QueryResult<usize> {
    diesel::delete(used_jtis::table)
        .filter(used_jtis::expires_at.lt(diesel::dsl::now + IntervalDsl::minutes(30))) // expect: ttl-below-replay-horizon
        .execute(conn)
        .await
}
