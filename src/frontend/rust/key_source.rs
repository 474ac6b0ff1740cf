//! Stores by data flow: a Redis key or a SQL value built from a request's
//! idempotency header (`req.headers().get("Idempotency-Key")`, any name of
//! `rules/headers.toml`) or from a webhook event's identity (`event.id` of
//! a provider's event, a notification's `psp_reference`, a delivery id)
//! names where idempotency keys are kept, whatever the key prefix or the
//! table is called. Read per function, through its `let` bindings, in
//! source order; a value handed to another function is not followed.
//!
//! The facts are applied to the file's own Redis writes and flow steps by
//! [`apply`]; the schema reads [`Derived::tables`] to make a table a store.

use super::sql_strings::{self, StrConsts};
use crate::facts::flow::{FlowFacts, StepKind};
use crate::facts::keys::{Derived, DerivedKey, DerivedTable, KeySource};
use crate::facts::retention::{RetentionFact, StoreRef};
use crate::facts::FileFacts;
use crate::frontend::key_format;
use crate::frontend::sql::dml;
use crate::knowledge;
use crate::source::Span;
use std::collections::HashMap;
use syn::visit::{self, Visit};

/// Words in a file without which it holds no source: an idempotency header
/// (`idempot`, and the other names of `rules/headers.toml`) or an event's
/// identity. A cheap screen before the walk.
pub fn may_hold_a_source(text: &str) -> bool {
    let h = knowledge::headers();
    [
        "idempot",
        "event",
        "evt",
        "psp",
        "delivery",
        "notification",
        "webhook",
    ]
    .iter()
    .any(|w| knowledge::contains_ignore_ascii_case(text, w))
        || h.header_named_in(text)
}

/// Walks every function of a file.
pub struct Walker<'a> {
    text: &'a str,
    consts: &'a StrConsts,
    pub out: Derived,
}

impl<'a> Walker<'a> {
    pub fn new(text: &'a str, consts: &'a StrConsts) -> Self {
        Walker {
            text,
            consts,
            out: Derived::default(),
        }
    }

    fn function(&mut self, name: &str, sig: &syn::Signature, block: &syn::Block) {
        let mut f = FnScan {
            text: self.text,
            consts: self.consts,
            fn_name: name.to_string(),
            types: HashMap::new(),
            tainted: HashMap::new(),
            out: &mut self.out,
        };
        for input in &sig.inputs {
            if let syn::FnArg::Typed(t) = input {
                let ty = quote::ToTokens::to_token_stream(&t.ty).to_string();
                for n in super::flow::pat_names(&t.pat) {
                    f.types.insert(n, ty.clone());
                }
            }
        }
        f.visit_block(block);
    }
}

impl<'ast> Visit<'ast> for Walker<'_> {
    fn visit_item_fn(&mut self, i: &'ast syn::ItemFn) {
        self.function(&i.sig.ident.to_string(), &i.sig, &i.block);
    }

    fn visit_impl_item_fn(&mut self, i: &'ast syn::ImplItemFn) {
        self.function(&i.sig.ident.to_string(), &i.sig, &i.block);
    }

    fn visit_trait_item_fn(&mut self, i: &'ast syn::TraitItemFn) {
        if let Some(b) = &i.default {
            self.function(&i.sig.ident.to_string(), &i.sig, b);
        }
    }
}

/// One function: its parameters' types and the bindings that hold a source.
struct FnScan<'a, 'o> {
    text: &'a str,
    consts: &'a StrConsts,
    fn_name: String,
    types: HashMap<String, String>,
    tainted: HashMap<String, KeySource>,
    out: &'o mut Derived,
}

/// Methods that read a header by name (`headers.get(NAME)`,
/// `req.header(NAME)`, actix's `headers().get(..)`, `get_all`).
const HEADER_READS: &[&str] = &["get", "get_all", "header", "get_header", "typed_get"];

/// Words of a binding that holds a provider's event or delivery.
const EVENT_OWNERS: &[&str] = &["event", "evt", "notification", "delivery"];

/// Whether a name speaks of a counterparty with an inbound horizon
/// (`stripe::Event`, `handle_adyen_notification`).
fn names_provider(name: &str) -> bool {
    let flat = name.replace([' ', ':', '<', '>', '&'], "_");
    knowledge::counterparties().inbound_matches(&flat, &knowledge::name_words(&flat))
}

