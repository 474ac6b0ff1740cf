//! Keys by data flow in TypeScript: a value read from a request's
//! idempotency header (`req.headers['idempotency-key']`,
//! `req.header('Idempotency-Key')`, `request.headers.get(..)`, any name of
//! `rules/headers.toml`), or the identity of a verified webhook event
//! (`event.id` where `event` is what `stripe.webhooks.constructEvent(..)`
//! or a Svix `wh.verify(..)` returned, the `svix-id`/`webhook-id`
//! headers), followed through a function's `const`/`let` bindings in
//! source order. A key built from one names a store whatever its prefix.
//! Not here: values handed to another function, or fields of the event's
//! object (`event.data.object.id` is a payment's id, not the delivery's).

use super::syntax::{bare, path_of, string_value};
use crate::facts::keys::KeySource;
use crate::knowledge;
use oxc_ast::ast::{BindingPattern, CallExpression, Expression, PropertyKey};
use std::collections::HashMap;

/// Methods that verify a webhook's signature and return its event:
/// stripe-node's `webhooks.constructEvent`/`constructEventAsync`
/// (<https://docs.stripe.com/webhooks#verify-official-libraries>), Svix's
/// and Standard Webhooks' `verify` (<https://docs.svix.com/receiving/verifying-payloads/how>).
const VERIFY_METHODS: &[&str] = &["constructEvent", "constructEventAsync", "verify"];

/// Methods that read one request header by name: Express's `req.header`,
/// `req.get`; the Fetch API's `headers.get` (Next.js route handlers).
const HEADER_READS: &[&str] = &["header", "get"];

/// Headers that carry a webhook delivery's identity (Svix, Standard
/// Webhooks: <https://www.standardwebhooks.com/>).
const DELIVERY_HEADERS: &[&str] = &["svix-id", "webhook-id"];

/// Packages whose `Webhook#verify` returns a verified delivery, by a word
/// of their import specifier (`svix`, `standardwebhooks`).
pub(super) const WEBHOOK_LIBS: &[&str] = &["svix", "standardwebhooks"];

/// What a function's bindings hold, as far as keys go. Build one per
/// function (a closure starts from a clone of its function's), call
/// [`Sources::bind`] for each `const`/`let` in source order after its
/// initializer, and ask [`key_source`] of a key expression.
#[derive(Debug, Clone, Default)]
pub(super) struct Sources {
    /// Bindings that hold a verified event, with names around the
    /// verification (the receiver's path: `stripe`, `webhooks`).
    events: HashMap<String, Vec<String>>,
    /// Bindings whose value is built from a source.
    keys: HashMap<String, KeySource>,
    /// The enclosing function's name, for the source's context.
    pub fn_name: Option<String>,
    /// Webhook libraries the module imports (`svix`): the counterparty of
    /// a `verify(..)`, whose receiver's name rarely says it.
    pub libs: Vec<String>,
}

impl Sources {
    /// Record `const pat = init` (after `init` itself was read).
    /// `consts` are the module's string constants (`HEADER_NAME`).
    pub fn bind(
        &mut self,
        pat: &BindingPattern,
        init: &Expression,
        consts: &HashMap<String, String>,
    ) {
        match pat {
            BindingPattern::BindingIdentifier(id) => {
                let name = id.name.to_string();
                if let Some(ctx) = verified_event(init) {
                    let ctx = self.with_libs(ctx);
                    self.events.insert(name, ctx);
                } else if let Some(src) = key_source(init, self, consts) {
                    self.keys.insert(name, src);
                } else {
                    // Shadowed by a value of no source.
                    self.keys.remove(&name);
                    self.events.remove(&name);
                }
            }
            // `const { id } = event`, `const { id: eventId } = event`.
            BindingPattern::ObjectPattern(o) => {
                for p in &o.properties {
                    let (PropertyKey::StaticIdentifier(k), BindingPattern::BindingIdentifier(v)) =
                        (&p.key, &p.value)
                    else {
                        continue;
                    };
                    if k.name != "id" {
                        continue;
                    }
                    if let Some(src) = self.event_id(bare(init), "id") {
                        self.keys.insert(v.name.to_string(), src);
                    }
                }
            }
            _ => {}
        }
    }

