//! `unscoped-idempotency-key`: a request-key store guarded on the key alone
//! while the table records which caller sent it, or a Redis key format that
//! holds the client's key with no caller beside it.

use super::Context;
use crate::diagnostic::{Diagnostic, RuleId, Severity};
use crate::model::find_or_create::{KeyedGap, KeyedLookup};
use crate::model::key_formats::{OwnerlessFormat, UnscopedFormat};
use crate::model::row_code::OwnerlessLookup;
use crate::model::schema::{Guard, Guarding, Store, StoreKind, Table};
use crate::model::tenant_guards::{Evidence, TenantBlind};

pub const NAME: RuleId = RuleId::UnscopedIdempotencyKey;

pub fn check(ctx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    let mut judged: Vec<&str> = Vec::new();
    for (t, s) in ctx.model.schema.stores() {
        if s.kind != StoreKind::RequestKey || s.scope.is_empty() {
            continue;
        }
        judged.push(&t.key);
        let on_key = |g: &&Guard| {
            g.key
                .parts
                .iter()
                .any(|p| p.columns().iter().any(|c| s.key.iter().any(|k| k == c)))
        };
        // Where a Prisma model and its migrations disagree, both states
        // are judged: the guard the model declares and no migration creates
        // yet (what the next migration makes), and the one the migrations
        // created that the model no longer declares (what the deployed
        // database holds until then).
        let guards: Vec<&Guard> = match s.guarding(t) {
            Guarding::Guarded(g) => vec![g],
            _ => t
                .unmigrated
                .iter()
                .chain(t.removed.iter().filter(|r| r.by_schema).map(|r| &r.guard))
                .filter(on_key)
                .collect(),
        };
        for g in guards {
            let cols: Vec<&str> = g.key.parts.iter().flat_map(|p| p.columns()).collect();
            let scoped = cols.iter().any(|c| s.scope.iter().any(|x| x == c))
                || ctx.model.schema.owned_parent(t, &cols).is_some();
            if !scoped {
                out.push(unscoped(t, &s, g));
            }
        }
    }
    for t in &ctx.model.schema.tables {
        if !judged.contains(&t.key.as_str()) {
            out.extend(rescoped(ctx, t));
        }
    }
    for u in &ctx.model.key_formats.unscoped {
        out.push(unscoped_format(u));
    }
    for f in ctx.model.files.iter().filter(|f| !f.test_path) {
        for d in f.code.iter().flat_map(|r| &r.dropped_callers) {
            out.push(dropped_caller(f.file, d));
        }
    }
    for o in &ctx.model.key_formats.ownerless {
        out.push(ownerless(o));
    }
    for l in ctx.model.ownerless_lookups() {
        out.push(ownerless_lookup(&l));
    }
    let mut blind = Vec::new();
    for b in ctx.model.schema.tenant_blind_guards() {
        blind.push((b.guard.at.file, b.guard.at.span));
        out.push(tenant_blind(&b));
    }
    let mut seen: Vec<(&str, &[String])> = Vec::new();
    for (c, t, g, scope) in ctx.model.schema.unscoped_conflicts() {
        let at = (t.key.as_str(), c.target.columns.as_slice());
        if !seen.contains(&at) && !blind.contains(&(g.at.file, g.at.span)) {
            seen.push(at);
            out.push(unscoped_conflict(c, t, g, &scope));
        }
    }
    for k in ctx.model.schema.keyed_lookups() {
        let KeyedGap::Unscoped(g, scope) = &k.gap else {
            continue;
        };
        let at = (k.table.key.as_str(), k.call.call.columns.as_slice());
        if !seen.contains(&at) && !blind.contains(&(g.at.file, g.at.span)) {
            seen.push(at);
            out.push(unscoped_lookup(&k, g, scope));
        }
    }
}

/// Code that finds or creates rows by the caller's scope and other
/// columns (`organization_id, type, source_id`), which one definition of
/// the table guards, on a definition whose guard leaves the scope out.
fn unscoped_lookup(k: &KeyedLookup<'_>, g: &Guard, scope: &[String]) -> Diagnostic {
    let shown = scope.join("`, `");
    let looked = k.columns.join(", ");
    Diagnostic::new(
        NAME,
        Severity::Warning,
        g.at.file,
        g.at.span,
        format!(
            "unique guard on `{}` leaves out `{shown}`, unlike the code's lookup",
            k.table.name
        ),
    )
    .with_primary_label(format!("guards `({})` across owners", g.key.parts_text()))
    .with_label(k.call.file, k.call.call.span, format!("the code looks the row up by `({looked})` here"))
    .with_label(k.keyed_by.at.file, k.keyed_by.at.span, "another definition of the table guards the lookup")
    .with_note("ids each owner chooses collide across owners: one owner's row blocks another's insert, or answers for it")
    .with_help(format!("make the guard the lookup: `{}`", super::unique_clause(k.table, &k.columns)))
}

