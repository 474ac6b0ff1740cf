//! Rust front end on syn (full AST, real spans). Extraction is split into
//! visitors that each read one kind of fact; this module parses once, guards
//! the stack and hands the tree to them.

use super::{FileFacts, Problem, StrLit, StrRole, MAX_NESTING};
use crate::source::Span;
use syn::visit::{self, Visit};

/// Facts specific to Rust files, beyond the shared string literals.
#[derive(Debug, Default, Clone)]
pub struct RustFacts {
    /// `const`/`static` items whose value is a string literal.
    pub str_consts: Vec<StrConst>,
    /// Identifiers passed where a header name is read or written
    /// (`headers().get(REPLAYED)`), resolved against constants in the model.
    pub ident_args: Vec<(String, StrRole)>,
    /// Duration constants and retentions (`rust_retention`).
    pub retention: super::rust_retention::RetentionFacts,
}

#[derive(Debug, Clone)]
pub struct StrConst {
    pub name: String,
    /// Index into `FileFacts::strings` of the literal.
    pub string: usize,
}

pub fn parse(text: &str, facts: &mut FileFacts) {
    facts.hints.talks_to_stripe = crate::knowledge::headers().talks_to_stripe(text);
    let depth = super::max_bracket_depth(text);
    if depth > MAX_NESTING {
        facts.problems.push(Problem::new(
            Span::new(0, 0),
            format!("brackets nested {depth} deep (over {MAX_NESTING}); not parsed"),
        ));
        return;
    }
    let file = match syn::parse_file(text) {
        Ok(f) => f,
        Err(e) => {
            let span = byte_span(e.span());
            facts
                .problems
                .push(Problem::new(span, format!("invalid Rust: {e}")));
            return;
        }
    };
    let mut v = StringVisitor {
        facts,
        rust: RustFacts::default(),
        role: None,
    };
    v.visit_file(&file);
    let mut rust = v.rust;
    rust.retention = super::rust_retention::extract(&file, facts);
    facts.rust = Some(rust);
    super::rust_redis_config::collect(&file, facts);
}

/// Byte range of a proc-macro2 span (span-locations is enabled).
pub fn byte_span(span: proc_macro2::Span) -> Span {
    let r = span.byte_range();
    Span::new(r.start, r.end)
}

struct StringVisitor<'a> {
    facts: &'a mut FileFacts,
    rust: RustFacts,
    /// Role of the argument being visited, if it is a header read/write position.
    role: Option<StrRole>,
}

impl StringVisitor<'_> {
    fn push_lit(&mut self, lit: &syn::LitStr, role: StrRole) -> usize {
        let value = lit.value();
        let full = byte_span(lit.span());
        // Inside the quotes when the literal is a plain "..." string.
        let span = if full.len() >= 2 + value.len() && full.len() == value.len() + 2 {
            Span::new(full.start + 1, full.end - 1)
        } else {
            full
        };
        self.facts.strings.push(StrLit { value, span, role });
        self.facts.strings.len() - 1
    }

    fn visit_args_with_role(
        &mut self,
        args: &syn::punctuated::Punctuated<syn::Expr, syn::Token![,]>,
        role: StrRole,
    ) {
        for (i, arg) in args.iter().enumerate() {
            let r = if i == 0 { Some(role) } else { None };
            let saved = std::mem::replace(&mut self.role, r);
            if let (Some(role), syn::Expr::Path(p)) = (r, arg) {
                if let Some(id) = p.path.segments.last() {
                    self.rust.ident_args.push((id.ident.to_string(), role));
                }
            }
            self.visit_expr(arg);
            self.role = saved;
        }
    }
}

/// The role a method call gives its first argument, when it looks up or
/// sets a header.
/// Generic map methods (`get`, `insert`) count only on a receiver that
/// speaks of headers, so `json.get("idempotency_key")` is not a header read.
fn method_role(method: &str, argc: usize, receiver_is_headers: bool) -> Option<StrRole> {
    match method {
        "get" | "get_all" | "contains_key" if receiver_is_headers => Some(StrRole::Read),
        "insert" | "append" if receiver_is_headers => Some(StrRole::Write),
        "get_header" | "typed_get" => Some(StrRole::Read),
        "insert_header" | "append_header" | "set_header" | "add_header" => Some(StrRole::Write),
        "header" if argc >= 2 => Some(StrRole::Write),
        "header" if argc == 1 => Some(StrRole::Read),
        _ => None,
    }
}

fn mentions_headers(e: &syn::Expr) -> bool {
    use quote::ToTokens;
    e.to_token_stream()
        .to_string()
        .to_ascii_lowercase()
        .contains("header")
}

