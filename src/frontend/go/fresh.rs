//! Idempotency keys made fresh by a generator of the `[[fresh_key]]` table
//! of `rules/effects.toml` (`uuid.NewString()`, `uuid.New().String()`,
//! `stripe.NewIdempotencyKey()`, `time.Now()` not cut to a period) and
//! sent: by stripe-go (`params.SetIdempotencyKey(k)`, `IdempotencyKey:
//! stripe.String(k)`, `params.IdempotencyKey = stripe.String(k)`),
//! restate (`restate.WithIdempotencyKey(k)`), a request's idempotency
//! header (`req.Header.Set("Idempotency-Key", k)`), or as an argument
//! named for the key (`client.Payout(ctx, req, idempotencyKey)`). Inside a
//! retry (a `for` loop, the operation `backoff.Retry` or `retry.Do` runs
//! again: the `[[retry]]` table) it is new on every attempt; elsewhere it
//! is new on every call, beside the input it keys (`pi.Reference`) or
//! alone. A key made once before the retry is the fix, not a finding.

use super::state::Walk;
use super::syntax::{args, bare, named, span, text};
use crate::facts::flow::{CallSite, FreshKey};
use crate::facts::retry::{FreshKind, FreshSend, Maker};
use crate::knowledge::{self, CallShape, Name};
use crate::source::Span;
use tree_sitter::Node;

/// Methods that cut a time to a period (`time.Now().Format("2006-01")`,
/// `.Truncate(24 * time.Hour)`): a bucket the same for every call in it.
const BUCKETS: &[&str] = &[
    "Format", "Truncate", "Round", "Year", "Month", "Day", "YearDay", "Date", "Weekday",
];

/// The generator call `value` is (or wraps, `uuid.New().String()`).
pub(super) fn generator(w: &Walk, value: Node) -> Option<(Span, String)> {
    let mut n = bare(value);
    for _ in 0..4 {
        if n.kind() != "call_expression" {
            return None;
        }
        let site = w.call_site(n);
        if is_fresh(&site.path) {
            return Some((span(n), text(n, w.src()).to_string()));
        }
        if site.method.as_deref().is_some_and(|m| BUCKETS.contains(&m)) {
            return None;
        }
        // `uuid.New().String()`: the call the method is made on.
        n = bare(
            n.child_by_field_name("function")?
                .child_by_field_name("operand")?,
        );
    }
    None
}

fn is_fresh(path: &[Name]) -> bool {
    !path.is_empty() && CallShape::path(path).any_of(&knowledge::effects().fresh_key)
}

/// A call that sends a key: stripe-go's `SetIdempotencyKey(k)`, restate's
/// `WithIdempotencyKey(k)`, `Header.Set(<an idempotency header>, k)`, or a
/// call given a binding named for the key.
pub(super) fn sent_by_call(w: &mut Walk, n: Node, site: &CallSite) {
    let a = args(n);
    named_argument(w, n, site, &a);
    let last = site.method.as_ref().or(site.path.last());
    if last.is_some_and(|l| l == "WithIdempotencyKey") {
        if let Some(k) = a.first() {
            let callee = n
                .child_by_field_name("function")
                .map_or("", |f| text(f, w.src()));
            sent(w, *k, span(n), format!("with `{callee}`"));
        }
        return;
    }
    match site.method.as_deref() {
        Some("SetIdempotencyKey") => {
            if let Some(k) = a.first() {
                sent(
                    w,
                    *k,
                    span(n),
                    "with stripe-go's `SetIdempotencyKey`".to_string(),
                );
            }
        }
        Some("Set" | "Add") if site.receiver.last().is_some_and(|r| r == "Header") => {
            let (Some(h), Some(k)) = (a.first(), a.get(1)) else {
                return;
            };
            if let Some(name) = super::keys::header_name(w, *h) {
                sent(w, *k, span(n), format!("as the `{name}` header"));
            }
        }
        _ => {}
    }
}

