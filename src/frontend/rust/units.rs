//! Unit slips: a duration read in another unit than it is written in.
//!
//! Two forms, both written the same way in every codebase:
//! - a value whose name says milliseconds handed to a constructor in
//!   seconds, or the reverse (`Duration::from_secs(cfg.retry_delay_ms)`,
//!   `schedule_ms.into_iter().map(Duration::from_secs)`,
//!   `chrono::Duration::milliseconds(ttl_secs)`): every delay a thousand
//!   times longer, or every retention a thousand times shorter;
//! - a comparison or difference of a count of milliseconds with a count of
//!   seconds (`elapsed.as_millis() <= ttl.as_secs()`), each side converted
//!   by a method that names its unit.
//!
//! Only a slip whose names say what the duration is for is kept: a
//! retention (`ttl`, `expir…`, `retention`) or a retry (`retry`, `backoff`,
//! `schedule`). Arithmetic on either side (`timeout_ms / 1000`,
//! `ttl.as_secs() * 1000`) is a conversion, not a slip: nothing is read
//! there.

use crate::facts::retention::{Purpose, UnitSlip};
use crate::source::Span;
use syn::visit::{self, Visit};

/// Words without which a file holds no slip: every slip has a side in
/// milliseconds, named (`_ms`, `_millis`) or converted (`as_millis`,
/// `from_millis`, `num_milliseconds`). The prefilter admits a Rust file
/// that holds one (late: only when its package holds a store or a keyed
/// request, as the rules judge a slip only there); a test holds
/// `rules/prefilter.toml` to this list.
// `_ms` only where a name ends (`retry_ms)`, `ttl_ms: u64`), never inside
// one: `error_msg` is in most files of a large tree.
pub const WORDS: &[&str] = &[
    "_ms)",
    "_ms,",
    "_ms.",
    "_ms:",
    "_ms ",
    "_ms;",
    "_ms]",
    "_ms}",
    "_ms=",
    "_millis",
    "milliseconds",
];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Unit {
    Millis,
    Secs,
}

impl Unit {
    fn word(self) -> &'static str {
        match self {
            Unit::Millis => "milliseconds",
            Unit::Secs => "seconds",
        }
    }
}

/// Whether a file may hold a slip ([`WORDS`]).
pub fn may_hold(text: &str) -> bool {
    WORDS
        .iter()
        .any(|w| crate::knowledge::contains_ignore_ascii_case(text, w))
}

/// The constructors and conversions a slip is read through
/// ([`ctor_unit`], [`method_unit`]): a slip's text names one of them.
const READERS: &[&str] = &[
    "Duration",
    "TimeDelta",
    "as_secs",
    "as_millis",
    "num_seconds",
    "num_milliseconds",
    "whole_seconds",
    "whole_milliseconds",
];

/// Whether a file may hold a slip: a word of [`WORDS`] (the milliseconds
/// side, without which the visitor does not run), a seconds side (every
/// name, constructor and conversion in seconds says `sec`), a constructor
/// or conversion of [`READERS`], and a name that says what the duration
/// is for ([`purpose`]). A file without all four holds none.
pub fn may_slip(text: &str) -> bool {
    let ci = |w: &str| crate::knowledge::contains_ignore_ascii_case(text, w);
    may_hold(text)
        && ci("sec")
        && READERS.iter().any(|r| text.contains(r))
        && PURPOSE_WORDS.iter().any(|w| ci(w))
}

/// Every word [`purpose`] reads a name for.
const PURPOSE_WORDS: &[&str] = &[
    "ttl",
    "expir",
    "retention",
    "idempot",
    "dedup",
    "retry",
    "retries",
    "backoff",
    "schedule",
];

