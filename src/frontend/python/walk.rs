//! One walk of a module's functions in source order, with what each
//! function binds: the Redis and cache writes it makes (`redis`) with the
//! keys' sources (`keys`), and the keys it makes fresh and sends as an
//! idempotency key inside code that runs again (`retry`).

use super::keys::Sources;
use super::redis::{self, Client};
use super::retry::{self, Fresh, Scope};
use super::syntax::{duration_expr, literal_prefix, path_of, span_of};
use crate::facts::retention::ConstExpr;
use crate::facts::retry::{FreshKind, FreshSend, Maker, Minter};
use crate::frontend::key_writes::KeyWrite;
use crate::source::Span;
use ruff_python_ast::visitor::{walk_expr, walk_stmt, Visitor};
use ruff_python_ast::{Expr, ExprCall, Stmt, StmtFunctionDef};
use std::collections::HashMap;

/// What one function binds.
#[derive(Default)]
struct Frame {
    name: Option<String>,
    /// The function's name.
    name_span: Span,
    sources: Sources,
    /// Local names bound to a literal-prefixed key.
    prefixes: HashMap<String, String>,
    /// Local names bound to a duration or number.
    lets: HashMap<String, ConstExpr>,
    /// Local names bound to a fresh value: the generator, where.
    fresh: HashMap<String, Fresh>,
    /// The decorator or task options that run the whole body again.
    retried: Option<Scope>,
}

pub struct Walk {
    frames: Vec<Frame>,
    /// Module-level names bound to a client's constructor, or to
    /// something else (`None`): a name bound so is not a client by name.
    clients: HashMap<String, Option<Client>>,
    /// Retry loops open around the current statement.
    loops: Vec<Scope>,
    /// The `if` tests being walked: an `NX` set inside one is a claim.
    tests: Vec<Span>,
    /// Inside `if` statements whose test reads the key (`if
    /// options.idempotency_key is None:`): a key made there is a default
    /// for a caller that gave none (a client's own, for its resends).
    defaulting: usize,
    /// Inside loops that retry nothing (`for order in orders:`): a key
    /// made fresh per item is one per request, not per rerun.
    item_loops: usize,
    pub writes: Vec<KeyWrite>,
    pub fresh: Vec<FreshSend>,
    /// The module's functions that return a key made fresh.
    pub minters: Vec<Minter>,
}

impl Walk {
    pub fn new() -> Self {
        Walk {
            frames: vec![Frame::default()],
            clients: HashMap::new(),
            loops: Vec::new(),
            tests: Vec::new(),
            defaulting: 0,
            item_loops: 0,
            writes: Vec::new(),
            fresh: Vec::new(),
            minters: Vec::new(),
        }
    }

    fn top(&self) -> &Frame {
        self.frames
            .last()
            .expect("the module's frame is never popped")
    }

    fn top_mut(&mut self) -> &mut Frame {
        self.frames
            .last_mut()
            .expect("the module's frame is never popped")
    }

    fn client(&self, receiver: &[String]) -> Option<Client> {
        let last = receiver.last()?;
        if let Some(c) = self.clients.get(last.as_str()) {
            return *c;
        }
        redis::by_name(last)
    }

    fn assign(&mut self, target: &Expr, value: &Expr) {
        let name = match target {
            Expr::Name(n) => n.id.to_string(),
            // `self.redis = redis.Redis(..)`.
            Expr::Attribute(a) => {
                if let Some(c) = redis::built(value) {
                    self.clients.insert(a.attr.id.to_string(), Some(c));
                }
                return;
            }
            _ => return,
        };
        let built = redis::built(value);
        if built.is_some() || matches!(value, Expr::Call(_)) {
            self.clients.insert(name.clone(), built);
        }
        let prefix = literal_prefix(value);
        let expr = duration_expr(value);
        let fresh = retry::fresh_value(value, &self.top().fresh);
        let f = self.top_mut();
        f.sources.assign(&name, value);
        match prefix {
            Some(p) => f.prefixes.insert(name.clone(), p),
            None => f.prefixes.remove(&name),
        };
        if expr == ConstExpr::Unknown {
            f.lets.remove(&name);
        } else {
            f.lets.insert(name.clone(), expr);
        }
        match fresh {
            Some(g) => f.fresh.insert(name, g),
            None => f.fresh.remove(&name),
        };
    }

