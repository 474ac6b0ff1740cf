//! restate (github.com/restatedev/sdk-go): the retention a handler's
//! configuration gives its idempotency keys
//! (`ConfigureHandler("CloseMonth", restate.WithIdempotencyRetention(d))`),
//! and the calls that send a handler a key
//! (`client.CloseMonth().Send(ctx, req, restate.WithIdempotencyKey(k))`).
//! restate answers a call whose key it still holds with the first call's
//! result; after the retention the same key runs the handler again. The
//! model joins the two by the handler's name: the code that sends the key
//! says whose retries it covers (a Stripe webhook's redeliveries).

use super::syntax::{args, bare, named, span, string_value, text};
use crate::facts::retention::{HandlerKey, PendingRetention, StoreRef, HANDLER_CONTEXT};
use crate::facts::retry::{Policy, PolicyKind, RetrySite, Setting};
use tree_sitter::Node;

const MAX_DEPTH: usize = 200;

/// What a file says of restate handlers' keys.
pub fn read(root: Node, src: &str) -> (Vec<PendingRetention>, Vec<HandlerKey>) {
    let mut retentions = Vec::new();
    let mut keys = Vec::new();
    let mut stack = vec![(root, 0usize)];
    while let Some((n, depth)) = stack.pop() {
        if n.kind() == "call_expression" {
            if let Some(r) = retention(n, src) {
                retentions.push(r);
            }
            if let Some(k) = keyed_call(n, src) {
                keys.push(k);
            }
        }
        if depth < MAX_DEPTH {
            stack.extend(named(n).into_iter().map(|c| (c, depth + 1)));
        }
    }
    (retentions, keys)
}

/// The last name of a called function (`restate.WithIdempotencyKey` →
/// `WithIdempotencyKey`).
/// A method of a call's result counts (`NewServer(svc).ConfigureHandler`).
fn called(n: Node, src: &str) -> Option<String> {
    let f = (n.kind() == "call_expression")
        .then(|| n.child_by_field_name("function"))
        .flatten()?;
    match f.kind() {
        "selector_expression" => f
            .child_by_field_name("field")
            .map(|x| text(x, src).to_string()),
        "identifier" => Some(text(f, src).to_string()),
        _ => None,
    }
}

/// `ConfigureHandler("H", .., restate.WithIdempotencyRetention(d), ..)`.
fn retention(n: Node, src: &str) -> Option<PendingRetention> {
    if called(n, src)? != "ConfigureHandler" {
        return None;
    }
    let a = args(n);
    let handler = string_value(*a.first()?, src)?;
    let option = a[1..]
        .iter()
        .find(|x| called(**x, src).as_deref() == Some("WithIdempotencyRetention"))?;
    let d = *args(*option).first()?;
    let expr = super::syntax::duration_expr(d, src, 0);
    let direct_ref = match &expr {
        crate::facts::retention::ConstExpr::Ref(r) => Some(r.clone()),
        _ => None,
    };
    Some(PendingRetention {
        span: span(d),
        expr,
        unit_ms: None,
        target: StoreRef::Constant(format!("restate:{handler}")),
        via: format!("restate's idempotency retention of the handler `{handler}`"),
        context: vec![format!("{HANDLER_CONTEXT}{handler}")],
        site: None,
        direct_ref,
        standalone: false,
        labels: vec![(span(*option), "the handler's idempotency keys".into())],
    })
}

