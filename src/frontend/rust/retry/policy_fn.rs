//! Retry policies a project defines itself: a function or method that is
//! given the attempt number and decides whether to retry and after what
//! delay (`fn test(&self, .., retry_count: u32) -> Outcome`, a `match` whose
//! arms return `Continue(Some(Duration::from_secs(2u64.pow(x))))` while a
//! guard `x < *n` holds), and the loops that call it with their counter.
//! The model joins the two across files and crates and folds the schedule.

use super::{
    find_sleep, has_item_loop, increments, loop_bound, mentions, method_str, path_segs,
    retry_counter, BoundSense, Walker,
};
use crate::facts::retention::ConstExpr;
use crate::facts::retry::{ArmBound, Policy, PolicyArm, PolicyFn, PolicyKind, Setting};
use crate::frontend::rust::flow::root_name;
use crate::source::Span;
use syn::visit::{self, Visit};

/// A delay that grows with the counter `c`: `Duration::from_secs(b.pow(c))`,
/// `from_millis(a * b.pow(c))`, `b.pow(c) * a`, `1 << c`: (unit, a, b).
pub(super) fn power_delay(e: &syn::Expr, c: &str) -> Option<(u64, syn::Expr, u64)> {
    let syn::Expr::Call(call) = e else {
        return None;
    };
    let segs = path_segs(&call.func);
    let unit = match segs.last()?.as_str() {
        "from_millis" => 1,
        "from_secs" => 1000,
        "from_mins" => 60_000,
        "from_hours" => 3_600_000,
        _ => return None,
    };
    let arg = call.args.first()?;
    let (a, b) = power_of(arg, c)?;
    Some((unit, a, b))
}

/// `u32`, `usize`, `i64` …: an attempt count's type.
fn is_integer_type(t: &syn::Type) -> bool {
    match t {
        syn::Type::Path(p) => p.path.get_ident().is_some_and(|i| {
            matches!(
                i.to_string().as_str(),
                "u8" | "u16" | "u32" | "u64" | "usize" | "i8" | "i16" | "i32" | "i64" | "isize"
            )
        }),
        _ => false,
    }
}

fn int_lit(e: &syn::Expr) -> Option<u64> {
    match e {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(i),
            ..
        }) => i.base10_parse().ok(),
        syn::Expr::Paren(p) => int_lit(&p.expr),
        _ => None,
    }
}

/// `b.pow(c)` (a = 1), `a * b.pow(c)`, `b.pow(c) * a`, `1 << c`.
fn power_of(e: &syn::Expr, c: &str) -> Option<(syn::Expr, u64)> {
    let one: syn::Expr = syn::parse_quote!(1);
    match e {
        syn::Expr::Paren(p) => power_of(&p.expr, c),
        syn::Expr::Cast(x) => power_of(&x.expr, c),
        syn::Expr::MethodCall(m)
            if matches!(
                method_str(m).as_str(),
                "pow" | "saturating_pow" | "checked_pow"
            ) && m.args.first().is_some_and(|a| mentions(a, c)) =>
        {
            Some((one, int_lit(&m.receiver)?))
        }
        syn::Expr::Binary(b) if matches!(b.op, syn::BinOp::Shl(_)) && mentions(&b.right, c) => {
            (int_lit(&b.left)? == 1).then_some((one, 2))
        }
        syn::Expr::Binary(b) if matches!(b.op, syn::BinOp::Mul(_)) => {
            if mentions(&b.right, c) && !mentions(&b.left, c) {
                let (a, k) = power_of(&b.right, c)?;
                (int_lit(&a) == Some(1)).then(|| ((*b.left).clone(), k))
            } else if mentions(&b.left, c) && !mentions(&b.right, c) {
                let (a, k) = power_of(&b.left, c)?;
                (int_lit(&a) == Some(1)).then(|| ((*b.right).clone(), k))
            } else {
                None
            }
        }
        _ => None,
    }
}

/// The delay an arm's value holds: a power delay of the counter written in
/// it, or a call `f(c)` of a delay function of the file (by name).
type Delay = Result<(u64, syn::Expr, u64), String>;