/// Whether code (a name, a test's text) names an idempotency key
/// (`idempotencyKey`, `IdempotencyKey`, `idemKey`), not another value
/// named for idempotency (`idempotencyStart := time.Now()`).
pub(super) fn names_key(code: &str) -> bool {
    let lower = code.to_ascii_lowercase().replace('_', "");
    ["idempotencykey", "idemkey", "idempotencytoken"]
        .iter()
        .any(|w| lower.contains(w))
}

/// Whether a test asks that a value is missing (`== nil`, `== ""`,
/// `len(k) == 0`).
pub(super) fn tests_absent(code: &str) -> bool {
    let squeezed: String = code.chars().filter(|c| !c.is_whitespace()).collect();
    ["==nil", "==\"\"", "==0"]
        .iter()
        .any(|t| squeezed.contains(t))
}

/// `client.Payout(ctx, req, idempotencyKey)`: a binding named for an
/// idempotency key (`idempotencyKey`, `idemKey`), passed to a call.
fn named_argument(w: &mut Walk, n: Node, site: &CallSite, a: &[Node]) {
    for k in a.iter().map(|k| bare(*k)) {
        if k.kind() != "identifier" {
            continue;
        }
        let name = text(k, w.src());
        if !names_key(name) {
            continue;
        }
        let callee = site
            .method
            .as_ref()
            .or(site.path.last())
            .map_or("the call", |m| m.as_str());
        let how = format!("as the `{name}` argument of `{callee}`");
        sent(w, k, span(n), how);
    }
}

/// `IdempotencyKey: stripe.String(k)` in a composite literal.
pub(super) fn keyed(w: &mut Walk, el: Node) {
    let (Some(k), Some(v)) = (
        el.child_by_field_name("key"),
        el.child_by_field_name("value"),
    ) else {
        return;
    };
    if text(k, w.src()) != "IdempotencyKey" {
        return;
    }
    let v = unwrapped(w, v);
    sent(w, v, span(el), "as the `IdempotencyKey` field".to_string());
}

/// `params.IdempotencyKey = stripe.String(k)`, or a value built from a
/// binding named for the key (`header[h] = []string{idempotencyKey + ..}`).
pub(super) fn assigned(w: &mut Walk, target: Node, value: Node) {
    let target = bare(target);
    let at = Span::new(span(target).start, span(value).end);
    let field = target.child_by_field_name("field");
    if target.kind() == "selector_expression"
        && field.is_some_and(|f| text(f, w.src()) == "IdempotencyKey")
    {
        let v = unwrapped(w, value);
        sent(w, v, at, "as the `IdempotencyKey` field".to_string());
    } else if target.kind() != "identifier" && built_from_key(w, value) {
        let how = format!("as `{}`", text(target, w.src()));
        sent(w, value, at, how);
    }
}

/// Whether `value` reads a binding named for an idempotency key.
fn built_from_key(w: &Walk, value: Node) -> bool {
    let mut stack = vec![value];
    let mut seen = 0;
    while let Some(n) = stack.pop() {
        seen += 1;
        if seen > 200 {
            return false;
        }
        if n.kind() == "identifier" && names_key(text(n, w.src())) {
            return true;
        }
        stack.extend(named(n));
    }
    false
}

/// The key inside stripe-go's pointer helper (`stripe.String(k)`).
fn unwrapped<'t>(w: &Walk, v: Node<'t>) -> Node<'t> {
    let v = bare(v);
    if v.kind() == "call_expression" && generator(w, v).is_none() {
        if let [one] = args(v).as_slice() {
            return bare(*one);
        }
    }
    v
}

