//! Keys built without the owner the code was handed: a function or a
//! `match` arm that binds an owner's identifier (`merchant_id`, `tenant_id`,
//! `idempotency_namespace`) and builds a key-shaped string with `format!`
//! without ever using that binding. A reviewer reads the binding as the
//! key's missing segment: the code knows whose id it is and leaves the owner
//! out, so two owners' ids share one key. Compiled code rarely leaves a
//! binding unused (the compiler warns), so the form is rare where the key is
//! right. Whether it is judged is the model's call.

use crate::facts::keys::OwnerlessKey;
use crate::knowledge;
use crate::source::Span;
use std::collections::HashSet;
use syn::visit::{self, Visit};

/// Longest literal read as a key format.
const MAX_FORMAT: usize = 200;

/// Last words that name an owner whatever comes before them
/// (`idempotency_namespace`, `source_tenant`): nouns of `[scope_column]`
/// that never name a value of another kind (unlike `store` or `app`).
const OWNER_NOUNS: &[&str] = &[
    "tenant",
    "namespace",
    "merchant",
    "org",
    "organization",
    "organisation",
    "workspace",
];

/// Whether a file may hold a key built without its owner: a `format!` and
/// an identifier that names an owner ([`owner_named`]).
pub fn may_hold(text: &str) -> bool {
    text.contains("format")
        && text
            .split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .filter(|w| {
                !w.bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
            })
            .collect::<HashSet<&str>>()
            .into_iter()
            .any(owner_named)
}

/// Whether a binding's name names an owner: a scope column name of two
/// words or more (`merchant_id`, `tenantId`), or one ending in an owner
/// noun. A bare `app`, `store` or `env` is a handler's state, not an owner;
/// a `_`-prefixed binding is unused on purpose.
fn owner_named(name: &str) -> bool {
    if name.starts_with('_') {
        return false;
    }
    let words = knowledge::name_words(name);
    if words.len() < 2 {
        return false;
    }
    knowledge::stores().scope_column.matches(name, "")
        || words
            .last()
            .is_some_and(|w| OWNER_NOUNS.contains(&w.as_str()))
}

/// Whether a format string is shaped like a key: placeholders, no
/// whitespace, no path or URL, only key characters between placeholders,
/// and a separator (`mid_{}_pid_{}`, `{}:{}`, `lock_{}_{}`).
fn key_shaped(v: &str) -> bool {
    if v.len() > MAX_FORMAT || v.contains(char::is_whitespace) || v.contains('/') {
        return false;
    }
    let Some((lits, holes, _)) = crate::frontend::key_format::split_rust(v) else {
        return false;
    };
    let text: String = lits.concat();
    let shaped = text
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | ':' | '-' | '.' | '#'));
    let separated = text.contains(['_', ':', '-', '.']);
    let worded = text.chars().any(|c| c.is_ascii_alphabetic());
    shaped && separated && (worded || holes.len() > 1)
}

/// Names a pattern binds, struct fields included.
fn bound(p: &syn::Pat, out: &mut Vec<String>) {
    match p {
        syn::Pat::Ident(i) => {
            out.push(i.ident.to_string());
            if let Some((_, sub)) = &i.subpat {
                bound(sub, out);
            }
        }
        syn::Pat::Type(t) => bound(&t.pat, out),
        syn::Pat::Reference(r) => bound(&r.pat, out),
        syn::Pat::Paren(p) => bound(&p.pat, out),
        syn::Pat::TupleStruct(ts) => ts.elems.iter().for_each(|e| bound(e, out)),
        syn::Pat::Tuple(t) => t.elems.iter().for_each(|e| bound(e, out)),
        syn::Pat::Slice(s) => s.elems.iter().for_each(|e| bound(e, out)),
        syn::Pat::Struct(s) => s.fields.iter().for_each(|f| bound(&f.pat, out)),
        _ => {}
    }
}

/// Every identifier a piece of code names, in macro arguments and in the
/// inline arguments of format strings (`{merchant_id}`) too.
fn used(ts: proc_macro2::TokenStream, out: &mut HashSet<String>) {
    for t in ts {
        match t {
            proc_macro2::TokenTree::Ident(i) => {
                out.insert(i.to_string());
            }
            proc_macro2::TokenTree::Group(g) => used(g.stream(), out),
            proc_macro2::TokenTree::Literal(l) => {
                let s = l.to_string();
                if s.starts_with('"') || s.starts_with('r') {
                    for part in s.split('{').skip(1) {
                        let inner = part.split(['}', ':']).next().unwrap_or("");
                        out.extend(crate::frontend::key_format::idents(inner));
                    }
                }
            }
            proc_macro2::TokenTree::Punct(_) => {}
        }
    }
}

/// The key-shaped `format!` strings of a piece of code.
#[derive(Default)]
struct Formats(Vec<(Span, String)>);

