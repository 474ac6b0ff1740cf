//! `key-recorded-after-effect`: an entry point that performs an effect and
//! writes the idempotency key only afterwards (or only on the effect's
//! success path, or on another connection than the effect's transaction),
//! with nothing claimed before the effect. Reads the flattened traces of
//! `model::flows`.

use super::Context;
use crate::diagnostic::{Diagnostic, RuleId, Severity};
use crate::facts::store::SchemaCode;
use crate::model::flows::{Step, StepKind, StoreKey, Unheld, MIN_CLAIM_TTL_MS};
use crate::model::schema::{SchemaModel, Table};
use std::collections::HashSet;

pub const NAME: RuleId = RuleId::KeyRecordedAfterEffect;

pub fn check(ctx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    let mut seen = HashSet::new();
    for trace in &ctx.model.flows.traces {
        if let Some(u) = unheld_claim(&trace.steps) {
            if seen.insert((u.claim.file, u.claim.span)) {
                out.push(unheld_diagnostic(&u, &ctx.model.schema));
            }
        }
        if let Some(late) = late_write(&trace.steps) {
            if seen.insert((late.write.file, late.write.span)) {
                out.push(diagnostic(&late, &ctx.model.schema));
            }
        } else if let Some(p) = possible(&trace.steps) {
            if seen.insert((p.write.file, p.write.span)) {
                out.push(possible_diagnostic(&p, &ctx.model.schema));
            }
        }
    }
}

/// A claim that does not hold the key (see [`Unheld`]), an effect after it,
/// and a record of the same key after the effect: in effect the key is
/// recorded only after the effect, whatever the claim says.
struct UnheldClaim<'a> {
    claim: &'a Step,
    why: &'a Unheld,
    effect: &'a Step,
    what: &'a str,
    write: &'a Step,
    store: &'a StoreKey,
}

fn unheld_claim(steps: &[Step]) -> Option<UnheldClaim<'_>> {
    for (ci, c) in steps.iter().enumerate() {
        let StepKind::Write {
            store,
            unheld: Some(why),
            ..
        } = &c.kind
        else {
            continue;
        };
        let Some((ei, effect, what)) =
            steps
                .iter()
                .enumerate()
                .skip(ci + 1)
                .find_map(|(i, e)| match &e.kind {
                    StepKind::Effect { what, .. } if !c.exclusive(e) => Some((i, e, what)),
                    _ => None,
                })
        else {
            continue;
        };
        let Some(write) = steps.iter().skip(ei + 1).find(|w| {
            matches!(&w.kind, StepKind::Write { store: s, unheld: None, .. } if s == store)
                && !effect.exclusive(w)
        }) else {
            continue;
        };
        return Some(UnheldClaim {
            claim: c,
            why,
            effect,
            what,
            write,
            store,
        });
    }
    None
}

fn unheld_diagnostic(u: &UnheldClaim<'_>, schema: &SchemaModel) -> Diagnostic {
    let store = u.store.describe();
    let what = u.what;
    let (severity, message, label, at, note) = match u.why {
        Unheld::FreshStore { at, what: made } => (
            Severity::Error,
            format!("the claim is taken on a store made for this call: the key is recorded only after {what}"),
            format!("a store made here (`{made}`): no other request, and no other server, sees this claim"),
            *at,
            format!("the key reaches {store} only when the record is written, after the effect: a replay that arrives in between finds nothing and runs the handler again"),
        ),
        Unheld::Dropped { at } => (
            Severity::Error,
            format!("the claim's answer is not read, so a request that lost it goes on to {what} as well"),
            "whether the conditional set won is dropped here".to_string(),
            *at,
            format!("a replay that finds the claim taken runs the handler anyway; the key reaches {store} only after the effect"),
        ),
        Unheld::ShortTtl { at, ms } => (
            Severity::Warning,
            format!("the claim expires after {ms} ms: the key is in effect recorded only after {what}"),
            format!("the claim's expiry: {ms} ms, under {} s, before a handler can be relied on to finish", MIN_CLAIM_TTL_MS / 1000),
            *at,
            format!("once the claim has expired a replay finds no key in {store} and runs the handler again; the claim must outlive the slowest handler run"),
        ),
    };
    let mut d = Diagnostic::new(NAME, severity, u.claim.file, u.claim.span, message)
        .with_primary_label("the claim, taken before the effect")
        .with_label(u.claim.file, at, label)
        .with_label(u.effect.file, u.effect.span, format!("the effect: {what}"))
        .with_label(
            u.write.file,
            u.write.span,
            "the key is recorded here, after the effect",
        )
        .with_note(note);
    for (s, label) in [
        (u.effect, "the effect happens inside this call"),
        (u.write, "the key is written inside this call"),
    ] {
        if let Some((f, sp)) = s.via.filter(|&(f, sp)| (f, sp) != (s.file, s.span)) {
            d = d.with_label(f, sp, label);
        }
    }
    d.with_help(format!(
        "take the claim on the store the record goes to, with an expiry longer than the slowest handler run, and go on only when it was won: {}",
        claim_help(u.store, schema)
    ))
}