impl<'ast> Visit<'ast> for StringVisitor<'_> {
    fn visit_expr_method_call(&mut self, call: &'ast syn::ExprMethodCall) {
        let method = call.method.to_string();
        self.visit_expr(&call.receiver);
        let headers = matches!(
            method.as_str(),
            "get" | "get_all" | "contains_key" | "insert" | "append"
        ) && mentions_headers(&call.receiver);
        match method_role(&method, call.args.len(), headers) {
            Some(role) => self.visit_args_with_role(&call.args, role),
            None => {
                let saved = self.role.take();
                for a in &call.args {
                    self.visit_expr(a);
                }
                self.role = saved;
            }
        }
    }

    fn visit_item_const(&mut self, item: &'ast syn::ItemConst) {
        if let syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(s),
            ..
        }) = &*item.expr
        {
            let idx = self.push_lit(s, StrRole::Mention);
            self.rust.str_consts.push(StrConst {
                name: item.ident.to_string(),
                string: idx,
            });
            return;
        }
        visit::visit_item_const(self, item);
    }

    fn visit_item_static(&mut self, item: &'ast syn::ItemStatic) {
        if let syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(s),
            ..
        }) = &*item.expr
        {
            let idx = self.push_lit(s, StrRole::Mention);
            self.rust.str_consts.push(StrConst {
                name: item.ident.to_string(),
                string: idx,
            });
            return;
        }
        visit::visit_item_static(self, item);
    }

    fn visit_lit_str(&mut self, lit: &'ast syn::LitStr) {
        let role = self.role.unwrap_or(StrRole::Mention);
        self.push_lit(lit, role);
    }

    fn visit_expr(&mut self, e: &'ast syn::Expr) {
        // Only a literal directly in the argument position carries the role;
        // `get(&format!(..))` or `get(x.as_str())` do not pass it deeper.
        match e {
            syn::Expr::Lit(_)
            | syn::Expr::Reference(_)
            | syn::Expr::Paren(_)
            | syn::Expr::Group(_) => visit::visit_expr(self, e),
            _ => {
                let saved = self.role.take();
                visit::visit_expr(self, e);
                self.role = saved;
            }
        }
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        // Literals inside macro calls (`json!`, `format!`, `vec!`) are tokens,
        // not expressions: read them as mentions.
        for tt in mac.tokens.clone() {
            visit_tokens(self, tt);
        }
    }
}

fn visit_tokens(v: &mut StringVisitor<'_>, tt: proc_macro2::TokenTree) {
    match tt {
        proc_macro2::TokenTree::Literal(l) => {
            if let Ok(syn::Lit::Str(s)) =
                syn::parse2::<syn::Lit>(proc_macro2::TokenTree::Literal(l).into())
            {
                v.push_lit(&s, StrRole::Mention);
            }
        }
        proc_macro2::TokenTree::Group(g) => {
            for t in g.stream() {
                visit_tokens(v, t);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts(text: &str) -> FileFacts {
        let mut f = FileFacts::default();
        parse(text, &mut f);
        f
    }

    #[test]
    fn header_lookups_are_reads_and_builders_are_writes() {
        let text = r#"
const REPLAYED: &str = "Idempotency-Replayed";
fn f(resp: &Response, b: Builder) {
    let a = resp.headers().get("Idempotent-Replayed");
    let b = b.header("Idempotency-Key", key);
    let c = resp.headers().get(REPLAYED);
}
"#;
        let f = facts(text);
        let role = |v: &str| f.strings.iter().find(|s| s.value == v).map(|s| s.role);
        assert_eq!(role("Idempotent-Replayed"), Some(StrRole::Read));
        assert_eq!(role("Idempotency-Key"), Some(StrRole::Write));
        assert_eq!(role("Idempotency-Replayed"), Some(StrRole::Mention));
        let rust = f.rust.unwrap();
        assert_eq!(rust.str_consts[0].name, "REPLAYED");
        assert_eq!(
            rust.ident_args,
            vec![("REPLAYED".to_string(), StrRole::Read)]
        );
        let s = f
            .strings
            .iter()
            .find(|s| s.value == "Idempotent-Replayed")
            .unwrap();
        assert_eq!(&text[s.span.start..s.span.end], "Idempotent-Replayed");
    }

    #[test]
    fn deep_nesting_is_reported_not_parsed() {
        let text = format!(
            "fn f() {{ let x = {}1{}; }}",
            "(".repeat(50_000),
            ")".repeat(50_000)
        );
        let f = facts(&text);
        assert_eq!(f.problems.len(), 1);
    }
}