/// Code that dedups per owner (`ON CONFLICT (organization_id,
/// external_id)`) on a table whose unique guard holds the rest of the
/// target without the owner: the insert fails (no arbiter matches), and
/// the guard refuses one owner's row for another's id.
fn unscoped_conflict(
    c: &crate::model::schema::ConflictUse,
    t: &Table,
    g: &Guard,
    scope: &[String],
) -> Diagnostic {
    let shown = scope.join("`, `");
    let target = c.target.columns.join(", ");
    Diagnostic::new(
        NAME,
        Severity::Warning,
        g.at.file,
        g.at.span,
        format!(
            "unique guard on `{}` leaves out `{shown}`, unlike the code's `ON CONFLICT`",
            t.name
        ),
    )
    .with_primary_label(format!("guards `({})` across owners", g.key.parts_text()))
    .with_label(c.file, c.target.span, format!("the code dedups on `({target})` here"))
    .with_note("ids each owner chooses collide across owners: one owner's row blocks or answers for another's, and no guard matches the code's target")
    .with_help(format!("make the guard the code's target: `{}`", super::unique_clause(t, &c.target.columns)))
}

/// A caller's identity at hand where an idempotency key is built, and
/// unused: a warning, as for a key format that leaves out a caller the
/// code has at hand.
fn dropped_caller(
    file: crate::source::FileId,
    d: &crate::facts::keys::DroppedCaller,
) -> Diagnostic {
    Diagnostic::new(
        NAME,
        Severity::Warning,
        file,
        d.span,
        format!("the caller `{}` is at hand but left out of the idempotency key", d.name),
    )
    .with_primary_label(if d.used {
        format!("the caller ({}), not in the key", d.how)
    } else {
        format!("the caller ({}), never used", d.how)
    })
    .with_label(file, d.function_span, "builds the key")
    .with_note("two callers that choose the same key share one stored entry: the second is answered with the first one's response, or refused as its replay")
    .with_help(format!("put `{}` into the key (hash or format it in before the client's key), or name it `_{}` if the key is global on purpose", d.name, d.name))
}

// NOTE: a warning: the store's guard keeps the owner, so the keys are
// per owner by design, and a lookup without it answers one owner's request
// with another's row.
fn ownerless_lookup(l: &OwnerlessLookup) -> Diagnostic {
    let scope = l.scope.join("`, `");
    Diagnostic::new(
        NAME,
        Severity::Warning,
        l.file,
        l.span,
        format!("lookup of `{}` by its key leaves out `{scope}`", l.table),
    )
    .with_primary_label(format!("filters by `{}` only", l.columns.join("`, `")))
    .with_note(format!(
        "the unique guard keeps keys per `{scope}`: two owners can hold the same key, and this lookup answers one's request with the other's row"
    ))
    .with_help(format!("filter by `{scope}` too"))
}

// NOTE: a warning: the code was handed the owner and the compiler's
// unused-variable warning was left standing, or silenced by a literal in its
// place; a key that is meant to be global takes no owner.
fn ownerless(o: &OwnerlessFormat) -> Diagnostic {
    let k = &o.key;
    let shown = if k.text.len() > MAX_SHOWN {
        let end = crate::source::clamp_to_char_boundary(&k.text, MAX_SHOWN);
        format!("{}…", &k.text[..end])
    } else {
        k.text.clone()
    };
    Diagnostic::new(
        NAME,
        Severity::Warning,
        o.file,
        k.span,
        format!(
            "key format `{shown}` leaves out `{}`, which is at hand",
            k.owner
        ),
    )
    .with_primary_label(format!("`{}` is at hand and not in the key", k.owner))
    .with_note("ids one owner chooses collide with another owner's under this key")
    .with_help(format!(
        "put the owner in the key: a `{}` segment for `{}`",
        if k.text.contains('%') { "%s" } else { "{}" },
        k.owner
    ))
}

// NOTE: a warning where a guarded column is a caller's chosen identifier by
// its name and type (`external_key varchar`): the guard can only be meant
// per owner. A note where the guard also holds a reference to a parent row
// (`integration_id uuid`) that may belong to one owner.
fn tenant_blind(b: &TenantBlind<'_>) -> Diagnostic {
    let t = b.table;
    let g = b.guard;
    let scope = b.scope.join("`, `");
    let Evidence::CallerKey(c) = &b.evidence;
    let (sev, why) = match &b.parent {
        // `(external_id, integration_id)`: the integration may be one
        // owner's, scoping the guard through it.
        Some(p) => (
            Severity::Note,
            format!(
                "`{c}` is an identifier the caller chooses, unless `{p}` names one owner's row"
            ),
        ),
        None => (
            Severity::Warning,
            format!("`{c}` is an identifier the caller chooses"),
        ),
    };
    let mut columns = vec![b.scope[0].clone()];
    columns.extend(g.key.parts.iter().map(|p| p.text().to_string()));
    Diagnostic::new(
        NAME,
        sev,
        g.at.file,
        g.at.span,
        format!("unique guard on `{}` leaves out `{scope}`", t.name),
    )
    .with_primary_label(format!("guards `({})` across owners", g.key.parts_text()))
    .with_note(format!(
        "{why}: two owners can choose the same one, and one's row blocks or answers for the other's"
    ))
    .with_help(format!(
        "make it unique per owner: `{}`",
        super::unique_clause(t, &columns)
    ))
}