    fn call(&mut self, c: &ExprCall) {
        self.sends(c);
        let Some(path) = path_of(&c.func) else { return };
        let Expr::Attribute(a) = &*c.func else { return };
        let method = a.attr.id.as_str();
        let receiver = &path[..path.len() - 1];
        let Some(client) = self.client(receiver) else {
            return;
        };
        let Some(r) = redis::read(c, method, client) else {
            return;
        };
        let at = span_of(c);
        let f = self.top();
        let source = f.sources.source(r.key);
        let prefix = literal_prefix(r.key).or_else(|| match r.key {
            Expr::Name(n) => f.prefixes.get(n.id.as_str()).cloned(),
            _ => None,
        });
        let ttl = r.ttl.map(|(e, s, u)| (substitute(e, &f.lets), s, Some(u)));
        let claim = r.nx
            && self
                .tests
                .iter()
                .any(|t| t.start <= at.start && at.end <= t.end);
        self.writes.push(KeyWrite {
            at,
            prefix,
            ttl,
            nx: r.nx,
            source,
            fn_name: f.name.clone(),
            // Django's cache API keeps a key for its `timeout`.
            via: if client == Client::Cache {
                "cache timeout"
            } else {
                "Redis expiry"
            },
            claim,
        });
    }

    /// The keys `c` sends as an idempotency key that are made fresh inside
    /// code that runs again.
    fn sends(&mut self, c: &ExprCall) {
        let sent = retry::keys_sent(c);
        let out = retry::sends_out(c);
        self.record(sent, out);
    }

    /// An idempotency key set by assignment inside code that runs again:
    /// `options.idempotency_key = ..`, `headers["Idempotency-Key"] = ..`.
    fn sets(&mut self, target: &Expr, value: &Expr) {
        if let Some(how) = retry::key_slot(target, "entry") {
            self.record(vec![(value, how)], true);
        }
    }

    /// Of the keys sent (the value, how), those made fresh: on each pass of
    /// the retry around them, or else on each call of the function (beside
    /// the input they key, or alone: only where `out`, the call sends a
    /// request). A key made once before the retry is the fix, not a finding.
    fn record(&mut self, sent: Vec<(&Expr, String)>, out: bool) {
        let scope = self.loops.last().or(self.top().retried.as_ref()).cloned();
        let f = self.top();
        if f.name.is_none() {
            return;
        }
        let function = f.name_span;
        let mut found: Vec<FreshSend> = Vec::new();
        for (sent, how) in sent {
            let Some(fresh) = retry::fresh_value(sent, &f.fresh) else {
                continue;
            };
            let kind = match &scope {
                // A key bound before the loop is the same on every pass.
                Some(s) if fresh.bound.is_some_and(|b| b.start < s.body.start) => continue,
                Some(s) => FreshKind::Retried {
                    scope: s.at,
                    what: s.what.clone(),
                },
                None if self.defaulting > 0 || !out => continue,
                // A helper's minting is known only where its file is read:
                // outside a retry, only a generator written here counts.
                None if fresh.helper.is_some() => continue,
                None => match fresh.from {
                    Some(from) => FreshKind::Mixed { from },
                    None if self.item_loops > 0 => continue,
                    None => FreshKind::PerCall,
                },
            };
            let seen = |x: &FreshSend| x.at == fresh.at && x.sent == span_of(sent);
            if self.fresh.iter().chain(&found).any(seen) {
                continue;
            }
            let maker = match fresh.helper {
                Some(name) => Maker::Helper { name, owner: None },
                None => Maker::Generator(fresh.what.clone()),
            };
            found.push(FreshSend {
                function,
                kind,
                maker,
                at: fresh.at,
                sent: span_of(sent),
                how,
            });
        }
        self.fresh.extend(found);
    }