/// A lookup of a key, an awaited call the model cannot resolve, and a
/// record of that same key, in this order, with nothing written to any
/// store before the call and no known effect between the lookup and the
/// record: the call is taken for the effect.
struct Possible<'a> {
    lookup: &'a Step,
    call: &'a Step,
    what: &'a str,
    why: &'a str,
    write: &'a Step,
    store: &'a StoreKey,
    how: &'a str,
}

fn possible(steps: &[Step]) -> Option<Possible<'_>> {
    for (wi, w) in steps.iter().enumerate() {
        let StepKind::Write {
            store, what: how, ..
        } = &w.kind
        else {
            continue;
        };
        let before = &steps[..wi];
        let Some(ci) = before.iter().position(|c| {
            matches!(&c.kind, StepKind::Check { store: s } if s == store) && !c.exclusive(w)
        }) else {
            continue;
        };
        let lookup = &steps[ci];
        // A write of any store before the call may be the claim.
        let Some((ui, call)) = before.iter().enumerate().skip(ci + 1).find(|(_, u)| {
            matches!(u.kind, StepKind::Unresolved { .. }) && !lookup.exclusive(u) && !u.exclusive(w)
        }) else {
            continue;
        };
        if before[..ui]
            .iter()
            .any(|s| matches!(s.kind, StepKind::Write { .. }) && !s.exclusive(call))
            || before[ci..]
                .iter()
                .any(|s| matches!(s.kind, StepKind::Effect { .. }) && !s.exclusive(w))
        {
            return None;
        }
        let StepKind::Unresolved { what, why, .. } = &call.kind else {
            continue;
        };
        return Some(Possible {
            lookup,
            call,
            what,
            why,
            write: w,
            store,
            how,
        });
    }
    None
}

fn possible_diagnostic(p: &Possible<'_>, schema: &SchemaModel) -> Diagnostic {
    let store = p.store.describe();
    let mut d = Diagnostic::new(
        NAME,
        Severity::Warning,
        p.write.file,
        p.write.span,
        format!(
            "the key is recorded only after {}, which may be the effect",
            p.what
        ),
    )
    .with_primary_label(format!("{} of the key, after the call", p.how))
    .with_label(
        p.call.file,
        p.call.span,
        format!(
            "this awaited call could not be resolved; it is taken as the effect ({})",
            p.why
        ),
    )
    .with_label(
        p.lookup.file,
        p.lookup.span,
        "the key is looked up here, and nothing claims it before the call",
    )
    .with_note(format!(
        "the key goes to {store} only after the call: if the call moves money or sends something, a replay that arrives in between, or a crash there, does it again; if it does neither, the order is harmless: `// idemlint: allow(key-recorded-after-effect) -- <why>` says so here"
    ));
    for (s, label) in [
        (p.call, "the call happens inside this call"),
        (p.write, "the key is written inside this call"),
    ] {
        if let Some((f, sp)) = s.via.filter(|&(f, sp)| (f, sp) != (s.file, s.span)) {
            d = d.with_label(f, sp, label);
        }
    }
    let claim = claim_help(p.store, schema);
    d.with_help(format!(
        "claim the key before the call: {claim}; then make the call; then store the response under the claimed key"
    ))
}

