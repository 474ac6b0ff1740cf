//! Retries in Rust, as written: where a request is retried (a retry
//! wrapper's closure, a range loop that sleeps, a job a queue re-runs, a
//! client with a retry middleware), the policy that bounds it (its settings
//! as unfolded expressions, or the crate default it leaves in place), and
//! the requests that carry an idempotency key with their URL and where the
//! key is made. No arithmetic here: constants may live in other files, so
//! spans are computed in `model::retries`. Which wrappers retry and which
//! generators make a fresh key are `flow`'s recognisers, reused.

use super::flow::{self, chain_methods, is_closure, pat_names, path_of, root_name};
use super::retention::read_expr;
use super::sql_strings::StrConsts;
use super::str_lit;
use crate::facts::retention::ConstExpr;
use crate::knowledge::{self, CallShape};
use crate::source::Span;
use std::collections::{HashMap, HashSet};
use syn::visit::{self, Visit};

mod policy_fn;
mod schedule;
use crate::facts::retry::{
    default_ref, ArmBound, FreshKind, FreshSend, KeyedRequest, Maker, Minter, Policy, PolicyKind,
    Ratio, RetryClient, RetryFacts, RetrySite, Setting, Shape,
};

/// What the walk needs of the whole file before it starts: the first
/// segments of the `use` items, and the string literals that mention
/// attempts or retries. Read item by item.
#[derive(Default)]
pub(super) struct FirstPass {
    roots: HashSet<String>,
    sql_strings: Vec<String>,
}

struct RetryLiterals<'s>(&'s mut Vec<String>);

impl<'ast> Visit<'ast> for RetryLiterals<'_> {
    fn visit_lit_str(&mut self, l: &'ast syn::LitStr) {
        let v = l.value();
        let lower = v.to_ascii_lowercase();
        if lower.contains("attempt") || lower.contains("retr") {
            self.0.push(v);
        }
    }
}

impl FirstPass {
    pub(super) fn read(&mut self, piece: &super::Piece) {
        if let super::Piece::Item(syn::Item::Use(u)) = piece {
            use_roots(&u.tree, &mut self.roots);
        }
        piece.visit(&mut RetryLiterals(&mut self.sql_strings));
    }
}

impl<'a> Walker<'a> {
    pub(super) fn new(consts: &'a StrConsts, first: FirstPass) -> Self {
        Walker {
            consts,
            sql_strings: first.sql_strings,
            roots: first.roots,
            out: RetryFacts::default(),
            cur: None,
            jobs_read: HashSet::new(),
            impl_of: None,
            delay_fns: HashMap::new(),
            pending_arms: Vec::new(),
            pending_fns: Vec::new(),
            header_consts: HashMap::new(),
        }
    }

    pub(super) fn finish(mut self) -> RetryFacts {
        self.finish_policy_fns();
        self.out
    }
}

fn use_roots(t: &syn::UseTree, out: &mut HashSet<String>) {
    match t {
        syn::UseTree::Path(p) => {
            out.insert(p.ident.to_string());
        }
        syn::UseTree::Name(n) => {
            out.insert(n.ident.to_string());
        }
        syn::UseTree::Rename(r) => {
            out.insert(r.ident.to_string());
        }
        syn::UseTree::Group(g) => g.items.iter().for_each(|t| use_roots(t, out)),
        syn::UseTree::Glob(_) => {}
    }
}

/// What the walker knows about the function it is in.
#[derive(Default)]
struct FnState {
    name: Span,
    params: HashSet<String>,
    /// Integer and duration `let` values.
    lets: HashMap<String, ConstExpr>,
    /// `let` bindings: span and whether the value is made fresh.
    bindings: HashMap<String, (Span, bool)>,
    /// Policies bound to a name.
    policies: HashMap<String, Policy>,
    /// Schedules of delays bound to a name (`let retries = schedule.iter()`).
    schedules: HashMap<String, Policy>,
    /// Parameters' type names (`strategy: RequestStrategy`).
    param_types: HashMap<String, String>,
    /// URLs bound to a name.
    urls: HashMap<String, (String, Vec<String>)>,
    name_text: String,
    /// String literals that may be SQL: text and span.
    strings: Vec<(String, Span)>,
}

pub(super) struct Walker<'a> {
    consts: &'a StrConsts,
    /// The file's string literals that mention attempts or retries: where a
    /// job table's bound (`attempts < 5`) may be written.
    sql_strings: Vec<String>,
    /// First segments of the file's `use` items (`backoff`, `backon`).
    roots: HashSet<String>,
    out: RetryFacts,
    cur: Option<FnState>,
    /// Where the underway `Job::builder()` chains already read start.
    jobs_read: HashSet<usize>,
    /// The `impl` being read: its trait's last name and its type's.
    impl_of: Option<(Option<String>, String)>,
    /// Delay functions of one integer (`fn backoff(n: u32) -> Duration`):
    /// unit, factor and base of `unit × a × b^n`.
    delay_fns: HashMap<String, (u64, ConstExpr, u64)>,
    /// Arms of policy functions whose delay may call a delay function
    /// defined later in the file: the function's name, the delay, the
    /// delay or the callee's name, the bound.
    #[allow(clippy::type_complexity)]
    pending_arms: Vec<(
        String,
        Span,
        Result<(u64, ConstExpr, u64), String>,
        ArmBound,
    )>,
    pending_fns: Vec<(String, Option<String>)>,
    /// Constants whose value names an idempotency header, through a
    /// constructor (`const H: HeaderName = HeaderName::from_static("idempotency-key")`),
    /// at the top level or in a function.
    header_consts: HashMap<String, String>,
}

/// The last name of a type, through references (`&RequestStrategy`).
fn type_last(t: &syn::Type) -> Option<String> {
    match t {
        syn::Type::Reference(r) => type_last(&r.elem),
        syn::Type::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
        _ => None,
    }
}

fn path_segs(e: &syn::Expr) -> Vec<String> {
    match e {
        syn::Expr::Path(p) => super::path_idents(&p.path),
        _ => Vec::new(),
    }
}

/// Whether an expression contains a fresh-key generator.
fn has_generator(e: &syn::Expr) -> bool {
    struct G(bool);
    impl<'ast> Visit<'ast> for G {
        fn visit_expr_call(&mut self, c: &'ast syn::ExprCall) {
            self.0 |= flow::generator_call(c).is_some();
            visit::visit_expr_call(self, c);
        }
        fn visit_macro(&mut self, m: &'ast syn::Macro) {
            self.0 |= flow::generator_macro(m).is_some();
            if let Ok(args) = m.parse_body_with(
                syn::punctuated::Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated,
            ) {
                args.iter().for_each(|a| self.visit_expr(a));
            }
        }
    }
    let mut g = G(false);
    g.visit_expr(e);
    g.0
}

fn block_has_generator(b: &syn::Block) -> bool {
    let e = syn::Expr::Block(syn::ExprBlock {
        attrs: Vec::new(),
        label: None,
        block: b.clone(),
    });
    has_generator(&e)
}

/// A float or integer literal.
fn float_lit(e: &syn::Expr) -> Option<f64> {
    match e {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Float(f),
            ..
        }) => f.base10_parse().ok(),
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(i),
            ..
        }) => i.base10_parse::<u64>().ok().map(|n| n as f64),
        syn::Expr::Paren(p) => float_lit(&p.expr),
        _ => None,
    }
}

/// The argument of `Some(x)`; `None` for `None`.
enum Opt<'e> {
    Some(&'e syn::Expr),
    None,
    Other,
}

fn option_arg(e: &syn::Expr) -> Opt<'_> {
    match e {
        syn::Expr::Call(c) if path_segs(&c.func).last().is_some_and(|s| s == "Some") => {
            c.args.first().map_or(Opt::Other, Opt::Some)
        }
        syn::Expr::Path(p) if p.path.is_ident("None") => Opt::None,
        syn::Expr::Paren(p) => option_arg(&p.expr),
        _ => Opt::Other,
    }
}

