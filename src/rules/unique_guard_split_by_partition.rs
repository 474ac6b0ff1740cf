//! `unique-guard-split-by-partition`: a partitioned store whose only unique
//! guard adds the partition column to the key, so it holds per partition.

use super::Context;
use crate::diagnostic::{Diagnostic, RuleId, Severity};
use crate::model::schema::{Guard, Guarding, Store, Table};

pub const NAME: RuleId = RuleId::UniqueGuardSplitByPartition;

pub fn check(ctx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    let schema = &ctx.model.schema;
    let guards_only = schema.split_guards();
    for (t, s) in schema.stores() {
        if guards_only.iter().any(|(o, _)| o.key == t.key) {
            continue; // said once, below
        }
        if let Guarding::SplitByPartition { guard, columns } = s.guarding(t) {
            out.push(split(t, &s, guard, &columns));
        }
    }
    for (t, s) in guards_only {
        if let Guarding::SplitByPartition { guard, columns } = s.guarding(t) {
            out.push(split(t, &s, guard, &columns).with_note(format!(
                "`{}` is not named as a key store, but a unique guard over `{}` exists only to refuse a second row with the same key",
                t.name,
                s.key.join(", ")
            )));
        }
    }
}

fn split(t: &Table, s: &Store, g: &Guard, partition_cols: &[String]) -> Diagnostic {
    let key = s.key.join(", ");
    let pcols = partition_cols.join(", ");
    // A table judged only as a carrier of the key (a note elsewhere) still
    // gets a warning here: the guard was written to guard, and does not.
    let severity = if s.dedicated || s.own_guard {
        Severity::Error
    } else {
        Severity::Warning
    };
    let mut d = Diagnostic::new(
        NAME,
        severity,
        g.at.file,
        g.at.span,
        format!("`{}` is unique per partition only", t.name),
    )
    .with_primary_label(format!("`({})` includes the partition column", g.key.parts_text()))
    .with_note("a replay that lands in another partition inserts a second row")
    .with_note(format!(
        "PostgreSQL checks a unique index inside each partition only (which is why every unique index must include the partition column); a replay carries a new `{pcols}`, lands in a partition where the key is absent, and is inserted"
    ));
    if let Some((p, file)) = &t.partition_by {
        d = d.with_label(
            *file,
            p.span,
            format!(
                "`{}` is partitioned by `{}` here",
                t.name,
                p.columns.join(", ")
            ),
        );
    }
    d.with_help(format!(
        "guard the key in a table not partitioned by `{pcols}` (`PRIMARY KEY ({key})`), or partition by `HASH ({key})`, which allows `UNIQUE ({key})`"
    ))
}
