//! `delete-based-expiry`: keys expired by `DELETE … WHERE <time> < now() -
//! interval` on a store that is not partitioned by RANGE or LIST (a HASH
//! partition cannot be dropped by age, so it bloats the same way).

use super::Context;
use crate::diagnostic::{Diagnostic, RuleId, Severity};
use crate::facts::store::KeyKind;
use crate::model::schema::DeleteUse;

pub const NAME: RuleId = RuleId::DeleteBasedExpiry;

pub fn check(ctx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    let schema = &ctx.model.schema;
    for d in &schema.deletes {
        if d.delete.expiry.is_none() || !schema.is_store_name(&d.delete.table.key) {
            continue;
        }
        if schema.has_droppable_partitions(&d.delete.table.key) {
            continue;
        }
        let indexes = schema
            .find_table(&d.delete.table.key)
            .map(|t| Indexes::of(t.guards.iter().map(|g| (g.key.kind, g.key.name.as_str()))));
        out.push(delete_expiry(d, indexes));
    }
}

/// What the deleted rows leave dead entries in, besides the table: only the
/// indexes the table's history gives it (none known when it is not seen).
#[derive(Debug, Clone, PartialEq, Eq)]
enum Indexes {
    /// Its unique guards (PRIMARY KEY, UNIQUE), by name.
    Unique(Vec<String>),
    /// Plain indexes only.
    Plain,
    None,
}

impl Indexes {
    fn of<'a>(keys: impl Iterator<Item = (KeyKind, &'a str)>) -> Self {
        let mut unique = Vec::new();
        let mut plain = false;
        for (kind, name) in keys {
            match kind {
                KeyKind::Index => plain = true,
                KeyKind::PrimaryKey | KeyKind::Unique => unique.push(format!("`{name}`")),
            }
        }
        match (unique.is_empty(), plain) {
            (false, _) => Indexes::Unique(unique),
            (true, true) => Indexes::Plain,
            (true, false) => Indexes::None,
        }
    }
}

/// The note on where the dead rows stay: the table always, an index only
/// when the table has one.
fn space_note(indexes: Option<&Indexes>) -> String {
    let base = "`DELETE` plus `VACUUM` marks the space reusable but does not return it";
    match indexes {
        Some(Indexes::Unique(names)) => format!(
            "{base}; dead entries stay in the unique index {} until vacuumed, and every claim searches past them",
            names.join(", ")
        ),
        Some(Indexes::Plain) => format!("{base}; dead entries stay in the table's indexes until vacuumed"),
        Some(Indexes::None) | None => format!("{base}; the table keeps its size"),
    }
}

fn delete_expiry(d: &DeleteUse, indexes: Option<Indexes>) -> Diagnostic {
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
        format!("`{table}` expires keys by `DELETE`"),
    )
    .with_primary_label("rows deleted here");
    if let Some(e) = &d.delete.expiry {
        diag = diag.with_label(
            d.file,
            e.span,
            format!("rows whose `{column}` is older than {age}"),
        );
    }
    diag.with_note(space_note(indexes.as_ref()))
        .with_help(format!(
        "once the store is busy, partition `{table}` by day on `{column}` and drop whole partitions past the replay floor (a unique guard on such a table holds per partition only: see `unique-guard-split-by-partition`)"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_note_names_a_unique_index_only_when_the_table_has_one() {
        let unique = Indexes::of([(KeyKind::PrimaryKey, "processed_events_pkey")].into_iter());
        assert!(space_note(Some(&unique)).contains("unique index `processed_events_pkey`"));
        for none in [
            None,
            Some(Indexes::of(std::iter::empty())),
            Some(Indexes::of([(KeyKind::Index, "events_at_idx")].into_iter())),
        ] {
            let note = space_note(none.as_ref());
            assert!(!note.contains("unique"), "{note}");
        }
    }
}