impl Walker<'_> {
    fn uses(&self, root: &str) -> bool {
        self.roots.contains(root)
    }

    fn setting(&self, e: &syn::Expr, unit_ms: Option<u64>) -> Setting {
        let (lets, params) = match &self.cur {
            Some(f) => (f.lets.clone(), f.params.clone()),
            None => (HashMap::new(), HashSet::new()),
        };
        Setting::Written {
            expr: read_expr(e, &lets, &params),
            span: super::span::of(e),
            unit_ms,
        }
    }

    /// A policy expression: a binding to one, or a builder chain.
    fn policy(&self, e: &syn::Expr) -> Option<Policy> {
        match e {
            syn::Expr::Reference(r) => return self.policy(&r.expr),
            syn::Expr::Paren(p) => return self.policy(&p.expr),
            syn::Expr::Path(p) if p.path.segments.len() == 1 => {
                let n = p.path.segments[0].ident.to_string();
                return self.cur.as_ref()?.policies.get(&n).cloned();
            }
            syn::Expr::MethodCall(m) if m.method == "clone" => return self.policy(&m.receiver),
            syn::Expr::Try(t) => return self.policy(&t.expr),
            _ => {}
        }
        let span = super::span::of(e);
        if let syn::Expr::Struct(s) = e {
            return self.backoff_struct(s, span);
        }
        // The chain from its root call outward.
        let (root, methods) = match e {
            syn::Expr::MethodCall(m) => {
                let ms = chain_methods(m);
                (flow::root_of(e), ms)
            }
            other => (other, Vec::new()),
        };
        let syn::Expr::Call(c) = root else {
            return None;
        };
        let segs = path_segs(&c.func);
        let n = segs.len();
        let (ty, ctor) = match n {
            0 | 1 => return None,
            _ => (segs[n - 2].as_str(), segs[n - 1].as_str()),
        };
        let calls: Vec<Call<'_>> = methods
            .iter()
            .map(|m| {
                let at = Span::new(
                    super::byte_span(m.method.span()).start,
                    super::span::of(*m).end,
                );
                (method_str(m), m.args.iter().collect(), at)
            })
            .collect();
        let kind = match (ty, ctor) {
            ("ExponentialBackoff", "default")
            | ("ExponentialBackoffBuilder", "new" | "default")
                if self.uses("backoff") || segs.iter().any(|s| s == "backoff") =>
            {
                self.backoff_builder(&calls)
            }
            ("ExponentialBuilder" | "ConstantBuilder" | "FibonacciBuilder", "default" | "new")
                if self.uses("backon") || segs.iter().any(|s| s == "backon") =>
            {
                return Some(Policy {
                    span,
                    krate: "backon",
                    kind: self.backon(ty, &calls),
                });
            }
            // underway: `let p = RetryPolicy::builder()….build()`, given to a
            // job step's `.retry_policy(p)`.
            (t, "builder" | "default")
                if t.ends_with("RetryPolicy")
                    && (self.uses("underway") || segs.iter().any(|s| s == "underway")) =>
            {
                return Some(Policy {
                    span,
                    krate: "underway",
                    kind: self.underway_policy(Some(e), span),
                });
            }
            ("ExponentialBackoff", "builder") => {
                return Some(Policy {
                    span,
                    krate: "reqwest-retry",
                    kind: self.retry_policies(&calls)?,
                })
            }
            (
                "ExponentialBackoff"
                | "FixedInterval"
                | "FibonacciBackoff"
                | "ExponentialFactorBackoff",
                "from_millis" | "new",
            ) if ["tokio_retry", "tokio_retry2"]
                .iter()
                .any(|r| self.uses(r) || segs.iter().any(|s| s == r)) =>
            {
                return Some(Policy {
                    span,
                    krate: "tokio-retry",
                    kind: self.tokio_retry(ty, ctor, c, &calls),
                });
            }
            // tower (re-exported by apalis): `ExponentialBackoffMaker::new(min,
            // max, jitter, rng)?.make_backoff()`. No limit of its own: the
            // retry policy it is given to sets the count.
            ("ExponentialBackoffMaker", "new") if c.args.len() == 4 => {
                let kind = if calls
                    .iter()
                    .all(|(m, _, _)| matches!(m.as_str(), "unwrap" | "expect" | "make_backoff"))
                {
                    PolicyKind::Series {
                        shape: Shape::Geometric,
                        first: self.setting(&c.args[0], None),
                        ratio: Ratio::Default("backoff.factor"),
                        max: Some(self.setting(&c.args[1], None)),
                        times: None,
                        cap: None,
                    }
                } else {
                    PolicyKind::Unknown
                };
                return Some(Policy {
                    span,
                    krate: "tower",
                    kind,
                });
            }
            _ => return None,
        };
        Some(Policy {
            span,
            krate: "backoff",
            kind,
        })
    }

    /// apalis: `RetryPolicy::retries(n)` (or `::default()`), with
    /// `.with_backoff(b)` where `b` is a tower backoff the reader knows.
    /// Without a backoff apalis retries at once.
    fn apalis_policy(&self, e: &syn::Expr) -> Option<Policy> {
        let span = super::span::of(e);
        let (syn::Expr::MethodCall(_) | syn::Expr::Call(_)) = e else {
            return None;
        };
        let methods = match e {
            syn::Expr::MethodCall(m) => chain_methods(m),
            _ => Vec::new(),
        };
        let syn::Expr::Call(c) = flow::root_of(e) else {
            return None;
        };
        let segs = path_segs(&c.func);
        let times = match segs.iter().rev().take(2).collect::<Vec<_>>()[..] {
            [ctor, ty] if ty == "RetryPolicy" && ctor == "retries" => {
                self.setting(c.args.first()?, None)
            }
            [ctor, ty] if ty == "RetryPolicy" && ctor == "default" => Setting::Default("retries"),
            _ => return None,
        };
        let mut kind = PolicyKind::Series {
            shape: Shape::Geometric,
            first: Setting::Default("delay"),
            ratio: Ratio::Float(1.0, Span::new(0, 0)),
            max: None,
            times: Some(times.clone()),
            cap: None,
        };
        for m in methods {
            match method_str(m).as_str() {
                "with_backoff" => {
                    kind = match m.args.first().and_then(|b| self.policy(b)) {
                        Some(Policy {
                            krate: "tower",
                            kind:
                                PolicyKind::Series {
                                    shape,
                                    first,
                                    ratio,
                                    max,
                                    times: None,
                                    cap,
                                },
                            ..
                        }) => PolicyKind::Series {
                            shape,
                            first,
                            ratio,
                            max,
                            times: Some(times.clone()),
                            cap,
                        },
                        _ => PolicyKind::Unknown,
                    }
                }
                // A predicate only stops retries sooner.
                "retry_if" => {}
                // Per-task metadata may set another count: not read.
                _ => kind = PolicyKind::Unknown,
            }
        }
        Some(Policy {
            span,
            krate: "apalis",
            kind,
        })
    }

    /// `ExponentialBackoff { max_elapsed_time: Some(..), ..Default::default() }`
    fn backoff_struct(&self, s: &syn::ExprStruct, span: Span) -> Option<Policy> {
        let segs = super::path_idents(&s.path);
        if segs.last().map(String::as_str) != Some("ExponentialBackoff")
            || !(self.uses("backoff") || segs.iter().any(|s| s == "backoff"))
        {
            return None;
        }
        let field = s.fields.iter().find(|f| match &f.member {
            syn::Member::Named(n) => n == "max_elapsed_time",
            syn::Member::Unnamed(_) => false,
        });
        let kind = match field.map(|f| option_arg(&f.expr)) {
            None => PolicyKind::Total(Setting::Default("max_elapsed_time")),
            Some(Opt::Some(d)) => PolicyKind::Total(self.setting(d, None)),
            Some(Opt::None) => PolicyKind::Unbounded(
                "`max_elapsed_time: None`".into(),
                field.map(|f| super::span::of(&f.expr)),
            ),
            Some(Opt::Other) => PolicyKind::Unknown,
        };
        // A struct literal without `..` names every field: no default.
        if field.is_none() && s.rest.is_none() {
            return None;
        }
        Some(Policy {
            span,
            krate: "backoff",
            kind,
        })
    }

    fn backoff_builder(&self, calls: &[Call<'_>]) -> PolicyKind {
        let mut kind = PolicyKind::Total(Setting::Default("max_elapsed_time"));
        for (m, args, _) in calls {
            if m == "with_max_elapsed_time" {
                kind = match args.first().map(|a| option_arg(a)) {
                    Some(Opt::Some(d)) => PolicyKind::Total(self.setting(d, None)),
                    Some(Opt::None) => PolicyKind::Unbounded(
                        "`with_max_elapsed_time(None)`".into(),
                        args.first().map(|a| super::span::of(*a)),
                    ),
                    _ => PolicyKind::Unknown,
                };
            }
        }
        kind
    }

    fn backon(&self, ty: &str, calls: &[Call<'_>]) -> PolicyKind {
        let (pre, shape) = match ty {
            "ConstantBuilder" => ("constant", None),
            "FibonacciBuilder" => ("fibonacci", Some(Shape::Fibonacci)),
            _ => ("exponential", Some(Shape::Geometric)),
        };
        let d = |s: &'static str| Setting::Default(s);
        let (mut first, mut max, mut times, mut ratio) = match pre {
            "constant" => (
                d("constant.delay"),
                None,
                Some(d("constant.max_times")),
                None,
            ),
            "fibonacci" => (
                d("fibonacci.min_delay"),
                Some(d("fibonacci.max_delay")),
                Some(d("fibonacci.max_times")),
                None,
            ),
            _ => (
                d("exponential.min_delay"),
                Some(d("exponential.max_delay")),
                Some(d("exponential.max_times")),
                Some(Ratio::Default("exponential.factor")),
            ),
        };
        let mut cap = None;
        let mut unbounded_at = None;
        for (m, args, at) in calls {
            let a = args.first().copied();
            match (m.as_str(), a) {
                ("with_delay" | "with_min_delay", Some(a)) => first = self.setting(a, None),
                ("with_max_delay", Some(a)) => max = Some(self.setting(a, None)),
                ("without_max_delay", _) => max = None,
                ("with_max_times", Some(a)) => {
                    times = Some(self.setting(a, None));
                    unbounded_at = None;
                }
                ("without_max_times", _) => {
                    times = None;
                    unbounded_at = Some(*at);
                }
                ("with_factor", Some(a)) => {
                    ratio = Some(match float_lit(a) {
                        Some(f) => Ratio::Float(f, super::span::of(a)),
                        None => return PolicyKind::Unknown,
                    })
                }
                ("with_total_delay", Some(a)) => match option_arg(a) {
                    Opt::Some(t) => cap = Some(self.setting(t, None)),
                    Opt::None => cap = None,
                    Opt::Other => return PolicyKind::Unknown,
                },
                _ => {}
            }
        }
        if times.is_none() && cap.is_none() {
            return PolicyKind::Unbounded("`without_max_times()`".into(), unbounded_at);
        }
        PolicyKind::Series {
            shape: shape.unwrap_or(Shape::Geometric),
            first,
            ratio: ratio.unwrap_or(Ratio::Float(1.0, Span::new(0, 0))),
            max,
            times,
            cap,
        }
    }

    /// reqwest-retry (retry-policies): `ExponentialBackoff::builder()
    /// .retry_bounds(min, max).base(b).build_with_max_retries(n)` or
    /// `.build_with_total_retry_duration(d)`.
    fn retry_policies(&self, calls: &[Call<'_>]) -> Option<PolicyKind> {
        let mut first = Setting::Default("min_retry_interval");
        let mut max = Setting::Default("max_retry_interval");
        let mut ratio = Ratio::Default("base");
        for (m, args, _) in calls {
            match (m.as_str(), args.as_slice()) {
                ("retry_bounds", [lo, hi]) => {
                    first = self.setting(lo, None);
                    max = self.setting(hi, None);
                }
                ("base", [b]) => ratio = Ratio::Int(self.expr(b), super::span::of(*b)),
                ("build_with_max_retries", [n]) => {
                    return Some(PolicyKind::Series {
                        shape: Shape::Geometric,
                        first,
                        ratio,
                        max: Some(max),
                        times: Some(self.setting(n, None)),
                        cap: None,
                    })
                }
                (
                    "build_with_total_retry_duration"
                    | "build_with_total_retry_duration_and_max_retries",
                    [d, ..],
                ) => return Some(PolicyKind::Total(self.setting(d, None))),
                _ => {}
            }
        }
        None
    }

    fn expr(&self, e: &syn::Expr) -> ConstExpr {
        match self.setting(e, None) {
            Setting::Written { expr, .. } => expr,
            Setting::Default(_) => ConstExpr::Unknown,
        }
    }

    /// tokio-retry: the n-th delay of `ExponentialBackoff::from_millis(b)` is
    /// b^n × factor ms; `FixedInterval::from_millis(ms)`; `.take(n)` bounds it.
    /// tokio-retry2 adds `ExponentialFactorBackoff::from_millis(ms, f)` (ms,
    /// then × f each time) and `.max_interval(ms)` / `.max_duration(d)`,
    /// which stop the strategy once that long has passed: a cap.
    fn tokio_retry(
        &self,
        ty: &str,
        ctor: &str,
        c: &syn::ExprCall,
        calls: &[Call<'_>],
    ) -> PolicyKind {
        let Some(arg) = c.args.first() else {
            return PolicyKind::Unknown;
        };
        let unit = if ctor == "from_millis" { Some(1) } else { None };
        let mut base = self.setting(arg, unit);
        let mut factor: Option<(ConstExpr, Span)> = None;
        let mut max = None;
        let mut times = None;
        let mut cap = None;
        for (m, args, _) in calls {
            let a = args.first().copied();
            match (m.as_str(), a) {
                ("factor", Some(a)) if ty != "ExponentialFactorBackoff" => {
                    factor = Some((self.expr(a), super::span::of(a)))
                }
                ("initial_delay", Some(a)) if ty == "ExponentialFactorBackoff" => {
                    base = self.setting(a, Some(1))
                }
                ("max_delay", Some(a)) => max = Some(self.setting(a, None)),
                ("max_delay_millis", Some(a)) => max = Some(self.setting(a, Some(1))),
                ("take", Some(a)) => times = Some(self.setting(a, None)),
                ("max_interval", Some(a)) => cap = Some(self.setting(a, Some(1))),
                ("max_duration", Some(a)) => cap = Some(self.setting(a, None)),
                ("map", _) => {}
                _ => return PolicyKind::Unknown,
            }
        }
        if times.is_none() && cap.is_none() {
            return PolicyKind::Unbounded("a strategy with no `.take(n)`".into(), None);
        }
        let (first, ratio, shape) = match ty {
            "FixedInterval" => (base, Ratio::Float(1.0, Span::new(0, 0)), Shape::Geometric),
            "ExponentialFactorBackoff" => match c.args.get(1) {
                Some(f) => match float_lit(f) {
                    Some(r) => (base, Ratio::Float(r, super::span::of(f)), Shape::Geometric),
                    None => return PolicyKind::Unknown,
                },
                None => return PolicyKind::Unknown,
            },
            _ => {
                let Setting::Written { expr, span, .. } = base else {
                    return PolicyKind::Unknown;
                };
                // first delay = base × factor ms (factor defaults to 1)
                let f = factor
                    .map(|(e, _)| e)
                    .unwrap_or_else(|| ConstExpr::Ref(default_ref("tokio-retry", "factor")));
                let first = Setting::Written {
                    expr: ConstExpr::Mul(Box::new(expr.clone()), Box::new(f)),
                    span,
                    unit_ms: Some(1),
                };
                let shape = if ty == "FibonacciBackoff" {
                    Shape::Fibonacci
                } else {
                    Shape::Geometric
                };
                let ratio = if shape == Shape::Fibonacci {
                    Ratio::Float(1.0, Span::new(0, 0))
                } else {
                    Ratio::Int(expr, span)
                };
                (first, ratio, shape)
            }
        };
        PolicyKind::Series {
            shape,
            first,
            ratio,
            max,
            times,
            cap,
        }
    }

    /// A URL expression's text and the names in it.
    fn url(&self, e: &syn::Expr) -> Option<(String, Vec<String>)> {
        match e {
            syn::Expr::Reference(r) => self.url(&r.expr),
            syn::Expr::Paren(p) => self.url(&p.expr),
            syn::Expr::MethodCall(m)
                if matches!(
                    method_str(m).as_str(),
                    "as_str" | "clone" | "to_string" | "as_ref"
                ) =>
            {
                self.url(&m.receiver)
            }
            syn::Expr::Lit(_) => str_lit(e).map(|s| (s, Vec::new())),
            syn::Expr::Path(p) => {
                let n = p.path.segments.last()?.ident.to_string();
                if let Some(v) = self.consts.get(&n) {
                    return Some((v.text.clone(), vec![n]));
                }
                if p.path.segments.len() == 1 {
                    if let Some(u) = self.cur.as_ref().and_then(|f| f.urls.get(&n)) {
                        return Some(u.clone());
                    }
                }
                Some(("{}".into(), vec![n]))
            }
            syn::Expr::Macro(m) if m.mac.path.is_ident("format") => self.format_url(&m.mac),
            _ => None,
        }
    }

    /// `format!("{}/v1/payouts", BASE)`, `format!("{STRIPE_API}/v1/payouts")`.
    fn format_url(&self, mac: &syn::Macro) -> Option<(String, Vec<String>)> {
        let args = mac
            .parse_body_with(
                syn::punctuated::Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated,
            )
            .ok()?;
        let mut it = args.iter();
        let fmt = str_lit(it.next()?)?;
        let rest: Vec<&syn::Expr> = it.collect();
        let mut words = Vec::new();
        let mut out = String::new();
        let mut next = 0;
        let mut chars = fmt.chars().peekable();
        while let Some(ch) = chars.next() {
            if ch == '{' {
                if chars.peek() == Some(&'{') {
                    chars.next();
                    out.push('{');
                    continue;
                }
                let mut name = String::new();
                for c in chars.by_ref() {
                    if c == '}' {
                        break;
                    }
                    name.push(c);
                }
                let name = name.split(':').next().unwrap_or("").trim().to_string();
                let value = if name.is_empty() {
                    let a = rest.get(next).copied();
                    next += 1;
                    a.and_then(|a| self.url(a))
                } else if let Some(v) = self.consts.get(&name) {
                    Some((v.text.clone(), vec![name.clone()]))
                } else {
                    Some(("{}".into(), vec![name.clone()]))
                };
                match value {
                    Some((t, w)) => {
                        out.push_str(&t);
                        words.extend(w);
                    }
                    None => out.push_str("{}"),
                }
            } else if ch == '}' && chars.peek() == Some(&'}') {
                chars.next();
                out.push('}');
            } else {
                out.push(ch);
            }
        }
        Some((out, words))
    }

    /// A header call with an idempotency header name: record the request,
    /// with the builder chain's method and URL.
    fn keyed_header(&mut self, m: &syn::ExprMethodCall) {
        let name = method_str(m);
        let args: Vec<&syn::Expr> = m.args.iter().collect();
        let (header, value) = match (name.as_str(), args.as_slice()) {
            ("header", [n, v]) => match self.header_name(n) {
                Some(h) => (h, *v),
                None => return,
            },
            _ => return,
        };
        let chain = chain_methods(m);
        let mut method = None;
        let mut url = None;
        let mut client = None;
        let mut on_self = false;
        for c in &chain {
            let cm = method_str(c);
            let a: Vec<&syn::Expr> = c.args.iter().collect();
            let verb = match cm.as_str() {
                "post" | "put" | "patch" | "delete" | "get" => Some(cm.to_ascii_uppercase()),
                "request" => a
                    .first()
                    .and_then(|e| path_segs(e).last().cloned())
                    .map(|s| s.to_ascii_uppercase()),
                _ => None,
            };
            if let Some(v) = verb {
                let u = if cm == "request" { a.get(1) } else { a.first() };
                url = u.and_then(|u| self.url(u));
                method = Some(v);
                let p = path_of(&c.receiver);
                on_self = p.first().is_some_and(|s| s == "self") && p.len() > 1;
                client = p.last().cloned();
                break;
            }
        }
        let at = Span::new(
            super::byte_span(m.method.span()).start,
            super::span::of(m).end,
        );
        self.push_request(at, header, value, method, url, None, client);
        if let Some(r) = self.out.requests.last_mut() {
            r.client_on_self = on_self;
        }
    }

    /// A key put into a header map (`header_params.insert("idempotency-key",
    /// key)`, `req.headers_mut().insert(IDEMPOTENCY_KEY, v)`): a request
    /// whose method and URL another function gives.
    fn keyed_insert(&mut self, m: &syn::ExprMethodCall) {
        let [n, v] = m.args.iter().collect::<Vec<_>>()[..] else {
            return;
        };
        let on_headers = match &*m.receiver {
            syn::Expr::MethodCall(r) => method_str(r).contains("header"),
            e => path_of(e)
                .last()
                .is_some_and(|l| l.to_ascii_lowercase().contains("header")),
        };
        if !on_headers {
            return;
        }
        let Some(header) = self.header_name(n) else {
            return;
        };
        let at = Span::new(
            super::byte_span(m.method.span()).start,
            super::span::of(m).end,
        );
        self.push_request(at, header, v, None, None, None, None);
    }

    /// An idempotency header's name as a header call's argument: written,
    /// or a constant of the file or the function that holds it.
    fn header_name(&self, n: &syn::Expr) -> Option<String> {
        flow::idempotency_header_name(self.consts, n).or_else(|| match n {
            syn::Expr::Path(p) if p.path.segments.len() == 1 => self
                .header_consts
                .get(&p.path.segments[0].ident.to_string())
                .cloned(),
            _ => None,
        })
    }

    #[allow(clippy::too_many_arguments)]
    fn push_request(
        &mut self,
        at: Span,
        header: String,
        value: &syn::Expr,
        method: Option<String>,
        url: Option<(String, Vec<String>)>,
        sdk: Option<String>,
        client: Option<String>,
    ) {
        let Some(f) = &self.cur else { return };
        let key_made = root_name(value).and_then(|n| f.bindings.get(&n).copied());
        let (url, mut url_words) = match url {
            Some((u, w)) => (Some(u), w),
            None => (None, Vec::new()),
        };
        url_words.push(f.name_text.clone());
        let req = KeyedRequest {
            function: f.name,
            at,
            header,
            key: super::span::of(value),
            key_fresh_here: has_generator(value),
            key_made,
            method,
            url,
            url_words,
            sdk_counterparty: sdk,
            client,
            client_on_self: false,
        };
        self.out.requests.push(req);
    }

    fn site(
        &mut self,
        at: Span,
        what: String,
        body: Span,
        op_fn: Option<Vec<String>>,
        policy: Policy,
        fresh: bool,
    ) {
        let Some(f) = &self.cur else { return };
        self.out.sites.push(RetrySite {
            function: f.name,
            at,
            what,
            body,
            op_fn,
            policy,
            fresh_inside: fresh,
            before: None,
            target: None,
        });
    }

    /// An SDK strategy that resends one key it makes itself, `n` attempts
    /// with the crate's delays (async-stripe's
    /// `RequestStrategy::ExponentialBackoff(n)`): the call is both the retry
    /// and the keyed request. The span is the delays before attempts 2 … n.
    fn sdk_retry(
        &mut self,
        c: &syn::ExprCall,
        sdk: &'static knowledge::SdkKey,
        krate: &'static str,
        n: &syn::Expr,
    ) {
        let at = super::span::of(c);
        let Setting::Written { expr, span, .. } = self.setting(n, None) else {
            return;
        };
        let times = Setting::Written {
            expr: ConstExpr::Sub(Box::new(expr), Box::new(ConstExpr::Int(1))),
            span,
            unit_ms: None,
        };
        let policy = Policy {
            span: at,
            krate,
            kind: PolicyKind::Series {
                shape: Shape::Geometric,
                first: Setting::Default("exponential_backoff.delay"),
                ratio: Ratio::Default("exponential_backoff.factor"),
                max: None,
                times: Some(times),
                cap: None,
            },
        };
        let (header, cp) = (sdk.header.clone(), sdk.counterparty.clone());
        let what = format!("`{}`", sdk.path.join("::"));
        self.push_request(at, header, n, None, None, Some(cp), None);
        self.site(at, what, at, None, policy, false);
    }

    /// The operation a retry wrapper runs: a closure (its body) or a function.
    fn op(&self, e: &syn::Expr) -> Option<(Span, Option<Vec<String>>, bool)> {
        match e {
            syn::Expr::Closure(c) => {
                Some((super::span::of(&*c.body), None, has_generator(&c.body)))
            }
            syn::Expr::Paren(p) => self.op(&p.expr),
            syn::Expr::Reference(r) => self.op(&r.expr),
            syn::Expr::Path(p) => {
                Some((super::span::of(p), Some(super::path_idents(&p.path)), false))
            }
            _ => None,
        }
    }

    /// A function with a body: walk it with its own state.
    fn function(&mut self, name: &syn::Ident, sig: &syn::Signature, body: &syn::Block) {
        let mut params = HashSet::new();
        let mut param_types = HashMap::new();
        for a in &sig.inputs {
            if let syn::FnArg::Typed(t) = a {
                params.extend(pat_names(&t.pat));
                if let (syn::Pat::Ident(i), Some(ty)) = (&*t.pat, type_last(&t.ty)) {
                    param_types.insert(i.ident.to_string(), ty);
                }
            }
        }
        let saved = self.cur.replace(FnState {
            name: super::byte_span(name.span()),
            params,
            param_types,
            name_text: name.to_string(),
            ..FnState::default()
        });
        self.visit_block(body);
        self.sql_job_table(body);
        self.policy_fn(name, sig, body);
        self.cur = saved;
        self.fresh_keys(name, sig, body);
    }

    /// A job table retried in SQL: `SET attempts = attempts + 1, run_at =
    /// now() + interval '10 minutes'` (or `… * attempts`) in this function,
    /// bounded by `attempts < N` in a statement of the file. The function
    /// re-runs the job with the same arguments on each attempt.
    fn sql_job_table(&mut self, body: &syn::Block) {
        let Some(f) = &self.cur else { return };
        // Most functions hold no such SQL: the patterns are compiled only
        // for one with a string that can bump an attempt counter (a `+`,
        // and the counter's `attempt` or `retr` in any case).
        let bumps = |t: &str| {
            t.contains('+')
                && (crate::knowledge::contains_ignore_ascii_case(t, "attempt")
                    || crate::knowledge::contains_ignore_ascii_case(t, "retr"))
        };
        if !f.strings.iter().any(|(t, _)| bumps(t)) {
            return;
        }
        let re = job_table_res();
        for (text, span) in f.strings.iter().filter(|(t, _)| bumps(t)) {
            let Some(col) = re.bump.captures_iter(text).find_map(|c| {
                let (a, b) = (c.get(1)?.as_str(), c.get(2)?.as_str());
                let l = a.to_ascii_lowercase();
                (a.eq_ignore_ascii_case(b) && (l.contains("attempt") || l.contains("retr")))
                    .then_some(l)
            }) else {
                continue;
            };
            let Some(delay) = re.delay.captures(text) else {
                continue;
            };
            let Some(d) = delay
                .get(1)
                .and_then(|m| crate::duration::parse(m.as_str(), None))
            else {
                continue;
            };
            // A multiplier the pattern did not take (`* (attempts + 1)`).
            let Some(whole) = delay.get(0) else { continue };
            if text[whole.end()..]
                .trim_start()
                .starts_with(['*', '^', '|'])
            {
                continue;
            }
            // The delay's multiplier: none (constant), the column (linear),
            // `power(k, column)` (geometric); anything else is not read.
            let (shape, ratio) = match (delay.get(2), delay.get(3), delay.get(4)) {
                (None, None, None) => (Shape::Geometric, 1.0),
                (Some(k), Some(c), _) if c.as_str().eq_ignore_ascii_case(&col) => {
                    match k.as_str().parse::<f64>() {
                        Ok(k) => (Shape::Geometric, k),
                        Err(_) => continue,
                    }
                }
                (None, None, Some(c)) if c.as_str().eq_ignore_ascii_case(&col) => {
                    (Shape::Linear, 1.0)
                }
                _ => continue,
            };
            let sql_bound = self.sql_strings.iter().find_map(|t| {
                re.bound.captures_iter(t).find_map(|c| {
                    if !c.get(1)?.as_str().eq_ignore_ascii_case(&col) {
                        return None;
                    }
                    let n: u64 = c.get(3)?.as_str().parse().ok()?;
                    Some(if c.get(2)?.as_str() == "<=" { n + 1 } else { n })
                })
            });
            let at = *span;
            // The bound in SQL, else in the Rust of this function
            // (`if job.attempts >= MAX_ATTEMPTS`); none written: how often
            // it retries is not known.
            let (times, times_span) = match sql_bound {
                Some(n) => (ConstExpr::Int(n.saturating_sub(1)), at),
                None => {
                    let Some((limit, plus_one, limit_span)) = column_bound(body, &col) else {
                        continue;
                    };
                    let mut n = self.expr(limit);
                    if plus_one {
                        n = ConstExpr::Add(Box::new(n), Box::new(ConstExpr::Int(1)));
                    }
                    (
                        ConstExpr::Sub(Box::new(n), Box::new(ConstExpr::Int(1))),
                        limit_span,
                    )
                }
            };
            let policy = Policy {
                span: at,
                krate: "sql",
                kind: PolicyKind::Series {
                    shape,
                    first: Setting::Written {
                        expr: ConstExpr::Int(d.secs.saturating_mul(1000)),
                        span: at,
                        unit_ms: Some(1),
                    },
                    ratio: Ratio::Float(ratio, at),
                    max: None,
                    times: Some(Setting::Written {
                        expr: times,
                        span: times_span,
                        unit_ms: None,
                    }),
                    cap: None,
                },
            };
            let fresh = block_has_generator(body);
            self.site(
                at,
                format!("the job table's `{col} = {col} + 1`"),
                super::span::of(body),
                None,
                policy,
                fresh,
            );
            return;
        }
    }

    /// `for _ in 0..N { …; sleep(d) }`: a range loop that sleeps retries.
    fn range_loop(&mut self, e: &syn::ExprForLoop) {
        let syn::Expr::Range(r) = &*e.expr else {
            return;
        };
        let (Some(lo), Some(hi)) = (&r.start, &r.end) else {
            return;
        };
        let Some(sleep) = find_sleep(&e.body) else {
            return;
        };
        let inclusive = matches!(r.limits, syn::RangeLimits::Closed(_));
        let attempts = {
            let hi_e = self.expr(hi);
            let lo_e = self.expr(lo);
            let n = ConstExpr::Sub(Box::new(hi_e), Box::new(lo_e));
            if inclusive {
                ConstExpr::Add(Box::new(n), Box::new(ConstExpr::Int(1)))
            } else {
                n
            }
        };
        // Sleeps between the first attempt and the last: one fewer.
        let times = Setting::Written {
            expr: ConstExpr::Sub(Box::new(attempts), Box::new(ConstExpr::Int(1))),
            span: super::span::of(hi),
            unit_ms: None,
        };
        let policy = self.loop_policy(&sleep, &e.body, times, super::span::of(&*e.expr));
        let body = super::span::of(&e.body);
        let fresh = block_has_generator(&e.body);
        self.site(
            super::byte_span(e.for_token.span),
            "`for` loop".into(),
            body,
            None,
            policy,
            fresh,
        );
    }

    /// `loop { attempt += 1; …; if attempt >= N { break } …; sleep(d) }` or
    /// `while attempt < N { …; attempt += 1; sleep(d) }`: a loop that counts
    /// its passes from a `let` of the function, sleeps, and stops at a
    /// written bound. The sleeps counted are the passes less one, whichever
    /// order the count, the check and the sleep come in: a lower bound.
    fn counted_loop(&mut self, kw: Span, cond: Option<&syn::Expr>, body: &syn::Block, what: &str) {
        let Some(sleep) = find_sleep(body) else {
            return;
        };
        // A loop over a batch inside sends different requests each pass.
        if has_item_loop(body) {
            return;
        }
        let lets = match &self.cur {
            Some(f) => f.lets.clone(),
            None => return,
        };
        let found = increments(body).into_iter().find_map(|c| {
            let init = lets.get(&c)?.clone();
            let bound = cond
                .and_then(|e| loop_bound(e, &c, BoundSense::Continue))
                .or_else(|| exit_bound(body, &c))?;
            Some((c, init, bound))
        });
        let Some((counter, init, (limit, plus_one, limit_span))) = found else {
            return;
        };
        // A sleep that depends on the counter changes every pass: not read.
        if mentions(&sleep, &counter) {
            return;
        }
        let mut passes = self.expr(limit);
        if plus_one {
            passes = ConstExpr::Add(Box::new(passes), Box::new(ConstExpr::Int(1)));
        }
        let passes = ConstExpr::Sub(Box::new(passes), Box::new(init));
        let times = Setting::Written {
            expr: ConstExpr::Sub(Box::new(passes), Box::new(ConstExpr::Int(1))),
            span: limit_span,
            unit_ms: None,
        };
        let policy = self.loop_policy(&sleep, body, times, kw);
        let fresh = block_has_generator(body);
        self.site(kw, what.into(), super::span::of(body), None, policy, fresh);
    }

    /// The delay of a loop's sleep: a constant, or a binding the body
    /// multiplies each pass (`delay *= 2`).
    fn loop_policy(
        &self,
        sleep: &syn::Expr,
        body: &syn::Block,
        times: Setting,
        span: Span,
    ) -> Policy {
        let kind = match sleep {
            syn::Expr::Path(p) if p.path.segments.len() == 1 => {
                let n = p.path.segments[0].ident.to_string();
                let init = self.cur.as_ref().and_then(|f| f.lets.get(&n).cloned());
                match (init, doubling(body, &n)) {
                    (Some(init), Some(k)) => PolicyKind::Series {
                        shape: Shape::Geometric,
                        first: Setting::Written {
                            expr: init,
                            span: super::span::of(sleep),
                            unit_ms: None,
                        },
                        ratio: Ratio::Int(ConstExpr::Int(k), super::span::of(sleep)),
                        max: None,
                        times: Some(times),
                        cap: None,
                    },
                    (Some(init), None) if !assigned(body, &n) => PolicyKind::Series {
                        shape: Shape::Geometric,
                        first: Setting::Written {
                            expr: init,
                            span: super::span::of(sleep),
                            unit_ms: None,
                        },
                        ratio: Ratio::Float(1.0, Span::new(0, 0)),
                        max: None,
                        times: Some(times),
                        cap: None,
                    },
                    _ => PolicyKind::Unknown,
                }
            }
            other => PolicyKind::Series {
                shape: Shape::Geometric,
                first: self.setting(other, None),
                ratio: Ratio::Float(1.0, Span::new(0, 0)),
                max: None,
                times: Some(times),
                cap: None,
            },
        };
        Policy {
            span,
            krate: "loop",
            kind,
        }
    }

    /// fang: `impl AsyncRunnable for Job { async fn run(..) { .. } }`, with
    /// `max_retries` and `backoff` when overridden.
    fn fang_impl(&mut self, i: &syn::ItemImpl) -> bool {
        let Some((_, trait_path, _)) = &i.trait_ else {
            return false;
        };
        let t = trait_path
            .segments
            .last()
            .map(|s| s.ident.to_string())
            .unwrap_or_default();
        if !(t == "AsyncRunnable" || (t == "Runnable" && self.uses("fang"))) {
            return false;
        }
        let mut run = None;
        let mut times = Setting::Default("max_retries");
        let mut shape_known = true;
        let mut first = Setting::Default("backoff.first");
        let mut ratio = Ratio::Default("backoff.factor");
        for item in &i.items {
            let syn::ImplItem::Fn(f) = item else { continue };
            match f.sig.ident.to_string().as_str() {
                "run" => run = Some(f),
                "max_retries" => match fn_tail(&f.block) {
                    Some(e) => times = self.setting(e, None),
                    None => shape_known = false,
                },
                // Seconds before retry `attempt`: a constant, or a power
                // of the attempt (`u32::pow(3, attempt)`); anything else
                // is not read.
                "backoff" => match fn_tail(&f.block).and_then(fang_backoff) {
                    Some((_, Some(base))) => {
                        ratio = Ratio::Float(base, super::span::of(&f.block));
                        first = Setting::Written {
                            expr: ConstExpr::Int(1),
                            span: super::span::of(&f.block),
                            unit_ms: Some(1000),
                        };
                    }
                    Some((k, None)) => {
                        ratio = Ratio::Float(1.0, super::span::of(&f.block));
                        first = Setting::Written {
                            expr: ConstExpr::Int(k),
                            span: super::span::of(&f.block),
                            unit_ms: Some(1000),
                        };
                    }
                    None => shape_known = false,
                },
                _ => {}
            }
        }
        let Some(run) = run else { return false };
        let owner = match &*i.self_ty {
            syn::Type::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
            _ => None,
        }
        .unwrap_or_default();
        let at = super::span::of(trait_path);
        let kind = if shape_known {
            PolicyKind::Series {
                shape: Shape::Geometric,
                first,
                ratio,
                max: None,
                times: Some(times),
                cap: None,
            }
        } else {
            PolicyKind::Unknown
        };
        self.visit_impl_run(run, owner, at, kind);
        true
    }

    /// underway: `impl Task for Job { async fn execute(..) { .. } }`, with
    /// `retry_policy` when overridden (`RetryPolicy::builder()
    /// .max_attempts(n).initial_interval_ms(ms)….build()`).
    fn underway_impl(&mut self, i: &syn::ItemImpl) -> bool {
        let Some((_, trait_path, _)) = &i.trait_ else {
            return false;
        };
        if !(trait_path
            .segments
            .last()
            .is_some_and(|s| s.ident == "Task")
            && (self.uses("underway") || trait_path.segments.iter().any(|s| s.ident == "underway")))
        {
            return false;
        }
        let fns: Vec<&syn::ImplItemFn> = i
            .items
            .iter()
            .filter_map(|it| match it {
                syn::ImplItem::Fn(f) => Some(f),
                _ => None,
            })
            .collect();
        let Some(execute) = fns.iter().find(|f| f.sig.ident == "execute") else {
            return false;
        };
        let at = super::span::of(trait_path);
        let kind = match fns.iter().find(|f| f.sig.ident == "retry_policy") {
            None => self.underway_policy(None, at),
            Some(f) => match fn_tail(&f.block) {
                Some(e) => self.underway_policy(Some(e), super::span::of(e)),
                None => PolicyKind::Unknown,
            },
        };
        let owner = match &*i.self_ty {
            syn::Type::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
            _ => None,
        }
        .unwrap_or_default();
        let saved = self.cur.replace(FnState {
            name: super::byte_span(execute.sig.ident.span()),
            name_text: owner.clone(),
            ..FnState::default()
        });
        self.site(
            at,
            format!("underway task `{owner}::execute`"),
            super::span::of(&execute.block),
            None,
            Policy {
                span: at,
                krate: "underway",
                kind,
            },
            block_has_generator(&execute.block),
        );
        self.cur = saved;
        for f in fns {
            self.visit_impl_item_fn(f);
        }
        true
    }

    /// An underway `RetryPolicy`: the builder chain, `default()`, or the
    /// default when `retry_policy` is not overridden. `max_attempts` counts
    /// the first attempt (a lower bound if it counts retries only).
    fn underway_policy(&self, e: Option<&syn::Expr>, fallback: Span) -> PolicyKind {
        let d = |s: &'static str| Setting::Default(s);
        let mut attempts = ConstExpr::Ref(default_ref("underway", "max_attempts"));
        let mut attempts_span = None;
        let mut first = d("initial_interval");
        let mut max = d("max_interval");
        let mut ratio = Ratio::Default("backoff_coefficient");
        if let Some(e) = e {
            let methods = match e {
                syn::Expr::MethodCall(m) => chain_methods(m),
                _ => Vec::new(),
            };
            let syn::Expr::Call(c) = flow::root_of(e) else {
                return PolicyKind::Unknown;
            };
            // `RetryPolicy::builder()`, also renamed on import
            // (`RetryPolicy as TaskRetryPolicy`).
            let segs = path_segs(&c.func);
            let n = segs.len();
            if n < 2
                || !segs[n - 2].ends_with("RetryPolicy")
                || !matches!(segs[n - 1].as_str(), "builder" | "default")
            {
                return PolicyKind::Unknown;
            }
            for m in methods {
                let a = m.args.first();
                match (method_str(m).as_str(), a) {
                    ("max_attempts", Some(a)) => {
                        attempts = self.expr(a);
                        attempts_span = Some(super::span::of(a));
                    }
                    ("initial_interval_ms", Some(a)) => first = self.setting(a, Some(1)),
                    ("max_interval_ms", Some(a)) => max = self.setting(a, Some(1)),
                    ("backoff_coefficient", Some(a)) => match float_lit(a) {
                        Some(f) => ratio = Ratio::Float(f, super::span::of(a)),
                        None => return PolicyKind::Unknown,
                    },
                    ("build", _) => {}
                    _ => return PolicyKind::Unknown,
                }
            }
        }
        let times = Setting::Written {
            expr: ConstExpr::Sub(Box::new(attempts), Box::new(ConstExpr::Int(1))),
            span: attempts_span.unwrap_or(fallback),
            unit_ms: None,
        };
        PolicyKind::Series {
            shape: Shape::Geometric,
            first,
            ratio,
            max: Some(max),
            times: Some(times),
            cap: None,
        }
    }

    /// underway: `Job::builder().step(f).retry_policy(p).step(g)…`. Each
    /// step is a task that underway re-runs with the step's input; a
    /// `.retry_policy(p)` sets the policy of the step just before it, and a
    /// step without one keeps underway's default.
    fn underway_job(&mut self, m: &syn::ExprMethodCall) {
        // Every method call passes here: look without allocating.
        let syn::Expr::Call(root) = flow::root_of(&m.receiver) else {
            return;
        };
        let syn::Expr::Path(func) = &*root.func else {
            return;
        };
        let segs = &func.path.segments;
        let len = segs.len();
        if len < 2
            || segs[len - 1].ident != "builder"
            || segs[len - 2].ident != "Job"
            || !(self.uses("underway") || segs.iter().any(|s| s.ident == "underway"))
        {
            return;
        }
        // The outermost call of a chain is visited first: read it once.
        if !self.jobs_read.insert(super::span::of(root).start) {
            return;
        }
        let chain = chain_methods(m);
        let mut n = 0;
        for (i, step) in chain.iter().enumerate() {
            if step.method != "step" {
                continue;
            }
            n += 1;
            let Some((body, op_fn, fresh)) = step.args.first().and_then(|f| self.op(f)) else {
                continue;
            };
            let at = super::byte_span(step.method.span());
            let set = chain
                .get(i + 1)
                .filter(|c| c.method == "retry_policy")
                .and_then(|c| c.args.first());
            let policy = match set {
                Some(p) => match self.policy(p) {
                    Some(
                        p @ Policy {
                            krate: "underway", ..
                        },
                    ) => p,
                    _ => Policy {
                        span: super::span::of(p),
                        krate: "underway",
                        kind: PolicyKind::Unknown,
                    },
                },
                None => Policy {
                    span: at,
                    krate: "underway",
                    kind: self.underway_policy(None, at),
                },
            };
            let what = match &op_fn {
                Some(f) => format!("underway job step `{}`", f.join("::")),
                None => format!("underway job step {n}"),
            };
            self.site(at, what, body, op_fn, policy, fresh);
        }
    }

    fn visit_impl_run(&mut self, run: &syn::ImplItemFn, owner: String, at: Span, kind: PolicyKind) {
        let saved = self.cur.replace(FnState {
            name: super::byte_span(run.sig.ident.span()),
            name_text: owner.clone(),
            ..FnState::default()
        });
        self.site(
            at,
            format!("fang job `{owner}::run`"),
            super::span::of(&run.block),
            None,
            Policy {
                span: at,
                krate: "fang",
                kind,
            },
            block_has_generator(&run.block),
        );
        self.cur = saved;
        self.function(&run.sig.ident, &run.sig, &run.block);
    }

    /// sqlxmq: `#[job(retries = 3, backoff_secs = 2.0)] async fn send(..)`,
    /// also after a name (`#[job("send", retries = 3)]`). A `proto(f)` may
    /// set what the attribute leaves out: then the policy is not read.
    fn sqlxmq_job(&mut self, f: &syn::ItemFn) -> bool {
        let Some(attr) = f.attrs.iter().find(|a| {
            let segs = super::path_idents(a.path());
            segs.last().is_some_and(|s| s == "job")
                && (self.uses("sqlxmq") || segs.iter().any(|s| s == "sqlxmq"))
        }) else {
            return false;
        };
        let mut times = Setting::Default("retries");
        let mut first = Setting::Default("retry_backoff");
        let mut known = true;
        if let syn::Meta::List(list) = &attr.meta {
            // Options as expressions: `"name"`, `retries = 3`, `ordered`,
            // `proto(f)` all parse as one.
            let parsed = list.parse_args_with(
                syn::punctuated::Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated,
            );
            let Ok(args) = parsed else {
                return false;
            };
            let mut proto = false;
            for a in &args {
                match a {
                    syn::Expr::Assign(x) => match path_segs(&x.left).as_slice() {
                        [k] if k == "retries" => times = self.setting(&x.right, None),
                        [k] if k == "backoff_secs" => {
                            first = match float_lit(&x.right) {
                                Some(s) => Setting::Written {
                                    expr: ConstExpr::Int((s * 1000.0).round() as u64),
                                    span: super::span::of(&x.right),
                                    unit_ms: Some(1),
                                },
                                None => self.setting(&x.right, Some(1000)),
                            }
                        }
                        _ => {}
                    },
                    syn::Expr::Call(c) if path_segs(&c.func) == ["proto"] => proto = true,
                    _ => {}
                }
            }
            known = !proto
                || !(matches!(times, Setting::Default(_)) || matches!(first, Setting::Default(_)));
        }
        let at = super::span::of(attr);
        let saved = self.cur.replace(FnState {
            name: super::byte_span(f.sig.ident.span()),
            ..FnState::default()
        });
        self.site(
            at,
            format!("sqlxmq job `{}`", f.sig.ident),
            super::span::of(&f.block),
            None,
            Policy {
                span: at,
                krate: "sqlxmq",
                kind: if known {
                    PolicyKind::Series {
                        shape: Shape::Geometric,
                        first,
                        ratio: Ratio::Default("retry_backoff.factor"),
                        max: None,
                        times: Some(times),
                        cap: None,
                    }
                } else {
                    PolicyKind::Unknown
                },
            },
            block_has_generator(&f.block),
        );
        self.cur = saved;
        self.function(&f.sig.ident, &f.sig, &f.block);
        true
    }

    /// apalis: `WorkerBuilder::new("payouts").retry(policy)….build_fn(send)`:
    /// the worker re-runs `send` with the same job.
    fn apalis_worker(&mut self, m: &syn::ExprMethodCall) {
        let chain = chain_methods(m);
        let syn::Expr::Call(root) = flow::root_of(&m.receiver) else {
            return;
        };
        if !path_segs(&root.func).ends_with(&["WorkerBuilder".into(), "new".into()]) {
            return;
        }
        let Some(retry) = chain.iter().find(|c| c.method == "retry") else {
            return;
        };
        let Some(policy) = retry.args.first().and_then(|p| self.apalis_policy(p)) else {
            return;
        };
        let Some(syn::Expr::Path(handler)) = m.args.first() else {
            return;
        };
        let at = Span::new(
            super::byte_span(retry.method.span()).start,
            super::span::of(*retry).end,
        );
        let name = super::path_idents(&handler.path);
        self.site(
            at,
            format!("apalis worker `{}`", name.join("::")),
            super::span::of(handler),
            Some(name),
            policy,
            false,
        );
    }

    /// sqlxmq at spawn time: `send.builder().set_retries(20)
    /// .set_retry_backoff(d)….spawn(&pool)` re-runs the job `send` with the
    /// same arguments. A backoff the spawn leaves unset is taken as sqlxmq's
    /// default, not the job attribute's: a lower bound.
    fn sqlxmq_spawn(&mut self, m: &syn::ExprMethodCall) {
        let chain = chain_methods(m);
        let Some(builder) = chain
            .iter()
            .find(|c| c.method == "builder" && c.args.is_empty())
        else {
            return;
        };
        let syn::Expr::Path(job) = &*builder.receiver else {
            return;
        };
        let mut times = None;
        let mut first = None;
        let mut at = None;
        for c in &chain {
            let a = c.args.first();
            let here = Span::new(
                super::byte_span(c.method.span()).start,
                super::span::of(*c).end,
            );
            match (method_str(c).as_str(), a) {
                ("set_retries", Some(a)) => {
                    times = Some(self.setting(a, None));
                    at = Some(here);
                }
                ("set_retry_backoff", Some(a)) => {
                    first = Some(self.setting(a, None));
                    at = at.or(Some(here));
                }
                _ => {}
            }
        }
        let Some(at) = at else { return };
        let name = super::path_idents(&job.path);
        let policy = Policy {
            span: at,
            krate: "sqlxmq",
            kind: PolicyKind::Series {
                shape: Shape::Geometric,
                first: first.unwrap_or(Setting::Default("retry_backoff")),
                ratio: Ratio::Default("retry_backoff.factor"),
                max: None,
                times: Some(times.unwrap_or(Setting::Default("retries"))),
                cap: None,
            },
        };
        self.site(
            at,
            format!("sqlxmq spawn of `{}`", name.join("::")),
            super::span::of(job),
            Some(name),
            policy,
            false,
        );
    }

    /// `RetryTransientMiddleware::new_with_policy(p)` anywhere in `e`: the
    /// client it builds retries with `p`.
    fn retry_middleware(&mut self, e: &syn::Expr, binding: Option<String>, field: bool) {
        struct Find<'e>(Option<&'e syn::ExprCall>);
        impl<'e> Visit<'e> for Find<'e> {
            fn visit_expr_call(&mut self, c: &'e syn::ExprCall) {
                let segs = path_segs(&c.func);
                if segs.ends_with(&["RetryTransientMiddleware".into(), "new_with_policy".into()]) {
                    self.0 = Some(c);
                }
                visit::visit_expr_call(self, c);
            }
        }
        let mut f = Find(None);
        f.visit_expr(e);
        let Some(c) = f.0 else { return };
        let Some(arg) = c.args.first() else { return };
        let Some(fs) = &self.cur else { return };
        let function = fs.name;
        let policy = self.policy(arg).unwrap_or(Policy {
            span: super::span::of(arg),
            krate: "reqwest-retry",
            kind: PolicyKind::Unknown,
        });
        self.out.clients.push(RetryClient {
            function,
            at: super::span::of(c),
            binding,
            field,
            policy,
            what: "`RetryTransientMiddleware`".into(),
            own_key: None,
        });
    }
}

/// A method of a builder chain: its name, arguments, and span from the name
/// to the closing parenthesis.
type Call<'e> = (String, Vec<&'e syn::Expr>, Span);

