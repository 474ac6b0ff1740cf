//! A caller's identity at hand and left out of an idempotency key, for
//! `unscoped-idempotency-key`. Two forms, read per function:
//! - a key builder named for idempotency (`IdempotencyKey::new`,
//!   `fn idempotency_cache_key(tenant_id, key)`) that takes the caller
//!   (`auth_token`, `tenant_id`, `account_id`, …) as a parameter and never
//!   uses it, while it does use the key: the digest or format it builds
//!   names no caller;
//! - a function that reads the idempotency header and the caller's
//!   identity from the request (`Authorization`, a tenant or account
//!   header) into a binding, and never uses that binding: the key it
//!   builds from the header is the same for every caller.
//!
//! A parameter or binding whose name starts with `_` is left out on
//! purpose and not reported.

use super::sql_strings::StrConsts;
use crate::facts::keys::DroppedCaller;
use crate::source::Span;
use syn::visit::{self, Visit};

/// Names that hold a caller's identity (last word of a snake-case name,
/// or the whole name).
fn is_caller_name(name: &str) -> bool {
    let l = name.to_ascii_lowercase();
    if l.starts_with('_') {
        return false;
    }
    [
        "auth",
        "auth_token",
        "authorization",
        "token",
        "api_key",
        "bearer",
        "principal",
        "caller",
        "caller_id",
        "tenant",
        "tenant_id",
        "org",
        "org_id",
        "organization_id",
        "organisation_id",
        "account",
        "account_id",
        "merchant",
        "merchant_id",
        "customer_id",
        "user_id",
        "client_id",
        "owner_id",
    ]
    .contains(&l.as_str())
}

/// Header names that carry the caller's identity.
fn is_caller_header(name: &str) -> bool {
    let l = name.to_ascii_lowercase();
    l == "authorization"
        || l == "x-api-key"
        || [
            "tenant",
            "account-id",
            "merchant-id",
            "org-id",
            "organization-id",
        ]
        .iter()
        .any(|w| l.contains(w))
}

/// Every identifier of a token stream, with inline `{name}` captures of
/// string literals (format strings).
fn idents_of(ts: proc_macro2::TokenStream, out: &mut Vec<String>) {
    for t in ts {
        match t {
            proc_macro2::TokenTree::Ident(i) => out.push(i.to_string()),
            proc_macro2::TokenTree::Group(g) => idents_of(g.stream(), out),
            proc_macro2::TokenTree::Literal(l) => {
                let s = l.to_string();
                let mut rest = s.as_str();
                while let Some(i) = rest.find('{') {
                    rest = &rest[i + 1..];
                    let end = rest
                        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                        .unwrap_or(rest.len());
                    if end > 0 {
                        out.push(rest[..end].to_string());
                    }
                }
            }
            proc_macro2::TokenTree::Punct(_) => {}
        }
    }
}

fn uses(tokens: &[String], name: &str) -> bool {
    tokens.iter().any(|t| t == name)
}

fn names_idempotency(s: &str) -> bool {
    s.to_ascii_lowercase().contains("idempot")
}

pub struct Visitor<'a> {
    consts: &'a StrConsts,
    owner: Option<String>,
    pub out: Vec<DroppedCaller>,
}

impl<'a> Visitor<'a> {
    pub fn new(consts: &'a StrConsts) -> Self {
        Visitor {
            consts,
            owner: None,
            out: Vec::new(),
        }
    }

    fn function(&mut self, sig: &syn::Signature, block: &syn::Block) {
        let name = sig.ident.to_string();
        let fn_span = super::byte_span(sig.ident.span());
        let params: Vec<(String, Span)> = sig
            .inputs
            .iter()
            .filter_map(|i| match i {
                syn::FnArg::Typed(t) => match &*t.pat {
                    syn::Pat::Ident(p) => {
                        Some((p.ident.to_string(), super::byte_span(p.ident.span())))
                    }
                    _ => None,
                },
                syn::FnArg::Receiver(_) => None,
            })
            .collect();
        let named = names_idempotency(&name)
            || self.owner.as_deref().is_some_and(names_idempotency)
            || params.iter().any(|(p, _)| names_idempotency(p));
        // The body's identifiers (a copy of its tokens) only for a key
        // builder: most functions are not one.
        let body = if named {
            let mut body = Vec::new();
            idents_of(quote::ToTokens::to_token_stream(block), &mut body);
            body
        } else {
            Vec::new()
        };
        let key_used = named
            && params.iter().any(|(p, _)| {
                let l = p.to_ascii_lowercase();
                (l == "key" || l.ends_with("_key") || names_idempotency(&l))
                    && !is_caller_name(&l)
                    && uses(&body, p)
            });
        if named && key_used {
            for (p, span) in &params {
                if is_caller_name(p) && !uses(&body, p) {
                    self.out.push(DroppedCaller {
                        span: *span,
                        name: p.clone(),
                        function: name.clone(),
                        function_span: fn_span,
                        how: "a parameter".into(),
                        used: false,
                    });
                }
            }
        }
        self.dropped_header_reads(&name, fn_span, block);
    }