impl<'ast> Visit<'ast> for Formats {
    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        use syn::punctuated::Punctuated;
        let name = m.path.segments.last().map(|s| s.ident.to_string());
        if matches!(name.as_deref(), Some("format" | "formatcp")) {
            let args = m.parse_body_with(Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated);
            if let Ok(args) = args {
                if let Some(syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(lit),
                    ..
                })) = args.first()
                {
                    let v = lit.value();
                    if key_shaped(&v) {
                        self.0.push((super::byte_span(lit.span()), v));
                    }
                }
                // `f.write_str(&format!(..))` inside another macro's
                // arguments is read with them.
                for a in args.iter().skip(1) {
                    self.visit_expr(a);
                }
            }
            return;
        }
        // Other macros (`write!`, `tracing::info!`) are opaque here.
        visit::visit_macro(self, m);
    }
}

#[derive(Default)]
pub(super) struct Visitor {
    pub(super) out: Vec<OwnerlessKey>,
    seen: HashSet<usize>,
}

impl Visitor {
    /// Report the key formats of `body` when one of `names` (bound around
    /// it) is an owner that `body` never uses.
    fn scope<T>(&mut self, names: &[String], body: &T, visit: impl Fn(&mut Formats, &T))
    where
        T: quote::ToTokens,
    {
        let owners: Vec<&String> = names.iter().filter(|n| owner_named(n)).collect();
        if owners.is_empty() {
            return;
        }
        // The key formats first: most bodies that bind an owner build no
        // key, and the identifiers are read from a copy of the tokens.
        let mut formats = Formats::default();
        visit(&mut formats, body);
        if formats.0.is_empty() {
            return;
        }
        let mut ids = HashSet::new();
        used(body.to_token_stream(), &mut ids);
        let Some(owner) = owners.into_iter().find(|o| !ids.contains(o.as_str())) else {
            return;
        };
        for (span, text) in formats.0 {
            if self.seen.insert(span.start) {
                self.out.push(OwnerlessKey {
                    span,
                    text,
                    owner: owner.clone(),
                    late: false,
                });
            }
        }
    }

    fn function(&mut self, sig: &syn::Signature, block: &syn::Block) {
        let mut names = Vec::new();
        for input in &sig.inputs {
            if let syn::FnArg::Typed(t) = input {
                bound(&t.pat, &mut names);
            }
        }
        self.scope(&names, block, |f, b| f.visit_block(b));
    }
}

impl<'ast> Visit<'ast> for Visitor {
    fn visit_item_fn(&mut self, i: &'ast syn::ItemFn) {
        self.function(&i.sig, &i.block);
        visit::visit_item_fn(self, i);
    }

    fn visit_impl_item_fn(&mut self, i: &'ast syn::ImplItemFn) {
        self.function(&i.sig, &i.block);
        visit::visit_impl_item_fn(self, i);
    }

    fn visit_trait_item_fn(&mut self, i: &'ast syn::TraitItemFn) {
        if let Some(b) = &i.default {
            self.function(&i.sig, b);
        }
        visit::visit_trait_item_fn(self, i);
    }

    fn visit_arm(&mut self, a: &'ast syn::Arm) {
        let mut names = Vec::new();
        bound(&a.pat, &mut names);
        self.scope(&names, &*a.body, |f, b| f.visit_expr(b));
        visit::visit_arm(self, a);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(text: &str) -> Vec<(String, String)> {
        let file = syn::parse_file(text).expect("test source parses");
        let mut v = Visitor::default();
        v.visit_file(&file);
        v.out.into_iter().map(|k| (k.text, k.owner)).collect()
    }

    #[test]
    fn an_owner_parameter_left_out_of_the_key() {
        let k = keys(
            "fn lock_key(tenant_id: &str, order_ref: &str) -> String {\n    format!(\"lock_{}\", order_ref)\n}\n",
        );
        assert_eq!(k, vec![("lock_{}".to_string(), "tenant_id".to_string())]);
    }

    #[test]
    fn an_owner_bound_by_an_arm_and_left_out() {
        let k = keys(
            "fn k(s: Scope, id: &str) -> String {\n    match s {\n        Scope::Shop { shop_id, .. } => format!(\"sid_{}_oid_{}\", \"all\", id),\n        Scope::None => id.to_string(),\n    }\n}\n",
        );
        assert_eq!(
            k,
            vec![("sid_{}_oid_{}".to_string(), "shop_id".to_string())]
        );
        let k = keys(
            "fn k(ns: Option<&str>, id: &str) -> String {\n    match ns {\n        Some(source_namespace) => format!(\"dedup_{id}\"),\n        None => format!(\"dedup_{id}\"),\n    }\n}\n",
        );
        assert_eq!(k.len(), 1);
    }

    #[test]
    fn a_used_owner_a_sentence_or_a_path_is_not_judged() {
        for text in [
            "fn k(merchant_id: &str, id: &str) -> String { format!(\"mid_{}_pid_{}\", merchant_id, id) }\n",
            "fn k(merchant_id: &str, id: &str) -> String { format!(\"mid_{merchant_id}_pid_{id}\") }\n",
            "fn k(_merchant_id: &str, id: &str) -> String { format!(\"pid_{}\", id) }\n",
            "fn k(merchant_id: &str, id: &str) -> String { format!(\"payment {} not found\", id) }\n",
            "fn k(merchant_id: &str, id: &str) -> String { format!(\"{}/payments/{}\", BASE, id) }\n",
            "fn k(app_store: &str, id: &str) -> String { format!(\"pid_{}\", id) }\n",
        ] {
            assert!(keys(text).is_empty(), "{text}");
        }
    }
}