impl FnScan<'_, '_> {
    /// The source an expression's value carries, if any.
    fn source_of(&self, e: &syn::Expr) -> Option<KeySource> {
        let mut f = SourceFinder {
            scan: self,
            found: None,
        };
        f.visit_expr(e);
        f.found
    }

    fn field_source(&self, f: &syn::ExprField) -> Option<KeySource> {
        let syn::Member::Named(member) = &f.member else {
            return None;
        };
        let field = member.to_string();
        let snake = knowledge::snake(&field);
        let base = super::flow::path_of(&f.base);
        let owner = base.last().map(String::as_str).unwrap_or("");
        let ty = base
            .first()
            .and_then(|b| self.types.get(b))
            .cloned()
            .unwrap_or_default();
        let owner_words = knowledge::name_words(owner);
        let ty_words = knowledge::name_words(&ty.replace([' ', ':', '<', '>', '&'], "_"));
        let eventish = |words: &[String]| words.iter().any(|w| EVENT_OWNERS.contains(&w.as_str()));
        // `event.id`, `evt.id`, `notification.id`, `payload.event_id`,
        // `item.psp_reference`: a provider's event identity when a name
        // around it (the event's type, the binding, the function, the
        // field) names a provider; an event id of the service's own events
        // is no replay guard.
        let fields = &knowledge::stores().event_identity;
        let by_field = fields.provider_field(&snake);
        let identity = (snake == "id" && (eventish(&owner_words) || eventish(&ty_words)))
            || fields.fields.contains(&snake);
        let provider = by_field.is_some()
            || [ty.as_str(), owner, &field, &self.fn_name]
                .iter()
                .any(|n| names_provider(n));
        if !identity || !provider {
            return None;
        }
        let written = base
            .iter()
            .chain(std::iter::once(&field))
            .filter(|s| *s != "self")
            .cloned()
            .collect::<Vec<_>>()
            .join(".");
        let mut context = vec![ty, owner.to_string(), field, self.fn_name.clone()];
        context.extend(by_field.map(str::to_string));
        context.retain(|c| !c.is_empty());
        Some(KeySource {
            what: format!("`{written}`"),
            context,
            event: true,
        })
    }

    fn header_source(&self, m: &syn::ExprMethodCall) -> Option<KeySource> {
        let method = m.method.to_string();
        if !HEADER_READS.contains(&method.as_str()) || m.args.len() != 1 {
            return None;
        }
        let name = super::flow::idempotency_header_name(self.consts, m.args.first()?)?;
        Some(KeySource {
            what: format!("the `{name}` header"),
            context: vec![self.fn_name.clone()],
            event: false,
        })
    }

    fn taint(&mut self, pat: &syn::Pat, init: &syn::Expr) {
        // `let event = stripe::Webhook::construct_event(..)?`: the path
        // stands for the binding's type
        if let syn::Expr::Call(c) = super::flow::root_of(init) {
            if let syn::Expr::Path(p) = &*c.func {
                let path = super::path_idents(&p.path).join("::");
                for n in super::flow::pat_names(pat) {
                    self.types.entry(n).or_insert_with(|| path.clone());
                }
            }
        }
        if let syn::Pat::Type(t) = pat {
            let ty = quote::ToTokens::to_token_stream(&t.ty).to_string();
            for n in super::flow::pat_names(pat) {
                self.types.insert(n, ty.clone());
            }
        }
        if let Some(src) = self.source_of(init) {
            for n in super::flow::pat_names(pat) {
                self.tainted.insert(n, src.clone());
            }
        }
    }

    /// A `format!` whose arguments or inline names carry a source.
    fn format(&mut self, mac: &syn::Macro) {
        let Some(prefix) = super::retention::format_prefix(mac) else {
            return;
        };
        let Ok(args) = mac.parse_body_with(
            syn::punctuated::Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated,
        ) else {
            return;
        };
        let mut it = args.iter();
        let Some(first) = it.next() else { return };
        let mut found = it.find_map(|a| self.source_of(a));
        if found.is_none() {
            if let Some((_, holes, _)) = super::str_lit(first)
                .as_deref()
                .and_then(key_format::split_rust)
            {
                found = holes.iter().find_map(|h| match h {
                    key_format::Hole::Inline(n) => key_format::idents(n)
                        .first()
                        .and_then(|i| self.tainted.get(i))
                        .cloned(),
                    _ => None,
                });
            }
        }
        if let Some(source) = found {
            self.out.keys.push(DerivedKey {
                prefix,
                span: super::span::of(mac),
                source,
            });
        }
    }

