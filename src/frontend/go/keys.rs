//! Keys by data flow in Go: the identity of a verified Stripe event
//! (`event.ID` where `event, err := webhook.ConstructEvent(..)`) or the
//! value of an idempotency request header (`r.Header.Get("Idempotency-Key")`,
//! gin's `c.GetHeader(..)`, a constant naming the header), followed
//! through the function's bindings, `+` and `fmt.Sprintf`. A key built
//! from one names a store whatever its prefix.

use super::state::Walk;
use super::syntax::{args, bare, path_of, string_value, text};
use crate::facts::keys::KeySource;
use tree_sitter::Node;

/// stripe-go's verifications, which return the event
/// (<https://pkg.go.dev/github.com/stripe/stripe-go/v82/webhook#ConstructEvent>).
const VERIFY: &[&str] = &[
    "ConstructEvent",
    "ConstructEventWithOptions",
    "ConstructEventWithTolerance",
    "ConstructEventIgnoringTolerance",
];

/// Methods that read one request header by name: net/http's
/// `Header.Get`, gin's `GetHeader`, echo's `Request().Header.Get`.
const HEADER_READS: &[&str] = &["Get", "GetHeader", "Values"];

/// Names around a verification, when `value` is one.
pub(super) fn verified_event(w: &Walk, value: Node) -> Option<Vec<String>> {
    let value = bare(value);
    if value.kind() != "call_expression" {
        return None;
    }
    let site = w.call_site(value);
    let last = site.path.last().or(site.method.as_ref())?;
    if !VERIFY.contains(&last.as_str()) {
        return None;
    }
    let mut ctx: Vec<String> = site.path.iter().map(|s| s.to_string()).collect();
    if w.file.imports.values().any(|p| p.contains("stripe")) {
        ctx.push("stripe".to_string());
    }
    Some(ctx)
}

/// Where a key expression comes from, when from an event or a header.
pub(super) fn source(w: &Walk, key: Node) -> Option<KeySource> {
    source_at(w, key, 0)
}

fn source_at(w: &Walk, key: Node, depth: usize) -> Option<KeySource> {
    if depth > 32 {
        return None;
    }
    let key = bare(key);
    let src = w.src();
    match key.kind() {
        "identifier" => w.locals.get(text(key, src))?.source.clone(),
        "selector_expression" => {
            let p = path_of(key, src)?;
            let [obj, field] = p.as_slice() else {
                return None;
            };
            let ctx = w.locals.get(obj)?.event.clone()?;
            (field == "ID").then(|| {
                let mut context = ctx;
                context.push(obj.clone());
                context.push(w.fn_name.clone());
                KeySource {
                    what: format!("`{obj}.{field}`"),
                    context,
                    event: true,
                }
            })
        }
        "binary_expression" => ["left", "right"]
            .iter()
            .find_map(|f| source_at(w, key.child_by_field_name(f)?, depth + 1)),
        "call_expression" => {
            let site = w.call_site(key);
            let a = args(key);
            if site
                .method
                .as_deref()
                .is_some_and(|m| HEADER_READS.contains(&m))
            {
                let name = header_name(w, *a.first()?)?;
                return Some(KeySource {
                    what: format!("the `{name}` header"),
                    context: vec![w.fn_name.clone()],
                    event: false,
                });
            }
            // `fmt.Sprintf("idem:%s", key)`, `strings.TrimSpace(key)`.
            a.iter().find_map(|x| source_at(w, *x, depth + 1))
        }
        _ => None,
    }
}

/// The idempotency header an argument names: a literal or a constant.
pub(super) fn header_name(w: &Walk, arg: Node) -> Option<String> {
    let arg = bare(arg);
    let name = string_value(arg, w.src()).or_else(|| {
        let p = path_of(arg, w.src())?;
        w.file.consts.strings.get(p.last()?).cloned()
    })?;
    is_idempotency_header(&name).then_some(name)
}

/// An idempotency request header: `idempot…`, or a name of
/// `rules/headers.toml`; never the replay response header.
fn is_idempotency_header(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    if lower.contains("replay") {
        return false;
    }
    let h = crate::knowledge::headers();
    lower.contains("idempot")
        || h.canonical
            .iter()
            .chain(&h.legitimate)
            .any(|x| x.header && x.name.eq_ignore_ascii_case(name))
}
