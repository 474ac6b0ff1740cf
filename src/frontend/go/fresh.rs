//! Idempotency keys made fresh inside a retry: a `for` loop or the
//! operation a retry wrapper runs again (`backoff.Retry`, `retry.Do`, the
//! `[[retry]]` table of `rules/effects.toml`), where a generator of the
//! `[[fresh_key]]` table (`uuid.NewString()`, `uuid.New().String()`) makes
//! the key that stripe-go sends (`params.SetIdempotencyKey(k)`,
//! `IdempotencyKey: stripe.String(k)`) or a request's idempotency header
//! carries (`req.Header.Set("Idempotency-Key", k)`).

use super::state::Walk;
use super::syntax::{args, bare, span, text};
use crate::facts::flow::{CallSite, FreshKey};
use crate::knowledge::{self, CallShape, Name};
use crate::source::Span;
use tree_sitter::Node;

/// The generator call `value` is (or wraps, `uuid.New().String()`).
pub(super) fn generator(w: &Walk, value: Node) -> Option<(Span, String)> {
    let mut n = bare(value);
    for _ in 0..3 {
        if n.kind() != "call_expression" {
            return None;
        }
        let site = w.call_site(n);
        if is_fresh(&site.path) {
            return Some((span(n), text(n, w.src()).to_string()));
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

/// A call that sends a key: stripe-go's `SetIdempotencyKey(k)`, or
/// `Header.Set(<an idempotency header>, k)`.
pub(super) fn sent_by_call(w: &mut Walk, n: Node, site: &CallSite) {
    if w.scopes.is_empty() {
        return;
    }
    let a = args(n);
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

/// `IdempotencyKey: stripe.String(k)` in a composite literal.
pub(super) fn keyed(w: &mut Walk, el: Node) {
    if w.scopes.is_empty() {
        return;
    }
    let (Some(k), Some(v)) = (
        el.child_by_field_name("key"),
        el.child_by_field_name("value"),
    ) else {
        return;
    };
    if text(k, w.src()) != "IdempotencyKey" {
        return;
    }
    let mut v = bare(v);
    // `stripe.String(k)`: the pointer helper around the key.
    if v.kind() == "call_expression" && generator(w, v).is_none() {
        if let [one] = args(v).as_slice() {
            v = bare(*one);
        }
    }
    sent(
        w,
        v,
        span(el),
        "as stripe-go's `IdempotencyKey`".to_string(),
    );
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
        _ => None,
    }
}

/// Record `k` when it is fresh in a retried scope: the one it was made in.
fn sent(w: &mut Walk, k: Node, at: Span, how: String) {
    let Some((generator, what, level)) = fresh_in(w, k, 0) else {
        return;
    };
    let scope = match level {
        // A binding: the scope it was made in, which runs it again.
        Some(l) => l.checked_sub(1).and_then(|l| w.scopes.get(l)).cloned(),
        None => w.scopes.last().cloned(),
    };
    let Some(scope) = scope else { return };
    if w.fresh.iter().any(|f| f.generator == generator) {
        return;
    }
    w.fresh.push(FreshKey {
        generator,
        what,
        scope: scope.0,
        scope_what: scope.1,
        sent: at,
        how,
    });
}