    /// SQL whose bound values carry a source: `query("…").bind(v)` and
    /// `query!("…", v)`.
    fn sql(&mut self, sql: &sql_strings::SqlText, binds: &[(usize, &syn::Expr)]) {
        let found: Vec<(usize, KeySource, Span)> = binds
            .iter()
            .filter_map(|(n, e)| self.source_of(e).map(|s| (*n, s, super::span::of(*e))))
            .collect();
        if found.is_empty() {
            return;
        }
        let columns = dml::param_columns(&sql.text);
        for d in dml::classify(&sql.text) {
            for (n, source, at) in &found {
                let column = columns.iter().find(|(p, _)| p == n).map(|(_, c)| c.clone());
                self.out.tables.push(DerivedTable {
                    table: d.table.clone(),
                    column,
                    span: *at,
                    source: source.clone(),
                    writes: d.kind.writes(),
                });
            }
        }
    }

    /// `.bind(v)` calls of a chain rooted at a SQL entry point.
    fn bind_chain(&mut self, m: &syn::ExprMethodCall) {
        let methods = super::flow::chain_methods(m);
        let binds: Vec<(usize, &syn::Expr)> = methods
            .iter()
            .filter(|c| c.method == "bind")
            .filter_map(|c| c.args.first())
            .enumerate()
            .collect();
        if binds.is_empty() {
            return;
        }
        let root = super::flow::root_of(&m.receiver);
        let sql = match root {
            syn::Expr::Call(c) => sql_strings::of_call(self.text, c, self.consts),
            _ => None,
        };
        if let Some(sql) = sql {
            self.sql(&sql, &binds);
        }
    }
}

impl<'ast> Visit<'ast> for FnScan<'_, '_> {
    fn visit_local(&mut self, l: &'ast syn::Local) {
        visit::visit_local(self, l);
        if let Some(init) = &l.init {
            self.taint(&l.pat, &init.expr);
        }
    }

    fn visit_expr_let(&mut self, e: &'ast syn::ExprLet) {
        visit::visit_expr_let(self, e);
        self.taint(&e.pat, &e.expr);
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        let name = mac
            .path
            .segments
            .last()
            .map(|s| s.ident.to_string())
            .unwrap_or_default();
        if name == "format" {
            self.format(mac);
        } else if let Some(sql) = sql_strings::of_macro(self.text, mac) {
            if let Ok(args) = mac.parse_body_with(
                syn::punctuated::Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated,
            ) {
                // the arguments after the SQL literal are its parameters
                let at = args
                    .iter()
                    .position(|a| matches!(a, syn::Expr::Lit(_)))
                    .map_or(0, |p| p + 1);
                let binds: Vec<(usize, &syn::Expr)> = args.iter().skip(at).enumerate().collect();
                self.sql(&sql, &binds);
            }
        }
        visit::visit_macro(self, mac);
    }

    fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
        if m.method != "bind" {
            let methods = super::flow::chain_methods(m);
            if methods.iter().any(|c| c.method == "bind") {
                self.bind_chain(m);
            }
        }
        visit::visit_expr_method_call(self, m);
    }

    // A nested function is its own scope.
    fn visit_item_fn(&mut self, _: &'ast syn::ItemFn) {}
}

struct SourceFinder<'s, 'a, 'o> {
    scan: &'s FnScan<'a, 'o>,
    found: Option<KeySource>,
}

impl<'ast> Visit<'ast> for SourceFinder<'_, '_, '_> {
    fn visit_expr(&mut self, e: &'ast syn::Expr) {
        if self.found.is_some() {
            return;
        }
        let hit = match e {
            syn::Expr::Path(p) if p.path.segments.len() == 1 => p
                .path
                .segments
                .first()
                .and_then(|s| self.scan.tainted.get(&s.ident.to_string()))
                .cloned(),
            syn::Expr::MethodCall(m) => self.scan.header_source(m),
            syn::Expr::Field(f) => self.scan.field_source(f),
            syn::Expr::Index(i) => super::flow::idempotency_header_name(self.scan.consts, &i.index)
                .map(|name| KeySource {
                    what: format!("the `{name}` header"),
                    context: vec![self.scan.fn_name.clone()],
                    event: false,
                }),
            // a closure's body is not the value
            syn::Expr::Closure(_) => return,
            _ => None,
        };
        if hit.is_some() {
            self.found = hit;
            return;
        }
        visit::visit_expr(self, e);
    }
}

