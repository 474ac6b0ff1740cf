//! Replay guards for tokens: the record of a used token id (`jti`, RFC 7519
//! section 4.1.7) is what stops a token being exchanged twice, so it must
//! live as long as the token is accepted: until its `exp`, plus the leeway
//! its decoder grants past `exp`. Two forms written in ordinary code keep it
//! shorter, and both are read here where a used-token record is built:
//!
//! - the record's expiry is the token's `exp` itself
//!   (`NewUsedJti::new(jti, claims.exp)`) while the project validates with a
//!   leeway (`validation.leeway = 60`): for that long after the record is
//!   purged, the same token is still accepted;
//! - the record's expiry is counted from now (`Utc::now() + LEEWAY`), not
//!   from the token's `exp`: a token valid longer than that can be replayed
//!   once the record is purged.
//!
//! A used-token record is a call or a struct literal whose type is named
//! for a `jti` (`NewUsedJti::new(..)`, `UsedJti { .. }`); a leeway is a
//! `leeway` field set in an assignment or a struct literal.

use crate::facts::tokens::{ExpiryForm, Leeway, TokenExpiry, TokenFacts};
use crate::source::Span;
use syn::visit::{self, Visit};

/// Words without which a file holds neither form nor a leeway: every one
/// names a `jti` type or a `leeway` field. The prefilter admits a Rust file
/// that holds one (late: the rule judges them only in a package that
/// holds a store or a keyed request); a test holds `rules/prefilter.toml`
/// to this list.
pub const WORDS: &[&str] = &["jti", "leeway"];

/// Whether a file may hold either form or a leeway ([`WORDS`]).
pub fn may_hold(text: &str) -> bool {
    WORDS
        .iter()
        .any(|w| crate::knowledge::contains_ignore_ascii_case(text, w))
}

/// Whether a file may hold what the visitor records, word by word: a name
/// with the word `jti` (a used-token record's type) or a `leeway` field.
/// Narrower than [`may_hold`], which finds `jti` inside `ADJTIME` too.
pub fn may_record(text: &str) -> bool {
    may_hold(text)
        && text
            .split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .any(|w| w == "leeway" || names_a_jti(w))
}

#[derive(Default)]
pub struct Visitor {
    pub out: TokenFacts,
}

/// Whether a type's name is a token id's (`NewUsedJti`, `JtiRecord`).
fn names_a_jti(ty: &str) -> bool {
    crate::knowledge::name_words(ty).iter().any(|w| w == "jti")
}

/// Whether an expression adds or subtracts anything.
fn has_arithmetic(e: &syn::Expr) -> bool {
    struct Arith(bool);
    impl<'ast> Visit<'ast> for Arith {
        fn visit_expr_binary(&mut self, b: &'ast syn::ExprBinary) {
            if matches!(
                b.op,
                syn::BinOp::Add(_) | syn::BinOp::Sub(_) | syn::BinOp::Mul(_)
            ) {
                self.0 = true;
            }
            visit::visit_expr_binary(self, b);
        }
        fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
            // `exp.checked_add_signed(leeway)`, `exp + leeway` as a method.
            let name = m.method.to_string();
            if name.contains("add") || name.contains("sub") {
                self.0 = true;
            }
            visit::visit_expr_method_call(self, m);
        }
    }
    let mut a = Arith(false);
    a.visit_expr(e);
    a.0
}

/// How an expiry expression is written, if it is one of the two forms.
fn form(e: &syn::Expr) -> Option<ExpiryForm> {
    let ids = super::units::idents(e);
    let reads_exp = ids.iter().any(|i| i == "exp" || i.ends_with("_exp"));
    let reads_now = ids.iter().any(|i| i == "now" || i == "now_utc");
    if reads_exp && !reads_now && !has_arithmetic(e) {
        Some(ExpiryForm::TokenExp)
    } else if reads_now && !reads_exp && has_arithmetic(e) {
        Some(ExpiryForm::FromNow)
    } else {
        None
    }
}

/// The type a constructor call builds (`NewUsedJti::new` → `NewUsedJti`).
fn constructed_type(func: &syn::Expr) -> Option<String> {
    let syn::Expr::Path(p) = func else {
        return None;
    };
    let segs = super::path_idents(&p.path);
    match segs.as_slice() {
        [.., ty, _ctor] => Some(ty.clone()),
        [ty] if ty.starts_with(|c: char| c.is_ascii_uppercase()) => Some(ty.clone()),
        _ => None,
    }
}

