//! Background job: forget the ids of exchanged tokens once they expired.

use diesel::prelude::*;
use diesel_async::{AsyncPgConnection, RunQueryDsl};

use crate::schema::used_jtis;

pub async fn forget_expired_token_ids(conn: &mut AsyncPgConnection) -> QueryResult<usize> {
    diesel::delete(used_jtis::table)
        .filter(used_jtis::expires_at.lt(diesel::dsl::now))
        .execute(conn)
        .await
}