/// A unique guard its migrations create over a key and the owner columns
/// (`namespace`, `customer_id`) that the table's schema in code (an ent
/// schema: the next migration) declares over the key without them: one
/// owner's key then blocks, or answers for, another's.
fn rescoped(ctx: &Context<'_>, t: &Table) -> Vec<Diagnostic> {
    let words = &crate::knowledge::stores().scope_column;
    let extra = ctx.model.schema.scope_words();
    let mut out = Vec::new();
    for r in t.removed.iter().filter(|r| r.by_schema) {
        let before: Vec<&str> = r.guard.key.parts.iter().flat_map(|p| p.columns()).collect();
        let Some(g) = t.unmigrated.iter().find(|u| u.at == r.at) else {
            continue;
        };
        let after: Vec<&str> = g.key.parts.iter().flat_map(|p| p.columns()).collect();
        let dropped: Vec<String> = before
            .iter()
            .filter(|c| !after.contains(c))
            .filter(|c| {
                let ty = t.column(c).map_or("", |c| c.ty.as_str());
                words.matches_with(c, ty, extra)
            })
            .map(|c| c.to_string())
            .collect();
        let scoped = after.iter().any(|c| {
            let ty = t.column(c).map_or("", |c| c.ty.as_str());
            words.matches_with(c, ty, extra)
        });
        if dropped.is_empty() || scoped || !crate::model::schema::keyed_guard(t, g) {
            continue;
        }
        let scope = dropped.join("`, `");
        out.push(
            Diagnostic::new(
                NAME,
                Severity::Warning,
                g.at.file,
                g.at.span,
                format!("unique guard on `{}` leaves out `{scope}`", t.name),
            )
            .with_primary_label(format!(
                "guards `({})` across owners; the next migration replaces `{}`",
                g.key.parts_text(),
                r.guard.key.name
            ))
            .with_label(
                r.guard.at.file,
                r.guard.at.span,
                format!("the migrations guard `({})`", r.guard.key.parts_text()),
            )
            .with_note("two owners can send the same key: one's row blocks, or is returned for, the other's")
            .with_help(format!(
                "keep the owner in the guard: `({})`",
                before.join(", ")
            )),
        );
    }
    out
}

/// Longest key format quoted in a headline.
const MAX_SHOWN: usize = 32;

// NOTE: a warning only where the code that builds the key has a caller's
// identifier at hand (`merchant_id` in the handler): the API is plainly
// multi-tenant and the caller was left out. Elsewhere the service may have
// one caller (a checkout backend behind its own front end): a note.
fn unscoped_format(u: &UnscopedFormat) -> Diagnostic {
    let k = &u.format;
    let shown = if k.text.len() > MAX_SHOWN {
        let end = crate::source::clamp_to_char_boundary(&k.text, MAX_SHOWN);
        format!("{}…", &k.text[..end])
    } else {
        k.text.clone()
    };
    let (sev, label) = match &u.at_hand {
        Some(id) => (
            Severity::Warning,
            format!("no part names the caller, though `{id}` is at hand here"),
        ),
        None => (Severity::Note, "no part names the caller".to_string()),
    };
    let id = u.at_hand.as_deref().unwrap_or("tenant");
    let rest = k.text.strip_prefix(k.prefix.as_str()).unwrap_or(&k.text);
    // The caller written the way the key's own placeholders are.
    let help = if rest.starts_with("${") {
        format!("`{}${{{id}}}:{rest}`", k.prefix)
    } else if rest.starts_with("#{") {
        format!("`{}#{{{id}}}:{rest}`", k.prefix)
    } else if rest.starts_with('%') {
        format!("`{}%s:{rest}`, with `{id}` as the first argument", k.prefix)
    } else {
        format!("`{}{{{id}}}:{rest}`", k.prefix)
    };
    Diagnostic::new(
        NAME,
        sev,
        u.file,
        k.span,
        format!("key format `{shown}` holds the client's key without its caller scope"),
    )
    .with_primary_label(label)
    .with_note("one caller's key can collide with, or replay, another caller's stored response")
    .with_help(format!("make the key unique per caller: {help}"))
}

fn unscoped(t: &Table, s: &Store, g: &Guard) -> Diagnostic {
    let scope = s.scope.join("`, `");
    let mut columns = s.scope.clone();
    columns.extend(s.key.iter().cloned());
    // A digest key usually covers the owner (SHA-256 of account and key):
    // scoped by construction, unless it does not, which only the code says.
    let sev = if s.digest {
        Severity::Note
    } else {
        s.severity(Severity::Warning)
    };
    Diagnostic::new(
        NAME,
        sev,
        g.at.file,
        g.at.span,
        format!("unique guard on `{}` leaves out `{scope}`", t.name),
    )
    .with_primary_label(format!("guards `({})` alone", g.key.parts_text()))
    .with_note("one caller's key can collide with, or replay, another caller's stored response")
    .with_help(format!(
        "make the key unique per caller: `{}`, and look keys up with the caller's `{}`",
        super::unique_clause(t, &columns),
        s.scope.join("` and `")
    ))
}