fn method_str(m: &syn::ExprMethodCall) -> String {
    m.method.to_string()
}

/// A fang `backoff` body: seconds as a constant (`(60, None)`), or a power
/// of the attempt (`u32::pow(3, attempt)`, `3u32.pow(attempt)`: `(1, Some(3))`).
fn fang_backoff(e: &syn::Expr) -> Option<(u64, Option<f64>)> {
    match e {
        syn::Expr::Lit(_) => float_lit(e).map(|k| (k as u64, None)),
        syn::Expr::Call(c) if path_segs(&c.func).ends_with(&["u32".into(), "pow".into()]) => {
            let base = float_lit(c.args.first()?)?;
            Some((1, Some(base)))
        }
        syn::Expr::MethodCall(m) if m.method == "pow" => {
            let base = float_lit(&m.receiver)?;
            Some((1, Some(base)))
        }
        syn::Expr::Paren(p) => fang_backoff(&p.expr),
        _ => None,
    }
}

/// The value a function body ends with.
fn fn_tail(b: &syn::Block) -> Option<&syn::Expr> {
    match b.stmts.as_slice() {
        [syn::Stmt::Expr(e, None)] => Some(e),
        _ => None,
    }
}

/// The delay of the first sleep in a loop body.
fn find_sleep(b: &syn::Block) -> Option<syn::Expr> {
    struct S(Option<syn::Expr>);
    impl<'ast> Visit<'ast> for S {
        fn visit_expr_call(&mut self, c: &'ast syn::ExprCall) {
            if self.0.is_none() && path_segs(&c.func).last().is_some_and(|s| s == "sleep") {
                self.0 = c.args.first().cloned();
            }
            visit::visit_expr_call(self, c);
        }
        fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
    }
    let mut s = S(None);
    s.visit_block(b);
    s.0
}

