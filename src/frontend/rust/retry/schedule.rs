//! Retry schedules a project writes itself rather than takes from a retry
//! crate: a list of delays built with `std::iter::successors(..).take(n)`
//! that a loop draws from (`retries.next()`) between attempts, a count that
//! a settings struct defaults (`num_retries: opts.num_retries.unwrap_or(2)`),
//! and the API hosts a client crate names. No arithmetic here: the model
//! folds the schedule with the crate's constants.

use super::{find_sleep, has_item_loop, mentions, method_str, path_segs, retry_counter, Walker};
use crate::facts::retention::ConstExpr;
use crate::facts::retry::{FieldDefault, Policy, PolicyKind, Ratio, Shape};
use crate::frontend::rust::flow::root_name;
use crate::frontend::rust::retention::read_expr;
use crate::source::Span;
use std::collections::{HashMap, HashSet};
use syn::visit::{self, Visit};

/// The expression inside `Some(..)`, or the expression itself.
fn unwrap_some(e: &syn::Expr) -> &syn::Expr {
    match e {
        syn::Expr::Call(c)
            if c.args.len() == 1 && path_segs(&c.func).last().is_some_and(|s| s == "Some") =>
        {
            &c.args[0]
        }
        syn::Expr::Paren(p) => unwrap_some(&p.expr),
        syn::Expr::Block(b) if b.block.stmts.len() == 1 => match &b.block.stmts[0] {
            syn::Stmt::Expr(e, None) => unwrap_some(e),
            _ => e,
        },
        _ => e,
    }
}

/// `*last * 2`, `2 * last`, `last.saturating_mul(2)`: the integer factor
/// a step multiplies the previous delay by.
fn growth_factor(e: &syn::Expr, prev: &str) -> Option<u64> {
    let int = |x: &syn::Expr| match x {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(i),
            ..
        }) => i.base10_parse::<u64>().ok(),
        _ => None,
    };
    match e {
        syn::Expr::Paren(p) => growth_factor(&p.expr, prev),
        syn::Expr::Binary(b) if matches!(b.op, syn::BinOp::Mul(_)) => {
            if mentions(&b.left, prev) {
                int(&b.right)
            } else if mentions(&b.right, prev) {
                int(&b.left)
            } else {
                None
            }
        }
        syn::Expr::MethodCall(m)
            if matches!(
                method_str(m).as_str(),
                "saturating_mul" | "mul" | "checked_mul"
            ) && mentions(&m.receiver, prev) =>
        {
            m.args.first().and_then(int)
        }
        _ => None,
    }
}