fn arm_delay(e: &syn::Expr, c: &str) -> Option<(Span, Delay)> {
    struct D<'c> {
        c: &'c str,
        found: Option<(Span, Delay)>,
    }
    impl<'ast> Visit<'ast> for D<'_> {
        fn visit_expr_call(&mut self, call: &'ast syn::ExprCall) {
            if self.found.is_some() {
                return;
            }
            let e = syn::Expr::Call(call.clone());
            if let Some(d) = power_delay(&e, self.c) {
                self.found = Some((crate::frontend::rust::span::of(call), Ok(d)));
                return;
            }
            let segs = path_segs(&call.func);
            // `calculate_backoff(x)`, not `Some(x)` or `Continue(..)`.
            let plain = segs.len() == 1 && segs[0].starts_with(|c: char| c.is_ascii_lowercase());
            if plain && call.args.len() == 1 && mentions(&call.args[0], self.c) {
                self.found = Some((crate::frontend::rust::span::of(call), Err(segs[0].clone())));
                return;
            }
            visit::visit_expr_call(self, call);
        }
        fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
    }
    let mut d = D { c, found: None };
    d.visit_expr(e);
    d.found
}

/// What a `match` arm's pattern binds at position `i` of a tuple, or
/// itself when the scrutinee is the counter alone.
fn bound_at(p: &syn::Pat, i: Option<usize>) -> Option<&syn::Pat> {
    match (p, i) {
        (syn::Pat::Tuple(t), Some(i)) => t.elems.iter().nth(i),
        (p, None) => Some(p),
        _ => None,
    }
}

/// The name of the variant an arm's pattern matches (`ExponentialBackoff`
/// in `(ExponentialBackoff(n), x)`), with its pattern as written.
fn variant_of(p: &syn::Pat) -> Option<String> {
    struct V(Option<String>);
    impl<'ast> Visit<'ast> for V {
        fn visit_pat_tuple_struct(&mut self, t: &'ast syn::PatTupleStruct) {
            if self.0.is_none() {
                self.0 = t.path.segments.last().map(|s| s.ident.to_string());
            }
        }
    }
    let mut v = V(None);
    v.visit_pat(p);
    v.0
}

/// The names a pattern binds (`n` in `ExponentialBackoff(n)`).
fn pat_binds(p: &syn::Pat) -> Vec<String> {
    struct B(Vec<String>);
    impl<'ast> Visit<'ast> for B {
        fn visit_pat_ident(&mut self, i: &'ast syn::PatIdent) {
            self.0.push(i.ident.to_string());
            visit::visit_pat_ident(self, i);
        }
    }
    let mut b = B(Vec::new());
    b.visit_pat(p);
    b.0
}

