//! `missing-request-fingerprint`: a request-key store with no column for a
//! hash or copy of the request. Not for provider-event stores (a provider's
//! event id always names the same event), nor for a table that is a store
//! only by its `idempotency_key` column (`payments`: the row holds the
//! request's own fields) unless the key is its primary key.

use super::Context;
use crate::diagnostic::{Diagnostic, RuleId, Severity};
use crate::facts::store::KeyKind;
use crate::knowledge;
use crate::model::row_code::{FingerprintGap, Gap};
use crate::model::schema::{Store, StoreKind, Table};

pub const NAME: RuleId = RuleId::MissingRequestFingerprint;

pub fn check(ctx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    let words = &knowledge::stores().fingerprint_column;
    for (t, s) in ctx.model.schema.stores() {
        // Without a recognised key column there is no telling what the
        // table keys (a nonce table, an audit log named `dedup_...`).
        if s.kind != StoreKind::RequestKey || s.key.is_empty() {
            continue;
        }
        // A table that carries the key is judged when it is where the key
        // is kept and answered from: the key is its primary key. Else
        // (`payments` with a unique `idempotency_key`, a run or a log row)
        // the row holds the request's own fields or what it did, not a
        // stored answer.
        // An append-only log whose own unique guard is over the key is
        // answered from too: a replay gets the entry the first request
        // logged (`[answer_log_table]` of rules/stores.toml). Only while
        // that guard stands: without it a retry logs a second entry.
        let log = s.own_guard
            && guards_key(t, &s)
            && knowledge::stores().answer_log_table.matches(&t.key);
        let kept = s.own_guard && keyed_by(t, &s);
        if !s.dedicated && !kept && !log {
            continue;
        }
        // A digest key is the request's own fingerprint; a pure dedup table
        // (no stored response) answers a replay with "seen", not with the
        // first request's response, so a changed body cannot be misanswered.
        if s.digest || !(s.keeps_response || log) {
            continue;
        }
        // A stored response is not a fingerprint of the request; nor, in a
        // table that is not only for keys, a bare `hash` or `checksum`:
        // that is the row's own.
        let fingerprints: Vec<&str> = t
            .columns
            .iter()
            .filter(|c| {
                !c.name.starts_with("response")
                    && words.matches(&c.name)
                    && (s.dedicated || knowledge::name_words(&c.name).len() > 1)
            })
            .map(|c| c.name.as_str())
            .collect();
        // A fingerprint column the code maps and defeats is none: never
        // filled, never compared, or hashed from nothing.
        if let Some((c, g)) = fingerprints
            .iter()
            .find_map(|c| ctx.model.fingerprint_gap(t, c).map(|g| (*c, g)))
        {
            out.push(defeated(t, c, &g));
            continue;
        }
        if fingerprints.is_empty() {
            let d = missing(t, &s);
            out.push(if log && !kept && !s.dedicated {
                d.with_note(format!(
                    "`{}` is a log whose own unique guard is over `{}`: a replay is answered with the entry the first request logged",
                    t.name,
                    s.key.join(", ")
                ))
            } else {
                d
            });
        }
    }
}

/// Whether a full unique guard of the table (no predicate) holds every key
/// column, with scope columns or not.
fn guards_key(t: &Table, s: &Store) -> bool {
    t.guards.iter().any(|g| {
        g.key.kind != KeyKind::Index
            && g.key.predicate.is_none()
            && s.key.iter().all(|k| {
                g.key
                    .parts
                    .iter()
                    .any(|p| p.columns().contains(&k.as_str()))
            })
    })
}

/// Whether the table's primary key is its key column(s) alone.
fn keyed_by(t: &Table, s: &Store) -> bool {
    t.guards.iter().any(|g| {
        g.key.kind == KeyKind::PrimaryKey
            && g.key
                .parts
                .iter()
                .all(|p| p.columns().iter().all(|c| s.key.iter().any(|k| k == c)))
    })
}

/// A fingerprint column the code never fills, never compares, or fills
/// from a function that hashes none of the request.
fn defeated(t: &Table, column: &str, g: &FingerprintGap) -> Diagnostic {
    let (headline, label, note) = match &g.gap {
        Gap::NeverFilled => (
            format!("`{}.{column}` is never filled with the request's fingerprint", t.name),
            format!("`{}` gets nothing here", g.field),
            "every row keeps an empty fingerprint, so a reused key with a different body matches it and gets the first request's answer",
        ),
        Gap::NeverCompared => (
            format!("`{}.{column}` is stored but never compared on a replay", t.name),
            format!("`{}` is filled here and read nowhere", g.field),
            "a reused key with a different body is answered with the first request's result instead of a 422",
        ),
        Gap::HashesNothing(f) => (
            format!("`{}.{column}` is filled by `{f}`, which hashes none of its input", t.name),
            format!("`{f}` reads none of its parameters"),
            "every request gets the same fingerprint, so a reused key with a different body passes the replay check",
        ),
    };
    Diagnostic::new(
        NAME,
        Severity::Note,
        g.file,
        g.span,
        headline,
    )
    .with_primary_label(label)
    .with_label(t.created.file, t.created.span, "table defined here")
    .with_note(note)
    .with_help("store a hash of the whole request with the key, compare it on every replay, and answer 422 when it differs")
}

fn missing(t: &Table, s: &Store) -> Diagnostic {
    let key = s.key.join(", ");
    Diagnostic::new(
        NAME,
        Severity::Note,
        t.created.file,
        t.created.span,
        format!("`{}` keeps no fingerprint of the request", t.name),
    )
    .with_primary_label("table defined here")
    .with_note(format!(
        "a reused `{key}` with a different body gets the first body's stored response instead of a 422"
    ))
    .with_help(format!(
        "store a hash of the request with the key ({}), compare it on every replay, and answer 422 when it differs",
        if t.prisma.is_some() {
            "a field `requestHash Bytes` in the model".to_string()
        } else {
            format!("`ALTER TABLE {} ADD COLUMN request_hash bytea`", t.name)
        }
    ))
}
