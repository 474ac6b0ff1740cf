//! Code that runs again, and keys made fresh inside it: a function under a
//! retry decorator (tenacity's `@retry`, backoff's `@backoff.on_exception`,
//! stamina's `@stamina.retry`: `[[retry]]` of `rules/effects.toml`), a
//! Celery task that retries itself (`autoretry_for=`, or `self.retry(..)`
//! in a `bind=True` task), and a retry loop (`for attempt in range(n):`
//! or `while True:` around a `try` that sleeps or counts attempts). A key
//! is fresh when a generator of `rules/effects.toml` `[[fresh_key]]`
//! (`uuid4()`, `uuid.uuid4()`, `secrets.token_hex()`) makes it, in place
//! (`idempotency_key=str(uuid4())`) or in a name bound inside that code.
//! Sent as: an `idempotency_key=` argument (stripe-python and most Python
//! SDKs), an `"idempotency_key"` option, or an idempotency header of
//! `rules/headers.toml` in a `headers` dict.

use super::syntax::{kwarg, path_of, span_of, string_value};
use crate::facts::retry::Minter;
use crate::knowledge::{self, CallShape, Name};
use crate::source::Span;
use ruff_python_ast::visitor::{walk_expr, Visitor};
use ruff_python_ast::{Expr, ExprCall, Stmt, StmtFunctionDef};
use std::collections::HashMap;

/// Code that runs again.
#[derive(Debug, Clone)]
pub struct Scope {
    /// The decorator, the task's option or the loop's header.
    pub at: Span,
    /// What runs again.
    pub body: Span,
    pub what: String,
}

/// A value made fresh.
#[derive(Debug, Clone)]
pub struct Fresh {
    /// The generator as written (`uuid4()`).
    pub what: String,
    pub at: Span,
    /// Where a name was bound to it (`None`: written in place).
    pub bound: Option<Span>,
    /// A zero-argument call of the project's own (`self._idempotency_key()`,
    /// `new_key()`): fresh only if that function mints (`Minter`).
    pub helper: Option<String>,
    /// Beside it, a part that names the input the key is for (`event.id`
    /// in `f"{event.id}-{time.time()}"`).
    pub from: Option<String>,
}

/// Attributes that cut a time to a period (`now.strftime("%Y-%m")`,
/// `now.date()`, `now.year`): a bucket the same for every call in it, not
/// a value made fresh.
const BUCKETS: &[&str] = &["strftime", "date", "year", "month", "day", "isocalendar"];

/// Modules whose attributes (`uuid.uuid4`, `datetime.now`) are no input.
const MODULES: &[&str] = &[
    "uuid", "datetime", "time", "timezone", "secrets", "os", "random", "hashlib", "base64", "json",
    "settings", "math", "str", "int",
];

/// The retry that runs `f`'s whole body again, if any.
pub fn retried_function(f: &StmtFunctionDef) -> Option<Scope> {
    let body = Span::new(
        f.body.first().map_or(0, |s| span_of(s).start),
        f.body.last().map_or(0, |s| span_of(s).end),
    );
    for d in &f.decorator_list {
        let e = &d.expression;
        let (p, call) = match e {
            Expr::Call(c) => (path_of(&c.func), Some(c)),
            e => (path_of(e), None),
        };
        let Some(p) = p else { continue };
        let names: Vec<Name> = p.iter().map(|s| Name::from(s.as_str())).collect();
        if CallShape::path(&names).any_of(&knowledge::effects().retry) {
            return Some(Scope {
                at: span_of(d),
                body,
                what: format!("function under `@{}`", p.join(".")),
            });
        }
        // Celery: `@shared_task(autoretry_for=(..))`, `@app.task(..)`.
        let task = p.last().is_some_and(|l| l == "task" || l == "shared_task");
        if let (true, Some(c)) = (task, call) {
            if let Some(a) = kwarg(c, "autoretry_for") {
                return Some(Scope {
                    at: span_of(a),
                    body,
                    what: "Celery task with `autoretry_for`".to_string(),
                });
            }
            if let Some(r) = self_retry(f) {
                return Some(Scope {
                    at: r,
                    body,
                    what: "Celery task that calls `self.retry()`".to_string(),
                });
            }
        }
    }
    None
}