struct JobTableRes {
    bump: regex::Regex,
    delay: regex::Regex,
    bound: regex::Regex,
}

fn job_table_res() -> &'static JobTableRes {
    static R: std::sync::OnceLock<JobTableRes> = std::sync::OnceLock::new();
    R.get_or_init(|| {
        let re = |p: &str| {
            regex::Regex::new(p).unwrap_or_else(|_| unreachable!("the job-table patterns are valid"))
        };
        JobTableRes {
            bump: re(r"(?i)\b(\w+)\s*=\s*(\w+)\s*\+\s*1\b"),
            delay: re(r"(?i)(?:now\(\)|current_timestamp|clock_timestamp\(\))\s*\+\s*(?:interval\s*)?'([^']+)'(?:\s*::\s*interval)?(?:\s*\*\s*(?:power\s*\(\s*(\d+(?:\.\d+)?)\s*,\s*(\w+)\s*\)|(\w+)\b))?"),
            bound: re(r"(?i)\b(\w+)\s*(<=|<)\s*(\d+)"),
        }
    })
}

/// Whether a bound reads as "stop when" (`if n >= 5 { break }`) or "go on
/// while" (`while n < 5`).
#[derive(Clone, Copy, PartialEq, Eq)]
enum BoundSense {
    Exit,
    Continue,
}