fn claim_help(store: &StoreKey, schema: &SchemaModel) -> String {
    const ANSWER: &str = "answer it from the stored response";
    let t = match store {
        StoreKey::Redis(_) => {
            return format!(
                "`SET key value NX EX ttl` before the effect (a nil reply is a replay: {ANSWER})"
            )
        }
        StoreKey::Table(t) => t,
    };
    let code = schema.find_table(t).and_then(Table::code);
    let first = "in the transaction that performs the effect";
    match code {
        Some(SchemaCode::Prisma) => format!("a Prisma `create` of `{t}`'s row {first} (`$transaction`), taking a `P2002` error for a replay ({ANSWER})"),
        Some(SchemaCode::Drizzle) => format!("`db.insert(…).values(…).onConflictDoNothing().returning()` into `{t}` {first} (an empty result is a replay: {ANSWER})"),
        Some(SchemaCode::TypeOrm) => format!("`insert` of `{t}`'s row {first}, taking the `QueryFailedError` of its unique guard for a replay ({ANSWER})"),
        Some(SchemaCode::Sequelize) => format!("`create` of `{t}`'s row {first}, taking a `UniqueConstraintError` for a replay ({ANSWER})"),
        Some(SchemaCode::Medusa) => format!("a `create` of `{t}`'s row {first}, taking MikroORM's `UniqueConstraintViolationException` for a replay ({ANSWER})"),
        Some(SchemaCode::Django) => format!("`{t}`'s row created {first} (`transaction.atomic()`), taking the `IntegrityError` of its unique guard for a replay ({ANSWER})"),
        Some(SchemaCode::SqlAlchemy | SchemaCode::Alembic) => format!("an `insert(...).on_conflict_do_nothing().returning(...)` into `{t}` {first} (no row back is a replay: {ANSWER})"),
        Some(SchemaCode::Ent) => format!("`Create()` of `{t}`'s row {first} (`client.Tx`), taking `ent.IsConstraintError` for a replay ({ANSWER})"),
        None => format!("`INSERT INTO {t} (key, …) VALUES (…) ON CONFLICT DO NOTHING RETURNING key` {first} (no row back is a replay: {ANSWER})"),
    }
}

/// A key write after an effect.
struct Late<'a> {
    effect: &'a Step,
    what: &'a str,
    reason: &'a str,
    /// The effect is a SQL write.
    sql_effect: bool,
    write: &'a Step,
    store: &'a StoreKey,
    how: &'a str,
    conn: Option<&'a str>,
    /// The commit of the effect's transaction, before the write, and its name.
    commit: Option<(&'a Step, &'a str)>,
    /// The write is an update in the effect's own open transaction.
    same_tx_update: bool,
}

fn is_write(s: &Step) -> bool {
    matches!(s.kind, StepKind::Write { .. })
}

/// The first key write that follows an effect, when no key write comes
/// before that effect. A write in the effect's own open transaction commits
/// with it (a duplicate rolls the effect back) and is no late write.
fn late_write(steps: &[Step]) -> Option<Late<'_>> {
    // Indices of effects and of key writes: a trace is mostly other steps.
    let effects: Vec<usize> = (0..steps.len())
        .filter(|&i| matches!(steps[i].kind, StepKind::Effect { .. }))
        .collect();
    let writes: Vec<usize> = (0..steps.len()).filter(|&i| is_write(&steps[i])).collect();
    for &wi in &writes {
        let w = &steps[wi];
        let StepKind::Write {
            store,
            what: how,
            conn,
            ..
        } = &w.kind
        else {
            continue;
        };
        let found =
            effects
                .iter()
                .take_while(|&&ei| ei < wi)
                .find_map(|&ei| match &steps[ei].kind {
                    StepKind::Effect {
                        what,
                        reason,
                        sql_conn,
                        ..
                    } if !steps[ei].exclusive(w) => Some((ei, &steps[ei], what, reason, sql_conn)),
                    _ => None,
                });
        let Some((ei, e, what, reason, sql_conn)) = found else {
            continue;
        };
        if claims_later_work(steps, wi) {
            continue;
        }
        if writes
            .iter()
            .take_while(|&&ci| ci < ei)
            .any(|&ci| !steps[ci].exclusive(e))
        {
            return None;
        }
        let effect_tx = sql_conn.as_ref().and_then(|c| c.as_deref()).filter(|c| {
            steps[..ei]
                .iter()
                .any(|b| matches!(&b.kind, StepKind::TxBegin { conn: Some(t) } if t == c))
        });
        let commit = effect_tx.and_then(|tx| {
            steps[ei..wi]
                .iter()
                .find(|s| matches!(&s.kind, StepKind::TxEnd { conn: Some(t), .. } if t == tx))
                .map(|s| (s, tx))
        });
        // An update in the effect's own transaction guards nothing: it fails
        // on no duplicate, and with no write of the key before the effect a
        // replay finds no row to stop it.
        let same_tx_update = effect_tx.is_some()
            && commit.is_none()
            && !store.is_redis()
            && conn.as_deref() == effect_tx
            && *how == "update";
        if let Some(tx) = effect_tx {
            if commit.is_none()
                && !store.is_redis()
                && conn.as_deref() == Some(tx)
                && !same_tx_update
            {
                continue;
            }
        }
        return Some(Late {
            effect: e,
            what,
            reason,
            sql_effect: sql_conn.is_some(),
            write: w,
            store,
            how,
            conn: conn.as_deref(),
            commit,
            same_tx_update,
        });
    }
    None
}

