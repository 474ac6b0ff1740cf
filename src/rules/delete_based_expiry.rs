//! `delete-based-expiry`: keys expired by `DELETE … WHERE <time> < now() -
//! interval` on a store that is not partitioned by RANGE or LIST (a HASH
//! partition cannot be dropped by age, so it bloats the same way).

use super::Context;
use crate::diagnostic::{Diagnostic, Severity};
use crate::model::schema::DeleteUse;

pub const NAME: &str = "delete-based-expiry";

pub fn check(ctx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    let schema = &ctx.model.schema;
    for d in &schema.deletes {
        if d.delete.expiry.is_none() || !schema.is_store_name(&d.delete.table.key) {
            continue;
        }
        if schema.has_droppable_partitions(&d.delete.table.key) {
            continue;
        }
        out.push(delete_expiry(d));
    }
}

fn delete_expiry(d: &DeleteUse) -> Diagnostic {
    let table = &d.delete.table.text;
    let (column, age) = d
        .delete
        .expiry
        .as_ref()
        .map(|e| (e.column.clone(), e.duration.to_string()))
        .unwrap_or_default();
    let mut diag = Diagnostic::new(
        NAME,
        Severity::Note,
        d.file,
        d.delete.table.span,
        format!(
            "`{table}` expires keys by `DELETE` of rows whose `{column}` is older than {age}: the space stays in the table and in its unique index"
        ),
    );
    if let Some(e) = &d.delete.expiry {
        diag = diag.with_label(d.file, e.span, "the expiry interval");
    }
    diag.with_help(format!(
        "`DELETE` plus `VACUUM` marks the space reusable but does not return it, and dead entries stay in the unique index until vacuumed; once the store is busy, partition `{table}` by day on `{column}` and drop whole partitions past the replay floor (a unique guard on such a table holds per partition only: see `unique-guard-split-by-partition`)"
    ))
}