/// The bound a comparison puts on `counter`: the limit, whether the count
/// reaches one past it, and the limit's span. `n >= 5` (exit) and `n < 5`
/// (continue) stop after 5 passes; `n > 5` and `n <= 5` after 6.
fn loop_bound<'e>(
    e: &'e syn::Expr,
    counter: &str,
    sense: BoundSense,
) -> Option<(&'e syn::Expr, bool, Span)> {
    let syn::Expr::Binary(b) = e else {
        return match e {
            syn::Expr::Paren(p) => loop_bound(&p.expr, counter, sense),
            _ => None,
        };
    };
    let joins = match sense {
        BoundSense::Exit => matches!(b.op, syn::BinOp::Or(_)),
        BoundSense::Continue => matches!(b.op, syn::BinOp::And(_)),
    };
    if joins {
        return loop_bound(&b.left, counter, sense)
            .or_else(|| loop_bound(&b.right, counter, sense));
    }
    let is_counter = |x: &syn::Expr| matches!(x, syn::Expr::Path(p) if p.path.is_ident(counter));
    // Read as `counter OP limit`; a flipped comparison is mirrored.
    let (limit, op) = if is_counter(&b.left) {
        (&*b.right, b.op)
    } else if is_counter(&b.right) {
        let mirrored = match b.op {
            syn::BinOp::Lt(t) => syn::BinOp::Gt(syn::token::Gt { spans: t.spans }),
            syn::BinOp::Le(t) => syn::BinOp::Ge(syn::token::Ge { spans: t.spans }),
            syn::BinOp::Gt(t) => syn::BinOp::Lt(syn::token::Lt { spans: t.spans }),
            syn::BinOp::Ge(t) => syn::BinOp::Le(syn::token::Le { spans: t.spans }),
            other => other,
        };
        (&*b.left, mirrored)
    } else {
        return None;
    };
    let plus_one = match (sense, op) {
        (BoundSense::Exit, syn::BinOp::Ge(_) | syn::BinOp::Eq(_)) => false,
        (BoundSense::Exit, syn::BinOp::Gt(_)) => true,
        (BoundSense::Continue, syn::BinOp::Lt(_) | syn::BinOp::Ne(_)) => false,
        (BoundSense::Continue, syn::BinOp::Le(_)) => true,
        _ => return None,
    };
    Some((limit, plus_one, super::span::of(limit)))
}

