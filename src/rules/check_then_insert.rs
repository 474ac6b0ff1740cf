//! `check-then-insert`: an entry point that reads whether a key exists and
//! then inserts it with nothing atomic in between — no `ON CONFLICT`, no
//! `NX`, and (for SQL) no unique guard on the store's key in the schema.
//! With a unique guard the second insert fails on the race, so nothing is
//! reported; with no schema seen for the table, nothing either.

use super::Context;
use crate::diagnostic::{Diagnostic, RuleId, Severity};
use crate::model::find_or_create::{KeyedGap, KeyedLookup, UnguardedFindOrCreate};
use crate::model::flows::{GuardState, Step, StepKind, StoreKey};
use crate::model::lookups::Unguarded;
use std::collections::HashSet;

pub const NAME: RuleId = RuleId::CheckThenInsert;

pub fn check(ctx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    for f in &ctx.model.flows.functions {
        if let (Some(at), false) = (f.unconditional_set, f.test) {
            let nx = nx_options(ctx.sources.get(f.file).kind);
            out.push(unconditional(f.file, at, &f.name, f.span).with_help(nx));
        }
        if let (Some(spans), false) = (f.unlocked_check, f.test) {
            out.push(unlocked(f.file, spans, &f.name, f.span));
        }
        if let (Some(c), false) = (f.plain_claim, f.test) {
            let nx = nx_options(ctx.sources.get(f.file).kind);
            out.push(plain_claim(f.file, c).with_help(nx));
        }
    }
    let mut calls = HashSet::new();
    for u in ctx.model.schema.unguarded_find_or_create() {
        calls.insert((u.call.file, u.call.call.span));
        out.push(find_or_create(&u));
    }
    for k in ctx.model.schema.keyed_lookups() {
        if matches!(k.gap, KeyedGap::Unguarded) && calls.insert((k.call.file, k.call.call.span)) {
            out.push(keyed_lookup(&k));
        }
    }
    let mut seen = HashSet::new();
    for trace in &ctx.model.flows.traces {
        for (c, w, store) in races(&trace.steps) {
            if seen.insert((w.file, w.span)) {
                out.push(diagnostic(c, w, store));
            }
        }
        for l in lookups(&trace.steps) {
            if seen.insert((l.create.file, l.create.span)) {
                out.push(lookup_diagnostic(&l));
            }
        }
    }
}

/// A read of a table by a key no unique guard covers, then a plain
/// create of the same table that can follow it.
struct LookupRace<'a> {
    lookup: &'a Step,
    create: &'a Step,
    table: &'a str,
    unguarded: &'a Unguarded,
}

fn lookups(steps: &[Step]) -> Vec<LookupRace<'_>> {
    let mut out = Vec::new();
    for (wi, w) in steps.iter().enumerate() {
        let StepKind::Effect {
            inserts: Some(table),
            ..
        } = &w.kind
        else {
            continue;
        };
        let found = steps[..wi].iter().find_map(|c| match &c.kind {
            StepKind::Lookup { table: t, lookup } if t == table && !c.exclusive(w) => {
                Some((c, lookup))
            }
            _ => None,
        });
        if let Some((c, lookup)) = found {
            out.push(LookupRace {
                lookup: c,
                create: w,
                table,
                unguarded: lookup,
            });
        }
    }
    out
}

fn lookup_diagnostic(l: &LookupRace<'_>) -> Diagnostic {
    let (c, w, table, lookup) = (l.lookup, l.create, l.table, l.unguarded);
    let key = lookup
        .key
        .iter()
        .map(|k| format!("`{k}`"))
        .collect::<Vec<_>>()
        .join(", ");
    let mut d = Diagnostic::new(
        NAME,
        Severity::Error,
        w.file,
        w.span,
        format!("`{table}` is looked up by {key}, then created with no unique guard over it"),
    )
    .with_primary_label("the create")
    .with_label(c.file, c.span, "the lookup: it reads whether a row with the key exists")
    .with_note("no unique guard covers the looked-up key: two concurrent requests with one key both find nothing and both create");
    if let Some(at) = lookup.dropped {
        d = d.with_label(
            at.file,
            at.span,
            "the migrations create a unique guard over the key that the model no longer declares: the next `prisma migrate dev` drops it",
        );
    }
    for s in [c, w] {
        if let Some((f, sp)) = s.via {
            if (f, sp) != (s.file, s.span) {
                d = d.with_label(f, sp, "inside this call");
            }
        }
    }
    let guard = if lookup.prisma {
        format!(
            "`@@unique([{}])` in the model, then `prisma migrate dev`",
            lookup.fields.join(", ")
        )
    } else {
        format!("`UNIQUE ({})`", lookup.fields.join(", "))
    };
    d.with_help(format!("give the looked-up columns a unique guard ({guard}) and create in one step: `upsert`, or a `create` whose unique violation (`P2002`) is taken for a replay"))
}