    /// Record `name = value` (`event = stripe.webhooks.constructEvent(..)`
    /// in a `try` after `let event: Stripe.Event;`).
    pub fn assign(&mut self, name: &str, value: &Expression, consts: &HashMap<String, String>) {
        if let Some(ctx) = verified_event(value) {
            let ctx = self.with_libs(ctx);
            self.events.insert(name.to_string(), ctx);
        } else if let Some(src) = key_source(value, self, consts) {
            self.keys.insert(name.to_string(), src);
        }
    }

    fn with_libs(&self, mut ctx: Vec<String>) -> Vec<String> {
        ctx.extend(self.libs.iter().cloned());
        ctx
    }

    /// `event.<field>` where `event` holds a verified event and the field
    /// is its identity.
    fn event_id(&self, object: &Expression, field: &str) -> Option<KeySource> {
        let Expression::Identifier(obj) = object else {
            return None;
        };
        let ctx = self.events.get(obj.name.as_str())?;
        if field != "id" {
            return None;
        }
        let mut context = ctx.clone();
        context.push(obj.name.to_string());
        context.extend(self.fn_name.iter().cloned());
        Some(KeySource {
            what: format!("`{}.{field}`", obj.name),
            context,
            event: true,
        })
    }
}

/// Names around a verification (`stripe.webhooks.constructEvent(..)`,
/// awaited or not): the receiver's path and the method.
fn verified_event(init: &Expression) -> Option<Vec<String>> {
    let e = match bare(init) {
        Expression::AwaitExpression(a) => bare(&a.argument),
        e => e,
    };
    let Expression::CallExpression(c) = e else {
        return None;
    };
    let m = bare(&c.callee).as_member_expression()?;
    let method = m.static_property_name()?;
    if !VERIFY_METHODS.contains(&method) {
        return None;
    }
    let mut ctx = path_of(m.object()).unwrap_or_default();
    ctx.push(method.to_string());
    Some(ctx)
}

/// The source a key expression is built from: a binding of one, a verified
/// event's `id`, a header read, or a template, concatenation or conversion
/// with one inside. Call it with the [`Sources`] of the function the
/// expression is in; `from_header` of a Redis key is `!source.event`,
/// `derived` is `true`.
pub(super) fn key_source(
    e: &Expression,
    s: &Sources,
    consts: &HashMap<String, String>,
) -> Option<KeySource> {
    match bare(e) {
        Expression::Identifier(id) => s.keys.get(id.name.as_str()).cloned(),
        Expression::StaticMemberExpression(m) => {
            s.event_id(bare(&m.object), &m.property.name).or_else(|| {
                key_source(&m.object, s, consts).filter(|_| is_conversion(&m.property.name))
            })
        }
        Expression::ComputedMemberExpression(m) => {
            // `req.headers['idempotency-key']`
            let name = header_name(&m.expression, consts)?;
            let on_headers =
                path_of(&m.object).is_some_and(|p| p.last().is_some_and(|l| l == "headers"));
            on_headers.then(|| header_source(&name, s))
        }
        Expression::TemplateLiteral(t) => {
            t.expressions.iter().find_map(|x| key_source(x, s, consts))
        }
        Expression::BinaryExpression(b) => {
            key_source(&b.left, s, consts).or_else(|| key_source(&b.right, s, consts))
        }
        Expression::LogicalExpression(l) => key_source(&l.left, s, consts),
        Expression::AwaitExpression(a) => key_source(&a.argument, s, consts),
        Expression::CallExpression(c) => call_source(c, s, consts),
        Expression::ChainExpression(_) => {
            let p = path_of(e)?;
            let (obj, field) = (p.first()?, p.last()?);
            (p.len() == 2 && s.events.contains_key(obj.as_str()) && field == "id").then(|| {
                KeySource {
                    what: format!("`{obj}.{field}`"),
                    context: s.events.get(obj.as_str()).cloned().unwrap_or_default(),
                    event: true,
                }
            })
        }
        _ => None,
    }
}