/// A bound on `counter` in the body: an `if` or a match guard on it whose
/// branch leaves the loop (`break` or `return`).
fn exit_bound<'e>(b: &'e syn::Block, counter: &str) -> Option<(&'e syn::Expr, bool, Span)> {
    struct X<'e, 'c> {
        counter: &'c str,
        found: Option<(&'e syn::Expr, bool, Span)>,
    }
    impl<'e> Visit<'e> for X<'e, '_> {
        fn visit_expr_if(&mut self, i: &'e syn::ExprIf) {
            if self.found.is_none() && leaves(&i.then_branch.stmts) {
                self.found = loop_bound(&i.cond, self.counter, BoundSense::Exit);
            }
            visit::visit_expr_if(self, i);
        }
        fn visit_arm(&mut self, a: &'e syn::Arm) {
            if let (None, Some((_, guard))) = (&self.found, &a.guard) {
                if expr_leaves(&a.body) {
                    self.found = loop_bound(guard, self.counter, BoundSense::Exit);
                }
            }
            visit::visit_arm(self, a);
        }
        fn visit_expr_closure(&mut self, _: &'e syn::ExprClosure) {}
        fn visit_expr_loop(&mut self, _: &'e syn::ExprLoop) {}
        fn visit_expr_while(&mut self, _: &'e syn::ExprWhile) {}
    }
    let mut x = X {
        counter,
        found: None,
    };
    x.visit_block(b);
    x.found
}

/// A bound on a job table's attempt column written in Rust: a comparison
/// of a field or binding named like the column (`job.attempts >= 5`,
/// `attempts < MAX_ATTEMPTS`) with a limit. `>=` and `<` stop at the limit,
/// `>` and `<=` one later.
fn column_bound<'e>(b: &'e syn::Block, col: &str) -> Option<(&'e syn::Expr, bool, Span)> {
    struct C<'e, 'c>(&'c str, Option<(&'e syn::Expr, bool, Span)>);
    impl<'e> Visit<'e> for C<'e, '_> {
        fn visit_expr_binary(&mut self, e: &'e syn::ExprBinary) {
            let named = |x: &syn::Expr| match x {
                syn::Expr::Field(f) => {
                    matches!(&f.member, syn::Member::Named(n) if n.to_string().eq_ignore_ascii_case(self.0))
                }
                syn::Expr::Path(p) => p
                    .path
                    .get_ident()
                    .is_some_and(|i| i.to_string().eq_ignore_ascii_case(self.0)),
                _ => false,
            };
            if self.1.is_none() {
                let (limit, op_on_col) = if named(&e.left) {
                    (Some(&*e.right), Some(e.op))
                } else if named(&e.right) {
                    // `5 <= job.attempts` reads as `job.attempts >= 5`.
                    let flipped = match e.op {
                        syn::BinOp::Lt(t) => {
                            Some(syn::BinOp::Gt(syn::token::Gt { spans: t.spans }))
                        }
                        syn::BinOp::Le(t) => {
                            Some(syn::BinOp::Ge(syn::token::Ge { spans: t.spans }))
                        }
                        syn::BinOp::Gt(t) => {
                            Some(syn::BinOp::Lt(syn::token::Lt { spans: t.spans }))
                        }
                        syn::BinOp::Ge(t) => {
                            Some(syn::BinOp::Le(syn::token::Le { spans: t.spans }))
                        }
                        _ => None,
                    };
                    (Some(&*e.left), flipped)
                } else {
                    (None, None)
                };
                let plus_one = match op_on_col {
                    Some(syn::BinOp::Ge(_) | syn::BinOp::Lt(_)) => Some(false),
                    Some(syn::BinOp::Gt(_) | syn::BinOp::Le(_)) => Some(true),
                    _ => None,
                };
                if let (Some(l), Some(p)) = (limit, plus_one) {
                    self.1 = Some((l, p, super::span::of(l)));
                }
            }
            visit::visit_expr_binary(self, e);
        }
        fn visit_expr_closure(&mut self, _: &'e syn::ExprClosure) {}
    }
    let mut c = C(col, None);
    c.visit_block(b);
    c.1
}

/// Whether statements leave the loop: a `break` or `return` among them.
fn leaves(stmts: &[syn::Stmt]) -> bool {
    stmts.iter().any(|s| match s {
        syn::Stmt::Expr(e, _) => expr_leaves(e),
        syn::Stmt::Macro(m) => {
            let p = &m.mac.path;
            p.is_ident("panic") || p.is_ident("bail")
        }
        _ => false,
    })
}

fn expr_leaves(e: &syn::Expr) -> bool {
    match e {
        syn::Expr::Break(_) | syn::Expr::Return(_) => true,
        syn::Expr::Block(b) => leaves(&b.block.stmts),
        syn::Expr::Macro(m) => m.mac.path.is_ident("bail") || m.mac.path.is_ident("panic"),
        _ => false,
    }
}

/// Names a body adds one to: `n += 1`, `n = n + 1`.
fn increments(b: &syn::Block) -> Vec<String> {
    struct I(Vec<String>);
    impl<'ast> Visit<'ast> for I {
        fn visit_expr_binary(&mut self, e: &'ast syn::ExprBinary) {
            if let (syn::BinOp::AddAssign(_), syn::Expr::Path(p)) = (&e.op, &*e.left) {
                if float_lit(&e.right) == Some(1.0) {
                    if let Some(id) = p.path.get_ident() {
                        self.0.push(id.to_string());
                    }
                }
            }
            visit::visit_expr_binary(self, e);
        }
        fn visit_expr_assign(&mut self, e: &'ast syn::ExprAssign) {
            if let (syn::Expr::Path(p), syn::Expr::Binary(b)) = (&*e.left, &*e.right) {
                let same = matches!(&*b.left, syn::Expr::Path(l) if l.path == p.path);
                if same && matches!(b.op, syn::BinOp::Add(_)) && float_lit(&b.right) == Some(1.0) {
                    if let Some(id) = p.path.get_ident() {
                        self.0.push(id.to_string());
                    }
                }
            }
            visit::visit_expr_assign(self, e);
        }
        fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
    }
    let mut i = I(Vec::new());
    i.visit_block(b);
    i.0.dedup();
    i.0
}

/// Whether a body holds a `for` loop over items (not a range): a batch.
fn has_item_loop(b: &syn::Block) -> bool {
    struct F(bool);
    impl<'ast> Visit<'ast> for F {
        fn visit_expr_for_loop(&mut self, e: &'ast syn::ExprForLoop) {
            self.0 |= !matches!(&*e.expr, syn::Expr::Range(_));
            visit::visit_expr_for_loop(self, e);
        }
        fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
    }
    let mut f = F(false);
    f.visit_block(b);
    f.0
}

/// Whether an expression names `name`.
fn mentions(e: &syn::Expr, name: &str) -> bool {
    struct M<'n>(&'n str, bool);
    impl<'ast> Visit<'ast> for M<'_> {
        fn visit_path(&mut self, p: &'ast syn::Path) {
            self.1 |= p.is_ident(self.0);
            visit::visit_path(self, p);
        }
    }
    let mut m = M(name, false);
    m.visit_expr(e);
    m.1
}

/// `delay *= k` or `delay = delay * k` in a body: the factor.
fn doubling(b: &syn::Block, name: &str) -> Option<u64> {
    struct D<'n>(&'n str, Option<u64>);
    impl<'ast> Visit<'ast> for D<'_> {
        fn visit_expr_binary(&mut self, e: &'ast syn::ExprBinary) {
            if let (syn::BinOp::MulAssign(_), syn::Expr::Path(p)) = (&e.op, &*e.left) {
                if p.path.is_ident(self.0) {
                    self.1 = float_lit(&e.right).map(|f| f as u64);
                }
            }
            visit::visit_expr_binary(self, e);
        }
        fn visit_expr_assign(&mut self, e: &'ast syn::ExprAssign) {
            if let (syn::Expr::Path(p), syn::Expr::Binary(b)) = (&*e.left, &*e.right) {
                if p.path.is_ident(self.0) && matches!(b.op, syn::BinOp::Mul(_)) {
                    if let syn::Expr::Path(l) = &*b.left {
                        if l.path.is_ident(self.0) {
                            self.1 = float_lit(&b.right).map(|f| f as u64);
                        }
                    }
                }
            }
            visit::visit_expr_assign(self, e);
        }
    }
    let mut d = D(name, None);
    d.visit_block(b);
    d.1.filter(|k| *k >= 1)
}

/// Whether a body assigns to `name` at all.
fn assigned(b: &syn::Block, name: &str) -> bool {
    struct A<'n>(&'n str, bool);
    impl<'ast> Visit<'ast> for A<'_> {
        fn visit_expr_assign(&mut self, e: &'ast syn::ExprAssign) {
            self.1 |= matches!(&*e.left, syn::Expr::Path(p) if p.path.is_ident(self.0));
            visit::visit_expr_assign(self, e);
        }
        fn visit_expr_binary(&mut self, e: &'ast syn::ExprBinary) {
            let compound = !matches!(
                e.op,
                syn::BinOp::Add(_)
                    | syn::BinOp::Sub(_)
                    | syn::BinOp::Mul(_)
                    | syn::BinOp::Div(_)
                    | syn::BinOp::Lt(_)
                    | syn::BinOp::Le(_)
                    | syn::BinOp::Gt(_)
                    | syn::BinOp::Ge(_)
                    | syn::BinOp::Eq(_)
                    | syn::BinOp::Ne(_)
                    | syn::BinOp::And(_)
                    | syn::BinOp::Or(_)
            );
            self.1 |= compound && matches!(&*e.left, syn::Expr::Path(p) if p.path.is_ident(self.0));
            visit::visit_expr_binary(self, e);
        }
    }
    let mut a = A(name, false);
    a.visit_block(b);
    a.1
}

impl<'ast> Visit<'ast> for Walker<'_> {
    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        if self.sqlxmq_job(f) {
            return;
        }
        self.function(&f.sig.ident, &f.sig, &f.block);
    }

    fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
        self.function(&f.sig.ident, &f.sig, &f.block);
    }

    fn visit_item_impl(&mut self, i: &'ast syn::ItemImpl) {
        if self.underway_impl(i) {
            return;
        }
        if self.fang_impl(i) {
            for item in &i.items {
                if let syn::ImplItem::Fn(f) = item {
                    if f.sig.ident != "run" {
                        self.visit_impl_item_fn(f);
                    }
                }
            }
            return;
        }
        let trait_name = i
            .trait_
            .as_ref()
            .and_then(|(_, p, _)| p.segments.last())
            .map(|s| s.ident.to_string());
        let ty = match &*i.self_ty {
            syn::Type::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
            _ => None,
        };
        let saved = std::mem::replace(&mut self.impl_of, ty.map(|t| (trait_name, t)));
        visit::visit_item_impl(self, i);
        self.impl_of = saved;
    }

    fn visit_item_const(&mut self, c: &'ast syn::ItemConst) {
        visit::visit_item_const(self, c);
        if let Some(h) = flow::idempotency_header_name(self.consts, &c.expr) {
            self.header_consts.insert(c.ident.to_string(), h);
        }
    }

    fn visit_local(&mut self, local: &'ast syn::Local) {
        visit::visit_local(self, local);
        let (Some(name), Some(init)) = (pat_names(&local.pat).into_iter().next(), &local.init)
        else {
            return;
        };
        let e = &*init.expr;
        self.retry_middleware(e, Some(name.clone()), false);
        let policy = self.policy(e);
        let url = match e {
            syn::Expr::Macro(m) if m.mac.path.is_ident("format") => self.format_url(&m.mac),
            syn::Expr::Lit(_) => str_lit(e).map(|s| (s, Vec::new())),
            _ => None,
        };
        let value = self.expr(e);
        let fresh = has_generator(e);
        let span = super::span::of(&local.pat);
        let schedule = self.schedule_of(e);
        let Some(f) = &mut self.cur else { return };
        match schedule {
            Some(p) => f.schedules.insert(name.clone(), p),
            None => f.schedules.remove(&name),
        };
        f.bindings.insert(name.clone(), (span, fresh));
        if !matches!(value, ConstExpr::Unknown) {
            f.lets.insert(name.clone(), value);
        } else {
            f.lets.remove(&name);
        }
        match policy {
            Some(p) => f.policies.insert(name.clone(), p),
            None => f.policies.remove(&name),
        };
        if let Some(u) = url {
            f.urls.insert(name, u);
        }
    }

    fn visit_field_value(&mut self, fv: &'ast syn::FieldValue) {
        visit::visit_field_value(self, fv);
        self.field_default(fv);
        if let syn::Member::Named(n) = &fv.member {
            self.retry_middleware(&fv.expr, Some(n.to_string()), true);
        }
    }

    fn visit_expr_call(&mut self, c: &'ast syn::ExprCall) {
        visit::visit_expr_call(self, c);
        let segs = path_segs(&c.func);
        if segs.is_empty() {
            return;
        }
        let args: Vec<&syn::Expr> = c.args.iter().collect();
        // async-stripe: `RequestStrategy::Idempotent(key)`, and the
        // strategies that retry with a key of their own
        // (`RequestStrategy::ExponentialBackoff(n)`).
        if let Some(sdk) = knowledge::retry()
            .sdk
            .iter()
            .find(|s| segs.ends_with(&s.path))
        {
            if let (Some(krate), Some(n)) = (&sdk.retry, args.first()) {
                self.sdk_retry(c, sdk, krate, n);
            } else if let Some(key) = args.first() {
                let (header, cp) = (sdk.header.clone(), sdk.counterparty.clone());
                self.push_request(super::span::of(c), header, key, None, None, Some(cp), None);
            }
            return;
        }
        if !CallShape::path(&flow::names(&segs)).any_of(&knowledge::effects().retry) {
            return;
        }
        // backoff::retry(policy, op), tokio_retry::Retry::spawn(strategy, op)
        let (Some(p), Some(op)) = (args.first(), args.get(1)) else {
            return;
        };
        let Some(policy) = self.policy(p) else { return };
        let Some((body, op_fn, fresh)) = self.op(op) else {
            return;
        };
        self.site(
            super::span::of(&c.func),
            format!("`{}`", segs.join("::")),
            body,
            op_fn,
            policy,
            fresh,
        );
    }

    fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
        self.underway_job(m);
        visit::visit_expr_method_call(self, m);
        let name = method_str(m);
        if name == "header" {
            self.keyed_header(m);
            return;
        }
        if name == "insert" {
            self.keyed_insert(m);
            return;
        }
        if matches!(name.as_str(), "build_fn" | "build") {
            self.apalis_worker(m);
        }
        if name == "spawn" {
            self.sqlxmq_spawn(m);
        }
        // backon: `(|| async { .. }).retry(policy)`, `send.retry(policy)`
        if name == "retry" && CallShape::method("retry").any_of(&knowledge::effects().retry) {
            let Some(p) = m.args.first() else { return };
            let Some(policy) = self.policy(p) else { return };
            let op = match &*m.receiver {
                e if is_closure(e) => self.op(e),
                syn::Expr::Path(_) => self.op(&m.receiver),
                _ => None,
            };
            let Some((body, op_fn, fresh)) = op else {
                return;
            };
            self.site(
                super::byte_span(m.method.span()),
                "`.retry()`".into(),
                body,
                op_fn,
                policy,
                fresh,
            );
        }
    }

    fn visit_expr_for_loop(&mut self, e: &'ast syn::ExprForLoop) {
        visit::visit_expr_for_loop(self, e);
        self.range_loop(e);
    }

    fn visit_expr_loop(&mut self, e: &'ast syn::ExprLoop) {
        visit::visit_expr_loop(self, e);
        let kw = super::byte_span(e.loop_token.span);
        let before = self.out.sites.len();
        self.counted_loop(kw, None, &e.body, "`loop`");
        if self.out.sites.len() == before {
            self.schedule_loop(kw, &e.body, "`loop`");
        }
        if self.out.sites.len() == before {
            self.policy_call_loop(kw, &e.body, "`loop`");
        }
    }

    fn visit_expr_while(&mut self, e: &'ast syn::ExprWhile) {
        visit::visit_expr_while(self, e);
        let kw = super::byte_span(e.while_token.span);
        let before = self.out.sites.len();
        self.counted_loop(kw, Some(&e.cond), &e.body, "`while` loop");
        if self.out.sites.len() == before {
            self.schedule_loop(kw, &e.body, "`while` loop");
        }
        if self.out.sites.len() == before {
            self.policy_call_loop(kw, &e.body, "`while` loop");
        }
    }

    fn visit_lit_str(&mut self, l: &'ast syn::LitStr) {
        let v = l.value();
        if v.starts_with("http") {
            self.url_host(&v);
        }
        if let Some(f) = &mut self.cur {
            if v.to_ascii_lowercase().contains("attempt") || v.to_ascii_lowercase().contains("retr")
            {
                f.strings.push((v, super::byte_span(l.span())));
            }
        }
    }

    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        // `sqlx::query!("…")`, `format!(..)`: their string arguments count.
        if let Ok(args) = m.parse_body_with(
            syn::punctuated::Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated,
        ) {
            args.iter().for_each(|a| self.visit_expr(a));
        }
    }

    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        if m.attrs.iter().any(|a| a.path().is_ident("cfg"))
            && super::redis_config::is_test(&m.attrs)
        {
            return;
        }
        visit::visit_item_mod(self, m);
    }
}