/// The first field read of `k` that names its input (`pi.Reference`,
/// `invoice.ID`): on a binding that is neither a package nor fresh; a
/// call's own callee (`p.generateKey`) is not one.
pub(super) fn input_part(w: &Walk, k: Node) -> Option<String> {
    let mut stack = vec![bare(k)];
    let mut seen = 0;
    while let Some(n) = stack.pop() {
        seen += 1;
        if seen > 200 {
            return None;
        }
        match n.kind() {
            "call_expression" => {
                let mut a = args(n);
                a.reverse();
                stack.extend(a);
            }
            "selector_expression" => {
                let operand = n.child_by_field_name("operand").map(bare)?;
                if operand.kind() == "identifier" {
                    let base = text(operand, w.src());
                    let fresh = w.locals.get(base).is_some_and(|l| l.fresh.is_some());
                    if !w.is_package(base) && !fresh {
                        return Some(text(n, w.src()).to_string());
                    }
                } else {
                    stack.push(operand);
                }
            }
            "identifier" => {
                let name = text(n, w.src());
                let local = w.locals.get(name);
                if let Some(from) = local.and_then(|l| l.fresh_from.clone()) {
                    return Some(from);
                }
                // The caller's key itself (`idempotencyKey + "-" + now`).
                if names_key(name) && local.is_some_and(|l| l.fresh.is_none()) {
                    return Some(name.to_string());
                }
            }
            _ => {
                let mut c = named(n);
                c.reverse();
                stack.extend(c);
            }
        }
    }
    None
}

/// A fresh key inside `k`: a generator call, a binding made from one
/// (with the scope depth it was made at), or either inside `+` or a call's
/// arguments (`"capture-" + uuid.NewString()`, `fmt.Sprintf(.., id)`).
pub(super) fn fresh_in(w: &Walk, k: Node, depth: usize) -> Option<(Span, String, Option<usize>)> {
    if depth > 16 {
        return None;
    }
    let k = bare(k);
    if let Some((g, what)) = generator(w, k) {
        return Some((g, what, None));
    }
    match k.kind() {
        "identifier" => {
            let (g, what, level) = w.locals.get(text(k, w.src()))?.fresh.clone()?;
            Some((g, what, Some(level)))
        }
        "binary_expression" => ["left", "right"]
            .iter()
            .find_map(|f| fresh_in(w, k.child_by_field_name(f)?, depth + 1)),
        "call_expression" => args(k).into_iter().find_map(|a| fresh_in(w, a, depth + 1)),
        // `[]string{key}`: a header's values.
        "composite_literal" | "literal_value" | "literal_element" => {
            let inner = k
                .child_by_field_name("body")
                .map_or_else(|| named(k), |b| vec![b]);
            inner.into_iter().find_map(|a| fresh_in(w, a, depth + 1))
        }
        _ => None,
    }
}

/// Record `k` when it is fresh: in the retried scope it was made in, or
/// else on each call of the function.
fn sent(w: &mut Walk, k: Node, at: Span, how: String) {
    let Some((generator, what, level)) = fresh_in(w, k, 0) else {
        return;
    };
    let scope = match level {
        // A binding: the scope it was made in, which runs it again.
        Some(l) => l.checked_sub(1).and_then(|l| w.scopes.get(l)).cloned(),
        None => w.scopes.last().cloned(),
    };
    if w.fresh.iter().any(|f| f.generator == generator) || w.sends.iter().any(|f| f.at == generator)
    {
        return;
    }
    let Some(scope) = scope else {
        // Made once before the retry around the send (the fix), or only
        // where the caller gave no key (a client's default).
        if w.scopes.is_empty() && w.defaulting == 0 {
            per_call(w, k, generator, what, at, how);
        }
        return;
    };
    w.fresh.push(FreshKey {
        generator,
        what,
        scope: scope.0,
        scope_what: scope.1,
        sent: at,
        how,
    });
}

/// A key made fresh on each call of the function: beside the input it
/// keys (a warning's form) or alone (a note's).
fn per_call(w: &mut Walk, k: Node, generator: Span, what: String, sent: Span, how: String) {
    let kind = match input_part(w, k) {
        Some(from) => FreshKind::Mixed { from },
        None => FreshKind::PerCall,
    };
    w.sends.push(FreshSend {
        function: w.fn_span,
        kind,
        maker: Maker::Generator(what),
        at: generator,
        sent,
        how,
    });
}