/// `self.retry(..)` (or `raise self.retry(..)`) in a bound task's body.
fn self_retry(f: &StmtFunctionDef) -> Option<Span> {
    struct Find(Option<Span>);
    impl<'a> Visitor<'a> for Find {
        fn visit_expr(&mut self, e: &'a Expr) {
            if let Expr::Call(c) = e {
                if path_of(&c.func).is_some_and(|p| p == ["self", "retry"]) {
                    self.0.get_or_insert(span_of(c));
                }
            }
            walk_expr(self, e);
        }
    }
    let mut find = Find(None);
    for s in &f.body {
        find.visit_stmt(s);
    }
    find.0
}

/// A loop that retries: `for attempt in range(n):` whose body tries
/// something, or `while ..:` whose body tries and sleeps.
pub fn retry_loop(s: &Stmt) -> Option<Scope> {
    let (body, header, what) = match s {
        Stmt::For(f) => {
            let Expr::Call(c) = &*f.iter else { return None };
            if path_of(&c.func).is_none_or(|p| p != ["range"]) {
                return None;
            }
            let var = match &*f.target {
                Expr::Name(n) => n.id.to_string(),
                _ => return None,
            };
            let counts = ["attempt", "retr", "try", "tries"]
                .iter()
                .any(|w| var.contains(w))
                || var == "_";
            if !counts && !sleeps(&f.body) {
                return None;
            }
            let header = Span::new(span_of(f).start, span_of(&*f.iter).end);
            (&f.body, header, format!("`for {var} in range(..)` loop"))
        }
        Stmt::While(w) => {
            if !sleeps(&w.body) {
                return None;
            }
            let header = Span::new(span_of(w).start, span_of(&*w.test).end);
            (&w.body, header, "`while` retry loop".to_string())
        }
        _ => return None,
    };
    if !body.iter().any(|s| matches!(s, Stmt::Try(_))) {
        return None;
    }
    Some(Scope {
        at: header,
        body: Span::new(
            body.first().map_or(0, |s| span_of(s).start),
            body.last().map_or(0, |s| span_of(s).end),
        ),
        what,
    })
}

/// Whether a body calls a `sleep` (`time.sleep`, `asyncio.sleep`).
fn sleeps(body: &[Stmt]) -> bool {
    struct Find(bool);
    impl<'a> Visitor<'a> for Find {
        fn visit_expr(&mut self, e: &'a Expr) {
            if let Expr::Call(c) = e {
                if path_of(&c.func).is_some_and(|p| p.last().is_some_and(|l| l == "sleep")) {
                    self.0 = true;
                }
            }
            walk_expr(self, e);
        }
    }
    let mut f = Find(false);
    for s in body {
        f.visit_stmt(s);
    }
    f.0
}

/// The value `c` sends as its `idempotency_key=` argument (stripe-python
/// and most Python SDKs), and how.
pub fn keys_sent(c: &ExprCall) -> Vec<(&Expr, String)> {
    kwarg(c, "idempotency_key")
        .map(|v| (v, "as the `idempotency_key` argument".to_string()))
        .into_iter()
        .collect()
}

/// Words of a receiver that sends a request rather than stores a row
/// (`stripe.Refund.create`, `self.client.payouts.create`,
/// `stripe_service.transfer`): an ORM's `transaction.events.create(..,
/// idempotency_key=str(uuid4()))` stores a key minted once for the work,
/// the fix and not a finding.
const SENDERS: &[&str] = &[
    "client",
    "service",
    "api",
    "sdk",
    "gateway",
    "psp",
    "provider",
    "connector",
];