/// Whether a struct field holds a record's expiry by its name.
fn expiry_field(name: &str) -> bool {
    let l = name.to_ascii_lowercase();
    l.contains("expir") || l.contains("valid_until") || l == "exp"
}

impl Visitor {
    fn expiry(&mut self, e: &syn::Expr, record: &str) {
        if let Some(form) = form(e) {
            self.out.expiries.push(TokenExpiry {
                span: super::span::of(e),
                form,
                record: record.to_string(),
            });
        }
    }

    fn leeway(&mut self, value: &syn::Expr, span: Span) {
        let zero = matches!(value, syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Int(i), .. }) if i.base10_digits() == "0");
        self.out.leeways.push(Leeway { span, zero });
    }
}

impl<'ast> Visit<'ast> for Visitor {
    fn visit_expr_call(&mut self, c: &'ast syn::ExprCall) {
        if let Some(ty) = constructed_type(&c.func).filter(|t| names_a_jti(t)) {
            for a in &c.args {
                self.expiry(a, &ty);
            }
        }
        visit::visit_expr_call(self, c);
    }

    fn visit_expr_struct(&mut self, s: &'ast syn::ExprStruct) {
        let ty = s.path.segments.last().map(|x| x.ident.to_string());
        for f in &s.fields {
            let syn::Member::Named(n) = &f.member else {
                continue;
            };
            let name = n.to_string();
            if name == "leeway" {
                self.leeway(&f.expr, super::span::of(f));
            } else if let Some(ty) = ty.as_deref().filter(|t| names_a_jti(t)) {
                if expiry_field(&name) {
                    self.expiry(&f.expr, ty);
                }
            }
        }
        visit::visit_expr_struct(self, s);
    }

    fn visit_expr_assign(&mut self, a: &'ast syn::ExprAssign) {
        if let syn::Expr::Field(f) = &*a.left {
            if matches!(&f.member, syn::Member::Named(n) if n == "leeway") {
                self.leeway(&a.right, super::span::of(a));
            }
        }
        visit::visit_expr_assign(self, a);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts(text: &str) -> TokenFacts {
        let file = syn::parse_file(text).expect("test source parses");
        let mut v = Visitor::default();
        v.visit_file(&file);
        v.out
    }

    #[test]
    fn a_record_kept_until_the_bare_exp_or_from_now() {
        let f = facts(
            "fn a(jti: &str, exp: DateTime<Utc>) { NewUsedJti::new(jti, exp); }\n\
             fn b(jti: &str, claims: &Claims) { let r = UsedJti { jti, expires_at: claims.exp }; }\n\
             fn c(jti: &str) { NewUsedJti::new(jti, Utc::now() + LEEWAY); }\n",
        );
        let forms: Vec<_> = f.expiries.iter().map(|e| e.form).collect();
        assert_eq!(
            forms,
            vec![
                ExpiryForm::TokenExp,
                ExpiryForm::TokenExp,
                ExpiryForm::FromNow
            ]
        );
        assert!(f.expiries.iter().all(|e| e.record.contains("Jti")));
    }

    #[test]
    fn exp_plus_leeway_and_other_types_are_not_read() {
        let f = facts(
            "fn a(jti: &str, exp: DateTime<Utc>) { NewUsedJti::new(jti, exp + LEEWAY); }\n\
             fn b(exp: DateTime<Utc>) { NewSession::new(exp); Token { expires_at: exp }; }\n\
             fn c(jti: &str, exp: DateTime<Utc>) { NewUsedJti::new(jti, exp.checked_add_signed(LEEWAY)); }\n",
        );
        assert!(f.expiries.is_empty(), "{:?}", f.expiries);
    }

    #[test]
    fn leeways_set_by_assignment_or_literal() {
        let f = facts(
            "fn v() { let mut v = Validation::new(A); v.leeway = LEEWAY.num_seconds() as u64; }\n\
             fn w() { Validation { leeway: 0, ..Default::default() }; }\n",
        );
        let zero: Vec<bool> = f.leeways.iter().map(|l| l.zero).collect();
        assert_eq!(zero, vec![false, true]);
    }
}