impl Walker<'_> {
    /// A function whose parameter counts attempts and whose body returns a
    /// delay that grows with it: a retry policy of the project.
    pub(super) fn policy_fn(&mut self, name: &syn::Ident, sig: &syn::Signature, body: &syn::Block) {
        let counter = sig.inputs.iter().find_map(|a| match a {
            syn::FnArg::Typed(t) => match &*t.pat {
                syn::Pat::Ident(i)
                    if retry_counter(&i.ident.to_string()) && is_integer_type(&t.ty) =>
                {
                    Some(i.ident.to_string())
                }
                _ => None,
            },
            syn::FnArg::Receiver(_) => None,
        });
        // A delay function of one integer (`fn backoff(n: u32) -> Duration`):
        // kept for the policies that call it.
        if let ([syn::FnArg::Typed(t)], Some(tail)) = (
            sig.inputs.iter().collect::<Vec<_>>().as_slice(),
            super::fn_tail(body),
        ) {
            if let syn::Pat::Ident(i) = &*t.pat {
                if let Some((unit, a, b)) = power_delay(tail, &i.ident.to_string()) {
                    let a = self.expr(&a);
                    self.delay_fns.insert(name.to_string(), (unit, a, b));
                }
            }
        }
        let Some(counter) = counter else { return };
        struct M<'e>(Vec<&'e syn::ExprMatch>);
        impl<'e> Visit<'e> for M<'e> {
            fn visit_expr_match(&mut self, m: &'e syn::ExprMatch) {
                self.0.push(m);
                visit::visit_expr_match(self, m);
            }
            fn visit_expr_closure(&mut self, _: &'e syn::ExprClosure) {}
        }
        let mut ms = M(Vec::new());
        ms.visit_block(body);
        for m in ms.0 {
            // Where the counter sits in the scrutinee: alone, or in a tuple.
            let pos = match &*m.expr {
                syn::Expr::Path(p) if p.path.is_ident(&counter) => None,
                syn::Expr::Tuple(t) => match t
                    .elems
                    .iter()
                    .position(|e| matches!(e, syn::Expr::Path(p) if p.path.is_ident(&counter)))
                {
                    Some(i) => Some(i),
                    None => continue,
                },
                _ => continue,
            };
            // The policy decides: some arm stops (returns no delay).
            let stops = m
                .arms
                .iter()
                .any(|a| arm_delay(&a.body, &counter).is_none());
            for a in &m.arms {
                let alias = match bound_at(&a.pat, pos) {
                    Some(syn::Pat::Ident(i)) => i.ident.to_string(),
                    Some(syn::Pat::Wild(_)) => continue,
                    _ => continue,
                };
                let Some((delay, d)) = arm_delay(&a.body, &alias) else {
                    continue;
                };
                let bound = match &a.guard {
                    None if stops => ArmBound::None,
                    None => continue,
                    Some((_, g)) => {
                        let Some((limit, plus_one, span)) =
                            loop_bound(g, &alias, BoundSense::Continue)
                        else {
                            continue;
                        };
                        let root = match limit {
                            syn::Expr::Unary(u) => root_name(&u.expr),
                            e => root_name(e),
                        };
                        if root.is_some_and(|r| pat_binds(&a.pat).contains(&r)) {
                            let v = variant_of(&a.pat).unwrap_or_else(|| "the value".into());
                            ArmBound::Caller(v)
                        } else {
                            let mut expr = self.expr(limit);
                            if plus_one {
                                expr = ConstExpr::Add(Box::new(expr), Box::new(ConstExpr::Int(1)));
                            }
                            ArmBound::Attempts(Setting::Written {
                                expr,
                                span,
                                unit_ms: None,
                            })
                        }
                    }
                };
                let d = d.map(|(unit, a, b)| (unit, self.expr(&a), b));
                self.pending_arms.push((name.to_string(), delay, d, bound));
            }
        }
        let owner = self.impl_of.as_ref().map(|(_, t)| t.clone());
        self.pending_fns.push((name.to_string(), owner));
    }

    /// The arms read, with their delay functions resolved now that the
    /// whole file is read (`calculate_backoff` may come after `test`).
    pub(super) fn finish_policy_fns(&mut self) {
        let arms = std::mem::take(&mut self.pending_arms);
        for (fname, owner) in std::mem::take(&mut self.pending_fns) {
            let mut out = Vec::new();
            for (_, delay, d, bound) in arms.iter().filter(|a| a.0 == fname) {
                let d = match d {
                    Ok(d) => d.clone(),
                    Err(callee) => match self.delay_fns.get(callee) {
                        Some(d) => d.clone(),
                        None => continue,
                    },
                };
                let (unit, a, b) = d;
                let first = Setting::Written {
                    expr: ConstExpr::Mul(Box::new(a), Box::new(ConstExpr::Int(b))),
                    span: *delay,
                    unit_ms: Some(unit),
                };
                out.push(PolicyArm {
                    delay: *delay,
                    first,
                    ratio: b,
                    bound: bound.clone(),
                });
            }
            if !out.is_empty() {
                self.out.policy_fns.push(PolicyFn {
                    name: fname,
                    owner,
                    arms: out,
                });
            }
        }
    }

    /// A loop that sleeps and passes its attempt counter to a method
    /// (`strategy.test(status, tries)`), which may be a policy of the
    /// project: the model resolves it. The request it resends may be built
    /// before the loop, its key made once.
    pub(super) fn policy_call_loop(&mut self, kw: Span, body: &syn::Block, what: &str) {
        if find_sleep(body).is_none() || has_item_loop(body) {
            return;
        }
        let Some(f) = &self.cur else { return };
        let counters: Vec<String> = increments(body)
            .into_iter()
            .filter(|c| retry_counter(c) && f.lets.contains_key(c))
            .collect();
        if counters.is_empty() {
            return;
        }
        struct C<'s> {
            counters: &'s [String],
            found: Vec<(String, String)>,
        }
        impl<'ast> Visit<'ast> for C<'_> {
            fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
                if m.args
                    .iter()
                    .any(|a| self.counters.iter().any(|c| mentions(a, c)))
                {
                    if let Some(r) = root_name(&m.receiver) {
                        self.found.push((method_str(m), r));
                    }
                }
                visit::visit_expr_method_call(self, m);
            }
            fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
        }
        let mut c = C {
            counters: &counters,
            found: Vec::new(),
        };
        c.visit_block(body);
        if c.found.is_empty() {
            return;
        }
        let calls: Vec<(String, Option<String>)> = c
            .found
            .into_iter()
            .map(|(m, r)| {
                let ty = f.param_types.get(&r).cloned();
                (m, ty)
            })
            .collect();
        let policy = Policy {
            span: kw,
            krate: "loop",
            kind: PolicyKind::Project(calls),
        };
        let fresh = super::block_has_generator(body);
        self.site(
            kw,
            what.into(),
            crate::frontend::rust::span::of(body),
            None,
            policy,
            fresh,
        );
        if let Some(s) = self.out.sites.last_mut() {
            s.before = Some(Span::new(0, kw.start));
        }
    }
}