/// Whether `c`'s receiver names a provider (`rules/counterparties.toml`)
/// or a client.
pub fn sends_out(c: &ExprCall) -> bool {
    let Some(path) = path_of(&c.func) else {
        return false;
    };
    let receiver = &path[..path.len().saturating_sub(1)];
    let providers = &knowledge::counterparties().counterparty;
    receiver.iter().any(|part| {
        let part = part.to_ascii_lowercase();
        SENDERS.iter().any(|w| part.contains(w))
            || providers
                .iter()
                .any(|p| p.r#match.iter().any(|m| part.contains(m.as_str())))
    })
}

/// The values a dict literal holds under an idempotency header or an
/// `idempotency_key` entry: options or headers built to be sent, passed
/// in place (`self.request(method, url, {**headers, "Idempotency-Key":
/// k})`) or through a name (`params = {..}; Transfer.create_reversal(id,
/// **params)`).
pub fn dict_keys(d: &ruff_python_ast::ExprDict) -> Vec<(&Expr, String)> {
    d.items
        .iter()
        .filter_map(|item| Some((&item.value, key_slot(item.key.as_ref()?, "option")?)))
        .collect()
}

/// How a dict entry or an assignment's target sends a key: a header of
/// `rules/headers.toml` (`"Idempotency-Key"`), or an `idempotency_key`
/// entry or attribute.
pub fn key_slot(target: &Expr, entry: &str) -> Option<String> {
    match target {
        Expr::Attribute(a) if a.attr.id.as_str() == "idempotency_key" => {
            Some("as the `idempotency_key` attribute".to_string())
        }
        Expr::Subscript(s) => key_slot(&s.slice, "entry"),
        e => {
            let k = string_value(e)?;
            if k.eq_ignore_ascii_case("idempotency_key") {
                Some(format!("as the `{k}` {entry}"))
            } else if is_idempotency_header(&k) {
                Some(format!("as the `{k}` header"))
            } else {
                None
            }
        }
    }
}

fn is_idempotency_header(name: &str) -> bool {
    let h = knowledge::headers();
    h.canonical
        .iter()
        .chain(h.legitimate.iter().filter(|l| l.header))
        .any(|c| c.name.eq_ignore_ascii_case(name))
}

/// The generator that makes `e` fresh: written in `e`, or `e` names a
/// binding of one.
pub fn fresh_value(e: &Expr, bound: &HashMap<String, Fresh>) -> Option<Fresh> {
    struct Find<'b> {
        bound: &'b HashMap<String, Fresh>,
        found: Option<Fresh>,
        helper: Option<Fresh>,
    }
    impl<'a> Visitor<'a> for Find<'_> {
        fn visit_expr(&mut self, e: &'a Expr) {
            if self.found.is_some() {
                return;
            }
            match e {
                Expr::Name(n) => {
                    self.found = self.bound.get(n.id.as_str()).cloned();
                    return;
                }
                Expr::Call(c) => {
                    if let Some(what) = generator(c) {
                        self.found = Some(Fresh {
                            what,
                            at: span_of(c),
                            bound: None,
                            helper: None,
                            from: None,
                        });
                        return;
                    }
                    // A generator written anywhere in `e` comes first.
                    if let (Some(name), None) = (helper(c), &self.helper) {
                        self.helper = Some(Fresh {
                            what: format!("{name}()"),
                            at: span_of(c),
                            bound: None,
                            helper: Some(name),
                            from: None,
                        });
                    }
                }
                // A lambda or a comprehension's own names are not the key.
                Expr::Lambda(_) => return,
                Expr::Attribute(a) if BUCKETS.contains(&a.attr.id.as_str()) => return,
                // `payout.get("idempotency_key") or str(uuid4())`: a key made
                // only where the caller gave none, a client's default.
                Expr::BoolOp(b) if b.op == ruff_python_ast::BoolOp::Or => return,
                _ => {}
            }
            walk_expr(self, e);
        }
    }
    let mut f = Find {
        bound,
        found: None,
        helper: None,
    };
    f.visit_expr(e);
    f.found.or(f.helper).map(|mut x| {
        if x.bound.is_none() && !matches!(e, Expr::Name(_)) {
            x.bound = Some(span_of(e));
        }
        if x.from.is_none() {
            x.from = input_part(e, bound);
        }
        x
    })
}

/// Whether a test reads an idempotency key (`options.idempotency_key is
/// None`, `"Idempotency-Key" not in headers`, `if not idempotency_key:`).
pub fn names_key(test: &Expr) -> bool {
    struct Find(bool);
    impl<'a> Visitor<'a> for Find {
        fn visit_expr(&mut self, e: &'a Expr) {
            let named = match e {
                Expr::Attribute(a) => a.attr.id.as_str().contains("idempotency"),
                Expr::Name(n) => n.id.as_str().contains("idempotency"),
                e => string_value(e).is_some_and(|s| {
                    s.eq_ignore_ascii_case("idempotency_key") || is_idempotency_header(&s)
                }),
            };
            self.0 |= named;
            walk_expr(self, e);
        }
    }
    let mut f = Find(false);
    f.visit_expr(test);
    f.0
}