/// Whether the write at `wi` is a claim whose answer decides the work
/// after it (`if (wonClaim) { append }`), and work follows: it is that
/// work's claim, taken before it, not a record of what ran earlier (a
/// session's bookkeeping before a part's dedup claim).
fn claims_later_work(steps: &[Step], wi: usize) -> bool {
    let w = &steps[wi];
    matches!(w.kind, StepKind::Write { decides: true, .. })
        && steps[wi + 1..].iter().any(|s| {
            matches!(
                s.kind,
                StepKind::Effect { .. } | StepKind::Unresolved { .. }
            ) && !w.exclusive(s)
        })
}

fn diagnostic(l: &Late<'_>, schema: &SchemaModel) -> Diagnostic {
    let store = l.store.describe();
    let what = l.what;
    let redis_over_sql = l.store.is_redis() && l.sql_effect;
    let (message, note) = if l.same_tx_update {
        (
            format!("the key is only updated after {what}, and nothing inserted it before"),
            format!(
                "an `UPDATE` of {store} in the effect's transaction fails on no duplicate: with no row claimed before the effect, a replay finds nothing and applies the effect again"
            ),
        )
    } else if let Some((_, tx)) = l.commit {
        (
            format!("the key is written after the effect's transaction `{tx}` commits"),
            format!(
                "the key goes to {store} on `{}` and nothing claims it before: a crash or a replay between the two commits applies the effect again",
                l.conn.unwrap_or("another connection")
            ),
        )
    } else if redis_over_sql {
        (
            format!("the key is written to Redis only after {what} commits in SQL"),
            format!("the key ({store}) and the effect live in two stores with no transaction across them, and nothing claims the key before"),
        )
    } else {
        let path = if l.write.success_only {
            "only on the success path of"
        } else {
            "only after"
        };
        (
            format!("the key is recorded {path} {what}"),
            format!(
                "the key goes to {store} and nothing claims it before: a replay that arrives in between, or a crash there, applies the effect again"
            ),
        )
    };
    let mut d = Diagnostic::new(NAME, Severity::Error, l.write.file, l.write.span, message)
        .with_primary_label(format!("{} of the key, after the effect", l.how))
        .with_note(note);
    let effect_label = if redis_over_sql {
        format!("the effect, {what}, commits in SQL")
    } else {
        format!("the effect: {what} ({})", l.reason)
    };
    d = d.with_label(l.effect.file, l.effect.span, effect_label);
    if let Some((c, tx)) = l.commit {
        d = d.with_label(
            c.file,
            c.span,
            format!("`{tx}` commits here, first: the effect is durable before the key exists"),
        );
    }
    let via = |s: &Step| s.via.filter(|&(f, sp)| (f, sp) != (s.file, s.span));
    match (via(l.effect), via(l.write)) {
        (Some(e), Some(w)) if e == w => {
            d = d.with_label(
                e.0,
                e.1,
                "the effect and the key write happen inside this call",
            );
        }
        (e, w) => {
            if let Some((f, sp)) = e {
                d = d.with_label(f, sp, "the effect happens inside this call");
            }
            if let Some((f, sp)) = w {
                d = d.with_label(f, sp, "the key is written inside this call");
            }
        }
    }
    let claim = claim_help(l.store, schema);
    d.with_help(format!(
        "claim the key first, then do the work, then store the response: {claim}; perform the effect; update the claimed row with the response; commit once"
    ))
}
