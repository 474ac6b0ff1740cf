//! stripe-go's own retries: a backend built with
//! `&stripe.BackendConfig{MaxNetworkRetries: stripe.Int64(n)}` or given
//! `backend.SetMaxNetworkRetries(n)` resends every failed request `n`
//! times with its own backoff (`rules/retry.toml`), and puts one
//! `Idempotency-Key` of its own (or the caller's) on each write it sends,
//! kept across the retries: the client is a retry policy over keyed
//! requests wherever it is used (`retry-outlives-key-retention`).

use super::state::File;
use super::syntax::{args, bare, duration_expr, named, span, text};
use crate::facts::retry::{KeyedRequest, Policy, PolicyKind, Ratio, RetryClient, Setting, Shape};
use crate::source::Span;
use tree_sitter::Node;

/// The stripe-go clients of the file that set their retry count.
pub(super) fn clients(file: &File, root: Node) -> Vec<RetryClient> {
    if !file
        .imports
        .values()
        .any(|p| p.contains("stripe/stripe-go"))
    {
        return Vec::new();
    }
    let mut out = Vec::new();
    let mut stack = vec![root];
    let mut seen = 0usize;
    while let Some(n) = stack.pop() {
        seen += 1;
        if seen > 200_000 {
            break;
        }
        if let Some((at, times)) = retries_set(n, file.src) {
            out.push(client(file.src, n, at, times));
        }
        stack.extend(named(n));
    }
    out.sort_by_key(|c| c.at.start);
    out
}

/// `MaxNetworkRetries: n` in a `BackendConfig` literal, or
/// `x.SetMaxNetworkRetries(n)`: where, and the count.
fn retries_set<'t>(n: Node<'t>, src: &str) -> Option<(Span, Node<'t>)> {
    match n.kind() {
        "keyed_element" => {
            let k = n.child_by_field_name("key")?;
            if text(k, src) != "MaxNetworkRetries" || !in_backend_config(n, src) {
                return None;
            }
            Some((span(n), count(n.child_by_field_name("value")?)))
        }
        "call_expression" => {
            let f = n.child_by_field_name("function")?;
            let field = f.child_by_field_name("field")?;
            if f.kind() != "selector_expression" || text(field, src) != "SetMaxNetworkRetries" {
                return None;
            }
            let a = args(n);
            let [one] = a.as_slice() else {
                return None;
            };
            Some((span(f), count(*one)))
        }
        _ => None,
    }
}

/// The literal a keyed element is in is a `BackendConfig`.
fn in_backend_config(el: Node, src: &str) -> bool {
    let mut p = el.parent();
    for _ in 0..3 {
        let Some(n) = p else { return false };
        if n.kind() == "composite_literal" {
            return n
                .child_by_field_name("type")
                .is_some_and(|t| text(t, src).ends_with("BackendConfig"));
        }
        p = n.parent();
    }
    false
}

/// `stripe.Int64(n)`: the count inside stripe-go's pointer helper.
fn count(v: Node) -> Node {
    let v = bare(v);
    if v.kind() == "call_expression" {
        if let [one] = args(v).as_slice() {
            return bare(*one);
        }
    }
    v
}

fn client(src: &str, n: Node, at: Span, times: Node) -> RetryClient {
    let function = enclosing_fn(n).unwrap_or(at);
    let policy = Policy {
        span: at,
        krate: "stripe-go",
        kind: PolicyKind::Series {
            shape: Shape::Geometric,
            first: Setting::Default("minNetworkRetriesDelay"),
            ratio: Ratio::Default("factor"),
            max: Some(Setting::Default("maxNetworkRetriesDelay")),
            times: Some(Setting::Written {
                expr: duration_expr(times, src, 0),
                span: span(times),
                unit_ms: None,
            }),
            cap: None,
        },
    };
    let own_key = KeyedRequest::sdk_own_key(function, at, "stripe-go-max-network-retries");
    RetryClient {
        function,
        at,
        binding: None,
        field: false,
        policy,
        what: "stripe-go's `MaxNetworkRetries`".into(),
        own_key: Some(own_key),
    }
}