/// Whether a test asks that a value is there (`key is not None`, `key !=
/// ""`, `"Idempotency-Key" in headers`, a bare `key`): the code under it
/// replaces or uses the caller's key, it does not default one.
pub fn tests_present(test: &Expr) -> bool {
    use ruff_python_ast::CmpOp;
    match test {
        Expr::Compare(c) => c
            .ops
            .iter()
            .any(|o| matches!(o, CmpOp::IsNot | CmpOp::NotEq | CmpOp::In)),
        Expr::Name(_) | Expr::Attribute(_) | Expr::Subscript(_) | Expr::Call(_) => true,
        _ => false,
    }
}

/// The first attribute of `e` that names its input (`event.id`,
/// `self.order_id`): on a name that is neither a module nor bound to a
/// fresh value.
fn input_part(e: &Expr, bound: &HashMap<String, Fresh>) -> Option<String> {
    struct Find<'b> {
        bound: &'b HashMap<String, Fresh>,
        found: Option<String>,
    }
    impl<'a> Visitor<'a> for Find<'_> {
        fn visit_expr(&mut self, e: &'a Expr) {
            if self.found.is_some() {
                return;
            }
            if let Expr::Attribute(a) = e {
                if let Expr::Name(n) = &*a.value {
                    let base = n.id.as_str();
                    if !MODULES.contains(&base) && !self.bound.contains_key(base) {
                        self.found = Some(format!("{base}.{}", a.attr.id));
                        return;
                    }
                }
            }
            match e {
                Expr::Lambda(_) => return,
                // A call's callee (`self._new_key()`) is no input; its
                // arguments may be.
                Expr::Call(c) => {
                    for a in c.arguments.args.iter() {
                        self.visit_expr(a);
                    }
                    for k in c.arguments.keywords.iter() {
                        self.visit_expr(&k.value);
                    }
                    if let Expr::Attribute(a) = &*c.func {
                        if !matches!(&*a.value, Expr::Name(_)) {
                            self.visit_expr(&a.value);
                        }
                    }
                    return;
                }
                _ => {}
            }
            walk_expr(self, e);
        }
    }
    let mut f = Find { bound, found: None };
    f.visit_expr(e);
    f.found
}

/// A zero-argument call of a function of the module or of `self`/`cls`
/// (`new_key()`, `self._idempotency_key()`): the function's name.
fn helper(c: &ExprCall) -> Option<String> {
    if !c.arguments.args.is_empty() || !c.arguments.keywords.is_empty() {
        return None;
    }
    match path_of(&c.func)?.as_slice() {
        [name] => Some(name.clone()),
        [this, name] if this == "self" || this == "cls" => Some(name.clone()),
        _ => None,
    }
}

/// A function with no parameter but `self` or `cls` that returns a value
/// made fresh in its body (`def _idempotency_key(self): return
/// f"retry-{uuid.uuid4()}"`): a minter of keys.
pub fn minter(f: &StmtFunctionDef) -> Option<Minter> {
    let p = &f.parameters;
    let own = p
        .args
        .iter()
        .map(|a| a.parameter.name.id.as_str())
        .filter(|n| *n != "self" && *n != "cls")
        .count()
        + p.posonlyargs.len()
        + p.kwonlyargs.len();
    if own > 0 || p.vararg.is_some() || p.kwarg.is_some() {
        return None;
    }
    // `b = os.urandom(16)` then `return f"{b[0:4].hex()}-.."`.
    let mut bound = HashMap::new();
    let mut direct = None;
    for s in &f.body {
        match s {
            Stmt::Assign(a) => {
                let fresh = fresh_value(&a.value, &bound).filter(|x| x.helper.is_none());
                for t in &a.targets {
                    if let (Expr::Name(n), Some(x)) = (t, &fresh) {
                        bound.insert(n.id.to_string(), x.clone());
                    }
                }
            }
            Stmt::Return(r) => {
                direct = r
                    .value
                    .as_deref()
                    .and_then(|v| fresh_value(v, &bound))
                    .filter(|x| x.helper.is_none());
                break;
            }
            _ => {}
        }
    }
    let direct = direct?;
    Some(Minter {
        name: f.name.id.to_string(),
        owner: None,
        direct: Some(direct.what),
        callees: Vec::new(),
    })
}

/// A call of a fresh-key generator (`uuid4()`, `uuid.uuid4()`).
fn generator(c: &ExprCall) -> Option<String> {
    let p = path_of(&c.func)?;
    let names: Vec<Name> = p.iter().map(|s| Name::from(s.as_str())).collect();
    CallShape::path(&names)
        .any_of(&knowledge::effects().fresh_key)
        .then(|| format!("{}()", p.join(".")))
}