/// The unit a name's suffix gives (`retry_delay_ms`, `ttl_secs`,
/// `TIMEOUT_MILLIS`); snake case only.
fn name_unit(name: &str) -> Option<Unit> {
    let l = name.to_ascii_lowercase();
    let tail = l.rsplit('_').next().filter(|_| l.contains('_'))?;
    match tail {
        "ms" | "millis" | "msec" | "msecs" | "milliseconds" => Some(Unit::Millis),
        "secs" | "sec" | "seconds" => Some(Unit::Secs),
        _ => None,
    }
}

/// The unit a `Duration` constructor takes (`std::time`, `chrono`,
/// `time`): its last two segments.
fn ctor_unit(path: &syn::Path) -> Option<Unit> {
    let segs: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
    let n = segs.len();
    if n < 2 || !matches!(segs[n - 2].as_str(), "Duration" | "TimeDelta") {
        return None;
    }
    match segs[n - 1].as_str() {
        "from_secs" | "from_secs_f64" | "from_secs_f32" | "seconds" | "try_seconds" => {
            Some(Unit::Secs)
        }
        "from_millis" | "milliseconds" | "try_milliseconds" => Some(Unit::Millis),
        _ => None,
    }
}

/// The unit a conversion method gives (`d.as_millis()`, `td.num_seconds()`).
fn method_unit(name: &str) -> Option<Unit> {
    match name {
        "as_secs" | "as_secs_f64" | "as_secs_f32" | "num_seconds" | "whole_seconds" => {
            Some(Unit::Secs)
        }
        "as_millis" | "as_millis_f64" | "as_millis_f32" | "num_milliseconds"
        | "whole_milliseconds" => Some(Unit::Millis),
        _ => None,
    }
}

/// An expression with no arithmetic: casts, references, brackets, `?`,
/// `.await` and `T::from(..)` looked through.
fn peel(e: &syn::Expr) -> &syn::Expr {
    match e {
        syn::Expr::Paren(p) => peel(&p.expr),
        syn::Expr::Cast(c) => peel(&c.expr),
        syn::Expr::Reference(r) => peel(&r.expr),
        syn::Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => peel(&u.expr),
        syn::Expr::Try(t) => peel(&t.expr),
        syn::Expr::Await(a) => peel(&a.base),
        syn::Expr::Call(c) if c.args.len() == 1 && is_int_conversion(&c.func) => peel(&c.args[0]),
        syn::Expr::MethodCall(m)
            if matches!(
                m.method.to_string().as_str(),
                "into" | "try_into" | "unwrap" | "unwrap_or_default" | "clone"
            ) =>
        {
            peel(&m.receiver)
        }
        other => other,
    }
}

/// `u128::from`, `u64::try_from`, `i64::from`.
fn is_int_conversion(func: &syn::Expr) -> bool {
    let syn::Expr::Path(p) = func else {
        return false;
    };
    let segs = super::path_idents(&p.path);
    segs.len() == 2
        && matches!(segs[1].as_str(), "from" | "try_from")
        && segs[0].len() >= 2
        && matches!(segs[0].as_bytes()[0], b'u' | b'i')
        && segs[0][1..].bytes().all(|b| b.is_ascii_digit())
}

/// The unit of a side of a comparison: a conversion method that names it.
fn side_unit(e: &syn::Expr) -> Option<Unit> {
    match peel(e) {
        syn::Expr::MethodCall(m) => method_unit(&m.method.to_string()),
        _ => None,
    }
}

/// The name a plain value is read from (`cfg.retry_delay_ms` →
/// `retry_delay_ms`), when it has no arithmetic.
fn value_name(e: &syn::Expr) -> Option<String> {
    match peel(e) {
        syn::Expr::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
        syn::Expr::Field(f) => match &f.member {
            syn::Member::Named(n) => Some(n.to_string()),
            syn::Member::Unnamed(_) => None,
        },
        _ => None,
    }
}