impl Walker<'_> {
    /// `successors(Some(first), |d| Some(MAX.min(*d * k))).take(n)`: `n`
    /// delays from `first`, × `k` each time, none above `MAX`.
    fn successors_take(&self, take: &syn::ExprMethodCall) -> Option<Policy> {
        if method_str(take) != "take" {
            return None;
        }
        let n = take.args.first()?;
        let syn::Expr::Call(c) = &*take.receiver else {
            return None;
        };
        if path_segs(&c.func).last().is_none_or(|s| s != "successors") || c.args.len() != 2 {
            return None;
        }
        let first = unwrap_some(&c.args[0]);
        let syn::Expr::Closure(step) = &c.args[1] else {
            return None;
        };
        let prev = step.inputs.first().and_then(|p| match p {
            syn::Pat::Ident(i) => Some(i.ident.to_string()),
            syn::Pat::Type(t) => match &*t.pat {
                syn::Pat::Ident(i) => Some(i.ident.to_string()),
                _ => None,
            },
            _ => None,
        })?;
        let next = unwrap_some(&step.body);
        // `MAX.min(grow)` or `grow.min(MAX)`
        let (grow, max) = match next {
            syn::Expr::MethodCall(m) if method_str(m) == "min" && m.args.len() == 1 => {
                if mentions(&m.receiver, &prev) {
                    (&*m.receiver, Some(&m.args[0]))
                } else {
                    (&m.args[0], Some(&*m.receiver))
                }
            }
            other => (other, None),
        };
        let k = growth_factor(grow, &prev)?;
        let max = match max {
            Some(m) if mentions(m, &prev) => return None,
            Some(m) => Some(self.setting(m, None)),
            None => None,
        };
        Some(Policy {
            span: super::super::span::of(take),
            krate: "loop",
            kind: PolicyKind::Series {
                shape: Shape::Geometric,
                first: self.setting(first, None),
                ratio: Ratio::Int(ConstExpr::Int(k), super::super::span::of(grow)),
                max,
                times: Some(self.setting(n, None)),
                cap: None,
            },
        })
    }

    /// The schedule a `let` binds: a `successors(..).take(n)` written in
    /// its value (an arm of a `match` that chooses the default schedule
    /// counts), or `.iter()` over a binding that holds one.
    pub(super) fn schedule_of(&self, e: &syn::Expr) -> Option<Policy> {
        if let syn::Expr::MethodCall(m) = e {
            if matches!(method_str(m).as_str(), "iter" | "into_iter") {
                if let Some(n) = root_name(&m.receiver) {
                    if let Some(p) = self.cur.as_ref().and_then(|f| f.schedules.get(&n)) {
                        return Some(p.clone());
                    }
                }
            }
        }
        struct Find<'w, 'a> {
            w: &'w Walker<'a>,
            found: Option<Policy>,
        }
        impl<'ast> Visit<'ast> for Find<'_, '_> {
            fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
                if self.found.is_none() {
                    self.found = self.w.successors_take(m);
                }
                visit::visit_expr_method_call(self, m);
            }
            fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
        }
        let mut f = Find {
            w: self,
            found: None,
        };
        f.visit_expr(e);
        f.found
    }

    /// A loop that sleeps between attempts for the next delay of a
    /// schedule (`let d = retries.next()`, then `sleep(d)`): it stops when
    /// the schedule runs out. The request it resends may be built, and its
    /// key set, before the loop: those count, made once for every attempt.
    pub(super) fn schedule_loop(&mut self, kw: Span, body: &syn::Block, what: &str) {
        if find_sleep(body).is_none() || has_item_loop(body) {
            return;
        }
        let Some(f) = &self.cur else { return };
        if f.schedules.is_empty() {
            return;
        }
        struct Next<'s> {
            names: &'s HashMap<String, Policy>,
            found: Option<String>,
        }
        impl<'ast> Visit<'ast> for Next<'_> {
            fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
                if self.found.is_none() && method_str(m) == "next" {
                    if let Some(n) = root_name(&m.receiver).filter(|n| self.names.contains_key(n)) {
                        self.found = Some(n);
                    }
                }
                visit::visit_expr_method_call(self, m);
            }
            fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
        }
        let mut next = Next {
            names: &f.schedules,
            found: None,
        };
        next.visit_block(body);
        let Some(policy) = next.found.and_then(|n| f.schedules.get(&n).cloned()) else {
            return;
        };
        let fresh = super::block_has_generator(body);
        let before = Span::new(0, kw.start);
        self.site(
            kw,
            what.into(),
            super::super::span::of(body),
            None,
            policy,
            fresh,
        );
        if let Some(s) = self.out.sites.last_mut() {
            s.before = Some(before);
        }
    }

    /// A struct literal's field named for a retry count: its default.
    pub(super) fn field_default(&mut self, fv: &syn::FieldValue) {
        let syn::Member::Named(n) = &fv.member else {
            return;
        };
        let field = n.to_string();
        if !retry_counter(&field) {
            return;
        }
        let (lets, params) = match &self.cur {
            Some(f) => (f.lets.clone(), f.params.clone()),
            None => (HashMap::new(), HashSet::new()),
        };
        let read = |e: &syn::Expr| {
            Some(read_expr(e, &lets, &params)).filter(|x| !matches!(x, ConstExpr::Unknown))
        };
        let value = match &fv.expr {
            // `other.cfg.num_retries`: the same field handed on.
            syn::Expr::Field(f) if matches!(&f.member, syn::Member::Named(m) if *m == field) => {
                return;
            }
            // `num_retries: None`: an option left for the code to default.
            syn::Expr::Path(p) if p.path.is_ident("None") => return,
            syn::Expr::MethodCall(m) if method_str(m) == "unwrap_or" => {
                m.args.first().and_then(&read)
            }
            syn::Expr::Lit(_) => read(&fv.expr),
            _ => None,
        };
        self.out.field_defaults.push(FieldDefault {
            field,
            value,
            span: super::super::span::of(&fv.expr),
        });
    }

    /// An absolute URL's host (`https://api.example.com/v1` →
    /// `api.example.com`), kept once per file.
    pub(super) fn url_host(&mut self, s: &str) {
        let Some(rest) = s
            .strip_prefix("https://")
            .or_else(|| s.strip_prefix("http://"))
        else {
            return;
        };
        let host = rest.split(['/', ':', '?', '{']).next().unwrap_or("");
        if host.contains('.') && !self.out.hosts.iter().any(|h| h == host) {
            self.out.hosts.push(host.to_ascii_lowercase());
        }
    }
}