// Keys made fresh and sent as the idempotency key (`fresh-key-per-retry`),
// in the forms `flow`'s loops and closures leave out: an `async` attempt
// block inside a retry loop, a key minted by a project helper
// (`strategy.get_key()`), a key minted where a request is built from the
// operation's data, a key mixing the input's identity with the clock.

/// Methods that hand their receiver's value on: a helper call is looked for
/// beneath them, and they are never one.
const PASS_THROUGH: &[&str] = &[
    "clone",
    "to_string",
    "to_owned",
    "into",
    "as_str",
    "as_ref",
    "as_deref",
    "unwrap",
    "expect",
    "parse",
    "into_masked",
    "into_inner",
    "to_vec",
    "as_bytes",
    "try_into",
    "map_err",
    "ok",
    "unwrap_or_default",
    "as_u64",
    "len",
    "iter",
    "collect",
    "is_empty",
    "is_some",
    "is_none",
    "borrow",
    "lock",
    "read",
    "write",
    "await",
];

/// Methods whose argument is used only when the receiver has no value: a
/// key made there is a default for a caller who gave none, made once per
/// call, not a per-attempt key.
const FALLBACK: &[&str] = &[
    "unwrap_or",
    "unwrap_or_else",
    "or",
    "or_else",
    "get_or_insert_with",
    "map_or",
    "map_or_else",
];

fn names_idempotency(name: &str) -> bool {
    name.to_ascii_lowercase().contains("idempot")
}

/// A retry-counter name: `tries`, `retry_count`, `attempt`.
fn retry_counter(name: &str) -> bool {
    let l = name.to_ascii_lowercase();
    l.contains("retr") || l.contains("attempt") || l.contains("tries") || l == "try_count"
}

/// Whether a `loop`/`while` body is an attempt: it sleeps or counts
/// attempts, and takes no new item per pass (a worker's batch loop makes
/// one key per item, rightly).
fn attempt_body(b: &syn::Block) -> bool {
    !has_item_loop(b) && increments(b).iter().any(|n| retry_counter(n))
}

/// The header-name argument of a header call or tuple, through
/// `.to_string()`/`.into()`, and a constant named for the header
/// (`PAYPAL_REQUEST_ID`).
fn header_arg(consts: &StrConsts, e: &syn::Expr) -> Option<String> {
    match e {
        syn::Expr::MethodCall(m) if PASS_THROUGH.contains(&method_str(m).as_str()) => {
            header_arg(consts, &m.receiver)
        }
        syn::Expr::Paren(p) => header_arg(consts, &p.expr),
        syn::Expr::Path(p) => {
            let last = p.path.segments.last()?.ident.to_string();
            let dashed = last.replace('_', "-");
            flow::idempotency_header_name(consts, e)
                .or_else(|| flow::is_idempotency_header(&dashed).then_some(dashed))
        }
        _ => flow::idempotency_header_name(consts, e),
    }
}

/// The first generator in `e`, outside closures and fallbacks.
fn generator_in(e: &syn::Expr) -> Option<(Span, String)> {
    struct G(Option<(Span, String)>);
    impl<'ast> Visit<'ast> for G {
        fn visit_expr(&mut self, e: &'ast syn::Expr) {
            if self.0.is_some() {
                return;
            }
            match e {
                syn::Expr::Call(c) => match flow::generator_call(c) {
                    Some(w) => self.0 = Some((super::span::of(c), w)),
                    None => visit::visit_expr(self, e),
                },
                syn::Expr::MethodCall(m) if FALLBACK.contains(&method_str(m).as_str()) => {
                    self.visit_expr(&m.receiver)
                }
                syn::Expr::Closure(_) => {}
                _ => visit::visit_expr(self, e),
            }
        }
        fn visit_macro(&mut self, m: &'ast syn::Macro) {
            if self.0.is_some() {
                return;
            }
            if let Some(w) = flow::generator_macro(m) {
                self.0 = Some((super::span::of(&m.path), w));
                return;
            }
            if let Ok(args) = m.parse_body_with(
                syn::punctuated::Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated,
            ) {
                args.iter().for_each(|a| self.visit_expr(a));
            }
        }
    }
    let mut g = G(None);
    g.visit_expr(e);
    g.0
}

/// A zero-argument call of a project function in `e` (`strategy.get_key()`,
/// `IdempotencyKey::new_uuid_v4()`), outside closures and fallbacks.
fn helper_in(e: &syn::Expr) -> Option<(Span, String, Option<String>)> {
    match e {
        syn::Expr::MethodCall(m) => {
            let name = method_str(m);
            if FALLBACK.contains(&name.as_str()) {
                return helper_in(&m.receiver);
            }
            if m.args.is_empty() && !PASS_THROUGH.contains(&name.as_str()) {
                return Some((super::byte_span(m.method.span()), name, None));
            }
            helper_in(&m.receiver).or_else(|| m.args.iter().find_map(helper_in))
        }
        syn::Expr::Call(c) => {
            let segs = path_segs(&c.func);
            if c.args.is_empty() && flow::generator_call(c).is_none() {
                let name = segs.last()?.clone();
                let owner = segs
                    .len()
                    .checked_sub(2)
                    .map(|i| segs[i].clone())
                    .filter(|o| !matches!(o.as_str(), "crate" | "self" | "super" | "Self"));
                return Some((super::span::of(c), name, owner));
            }
            c.args.iter().find_map(helper_in)
        }
        syn::Expr::Try(t) => helper_in(&t.expr),
        syn::Expr::Await(a) => helper_in(&a.base),
        syn::Expr::Reference(r) => helper_in(&r.expr),
        syn::Expr::Paren(p) => helper_in(&p.expr),
        syn::Expr::Macro(m) => m
            .mac
            .parse_body_with(
                syn::punctuated::Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated,
            )
            .ok()
            .and_then(|args| args.iter().find_map(helper_in)),
        _ => None,
    }
}

/// Single names used in `e` (paths of one segment, and the roots of field
/// and method chains), outside closures.
fn used_names(e: &syn::Expr) -> Vec<String> {
    struct U(Vec<String>);
    impl<'ast> Visit<'ast> for U {
        fn visit_expr_path(&mut self, p: &'ast syn::ExprPath) {
            if let Some(id) = p.path.get_ident() {
                self.0.push(id.to_string());
            }
        }
        fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
        fn visit_macro(&mut self, m: &'ast syn::Macro) {
            if let Ok(args) = m.parse_body_with(
                syn::punctuated::Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated,
            ) {
                args.iter().for_each(|a| self.visit_expr(a));
            }
        }
    }
    let mut u = U(Vec::new());
    u.visit_expr(e);
    u.0
}

/// Names whose fields or methods `e` reads (`msg.partition()`, `order.id`):
/// the identity of an input, outside closures.
fn param_parts(e: &syn::Expr) -> Vec<String> {
    struct P(Vec<String>);
    impl<'ast> Visit<'ast> for P {
        fn visit_expr_field(&mut self, f: &'ast syn::ExprField) {
            if let syn::Expr::Path(p) = &*f.base {
                if let Some(id) = p.path.get_ident() {
                    self.0.push(id.to_string());
                }
            }
            visit::visit_expr_field(self, f);
        }
        fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
            if let syn::Expr::Path(p) = &*m.receiver {
                if let Some(id) = p.path.get_ident() {
                    self.0.push(id.to_string());
                }
            }
            visit::visit_expr_method_call(self, m);
        }
        fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
        fn visit_macro(&mut self, m: &'ast syn::Macro) {
            if let Ok(args) = m.parse_body_with(
                syn::punctuated::Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated,
            ) {
                args.iter().for_each(|a| self.visit_expr(a));
            }
        }
    }
    let mut p = P(Vec::new());
    p.visit_expr(e);
    p.0
}

/// Zero-argument calls in a body, by name (a minter's helpers).
fn zero_arg_calls(b: &syn::Block) -> Vec<String> {
    struct Z(Vec<String>);
    impl<'ast> Visit<'ast> for Z {
        fn visit_expr_call(&mut self, c: &'ast syn::ExprCall) {
            if c.args.is_empty() {
                if let Some(n) = path_segs(&c.func).last() {
                    self.0.push(n.clone());
                }
            }
            visit::visit_expr_call(self, c);
        }
        fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
            let n = method_str(m);
            if m.args.is_empty() && !PASS_THROUGH.contains(&n.as_str()) {
                self.0.push(n);
            }
            visit::visit_expr_method_call(self, m);
        }
        fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
    }
    let mut z = Z(Vec::new());
    z.visit_block(b);
    z.0.sort();
    z.0.dedup();
    z.0
}

fn block_expr(b: &syn::Block) -> syn::Expr {
    syn::Expr::Block(syn::ExprBlock {
        attrs: Vec::new(),
        label: None,
        block: b.clone(),
    })
}

impl Walker<'_> {
    /// A function's minted keys: itself as a minter, and the fresh keys it
    /// sends.
    fn fresh_keys(&mut self, name: &syn::Ident, sig: &syn::Signature, body: &syn::Block) {
        let fname = name.to_string();
        let params: Vec<String> = sig
            .inputs
            .iter()
            .filter_map(|a| match a {
                syn::FnArg::Typed(t) => Some(pat_names(&t.pat)),
                syn::FnArg::Receiver(_) => None,
            })
            .flatten()
            .collect();
        let owner = self.impl_of.as_ref().map(|(_, t)| t.clone());
        if params.is_empty() && !matches!(sig.output, syn::ReturnType::Default) {
            let direct = generator_in(&block_expr(body)).map(|(_, w)| w);
            let callees = zero_arg_calls(body);
            let keyish = fname.to_ascii_lowercase().contains("key");
            if direct.is_some() || (keyish && !callees.is_empty()) {
                self.out.minters.push(Minter {
                    name: fname.clone(),
                    owner,
                    direct,
                    callees,
                });
            }
        }
        let builders = &knowledge::retry().request_builders;
        let conversion = self
            .impl_of
            .as_ref()
            .and_then(|(t, _)| t.as_ref())
            .is_some_and(|t| builders.conversions.contains(t))
            && matches!(fname.as_str(), "from" | "try_from");
        let builder = conversion || builders.methods.contains(&fname);
        let mut w = FreshWalk {
            consts: self.consts,
            function: super::byte_span(name.span()),
            fname,
            params,
            builder,
            scopes: Vec::new(),
            lets: HashMap::new(),
            out: Vec::new(),
        };
        w.visit_block(body);
        self.out.fresh.extend(w.out);
    }
}