    fn function(&mut self, f: &StmtFunctionDef) {
        self.minters.extend(retry::minter(f));
        let retried = retry::retried_function(f);
        self.frames.push(Frame {
            name: Some(f.name.id.to_string()),
            name_span: span_of(&f.name),
            retried,
            ..Frame::default()
        });
        let loops = std::mem::take(&mut self.loops);
        for s in &f.body {
            self.visit_stmt(s);
        }
        self.loops = loops;
        self.frames.pop();
    }
}

/// `e` with each local name `lets` binds replaced by its value.
fn substitute(e: ConstExpr, lets: &HashMap<String, ConstExpr>) -> ConstExpr {
    let b = |x: Box<ConstExpr>| Box::new(substitute(*x, lets));
    match e {
        ConstExpr::Ref(n) => lets.get(&n).cloned().unwrap_or(ConstExpr::Ref(n)),
        ConstExpr::Add(l, r) => ConstExpr::Add(b(l), b(r)),
        ConstExpr::Sub(l, r) => ConstExpr::Sub(b(l), b(r)),
        ConstExpr::Mul(l, r) => ConstExpr::Mul(b(l), b(r)),
        ConstExpr::Div(l, r) => ConstExpr::Div(b(l), b(r)),
        ConstExpr::Dur { ms, arg } => ConstExpr::Dur { ms, arg: b(arg) },
        ConstExpr::ToInt { ms, arg } => ConstExpr::ToInt { ms, arg: b(arg) },
        other => other,
    }
}

impl<'a> Visitor<'a> for Walk {
    fn visit_stmt(&mut self, s: &'a Stmt) {
        match s {
            Stmt::FunctionDef(f) => {
                for d in &f.decorator_list {
                    self.visit_expr(&d.expression);
                }
                self.function(f);
            }
            Stmt::Assign(a) => {
                self.visit_expr(&a.value);
                for t in &a.targets {
                    self.sets(t, &a.value);
                    self.assign(t, &a.value);
                }
            }
            Stmt::AnnAssign(a) => {
                if let Some(v) = &a.value {
                    self.visit_expr(v);
                    self.assign(&a.target, v);
                }
            }
            Stmt::If(i) => {
                let defaulting = retry::names_key(&i.test) && !retry::tests_present(&i.test);
                self.defaulting += usize::from(defaulting);
                self.if_statement(i);
                self.defaulting -= usize::from(defaulting);
            }
            Stmt::For(_) | Stmt::While(_) => match retry::retry_loop(s) {
                Some(scope) => {
                    self.loops.push(scope);
                    walk_stmt(self, s);
                    self.loops.pop();
                }
                None => {
                    self.item_loops += 1;
                    walk_stmt(self, s);
                    self.item_loops -= 1;
                }
            },
            _ => walk_stmt(self, s),
        }
    }

    fn visit_expr(&mut self, e: &'a Expr) {
        match e {
            Expr::Call(c) => self.call(c),
            // `if (seen := cache.add(..))`.
            Expr::Named(n) => {
                walk_expr(self, e);
                self.assign(&n.target, &n.value);
                return;
            }
            Expr::Lambda(_) => return,
            Expr::Dict(d) => self.record(retry::dict_keys(d), true),
            _ => {}
        }
        walk_expr(self, e);
    }
}

impl Walk {
    /// An `if` statement: its tests as tests, its bodies in order.
    fn if_statement(&mut self, i: &ruff_python_ast::StmtIf) {
        self.tests.push(span_of(&*i.test));
        self.visit_expr(&i.test);
        self.tests.pop();
        for b in &i.body {
            self.visit_stmt(b);
        }
        for c in &i.elif_else_clauses {
            if let Some(t) = &c.test {
                self.tests.push(span_of(t));
                self.visit_expr(t);
                self.tests.pop();
            }
            for b in &c.body {
                self.visit_stmt(b);
            }
        }
    }
}