/// `restate.Run(ctx, fn, .., restate.WithMaxRetryDuration(d), ..)`: restate
/// runs the closure again after each failure, for at most `d` in all
/// (<https://pkg.go.dev/github.com/restatedev/sdk-go#WithMaxRetryDuration>:
/// "the max duration of retries, after which the run fails"), so a keyed
/// request the closure sends, or a function of the package it calls, is
/// resent with the same key that long (`retry-outlives-key-retention`).
/// A `Run` with no such option retries with restate's own policy, which
/// the code does not give: not read.
pub fn runs(root: Node, src: &str) -> Vec<RetrySite> {
    let mut out = Vec::new();
    let mut stack = vec![(root, 0usize)];
    while let Some((n, depth)) = stack.pop() {
        if n.kind() == "call_expression" {
            out.extend(run(n, src));
        }
        if depth < MAX_DEPTH {
            stack.extend(named(n).into_iter().map(|c| (c, depth + 1)));
        }
    }
    out.sort_by_key(|s| s.at.start);
    out
}

fn run(n: Node, src: &str) -> Option<RetrySite> {
    let f = n.child_by_field_name("function")?;
    let operand = f.child_by_field_name("operand")?;
    if f.kind() != "selector_expression"
        || text(operand, src) != "restate"
        || called(n, src)? != "Run"
    {
        return None;
    }
    let a = args(n);
    let op = bare(*a.get(1)?);
    let option = a[2..]
        .iter()
        .find(|x| called(**x, src).as_deref() == Some("WithMaxRetryDuration"))?;
    let d = *args(*option).first()?;
    let (body, op_fn) = match op.kind() {
        "func_literal" => (span(op), None),
        "identifier" => (span(op), Some(vec![text(op, src).to_string()])),
        _ => return None,
    };
    Some(RetrySite {
        function: super::stripe::enclosing_fn(n)?,
        at: span(f),
        what: "restate's `Run`".into(),
        body,
        op_fn,
        policy: Policy {
            span: span(*option),
            krate: "restate",
            kind: PolicyKind::Total(Setting::Written {
                expr: super::syntax::duration_expr(d, src, 0),
                span: span(d),
                unit_ms: None,
            }),
        },
        fresh_inside: false,
        before: None,
        target: None,
    })
}

/// `x.H().Send(ctx, req, restate.WithIdempotencyKey(k))` (also `Request`,
/// `RequestFuture`).
fn keyed_call(n: Node, src: &str) -> Option<HandlerKey> {
    if !matches!(
        called(n, src)?.as_str(),
        "Send" | "Request" | "RequestFuture"
    ) {
        return None;
    }
    let key = args(n)
        .into_iter()
        .find(|x| called(*x, src).as_deref() == Some("WithIdempotencyKey"))?;
    let f = n.child_by_field_name("function")?;
    let target = f.child_by_field_name("operand")?;
    let handler = called(target, src)?;
    // A handler is a method of the generated client, named in Go's style.
    if !handler.starts_with(|c: char| c.is_ascii_uppercase()) || !args(target).is_empty() {
        return None;
    }
    Some(HandlerKey {
        handler,
        span: span(key),
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_handlers_retention_and_the_calls_that_key_it_are_read() {
        let f = crate::frontend::parse(
            0,
            crate::source::FileKind::Go,
            "package p\n\
             func run(srv *server.Restate, svc *Service) {\n\
               srv.Bind(NewServer(svc).ConfigureHandler(\"CloseMonth\", restate.WithIdempotencyRetention(10*time.Minute), retry))\n\
             }\n\
             func (h *handler) onInvoice(ctx context.Context, inv stripe.Invoice) error {\n\
               _, err := client.CloseMonth().Send(ctx, req, restate.WithIdempotencyKey(\"close-\"+inv.ID))\n\
               return err\n\
             }\n",
        );
        let code = f.code.unwrap_or_default();
        let p: Vec<_> = code
            .retention
            .pending
            .iter()
            .filter(|p| p.via.starts_with("restate"))
            .collect();
        assert_eq!(p.len(), 1, "{p:?}");
        assert_eq!(
            p[0].target,
            crate::facts::retention::StoreRef::Constant("restate:CloseMonth".into())
        );
        assert_eq!(code.handler_keys.len(), 1);
        assert_eq!(code.handler_keys[0].handler, "CloseMonth");
    }
}