/// One function's walk for fresh keys.
struct FreshWalk<'a> {
    consts: &'a StrConsts,
    function: Span,
    fname: String,
    params: Vec<String>,
    builder: bool,
    /// Retry scopes open: span and what.
    scopes: Vec<(Span, String)>,
    /// Bindings made fresh or by a helper: maker, where it is made.
    lets: HashMap<String, (Maker, Span)>,
    out: Vec<FreshSend>,
}

impl FreshWalk<'_> {
    fn maker(&self, value: &syn::Expr) -> Option<(Maker, Span)> {
        if let Some((at, w)) = generator_in(value) {
            return Some((Maker::Generator(w), at));
        }
        if let Some(m) = used_names(value)
            .iter()
            .find_map(|n| self.lets.get(n).cloned())
        {
            return Some(m);
        }
        helper_in(value).map(|(at, name, owner)| (Maker::Helper { name, owner }, at))
    }

    fn send(&mut self, value: &syn::Expr, how: String) {
        let Some((maker, at)) = self.maker(value) else {
            return;
        };
        if self.out.iter().any(|f| f.at == at) {
            return;
        }
        let scope = self
            .scopes
            .iter()
            .rev()
            .find(|(s, _)| s.start <= at.start && at.end <= s.end);
        let kind = match (scope, &maker) {
            (Some((s, what)), _) => FreshKind::Retried {
                scope: *s,
                what: what.clone(),
            },
            (None, Maker::Helper { .. }) => return,
            (None, Maker::Generator(_)) => {
                let from = param_parts(value)
                    .into_iter()
                    .find(|n| self.params.contains(n));
                match (from, self.builder, self.params.first()) {
                    (Some(p), _, _) => FreshKind::Mixed { from: p },
                    (None, true, Some(p)) => FreshKind::Built {
                        function: self.fname.clone(),
                        from: p.clone(),
                    },
                    _ => return,
                }
            }
        };
        self.out.push(FreshSend {
            function: self.function,
            kind,
            maker,
            at,
            sent: super::span::of(value),
            how,
        });
    }

    fn scoped(&mut self, span: Span, what: &str, f: impl FnOnce(&mut Self)) {
        self.scopes.push((span, what.to_string()));
        f(self);
        self.scopes.pop();
    }

    fn bind(&mut self, pat: &syn::Pat, init: &syn::Expr) {
        let names = pat_names(pat);
        let made = self.maker(init);
        for n in names {
            match &made {
                Some(m) => self.lets.insert(n, m.clone()),
                None => self.lets.remove(&n),
            };
        }
    }
}

impl<'ast> Visit<'ast> for FreshWalk<'_> {
    fn visit_item_fn(&mut self, _: &'ast syn::ItemFn) {}
    fn visit_item_impl(&mut self, _: &'ast syn::ItemImpl) {}

    fn visit_expr_loop(&mut self, e: &'ast syn::ExprLoop) {
        if attempt_body(&e.body) {
            let at = super::span::of(&e.body);
            self.scoped(at, "`loop`", |w| visit::visit_expr_loop(w, e));
        } else {
            visit::visit_expr_loop(self, e);
        }
    }

    fn visit_expr_for_loop(&mut self, e: &'ast syn::ExprForLoop) {
        let range = matches!(&*e.expr, syn::Expr::Range(_));
        let counter = pat_names(&e.pat).iter().any(|n| retry_counter(n))
            || (matches!(&*e.pat, syn::Pat::Wild(_)) && find_sleep(&e.body).is_some());
        if range && counter && !has_item_loop(&e.body) {
            let at = super::span::of(&e.body);
            self.scoped(at, "`for` loop", |w| visit::visit_expr_for_loop(w, e));
        } else {
            visit::visit_expr_for_loop(self, e);
        }
    }

    fn visit_expr_while(&mut self, e: &'ast syn::ExprWhile) {
        if !matches!(&*e.cond, syn::Expr::Let(_)) && attempt_body(&e.body) {
            let at = super::span::of(&e.body);
            self.scoped(at, "`while` loop", |w| visit::visit_expr_while(w, e));
        } else {
            visit::visit_expr_while(self, e);
        }
    }

    fn visit_expr_call(&mut self, c: &'ast syn::ExprCall) {
        let segs = path_segs(&c.func);
        let retries = !segs.is_empty()
            && CallShape::path(&flow::names(&segs)).any_of(&knowledge::effects().retry);
        if retries {
            let what = format!("`{}`", segs.join("::"));
            for a in &c.args {
                if is_closure(a) {
                    let at = super::span::of(a);
                    self.scoped(at, &what, |w| w.visit_expr(a));
                } else {
                    self.visit_expr(a);
                }
            }
            return;
        }
        if segs.last().is_some_and(|n| names_idempotency(n)) {
            let e = syn::Expr::Call(c.clone());
            self.send(&e, format!("through `{}`", segs.join("::")));
        }
        visit::visit_expr_call(self, c);
    }

    fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
        let name = method_str(m);
        if name == "retry"
            && is_closure(&m.receiver)
            && CallShape::method("retry").any_of(&knowledge::effects().retry)
        {
            let at = super::span::of(&*m.receiver);
            self.scoped(at, "`.retry()`", |w| w.visit_expr(&m.receiver));
            m.args.iter().for_each(|a| self.visit_expr(a));
            return;
        }
        let args: Vec<&syn::Expr> = m.args.iter().collect();
        match (name.as_str(), args.as_slice()) {
            ("header" | "insert" | "append", [n, v]) => {
                if let Some(h) = header_arg(self.consts, n) {
                    self.send(v, format!("as the `{h}` header"));
                }
            }
            ("insert_header" | "append_header", [syn::Expr::Tuple(t)]) if t.elems.len() == 2 => {
                if let Some(h) = header_arg(self.consts, &t.elems[0]) {
                    self.send(&t.elems[1], format!("as the `{h}` header"));
                }
            }
            ("insert_header" | "append_header", [n, v]) => {
                if let Some(h) = header_arg(self.consts, n) {
                    self.send(v, format!("as the `{h}` header"));
                }
            }
            (n, [v]) if names_idempotency(n) => self.send(v, format!("to `{n}`")),
            _ => {}
        }
        visit::visit_expr_method_call(self, m);
    }

    fn visit_expr_tuple(&mut self, t: &'ast syn::ExprTuple) {
        if t.elems.len() == 2 {
            if let Some(h) = header_arg(self.consts, &t.elems[0]) {
                self.send(&t.elems[1], format!("as the `{h}` header"));
            }
        }
        visit::visit_expr_tuple(self, t);
    }

    fn visit_field_value(&mut self, fv: &'ast syn::FieldValue) {
        if let syn::Member::Named(n) = &fv.member {
            let n = n.to_string();
            if names_idempotency(&n) {
                self.send(&fv.expr, format!("as the `{n}` field"));
            }
        }
        visit::visit_field_value(self, fv);
    }

    fn visit_local(&mut self, l: &'ast syn::Local) {
        visit::visit_local(self, l);
        if let Some(init) = &l.init {
            self.bind(&l.pat, &init.expr);
        }
    }

    fn visit_expr_let(&mut self, e: &'ast syn::ExprLet) {
        visit::visit_expr_let(self, e);
        self.bind(&e.pat, &e.expr);
    }

    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        if let Ok(args) = m.parse_body_with(
            syn::punctuated::Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated,
        ) {
            args.iter().for_each(|a| self.visit_expr(a));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(src: &str) -> RetryFacts {
        let mut f = crate::facts::FileFacts::default();
        super::super::parse(src, &mut f);
        f.code.expect("parsed").retry
    }

    #[test]
    fn backoff_struct_literal_with_a_written_cap_is_a_total() {
        let f = read(
            "use backoff::ExponentialBackoff;\nasync fn f(key: &str) { let p = ExponentialBackoff { max_elapsed_time: Some(Duration::from_secs(3 * 86400)), ..Default::default() }; backoff::future::retry(p, || async { http.post(\"https://api.stripe.com/v1/payouts\").header(\"Idempotency-Key\", key).send().await }).await; }",
        );
        assert_eq!(f.sites.len(), 1);
        assert!(matches!(
            f.sites[0].policy.kind,
            PolicyKind::Total(Setting::Written { .. })
        ));
        assert_eq!(f.requests.len(), 1);
        assert_eq!(
            f.requests[0].url.as_deref(),
            Some("https://api.stripe.com/v1/payouts")
        );
        assert_eq!(f.requests[0].method.as_deref(), Some("POST"));
    }

    #[test]
    fn unset_cap_is_the_default_and_none_is_unbounded() {
        let f = read(
            "use backoff::ExponentialBackoffBuilder;\nfn f() { let a = ExponentialBackoffBuilder::new().build(); let b = ExponentialBackoffBuilder::new().with_max_elapsed_time(None).build(); backoff::retry(a, op); backoff::retry(b, op); }",
        );
        assert!(matches!(
            f.sites[0].policy.kind,
            PolicyKind::Total(Setting::Default("max_elapsed_time"))
        ));
        assert!(matches!(
            f.sites[1].policy.kind,
            PolicyKind::Unbounded(_, Some(_))
        ));
        assert_eq!(f.sites[0].op_fn.as_deref(), Some(&["op".to_string()][..]));
    }

    #[test]
    fn format_urls_fill_in_the_files_constants() {
        let f = read(
            "const BASE: &str = \"https://api.stripe.com\";\nfn f(c: &Client, k: &str, id: &str) { c.post(format!(\"{BASE}/v1/payouts/{}\", id)).header(\"Idempotency-Key\", k); }",
        );
        assert_eq!(
            f.requests[0].url.as_deref(),
            Some("https://api.stripe.com/v1/payouts/{}")
        );
    }

    #[test]
    fn underway_job_steps_take_the_policy_written_after_them() {
        let f = read(
            "use underway::{Job, To};\nasync fn f() { let p = RetryPolicy::builder().max_attempts(9).build(); Job::<A, ()>::builder().step(|_cx, a: A| async move { To::next(a) }).retry_policy(RetryPolicy::builder().max_attempts(30).initial_interval_ms(60_000).build()).step(send).step(|_cx, b: B| async move { To::done() }).retry_policy(p).name(\"j\").build().await; }",
        );
        let what: Vec<&str> = f.sites.iter().map(|s| s.what.as_str()).collect();
        assert_eq!(
            what,
            [
                "underway job step 1",
                "underway job step `send`",
                "underway job step 3"
            ]
        );
        let attempts = |i: usize| match &f.sites[i].policy.kind {
            PolicyKind::Series {
                times: Some(Setting::Written { expr, .. }),
                ..
            } => format!("{expr:?}"),
            other => panic!("{other:?}"),
        };
        assert!(attempts(0).contains("30"), "{}", attempts(0));
        assert!(attempts(1).contains("max_attempts"), "{}", attempts(1));
        assert!(attempts(2).contains('9'), "{}", attempts(2));
    }

    #[test]
    fn sqlxmq_options_after_a_name_are_read_and_a_proto_is_not_guessed() {
        let f = read(
            "use sqlxmq::job;\n#[job(\"send\", retries = 10, backoff_secs = 3600)] async fn a(c: CurrentJob) {}\n#[job(proto(slow), backoff_secs = 7200)] async fn b(c: CurrentJob) {}\n#[job(proto(slow), retries = 2, backoff_secs = 1)] async fn c(c: CurrentJob) {}",
        );
        assert_eq!(f.sites.len(), 3);
        assert!(matches!(
            f.sites[0].policy.kind,
            PolicyKind::Series {
                times: Some(Setting::Written { .. }),
                first: Setting::Written { .. },
                ..
            }
        ));
        assert!(matches!(f.sites[1].policy.kind, PolicyKind::Unknown));
        assert!(matches!(f.sites[2].policy.kind, PolicyKind::Series { .. }));
    }

    #[test]
    fn tokio_retry2_max_interval_bounds_a_strategy_without_take() {
        let f = read(
            "use tokio_retry2::strategy::{ExponentialFactorBackoff, MaxInterval};\nasync fn f() { let s = ExponentialFactorBackoff::from_millis(500, 2.0).max_interval(60_000); Retry::spawn(s, op).await; let t = ExponentialFactorBackoff::from_millis(500, 2.0); Retry::spawn(t, op).await; }",
        );
        assert!(matches!(
            f.sites[0].policy.kind,
            PolicyKind::Series {
                times: None,
                cap: Some(_),
                ratio: Ratio::Float(r, _),
                ..
            } if r == 2.0
        ));
        assert!(matches!(f.sites[1].policy.kind, PolicyKind::Unbounded(..)));
    }

    #[test]
    fn range_loops_that_sleep_are_retries_and_plain_loops_are_not() {
        let f = read(
            "fn f(k: &str) { let mut delay = Duration::from_secs(60); for _ in 0..10 { send(k); sleep(delay); delay *= 2; } for p in payouts { send(p); sleep(d); } for _ in 0..3 { send(k); } }",
        );
        assert_eq!(f.sites.len(), 1);
        let PolicyKind::Series {
            ratio: Ratio::Int(ConstExpr::Int(2), _),
            ..
        } = &f.sites[0].policy.kind
        else {
            panic!("{:?}", f.sites[0].policy.kind);
        };
    }
}