/// `req.header('Idempotency-Key')`, `request.headers.get(..)`,
/// `String(x)`, `x.toString()`, `x.trim()`.
fn call_source(
    c: &CallExpression,
    s: &Sources,
    consts: &HashMap<String, String>,
) -> Option<KeySource> {
    let callee = bare(&c.callee);
    if let Expression::Identifier(f) = callee {
        return (f.name == "String")
            .then(|| c.arguments.first().and_then(|a| a.as_expression()))
            .flatten()
            .and_then(|a| key_source(a, s, consts));
    }
    let m = callee.as_member_expression()?;
    let method = m.static_property_name()?;
    if HEADER_READS.contains(&method) && c.arguments.len() == 1 {
        let name = header_name(c.arguments[0].as_expression()?, consts)?;
        return Some(header_source(&name, s));
    }
    if is_conversion(method) {
        return key_source(m.object(), s, consts);
    }
    None
}

fn is_conversion(method: &str) -> bool {
    matches!(method, "toString" | "trim" | "toLowerCase" | "toUpperCase")
}

fn header_source(name: &str, s: &Sources) -> KeySource {
    let lower = name.to_ascii_lowercase();
    let event = DELIVERY_HEADERS.contains(&lower.as_str());
    let mut context: Vec<String> = s.fn_name.iter().cloned().collect();
    if event {
        context.insert(0, lower.split('-').next().unwrap_or_default().to_string());
    }
    KeySource {
        what: format!("the `{name}` header"),
        context,
        event,
    }
}

/// The header an argument names, when it is an idempotency header or a
/// delivery's identity: a literal, or a module constant holding one.
fn header_name(e: &Expression, consts: &HashMap<String, String>) -> Option<String> {
    let value = match bare(e) {
        Expression::Identifier(id) => consts.get(id.name.as_str()).cloned(),
        e => string_value(e),
    }?;
    (is_idempotency_header(&value)
        || DELIVERY_HEADERS.contains(&value.to_ascii_lowercase().as_str()))
    .then_some(value)
}

/// An idempotency request header: `idempot…`, or a name of
/// `rules/headers.toml`; never the replay response header.
pub(super) fn is_idempotency_header(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    if lower.contains("replay") {
        return false;
    }
    let h = knowledge::headers();
    lower.contains("idempot")
        || h.canonical
            .iter()
            .chain(&h.legitimate)
            .any(|x| x.header && x.name.eq_ignore_ascii_case(name))
}

#[cfg(test)]
mod tests {
    use super::*;
    use oxc_allocator::Allocator;
    use oxc_ast::ast::{Declaration, Statement};

    /// The source of the last binding of `src`'s statements.
    fn last(src: &str) -> Option<KeySource> {
        let alloc = Allocator::default();
        let r = oxc_parser::Parser::new(&alloc, src, oxc_span::SourceType::ts()).parse();
        let mut s = Sources::default();
        let consts = HashMap::from([("HDR".to_string(), "Idempotency-Key".to_string())]);
        let mut out = None;
        for st in &r.program.body {
            let Statement::VariableDeclaration(d) = st else {
                continue;
            };
            for d in &d.declarations {
                if let Some(init) = &d.init {
                    s.bind(&d.id, init, &consts);
                    out = key_source(init, &s, &consts);
                }
            }
        }
        let _ = Declaration::VariableDeclaration;
        out
    }

    #[test]
    fn a_verified_events_id_and_an_idempotency_header_are_sources() {
        let e = last(
            "const event = await stripe.webhooks.constructEventAsync(body, sig, secret);\n\
             const key = `stripe:event:${event.id}`;",
        )
        .expect("event id");
        assert!(e.event && e.what == "`event.id`" && e.context.contains(&"stripe".to_string()));
        let h = last("const k = req.headers['idempotency-key'];\nconst key = 'idem:' + k;")
            .expect("header");
        assert!(!h.event && h.what.contains("idempotency-key"));
        assert!(last("const k = request.headers.get(HDR) ?? '';").is_some());
        assert!(last("const k = req.header('Idempotency-Key');").is_some());
        let d = last("const id = req.headers.get('svix-id');").expect("svix");
        assert!(d.event);
    }

    #[test]
    fn an_unverified_event_and_other_headers_are_no_source() {
        assert!(last("const event = JSON.parse(body);\nconst key = `evt:${event.id}`;").is_none());
        assert!(last("const k = req.header('X-Request-Id');").is_none());
        assert!(last("const k = req.headers['idempotent-replayed'];").is_none());
    }
}
