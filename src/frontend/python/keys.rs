//! Keys by data flow in Python: the identity of a verified webhook event
//! (`event.id`, `event["id"]`, `event.get("id")` where `event` is what
//! stripe-python's `stripe.Webhook.construct_event(..)` returned, or a
//! Standard Webhooks/Svix `wh.verify(..)`), or a request's idempotency
//! header (`request.headers.get("Idempotency-Key")`,
//! `request.META["HTTP_IDEMPOTENCY_KEY"]`, any name of
//! `rules/headers.toml`), followed through a function's assignments in
//! source order. A key built from one names a store whatever its prefix.
//! Not here: values handed to another function, or fields of the event's
//! object (`event.data.object.id` is a payment's id, not the delivery's).

use super::syntax::{path_of, string_value};
use crate::facts::keys::KeySource;
use crate::knowledge;
use ruff_python_ast::visitor::{walk_expr, Visitor};
use ruff_python_ast::Expr;
use std::collections::HashMap;

/// Calls that verify a webhook's signature and return its event:
/// stripe-python's `Webhook.construct_event`
/// (<https://docs.stripe.com/webhooks#verify-official-libraries>), Svix's
/// and Standard Webhooks' `verify` (<https://docs.svix.com/receiving/verifying-payloads/how>).
const VERIFY: &[&str] = &["construct_event", "verify"];

/// What a function's bindings hold, as far as keys go.
#[derive(Debug, Clone, Default)]
pub struct Sources {
    /// Bindings that hold a verified event, with names around the
    /// verification (`stripe`, `Webhook`).
    events: HashMap<String, Vec<String>>,
    /// Bindings whose value is built from a source.
    keys: HashMap<String, KeySource>,
}

impl Sources {
    /// Record `name = value`, after `value` was read.
    pub fn assign(&mut self, name: &str, value: &Expr) {
        if let Some(ctx) = verified_event(value) {
            self.events.insert(name.to_string(), ctx);
            self.keys.remove(name);
        } else if let Some(src) = self.source(value) {
            self.keys.insert(name.to_string(), src);
        } else {
            self.keys.remove(name);
            self.events.remove(name);
        }
    }

    /// Where the value of `e` comes from, when it is built from a source.
    pub fn source(&self, e: &Expr) -> Option<KeySource> {
        let mut f = Find {
            sources: self,
            found: None,
        };
        f.visit_expr(e);
        f.found
    }

    fn direct(&self, e: &Expr) -> Option<KeySource> {
        match e {
            Expr::Name(n) => self.keys.get(n.id.as_str()).cloned(),
            Expr::Attribute(a) if a.attr.id.as_str() == "id" => self.event_id(&a.value),
            Expr::Subscript(s) if string_value(&s.slice).as_deref() == Some("id") => {
                self.event_id(&s.value)
            }
            Expr::Subscript(s) => header_read(&s.value, &s.slice),
            Expr::Call(c) => {
                let Expr::Attribute(a) = &*c.func else {
                    return None;
                };
                let first = c.arguments.args.first()?;
                if a.attr.id.as_str() != "get" {
                    return None;
                }
                if string_value(first).as_deref() == Some("id") {
                    return self.event_id(&a.value);
                }
                header_read(&a.value, first)
            }
            _ => None,
        }
    }

    fn event_id(&self, object: &Expr) -> Option<KeySource> {
        let Expr::Name(n) = object else { return None };
        let ctx = self.events.get(n.id.as_str())?;
        let mut context = vec![n.id.to_string()];
        context.extend(ctx.iter().cloned());
        Some(KeySource {
            what: format!("`{}.id`", n.id),
            context,
            event: true,
        })
    }
}

struct Find<'s> {
    sources: &'s Sources,
    found: Option<KeySource>,
}

impl<'a> Visitor<'a> for Find<'_> {
    fn visit_expr(&mut self, e: &'a Expr) {
        if self.found.is_some() {
            return;
        }
        if let Some(s) = self.sources.direct(e) {
            self.found = Some(s);
            return;
        }
        walk_expr(self, e);
    }
}

/// The names around a verification call, when `e` is one.
fn verified_event(e: &Expr) -> Option<Vec<String>> {
    let e = match e {
        Expr::Await(a) => &a.value,
        e => e,
    };
    let Expr::Call(c) = e else { return None };
    let p = path_of(&c.func)?;
    let last = p.last()?;
    if !VERIFY.contains(&last.as_str()) {
        return None;
    }
    // A bare `verify(..)` is too common a name: only on a receiver.
    (p.len() > 1).then(|| p[..p.len() - 1].to_vec())
}

/// `headers["Idempotency-Key"]`, `request.headers.get(..)`,
/// `request.META["HTTP_IDEMPOTENCY_KEY"]`: a read of an idempotency
/// header by name from a request's headers.
fn header_read(object: &Expr, name: &Expr) -> Option<KeySource> {
    let name = string_value(name)?;
    let p = path_of(object)?;
    let last = p.last()?.as_str();
    let header = match last {
        "headers" => name,
        // Django's WSGI environ: `HTTP_` and the name upper-cased, `-` as `_`.
        "META" => name.strip_prefix("HTTP_")?.replace('_', "-"),
        _ => return None,
    };
    let h = knowledge::headers();
    let canonical = h
        .canonical
        .iter()
        .find(|c| c.name.eq_ignore_ascii_case(&header))?;
    Some(KeySource {
        what: format!("the `{}` header", canonical.name),
        context: Vec::new(),
        event: false,
    })
}