/// Every identifier of an expression's text, field and method names
/// included.
pub(super) fn idents(e: &syn::Expr) -> Vec<String> {
    let mut out = Vec::new();
    fn walk(ts: proc_macro2::TokenStream, out: &mut Vec<String>) {
        for t in ts {
            match t {
                proc_macro2::TokenTree::Ident(i) => out.push(i.to_string()),
                proc_macro2::TokenTree::Group(g) => walk(g.stream(), out),
                _ => {}
            }
        }
    }
    walk(quote::ToTokens::to_token_stream(e), &mut out);
    out
}

/// What names say a duration is for.
fn purpose(names: &[String]) -> Option<Purpose> {
    let has = |words: &[&str]| {
        names.iter().any(|n| {
            let l = n.to_ascii_lowercase();
            words.iter().any(|w| l.contains(w))
        })
    };
    if has(&PURPOSE_WORDS[..5]) {
        Some(Purpose::Retention)
    } else if has(&PURPOSE_WORDS[5..]) {
        Some(Purpose::Retry)
    } else {
        None
    }
}

/// Finds the slips of a file, outside test code (`tests`: its test
/// regions).
#[derive(Default)]
pub struct Visitor {
    /// Names around the expression being read: the function, the field or
    /// binding it fills, the receivers of the calls it is an argument of.
    context: Vec<String>,
    pub out: Vec<UnitSlip>,
}

impl Visitor {
    fn with<F: FnOnce(&mut Self)>(&mut self, names: Vec<String>, f: F) {
        let n = self.context.len();
        self.context.extend(names);
        f(self);
        self.context.truncate(n);
    }

    fn push(&mut self, span: Span, what: String, names: &[String]) {
        let mut all = names.to_vec();
        all.extend(self.context.iter().cloned());
        if let Some(purpose) = purpose(&all) {
            self.out.push(UnitSlip {
                span,
                what,
                purpose,
            });
        }
    }

    /// `Duration::from_secs(delay_ms)`.
    fn ctor_call(&mut self, c: &syn::ExprCall) {
        let syn::Expr::Path(p) = &*c.func else {
            return;
        };
        let (Some(unit), Some(arg)) = (ctor_unit(&p.path), c.args.first()) else {
            return;
        };
        let Some(name) = value_name(arg) else {
            return;
        };
        if name_unit(&name).is_some_and(|u| u != unit) {
            let what = slip_text(&name, &p.path, unit);
            self.push(super::span::of(c), what, &[name]);
        }
    }

    /// `.map(Duration::from_secs)` over values named in another unit.
    fn ctor_path(&mut self, p: &syn::ExprPath) {
        let Some(unit) = ctor_unit(&p.path) else {
            return;
        };
        let named = self
            .context
            .iter()
            .rev()
            .find(|n| name_unit(n).is_some_and(|u| u != unit))
            .cloned();
        if let Some(name) = named {
            let what = slip_text(&name, &p.path, unit);
            self.push(super::span::of(p), what, &[name]);
        }
    }
}

fn slip_text(name: &str, path: &syn::Path, unit: Unit) -> String {
    let ctor: Vec<String> = path
        .segments
        .iter()
        .rev()
        .take(2)
        .map(|s| s.ident.to_string())
        .collect();
    let other = if unit == Unit::Secs {
        Unit::Millis
    } else {
        Unit::Secs
    };
    format!(
        "`{name}` ({}) is read by `{}::{}` ({})",
        other.word(),
        ctor[1],
        ctor[0],
        unit.word()
    )
}