    /// `let auth = headers.get("Authorization")…;` never used again, in a
    /// function that reads the idempotency header.
    fn dropped_header_reads(&mut self, name: &str, fn_span: Span, block: &syn::Block) {
        let mut reads = HeaderReads {
            consts: self.consts,
            idempotency: false,
            caller: None,
        };
        reads.visit_block(block);
        if !reads.idempotency {
            return;
        }
        let stmts = &block.stmts;
        for (i, s) in stmts.iter().enumerate() {
            let syn::Stmt::Local(l) = s else { continue };
            let Some(init) = &l.init else { continue };
            let mut r = HeaderReads {
                consts: self.consts,
                idempotency: false,
                caller: None,
            };
            r.visit_expr(&init.expr);
            let Some(header) = r.caller else { continue };
            let syn::Pat::Ident(p) = strip_type(&l.pat) else {
                continue;
            };
            let binding = p.ident.to_string();
            if binding.starts_with('_') {
                continue;
            }
            let mut later = Vec::new();
            for s in &stmts[i + 1..] {
                idents_of(quote::ToTokens::to_token_stream(s), &mut later);
            }
            if !uses(&later, &binding) {
                self.out.push(DroppedCaller {
                    span: super::byte_span(p.ident.span()),
                    name: binding,
                    function: name.to_string(),
                    function_span: fn_span,
                    how: format!("read from the `{header}` header"),
                    used: false,
                });
            }
        }
    }
}

fn strip_type(p: &syn::Pat) -> &syn::Pat {
    match p {
        syn::Pat::Type(t) => strip_type(&t.pat),
        other => other,
    }
}

/// Reads of the idempotency header and of a caller's header in an
/// expression.
struct HeaderReads<'a> {
    consts: &'a StrConsts,
    idempotency: bool,
    caller: Option<String>,
}

impl<'ast> Visit<'ast> for HeaderReads<'_> {
    fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
        let method = m.method.to_string();
        if matches!(
            method.as_str(),
            "get" | "header" | "get_header" | "get_all" | "get_one"
        ) {
            if let Some(a) = m.args.first() {
                if super::flow::idempotency_header_name(self.consts, a).is_some() {
                    self.idempotency = true;
                } else if let Some(h) = header_literal(a).filter(|h| is_caller_header(h)) {
                    self.caller.get_or_insert(h);
                }
            }
        }
        visit::visit_expr_method_call(self, m);
    }
}

/// A header name written as a literal or a `http::header` constant.
fn header_literal(e: &syn::Expr) -> Option<String> {
    match e {
        syn::Expr::Reference(r) => header_literal(&r.expr),
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(s),
            ..
        }) => Some(s.value()),
        syn::Expr::Path(p) => {
            let last = p.path.segments.last()?.ident.to_string();
            (last == "AUTHORIZATION").then(|| "Authorization".to_string())
        }
        _ => None,
    }
}

impl<'ast> Visit<'ast> for Visitor<'_> {
    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        self.function(&f.sig, &f.block);
        visit::visit_item_fn(self, f);
    }

    fn visit_item_impl(&mut self, i: &'ast syn::ItemImpl) {
        let saved = self.owner.take();
        if let syn::Type::Path(p) = &*i.self_ty {
            self.owner = p.path.segments.last().map(|s| s.ident.to_string());
        }
        visit::visit_item_impl(self, i);
        self.owner = saved;
    }

    fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
        self.function(&f.sig, &f.block);
        visit::visit_impl_item_fn(self, f);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dropped(src: &str) -> Vec<(String, String)> {
        let file = syn::parse_file(src).unwrap();
        let consts = StrConsts::new();
        let mut v = Visitor::new(&consts);
        v.visit_file(&file);
        v.out.into_iter().map(|d| (d.name, d.how)).collect()
    }

    #[test]
    fn a_key_builder_that_ignores_its_caller() {
        let d = dropped(
            "impl IdempotencyKey { fn new(tenant_id: &str, key: &str) -> Self { IdempotencyKey(format!(\"{key}\")) } }",
        );
        assert_eq!(
            d,
            vec![("tenant_id".to_string(), "a parameter".to_string())]
        );
        assert!(dropped(
            "impl IdempotencyKey { fn new(tenant_id: &str, key: &str) -> Self { IdempotencyKey(format!(\"{tenant_id}:{key}\")) } }"
        )
        .is_empty());
        assert!(dropped(
            "impl IdempotencyKey { fn new(_tenant_id: &str, key: &str) -> Self { IdempotencyKey(key.into()) } }"
        )
        .is_empty());
    }

    #[test]
    fn an_authorization_read_and_dropped() {
        let src = "fn key_of(h: &HeaderMap) -> Option<String> {
            let key = h.get(\"Idempotency-Key\")?.to_str().ok()?;
            let who = h.get(\"Authorization\")?.to_str().ok()?;
            Some(format!(\"idem:{}\", key))
        }";
        assert_eq!(dropped(src).len(), 1);
        assert!(dropped(&src.replace(
            "format!(\"idem:{}\", key)",
            "format!(\"idem:{}:{}\", who, key)"
        ))
        .is_empty());
    }
}
