//! `missing-unique-key-constraint`: a store whose key columns have no
//! PRIMARY KEY, UNIQUE constraint or unique index at the end of its
//! migration history, or only a partial one.

use super::Context;
use crate::diagnostic::{Diagnostic, Severity};
use crate::model::schema::{Guard, Guarding, Removed, Store, Table};

pub const NAME: &str = "missing-unique-key-constraint";

pub fn check(ctx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    for (t, s) in ctx.model.schema.stores() {
        if s.key.is_empty() {
            continue;
        }
        match s.guarding(t) {
            Guarding::Missing => out.push(missing(t, &s, s.last_removed(t), s.plain_index(t))),
            Guarding::Partial(g) => out.push(partial(t, &s, g)),
            Guarding::Guarded(_) | Guarding::SplitByPartition { .. } => {}
        }
    }
}

fn cols(c: &[String]) -> String {
    c.join(", ")
}

/// An identifier as PostgreSQL must read it: quoted unless it is already
/// in the form an unquoted name folds to (`"IdempotencyKey"`, but
/// `idempotency_keys`).
fn ident(name: &str) -> String {
    let plain = name.starts_with(|c: char| c.is_ascii_lowercase() || c == '_')
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
    if plain {
        name.to_string()
    } else {
        format!("\"{}\"", name.replace('"', "\"\""))
    }
}

/// The guard to add: scope columns first, so one caller's key never meets
/// another's. Names are the normalised ones (case kept only where it was
/// quoted), quoted where PostgreSQL needs it.
fn suggestion(t: &Table, s: &Store) -> String {
    let mut columns = s.scope.clone();
    columns.extend(s.key.iter().cloned());
    let bare = t.key.rsplit('.').next().unwrap_or(&t.key);
    let table: Vec<String> = t.key.split('.').map(ident).collect();
    let quoted: Vec<String> = columns.iter().map(|c| ident(c)).collect();
    format!(
        "CREATE UNIQUE INDEX CONCURRENTLY {} ON {} ({});",
        ident(&format!("{bare}_{}_key", columns.join("_"))),
        table.join("."),
        cols(&quoted)
    )
}

fn missing(t: &Table, s: &Store, removed: Option<&Removed>, index: Option<&Guard>) -> Diagnostic {
    let key = cols(&s.key);
    let mut d = match removed {
        Some(r) => Diagnostic::new(
            NAME,
            s.severity(Severity::Error),
            r.at.file,
            r.at.span,
            format!("`{}` is left with no unique guard on `{key}`", t.name),
        )
        .with_primary_label(format!("`{}` dropped here", r.guard.key.name))
        .with_label(
            t.created.file,
            t.created.span,
            format!("`{}` created here", t.name),
        )
        .with_label(
            r.guard.at.file,
            r.guard.at.span,
            "the guard, before the drop",
        )
        .with_note("two concurrent replays both read nothing and both insert a row"),
        None => Diagnostic::new(
            NAME,
            s.severity(Severity::Error),
            t.created.file,
            t.created.span,
            format!("`{}` has no unique guard on `{key}`", t.name),
        )
        .with_primary_label("table defined here")
        .with_note("two concurrent replays both read nothing and both insert a row"),
    };
    if let Some(u) = &s.derived {
        d = d.with_label(
            u.file,
            u.span,
            format!(
                "the code {} `{}` {} {}: the table keeps {}",
                if u.writes { "fills" } else { "looks up" },
                u.column.as_deref().unwrap_or(&t.name),
                if u.writes { "from" } else { "by" },
                u.what,
                if u.event {
                    "the provider's event ids"
                } else {
                    "the clients' idempotency keys"
                }
            ),
        );
    }
    if s.own_guard {
        d = d.with_note(format!(
            "`{}` carries the key, and this was its own unique guard over `{key}`: a unique index over the key exists only to refuse a second row with it",
            t.name
        ));
    }
    if let Some(ix) = index {
        d = d.with_label(
            ix.at.file,
            ix.at.span,
            format!(
                "`{}` is a plain index: it refuses no second row",
                ix.key.name
            ),
        );
    }
    let help = if let Some((p, _)) = &t.partition_by {
        d = d.with_note(format!(
            "`{}` is partitioned by `{}`, and PostgreSQL only allows a unique index that includes the partition column",
            t.name,
            cols(&p.columns)
        ));
        format!(
            "keep the keys in a table that is not partitioned by time, or partition it by `HASH ({key})` so `UNIQUE ({key})` is allowed"
        )
    } else {
        format!(
            "add the guard without locking writes: `{}`",
            suggestion(t, s)
        )
    };
    d.with_help(help)
}

fn partial(t: &Table, s: &Store, g: &Guard) -> Diagnostic {
    let predicate = g.key.predicate.as_deref().unwrap_or_default();
    Diagnostic::new(
        NAME,
        s.severity(Severity::Warning),
        g.at.file,
        g.at.span,
        format!(
            "the only unique guard on `{}.{}` is partial",
            t.name,
            cols(&s.key)
        ),
    )
    .with_primary_label(format!("only rows where `{predicate}`"))
    .with_note("rows outside the predicate are not guarded: two replays of such a row both insert")
    .with_help(format!(
        "guard every row: `{}`, or show that no key is ever written outside `{predicate}`",
        suggestion(t, s)
    ))
}