impl<'ast> Visit<'ast> for Visitor {
    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        self.with(vec![f.sig.ident.to_string()], |v| {
            visit::visit_item_fn(v, f)
        });
    }

    fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
        self.with(vec![f.sig.ident.to_string()], |v| {
            visit::visit_impl_item_fn(v, f)
        });
    }

    fn visit_field_value(&mut self, f: &'ast syn::FieldValue) {
        let names = match &f.member {
            syn::Member::Named(n) => vec![n.to_string()],
            syn::Member::Unnamed(_) => Vec::new(),
        };
        self.with(names, |v| visit::visit_field_value(v, f));
    }

    fn visit_local(&mut self, l: &'ast syn::Local) {
        self.with(super::flow::pat_names(&l.pat), |v| visit::visit_local(v, l));
    }

    fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
        self.visit_expr(&m.receiver);
        let names = idents(&m.receiver);
        self.with(names, |v| {
            for a in &m.args {
                v.visit_expr(a);
            }
        });
    }

    fn visit_expr_call(&mut self, c: &'ast syn::ExprCall) {
        self.ctor_call(c);
        // The constructor's own path is not a value handed on.
        if ctor_path_of(&c.func) {
            for a in &c.args {
                self.visit_expr(a);
            }
        } else {
            visit::visit_expr_call(self, c);
        }
    }

    fn visit_expr_path(&mut self, p: &'ast syn::ExprPath) {
        self.ctor_path(p);
    }

    fn visit_expr_binary(&mut self, b: &'ast syn::ExprBinary) {
        use syn::BinOp as B;
        let compares = matches!(
            b.op,
            B::Lt(_) | B::Le(_) | B::Gt(_) | B::Ge(_) | B::Eq(_) | B::Ne(_) | B::Sub(_) | B::Add(_)
        );
        if let (true, Some(l), Some(r)) = (compares, side_unit(&b.left), side_unit(&b.right)) {
            if l != r {
                let text = |e: &syn::Expr| {
                    quote::ToTokens::to_token_stream(peel(e))
                        .to_string()
                        .replace(" . ", ".")
                        .replace(" (", "(")
                        .replace("( ", "(")
                        .replace(" )", ")")
                };
                let what = format!(
                    "`{}` ({}) is compared with `{}` ({})",
                    text(&b.left),
                    l.word(),
                    text(&b.right),
                    r.word()
                );
                let names = idents(&syn::Expr::Binary(b.clone()));
                self.push(super::span::of(b), what, &names);
            }
        }
        visit::visit_expr_binary(self, b);
    }
}

fn ctor_path_of(func: &syn::Expr) -> bool {
    matches!(func, syn::Expr::Path(p) if ctor_unit(&p.path).is_some())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn slips(src: &str) -> Vec<(String, Purpose)> {
        let file = syn::parse_file(src).unwrap();
        let mut v = Visitor::default();
        v.visit_file(&file);
        v.out.into_iter().map(|s| (s.what, s.purpose)).collect()
    }

    #[test]
    fn reads_a_millisecond_schedule_as_seconds() {
        let s = slips(
            "fn f(o: Opts) -> Cfg { Cfg { backoff: o.backoff_ms.map(|v| v.into_iter().map(Duration::from_secs).collect()) } }",
        );
        assert_eq!(s.len(), 1, "{s:?}");
        assert_eq!(s[0].1, Purpose::Retry);
        assert!(s[0].0.contains("`backoff_ms` (milliseconds)"), "{s:?}");
    }

    #[test]
    fn compares_milliseconds_with_seconds() {
        let s = slips("fn expired(e: &Entry) -> bool { e.born.elapsed().as_millis() > u128::from(e.ttl.as_secs()) }");
        assert_eq!(s.len(), 1, "{s:?}");
        assert_eq!(s[0].1, Purpose::Retention);
    }

    #[test]
    fn conversions_and_matching_units_are_no_slip() {
        assert!(
            slips("fn f(c: C) { let retry = Duration::from_secs(c.retry_delay_ms / 1000); }")
                .is_empty()
        );
        assert!(
            slips("fn f(c: C) { let retry = Duration::from_millis(c.retry_delay_ms); }").is_empty()
        );
        assert!(
            slips("fn f(e: E) -> bool { e.age.as_millis() > e.ttl.as_secs() as u128 * 1000 }")
                .is_empty()
        );
        assert!(slips("fn f(e: E) -> bool { e.age.as_millis() > e.ttl.as_millis() }").is_empty());
        // No name says what it is for.
        assert!(slips("fn f(c: C) { let t = Duration::from_secs(c.poll_ms); }").is_empty());
    }
}