/// (check, insert, store) pairs: a check of a store followed by a plain,
/// non-atomic insert of the same store.
fn races(steps: &[Step]) -> Vec<(&Step, &Step, &StoreKey)> {
    let mut out = Vec::new();
    let checks: Vec<usize> = (0..steps.len())
        .filter(|&i| matches!(steps[i].kind, StepKind::Check { .. }))
        .collect();
    for (wi, w) in steps.iter().enumerate() {
        let StepKind::Write {
            store,
            atomic: false,
            plain: true,
            guard,
            ..
        } = &w.kind
        else {
            continue;
        };
        let unguarded = match store {
            StoreKey::Redis(_) => true,
            StoreKey::Table(_) => *guard == GuardState::Missing,
        };
        // A claim of the same key before (`SET NX`, a conditional set):
        // the plain write stores the response over the claim it won.
        let claimed = steps[..wi].iter().any(|c| {
            matches!(&c.kind, StepKind::Write { store: s, atomic: true, .. } if s == store)
                && !c.exclusive(w)
        });
        if !unguarded || claimed {
            continue;
        }
        let check = checks
            .iter()
            .take_while(|&&ci| ci < wi)
            .map(|&ci| &steps[ci])
            .find(|c| {
                matches!(&c.kind, StepKind::Check { store: s } if s == store) && !c.exclusive(w)
            });
        if let Some(c) = check {
            out.push((c, w, store));
        }
    }
    out
}

fn diagnostic(c: &Step, w: &Step, store: &StoreKey) -> Diagnostic {
    let (message, fix) = match store {
        StoreKey::Redis(k) => (
            format!("the Redis key `{k}` is checked, then set without `NX`"),
            "claim with one atomic command instead of a read and a write: `SET key value NX EX ttl`, and treat a nil reply as a replay".to_string(),
        ),
        StoreKey::Table(t) => (
            format!("`{t}` is checked for the key, then inserted without `ON CONFLICT`"),
            format!("give the key a unique guard (`PRIMARY KEY` or `UNIQUE`) and claim with `INSERT INTO {t} … ON CONFLICT DO NOTHING RETURNING …` instead of the read: no row back is a replay"),
        ),
    };
    let mut d = Diagnostic::new(NAME, Severity::Error, w.file, w.span, message)
        .with_primary_label("the insert")
        .with_label(c.file, c.span, "the check: it reads whether the key exists")
        .with_note(match store {
            StoreKey::Redis(_) => "two concurrent replays both read nothing and both proceed",
            StoreKey::Table(_) => "no unique guard covers the key: two concurrent replays both read nothing and both insert",
        });
    for s in [c, w] {
        if let Some((f, sp)) = s.via {
            if (f, sp) != (s.file, s.span) {
                d = d.with_label(f, sp, "inside this call");
            }
        }
    }
    d.with_help(fix)
}

/// A function its name promises sets only an absent key, whose `SET` has
/// no `NX`: its callers take its answer for a claim.
fn unconditional(
    file: crate::source::FileId,
    at: crate::source::Span,
    name: &str,
    name_span: crate::source::Span,
) -> Diagnostic {
    Diagnostic::new(
        NAME,
        Severity::Error,
        file,
        at,
        format!("`{name}` sets the key without `NX`, though its name says only if absent"),
    )
    .with_primary_label("an unconditional `SET`: it succeeds whether the key exists or not")
    .with_label(file, name_span, "callers take this for a claim")
    .with_note("every caller is told the key was free: two concurrent requests with one key both proceed, as after a check and a separate insert")
}

/// How to make the set conditional, with the options of the clients of the
/// file's language.
fn nx_options(kind: crate::source::FileKind) -> String {
    use crate::source::FileKind;
    let clients = match kind {
        FileKind::Script(_) => "ioredis `'NX'`, node-redis `{ NX: true }`, Upstash `{ nx: true }`",
        FileKind::Python => "redis-py `set(key, value, nx=True, ex=ttl)`, Django's `cache.add`",
        FileKind::Go => "go-redis `SetNX`, or `SetArgs{Mode: \"NX\", TTL: ttl}`",
        _ => "redis-rs `ExistenceCheck::NX`, fred `SetOptions::NX`",
    };
    format!("make the set conditional in the same command: `SET key value NX EX ttl` ({clients}), and take a nil reply for a duplicate")
}