/// The requests the file's stripe-go params key:
/// `params.SetIdempotencyKey(k)` (the `[[sdk]]` entry of `rules/retry.toml`
/// whose path is `SetIdempotencyKey`). The params are sent to Stripe API v1
/// with that key; a retry around the function that builds them, or around
/// a caller of it, resends the same key (`retry-outlives-key-retention`).
/// A key made fresh at the call (`fresh`, the sends of `fresh-key-per-retry`)
/// is no key a retry resends.
pub(super) fn keyed_requests(file: &File, root: Node, fresh: &[Span]) -> Vec<KeyedRequest> {
    if !file
        .imports
        .values()
        .any(|p| p.contains("stripe/stripe-go"))
    {
        return Vec::new();
    }
    let sdk = crate::knowledge::retry()
        .sdk
        .iter()
        .find(|s| s.path.last().is_some_and(|l| l == "SetIdempotencyKey"));
    let Some(sdk) = sdk else { return Vec::new() };
    let mut out = Vec::new();
    let mut stack = vec![root];
    let mut seen = 0usize;
    while let Some(n) = stack.pop() {
        seen += 1;
        if seen > 200_000 || out.len() >= 200 {
            break;
        }
        stack.extend(named(n));
        if n.kind() != "call_expression" {
            continue;
        }
        let Some(f) = n.child_by_field_name("function") else {
            continue;
        };
        let field = f.child_by_field_name("field");
        if f.kind() != "selector_expression"
            || field.is_none_or(|x| text(x, file.src) != "SetIdempotencyKey")
        {
            continue;
        }
        let a = args(n);
        let ([key], Some(function)) = (a.as_slice(), enclosing_fn(n)) else {
            continue;
        };
        let key = span(*key);
        let made_fresh = fresh
            .iter()
            .any(|s| key.start <= s.start && s.end <= key.end);
        let mut q = KeyedRequest::sdk_own_key(function, span(n), &sdk.id);
        q.header.clone_from(&sdk.header);
        q.key = key;
        q.key_fresh_here = made_fresh;
        q.method = None;
        out.push(q);
    }
    out.sort_by_key(|q| q.at.start);
    out
}

/// The name of the function or method the node is written in.
pub(super) fn enclosing_fn(n: Node) -> Option<Span> {
    let mut p = n.parent();
    while let Some(x) = p {
        if matches!(x.kind(), "function_declaration" | "method_declaration") {
            return x.child_by_field_name("name").map(span);
        }
        p = x.parent();
    }
    None
}

#[cfg(test)]
mod tests {
    use crate::facts::retry::{PolicyKind, Setting};
    use crate::source::FileKind;

    fn counts(src: &str) -> Vec<String> {
        let f = crate::frontend::parse(0, FileKind::Go, src);
        f.code
            .map(|c| c.retry.clients)
            .unwrap_or_default()
            .iter()
            .map(|c| match &c.policy.kind {
                PolicyKind::Series {
                    times: Some(Setting::Written { expr, .. }),
                    ..
                } => format!("{expr:?}"),
                k => format!("{k:?}"),
            })
            .collect()
    }

    #[test]
    fn backend_config_and_setter_are_retry_clients() {
        let src = "package p\n\nimport \"github.com/stripe/stripe-go/v82\"\n\n\
                   func a() {\n\
                   \tb := stripe.GetBackendWithConfig(stripe.APIBackend, &stripe.BackendConfig{MaxNetworkRetries: stripe.Int64(9)})\n\
                   \tb.SetMaxNetworkRetries(n)\n\
                   \tx := other.Config{MaxNetworkRetries: 4}\n\
                   }\n";
        assert_eq!(counts(src), ["Int(9)", "Ref(\"n\")"]);
    }

    #[test]
    fn only_in_files_that_import_stripe_go() {
        let src = "package p\n\nfunc a() { b.SetMaxNetworkRetries(100000) }\n";
        assert!(counts(src).is_empty());
    }
}