/// Give the file's Redis writes and flow steps whose key prefix a source
/// built their derivation, and the expiry of such a write as a retention of
/// that prefix (its counterparty from the source's names).
pub fn apply(derived: &Derived, facts: &mut FileFacts, flow: &mut FlowFacts) {
    if derived.keys.is_empty() {
        return;
    }
    let stores = knowledge::stores();
    let words = knowledge::retention_words();
    let by_prefix = |p: &str| {
        derived
            .keys
            .iter()
            .find(|k| k.prefix == p)
            .filter(|_| !words.is_excluded(p))
    };
    let mut retentions = Vec::new();
    for w in &facts.redis_writes {
        let Some(k) = w.key_prefix.as_deref().and_then(by_prefix) else {
            continue;
        };
        if stores.is_store_prefix(&k.prefix) {
            continue; // a store by its name already
        }
        if !facts.derived_prefixes.iter().any(|(p, _)| *p == k.prefix) {
            facts
                .derived_prefixes
                .push((k.prefix.clone(), k.source.what.clone()));
        }
        if let Some((d, span)) = w.ttl {
            let mut context = vec![k.prefix.clone()];
            context.extend(k.source.context.iter().cloned());
            retentions.push(RetentionFact {
                span,
                duration: d,
                target: StoreRef::RedisPrefix(k.prefix.clone()),
                via: format!(
                    "Redis expiry on `{}` keys, built from {}",
                    k.prefix, k.source.what
                ),
                context,
            });
        }
    }
    facts.retention.extend(retentions);
    for ev in flow.functions.iter_mut().flat_map(|f| f.events.iter_mut()) {
        if let StepKind::Redis { key, .. } = &mut ev.kind {
            if key.prefix.as_deref().and_then(by_prefix).is_some() {
                key.derived = true;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::source::FileKind;

    fn derived(text: &str) -> super::Derived {
        let facts = crate::frontend::parse(0, FileKind::Rust, text);
        facts.code.map(|r| r.derived).unwrap_or_default()
    }

    #[test]
    fn a_key_built_from_the_idempotency_header_names_a_store_whatever_its_prefix() {
        let d = derived(
            "async fn f(h: &HeaderMap, con: &mut redis::aio::MultiplexedConnection) {\n\
             let k = h.get(\"Idempotency-Key\").and_then(|v| v.to_str().ok()).unwrap_or_default();\n\
             let slot = format!(\"rc:v2:{k}\");\n\
             let _: () = con.set_ex(&slot, \"x\", 60).await.unwrap();\n}\n",
        );
        assert_eq!(d.keys.len(), 1, "{d:?}");
        assert_eq!(d.keys[0].prefix, "rc:v2:");
        assert!(!d.keys[0].source.event);
        assert!(d.keys[0].source.what.contains("Idempotency-Key"));
    }

    #[test]
    fn a_provider_event_id_bound_to_sql_names_its_table_and_column() {
        let d = derived(
            "async fn on(pool: &PgPool, event: &stripe::Event) {\n\
             sqlx::query(\"INSERT INTO received_hooks (source, ref) VALUES ('stripe', $1)\").bind(event.id.as_str()).execute(pool).await;\n}\n",
        );
        assert_eq!(d.tables.len(), 1, "{d:?}");
        assert_eq!(d.tables[0].table, "received_hooks");
        assert_eq!(d.tables[0].column.as_deref(), Some("ref"));
        assert!(d.tables[0].writes && d.tables[0].source.event);
    }

    #[test]
    fn the_services_own_event_ids_and_other_headers_are_no_source() {
        let d = derived(
            "async fn audit(pool: &PgPool, event: &AuditEvent, h: &HeaderMap) {\n\
             sqlx::query(\"INSERT INTO audit_log (ref) VALUES ($1)\").bind(event.id).execute(pool).await;\n\
             let t = h.get(\"X-Trace-Id\").unwrap();\n\
             let k = format!(\"trace:{}\", t);\n}\n",
        );
        assert!(d.tables.is_empty() && d.keys.is_empty(), "{d:?}");
    }
}