/// A function its name promises sets only an absent key, that checks the
/// key before it takes the lock it inserts under. A warning: an in-memory
/// map serves one process, and what it keeps is not known here.
fn unlocked(
    file: crate::source::FileId,
    (check, lock, insert): (
        crate::source::Span,
        crate::source::Span,
        crate::source::Span,
    ),
    name: &str,
    name_span: crate::source::Span,
) -> Diagnostic {
    Diagnostic::new(
        NAME,
        Severity::Warning,
        file,
        insert,
        format!("`{name}` checks the key before taking the lock it inserts under"),
    )
    .with_primary_label("the insert")
    .with_label(file, check, "the check, made before the lock is held")
    .with_label(file, lock, "the lock, taken only after the check")
    .with_label(file, name_span, "callers take this for a claim")
    .with_note("between the check and the lock another caller can insert the same key: two callers both find it absent, both are told it was free and both proceed")
    .with_help("take the write lock first and check and insert under it (`let mut map = self.map.write().await; if map.contains_key(k) { return Ok(false) } map.insert(..)`), or decide by `insert(..).is_none()` / the entry API")
}

/// A `SET` without `NX` that the code takes for a claim: its answer is
/// always `OK`, so every caller wins.
fn plain_claim(file: crate::source::FileId, c: crate::facts::flow::PlainClaim) -> Diagnostic {
    let (message, by) = if c.answer {
        (
            "the answer of a `SET` without `NX` is read as a claim's: it is always OK",
            "the claim's answer is read here: it never says the key was taken",
        )
    } else {
        (
            "a set asked for only if the key is absent is a `SET` without `NX`",
            "this asks for a set only if absent",
        )
    };
    Diagnostic::new(NAME, Severity::Error, file, c.set, message.to_string())
        .with_primary_label("an unconditional `SET`: it succeeds whether the key exists or not")
        .with_label(file, c.by, by)
        .with_note("a replay, or a concurrent request with the same key, is taken for the first: both proceed, as after a check and a separate insert")
}

/// A find-or-create (Django's `get_or_create`) on a store whose lookup no
/// unique guard holds.
fn find_or_create(u: &UnguardedFindOrCreate<'_>) -> Diagnostic {
    let t = u.table;
    let cols = u
        .columns
        .iter()
        .map(|c| format!("`{c}`"))
        .collect::<Vec<_>>()
        .join(", ");
    let fields = u.call.call.columns.join("\", \"");
    Diagnostic::new(
        NAME,
        Severity::Error,
        u.call.file,
        u.call.call.span,
        format!("find-or-create on `{}` by {cols}, which no unique guard holds", t.name),
    )
    .with_primary_label("reads whether the row exists, then inserts it")
    .with_label(t.created.file, t.created.span, "declares the table: no unique guard holds the lookup")
    .with_note("the call is atomic only where the database enforces the lookup's uniqueness: two concurrent calls both find nothing and both insert")
    .with_help(format!("give the lookup a unique guard: `models.UniqueConstraint(fields=[\"{fields}\"], name=..)` in the model's `Meta.constraints`, then `makemigrations`"))
}

/// A lookup then an insert by columns one definition of the table guards
/// and another does not: the race where the guard is missing.
fn keyed_lookup(k: &KeyedLookup<'_>) -> Diagnostic {
    let t = k.table;
    let cols = k
        .columns
        .iter()
        .map(|c| format!("`{c}`"))
        .collect::<Vec<_>>()
        .join(", ");
    Diagnostic::new(
        NAME,
        Severity::Error,
        k.call.file,
        k.call.call.span,
        format!("lookup then insert on `{}`, which this definition of it does not guard", t.name),
    )
    .with_primary_label(format!("reads whether the row exists by {cols}, then inserts it"))
    .with_label(t.created.file, t.created.span, "declares the table: no unique guard holds the lookup")
    .with_label(k.keyed_by.at.file, k.keyed_by.at.span, "another definition guards the lookup")
    .with_note("the lookup is race-free only where the database refuses a second row with the same key: two concurrent or retried calls both find nothing and both insert")
    .with_help("declare the unique guard of the other definition here too (the model and its migrations must agree), then generate the migration")
}
