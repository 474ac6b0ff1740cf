//! Retries in TypeScript and the keys they resend: calls of a retry
//! wrapper of `rules/effects.toml` (`pRetry(fn, opts)`, async-retry's
//! `retry(fn, opts)`, exponential-backoff's `backOff(fn, opts)`) with
//! their policy (`rules/retry.toml` gives the defaults), and `for`/`while`
//! loops that await a sleep (`await sleep(ms)`, `await new Promise(r =>
//! setTimeout(r, ms))`). Inside one, a key made fresh by a generator of
//! `rules/effects.toml` (`randomUUID()`, `uuidv4()`, `nanoid()`,
//! `Date.now()`) and sent as the idempotency key (`{ idempotencyKey }`,
//! an `Idempotency-Key` header property) is a `FreshSend`; every such
//! option or header is a `KeyedRequest` for the retries that resend it.
//! Not here: BullMQ's `attempts` (the processor that a job re-runs is
//! joined to its queue by name, in another file), axios-retry (it resends
//! the same config, key included), header setters (`headers.set(..)`).

use super::scopes::Frames;
use super::syntax::{arg, bare, call_site, key_name, path_of, prop, span, span_of, string_value};
use crate::facts::headers::StrRole;
use crate::facts::retention::ConstExpr;
use crate::facts::retry::{
    default_ref, FreshKind, FreshSend, KeyedRequest, Maker, Policy, PolicyKind, Ratio, RetryClient,
    RetrySite, Setting, Shape,
};
use crate::facts::FileFacts;
use crate::knowledge::{self, CallShape, Name};
use crate::source::Span;
use oxc_ast::ast::{
    CallExpression, Expression, ObjectExpression, ObjectProperty, Program, Statement,
    VariableDeclarator,
};
use oxc_ast::AstKind;
use oxc_ast_visit::{walk, Visit};
use std::collections::HashMap;

/// Retry wrappers by the name they are called by: the package whose
/// defaults apply, and its option names for (attempts, first delay,
/// factor, largest delay, total time). `attempts` counts retries, except
/// exponential-backoff's `numOfAttempts`, which counts the first call.
const WRAPPERS: &[(&str, &str, [&str; 5])] = &[
    (
        "pRetry",
        "p-retry",
        [
            "retries",
            "minTimeout",
            "factor",
            "maxTimeout",
            "maxRetryTime",
        ],
    ),
    (
        "retry",
        "async-retry",
        [
            "retries",
            "minTimeout",
            "factor",
            "maxTimeout",
            "maxRetryTime",
        ],
    ),
    (
        "backOff",
        "exponential-backoff",
        [
            "numOfAttempts",
            "startingDelay",
            "timeMultiple",
            "maxDelay",
            "",
        ],
    ),
];

/// Calls a loop awaits between attempts (the last name of the callee).
const SLEEPS: &[&str] = &[
    "sleep",
    "delay",
    "wait",
    "setTimeout",
    "timeout",
    "pause",
    "backoff",
];

/// Option names that carry an idempotency key in a provider SDK's request
/// options (stripe-node's `{ idempotencyKey }`).
const KEY_OPTIONS: &[&str] = &["idempotencyKey", "idempotency_key"];

const MILLIS: u64 = 1;

/// Words without which a file holds no retry this pass reads (a wrapper,
/// a sleep a loop awaits) and sends no key (`idempot…`, a header name of
/// `rules/headers.toml`): a cheap screen before the walk.
pub(super) fn may_retry(text: &str) -> bool {
    // `wait(`, not `wait`: every `await` holds that.
    let words = [
        "idempot",
        "retry",
        "maxnetworkretries",
        "onretry",
        "publishjson",
        "enqueuejson",
        "meterevents",
        "backoff",
        "sleep",
        "settimeout",
        "delay",
        "wait(",
        "pause(",
        "timeout(",
    ];
    let h = knowledge::headers();
    words
        .iter()
        .any(|w| knowledge::contains_ignore_ascii_case(text, w))
        || h.header_named_in(text)
}

/// Read the file's retries, keyed requests and fresh keys into
/// `code.retry`.
pub(super) fn read(program: &Program, facts: &mut FileFacts) {
    let mut w = Walk {
        frames: Frames::new(program),
        scopes: Vec::new(),
        next_scope: 0,
        fresh: HashMap::new(),
        made: HashMap::new(),
        calls: Vec::new(),
        header_keys: Vec::new(),
        strs: HashMap::new(),
        stable_keys: Vec::new(),
        rotations: Vec::new(),
        rekey_guards: 0,
        redelivery: None,
        out: Default::default(),
    };
    w.visit_program(program);
    // A signature verified anywhere in the file makes it a redelivered
    // entry point, whichever of its functions makes the key.
    for f in &mut w.out.fresh {
        let FreshKind::Redelivered { why } = &mut f.kind else {
            continue;
        };
        why.clone_from(&w.redelivery);
        // The same option from a stable value in the same function: the
        // key a duplicate is looked up by, which this one never matches.
        let stable = w.stable_keys.iter().find(|(function, name, _)| {
            *function == f.function && f.how == format!("as the `{name}` option")
        });
        let rotation = w.rotations.contains(&f.sent);
        if let (None, Some((.., at)), false) = (why, stable, rotation) {
            f.kind = FreshKind::Diverges { stable: *at };
        }
    }
    // A string key of a `headers: { .. }` object is a header the request
    // sends, whatever the text reading of its line said.
    for s in facts.strings.iter_mut() {
        if s.role == StrRole::Mention && w.header_keys.contains(&s.span) {
            s.role = StrRole::Write;
        }
    }
    let code = facts.code.get_or_insert_with(Default::default);
    code.retry.sites.extend(w.out.sites);
    code.retry.requests.extend(w.out.requests);
    code.retry.fresh.extend(w.out.fresh);
    code.retry.clients.extend(w.out.clients);
}

/// A retry the walk is inside.
struct Scope {
    id: usize,
    at: Span,
    what: String,
}

/// What a name holds: a key made fresh, where, inside which retry and
/// function, and the input it is made beside (`${invoice.id}-${Date.now()}`).
struct Fresh {
    at: Span,
    what: String,
    scope: Option<usize>,
    function: Span,
    from: Option<String>,
}

struct Walk {
    frames: Frames,
    scopes: Vec<Scope>,
    next_scope: usize,
    fresh: HashMap<String, Fresh>,
    /// Each binding's declarator and whether a generator made it.
    made: HashMap<String, (Span, bool)>,
    /// The calls the walk is inside: names of the callee, first argument's
    /// text when it is a URL.
    calls: Vec<(Vec<String>, Option<String>)>,
    /// The quoted keys of `headers: { .. }` objects, inside the quotes.
    header_keys: Vec<Span>,
    /// Keys given as an option from a stable value that is no bare name
    /// (`idempotencyKey: response.id`): function, option name, value.
    stable_keys: Vec<(Span, String, Span)>,
    /// Keys sent in an update call (`updateWaitpoint({ data: { key } })`).
    rotations: Vec<Span>,
    /// String constants by name (`const IDEMPOTENCY_KEY = 'Idempotency-Key'`).
    strs: HashMap<String, String>,
    /// How many `if`s around the walk test a status that rejects the key
    /// itself (`status === 422`), after which a new key is right.
    rekey_guards: usize,
    /// Why the file's code is run again by its sender (a signature of a
    /// redelivered request it verifies), for keys made fresh outside a retry.
    redelivery: Option<String>,
    out: crate::facts::retry::RetryFacts,
}

/// A generator of fresh keys anywhere in a key's expression (a template,
/// a concatenation, a conversion): its span and how it is written.
fn generator(e: &Expression) -> Option<(Span, String)> {
    match bare(e) {
        Expression::CallExpression(c) => {
            if let Some(g) = generator_call(c) {
                return Some(g);
            }
            let inner = bare(&c.callee).as_member_expression().map(|m| m.object());
            inner.and_then(generator)
        }
        Expression::TemplateLiteral(t) => t.expressions.iter().find_map(generator),
        Expression::BinaryExpression(b) => generator(&b.left).or_else(|| generator(&b.right)),
        Expression::AwaitExpression(a) => generator(&a.argument),
        _ => None,
    }
}

/// The delay a loop body awaits (`await sleep(ms)`, `await new Promise(r
/// => setTimeout(r, ms))`).
fn sleep_in(stmts: &[Statement]) -> Option<(ConstExpr, Span)> {
    struct Find(Option<(ConstExpr, Span)>);
    impl<'a> Visit<'a> for Find {
        fn visit_await_expression(&mut self, a: &oxc_ast::ast::AwaitExpression<'a>) {
            if self.0.is_none() {
                self.0 = awaited_sleep(&a.argument);
            }
            walk::walk_await_expression(self, a);
        }
    }
    let mut f = Find(None);
    for s in stmts {
        f.visit_statement(s);
    }
    f.0
}

/// `sleep(ms)`, `setTimeout(ms)` (timers/promises), `new Promise(r =>
/// setTimeout(r, ms))`: the delay and its span.
fn awaited_sleep(e: &Expression) -> Option<(ConstExpr, Span)> {
    match bare(e) {
        Expression::CallExpression(c) => {
            let last = path_of(&c.callee)?.pop()?;
            if !SLEEPS.contains(&last.as_str()) {
                return None;
            }
            // `setTimeout(resolve, ms)` inside a promise: the delay is second.
            let d = if last == "setTimeout" && c.arguments.len() >= 2 {
                arg(c, 1)?
            } else {
                arg(c, 0)?
            };
            Some((super::consts::duration_expr(d), span_of(d)))
        }
        Expression::NewExpression(n) => {
            let f = n.arguments.first()?.as_expression()?;
            let Expression::ArrowFunctionExpression(a) = bare(f) else {
                return None;
            };
            match &a.body {
                oxc_ast::ast::ArrowFunctionBody::FunctionBody(b) => {
                    b.statements.iter().find_map(|s| match s {
                        Statement::ExpressionStatement(x) => awaited_sleep(&x.expression),
                        _ => None,
                    })
                }
                other => other.as_expression().and_then(awaited_sleep),
            }
        }
        _ => None,
    }
}

/// Whether a loop that sleeps is a retry: it leaves early (`return`,
/// `break`) when an attempt succeeds, and its test does not walk a
/// collection (`i < items.length`: a throttled batch, each pass another
/// item, where a new key per pass is right).
fn retries(test: Option<&Expression>, stmts: &[Statement]) -> bool {
    struct Exits(bool);
    impl<'a> Visit<'a> for Exits {
        fn visit_return_statement(&mut self, _: &oxc_ast::ast::ReturnStatement<'a>) {
            self.0 = true;
        }
        fn visit_break_statement(&mut self, _: &oxc_ast::ast::BreakStatement<'a>) {
            self.0 = true;
        }
    }
    struct Walks(bool);
    impl<'a> Visit<'a> for Walks {
        fn visit_static_member_expression(&mut self, m: &oxc_ast::ast::StaticMemberExpression<'a>) {
            self.0 |= matches!(m.property.name.as_str(), "length" | "size");
            walk::walk_static_member_expression(self, m);
        }
    }
    let mut walks = Walks(false);
    if let Some(t) = test {
        walks.visit_expression(t);
    }
    let mut exits = Exits(false);
    for s in stmts {
        exits.visit_statement(s);
    }
    exits.0 && !walks.0
}

/// A loop's bound: `i < N` (or `<=`) in its test, with the counter's name.
fn loop_bound(test: Option<&Expression>) -> Option<(String, ConstExpr, Span)> {
    let Expression::BinaryExpression(b) = bare(test?) else {
        return None;
    };
    let Expression::Identifier(counter) = bare(&b.left) else {
        return None;
    };
    let n = super::consts::duration_expr(&b.right);
    let n = match b.operator {
        oxc_ast::ast::BinaryOperator::LessThan => n,
        oxc_ast::ast::BinaryOperator::LessEqualThan => {
            ConstExpr::Add(Box::new(n), Box::new(ConstExpr::Int(1)))
        }
        _ => return None,
    };
    (n != ConstExpr::Unknown).then(|| (counter.name.to_string(), n, span_of(&b.right)))
}

/// Whether a loop's counter is named for attempts (`attempt`, `retries`,
/// `tries`), not for items.
fn counts_attempts(test: Option<&Expression>) -> bool {
    loop_bound(test).is_some_and(|(counter, ..)| {
        let c = counter.to_ascii_lowercase();
        ["attempt", "retr", "tries", "try"]
            .iter()
            .any(|w| c.contains(w))
    })
}

fn mentions(e: &ConstExpr, name: &str) -> bool {
    crate::facts::retention::refs_of(e)
        .iter()
        .any(|r| r == name)
}

/// A loop's policy: its bound as the number of delays, its sleep as a
/// constant delay. A delay that grows with the counter, or a loop with
/// no bound in its test, is a policy this reader cannot bound.
fn loop_policy(at: Span, test: Option<&Expression>, sleep: &(ConstExpr, Span)) -> Policy {
    let kind = match loop_bound(test) {
        Some((counter, n, n_span))
            if sleep.0 != ConstExpr::Unknown && !mentions(&sleep.0, &counter) =>
        {
            PolicyKind::Series {
                shape: Shape::Geometric,
                first: Setting::Written {
                    expr: sleep.0.clone(),
                    span: sleep.1,
                    unit_ms: Some(MILLIS),
                },
                ratio: Ratio::Float(1.0, sleep.1),
                max: None,
                times: Some(Setting::Written {
                    expr: n,
                    span: n_span,
                    unit_ms: None,
                }),
                cap: None,
            }
        }
        _ => PolicyKind::Unknown,
    };
    Policy {
        span: at,
        krate: "loop",
        kind,
    }
}

/// A wrapper's policy from its options object (`{ retries: 5 }`), each
/// setting left out its package's default.
fn wrapper_policy(
    krate: &'static str,
    names: &[&'static str; 5],
    opts: Option<&Expression>,
    at: Span,
) -> Policy {
    let o: Option<&ObjectExpression> = match opts.map(bare) {
        Some(Expression::ObjectExpression(o)) => Some(o),
        Some(_) => {
            return Policy {
                span: at,
                krate,
                kind: PolicyKind::Unknown,
            }
        }
        None => None,
    };
    let get = |i: usize| o.and_then(|o| prop(o, names[i]));
    let unbounded =
        |e: &Expression| matches!(bare(e), Expression::Identifier(id) if id.name == "Infinity");
    if let Some(e) = get(0).filter(|e| unbounded(e)) {
        return Policy {
            span: at,
            krate,
            kind: PolicyKind::Unbounded(format!("`{}: Infinity`", names[0]), Some(span_of(e))),
        };
    }
    if o.and_then(|o| prop(o, "forever"))
        .is_some_and(|v| matches!(bare(v), Expression::BooleanLiteral(b) if b.value))
    {
        return Policy {
            span: at,
            krate,
            kind: PolicyKind::Unbounded("`forever: true`".into(), None),
        };
    }
    let written = |e: &Expression, unit_ms| Setting::Written {
        expr: super::consts::duration_expr(e),
        span: span_of(e),
        unit_ms,
    };
    // `numOfAttempts` counts the first call: one delay fewer.
    let counts_first = names[0] == "numOfAttempts";
    let times = match (get(0), counts_first) {
        (Some(e), false) => written(e, None),
        (Some(e), true) => Setting::Written {
            expr: ConstExpr::Sub(
                Box::new(super::consts::duration_expr(e)),
                Box::new(ConstExpr::Int(1)),
            ),
            span: span_of(e),
            unit_ms: None,
        },
        (None, false) => Setting::Default(names[0]),
        (None, true) => Setting::Written {
            expr: ConstExpr::Sub(
                Box::new(ConstExpr::Ref(default_ref(krate, names[0]))),
                Box::new(ConstExpr::Int(1)),
            ),
            span: at,
            unit_ms: None,
        },
    };
    let ratio = match get(2).map(bare) {
        Some(Expression::NumericLiteral(n)) => Ratio::Float(n.value, span(n.span)),
        Some(e) => Ratio::Int(super::consts::duration_expr(e), span_of(e)),
        None => Ratio::Default(names[2]),
    };
    let max = get(3)
        .filter(|e| !unbounded(e))
        .map(|e| written(e, Some(MILLIS)));
    let cap = (!names[4].is_empty())
        .then(|| get(4))
        .flatten()
        .filter(|e| !unbounded(e))
        .map(|e| written(e, Some(MILLIS)));
    let first = get(1).map_or(Setting::Default(names[1]), |e| written(e, Some(MILLIS)));
    Policy {
        span: opts.map_or(at, span_of),
        krate,
        kind: PolicyKind::Series {
            shape: Shape::Geometric,
            first,
            ratio,
            max,
            times: Some(times),
            cap,
        },
    }
}

impl Walk {
    fn function(&self) -> Span {
        self.frames.top().map(|f| f.name_span).unwrap_or_default()
    }

    fn open(&mut self, at: Span, what: String) {
        self.next_scope += 1;
        self.scopes.push(Scope {
            id: self.next_scope,
            at,
            what,
        });
    }

    /// A retry wrapper's call: its site, and its closure walked as a scope.
    fn wrapper(&mut self, c: &CallExpression<'_>) -> bool {
        let Some(p) = path_of(&c.callee) else {
            return false;
        };
        let names: Vec<Name> = p.iter().map(|s| Name::from(s.as_str())).collect();
        if !CallShape::path(&names).any_of(&knowledge::effects().retry) {
            return false;
        }
        let Some(&(_, krate, settings)) = WRAPPERS
            .iter()
            .find(|(n, ..)| Some(*n) == p.last().map(String::as_str))
        else {
            return false;
        };
        let Some(op) = arg(c, 0) else { return false };
        let op_fn = path_of(op);
        if op_fn.is_none() && !super::scopes::is_function(op) {
            return false;
        }
        // The wrapper's name, as the labels show it.
        let at = span_of(&c.callee);
        let what = format!("`{}`", p.join("."));
        self.out.sites.push(RetrySite {
            function: self.function(),
            at,
            what: what.clone(),
            body: span_of(op),
            op_fn,
            policy: wrapper_policy(krate, &settings, arg(c, 1), at),
            fresh_inside: generator_inside(op),
            before: None,
            target: None,
        });
        self.open(at, what);
        true
    }

    /// A loop that awaits a sleep and leaves when an attempt succeeds: a
    /// site, and its body walked as a scope.
    fn a_loop(
        &mut self,
        at: Span,
        keyword: &str,
        test: Option<&Expression>,
        body: &Statement,
    ) -> bool {
        let stmts = match body {
            Statement::BlockStatement(b) => &b.body[..],
            s => std::slice::from_ref(s),
        };
        if !retries(test, stmts) {
            return false;
        }
        // The keyword, as the labels show it.
        let at = Span::new(at.start, at.start + keyword.len());
        let Some(sleep) = sleep_in(stmts) else {
            // A loop that counts its attempts (`attempt < 3`) and leaves on
            // success resends at once: no span to judge, but a key made in
            // its body is new on each attempt.
            if counts_attempts(test) {
                self.open(at, format!("`{keyword}` loop"));
                return true;
            }
            return false;
        };
        let body_span = span_of(body);
        self.out.sites.push(RetrySite {
            function: self.function(),
            at,
            what: format!("`{keyword}` loop"),
            body: body_span,
            op_fn: None,
            policy: loop_policy(at, test, &sleep),
            fresh_inside: stmts.iter().any(statement_has_generator),
            before: None,
            target: None,
        });
        self.open(at, format!("`{keyword}` loop"));
        true
    }

    /// `idempotencyKey: <key>` or `'Idempotency-Key': <key>`, or a dedup
    /// field of `rules/retry.toml` in its call (a Stripe meter event's
    /// `identifier`).
    fn key_property(&mut self, p: &ObjectProperty<'_>) {
        let Some(name) = key_name(&p.key) else { return };
        let callee = self
            .calls
            .last()
            .map(|(n, _)| n.as_slice())
            .unwrap_or_default();
        let field = knowledge::retry()
            .redelivered
            .key_fields
            .iter()
            .find(|k| k.field == name && callee.ends_with(&k.call));
        match field {
            Some(k) => {
                self.fresh_send(&p.value, span(p.span), format!("as {}", k.what));
            }
            None => self.key_sent(&name, &p.value, span(p.span)),
        }
    }

    /// `new Stripe(key, { maxNetworkRetries: n })`: stripe-node retries
    /// every request `n` times with its own backoff (`rules/retry.toml`),
    /// and puts one `Idempotency-Key` of its own on each POST it retries,
    /// so the client is a retry policy over keyed requests wherever it is
    /// used.
    fn stripe_client(&mut self, n: &oxc_ast::ast::NewExpression<'_>) {
        if path_of(&n.callee)
            .and_then(|p| p.last().cloned())
            .as_deref()
            != Some("Stripe")
        {
            return;
        }
        let Some(Expression::ObjectExpression(o)) =
            n.arguments.get(1).and_then(|a| a.as_expression()).map(bare)
        else {
            return;
        };
        let Some(times) = prop(o, "maxNetworkRetries") else {
            return;
        };
        let at = span_of(&n.callee);
        let krate = "stripe-node";
        let policy = Policy {
            span: span(o.span),
            krate,
            kind: defaults_series("initialNetworkRetryDelay", "maxNetworkRetryDelay", times),
        };
        let own_key = KeyedRequest::sdk_own_key(
            self.function(),
            span(n.span),
            "stripe-node-max-network-retries",
        );
        self.out.clients.push(RetryClient {
            function: self.function(),
            at,
            binding: None,
            field: false,
            policy,
            what: "stripe-node's `maxNetworkRetries`".into(),
            own_key: Some(own_key),
        });
    }

    /// A QStash publish that sets its retries (`qstash.publishJSON({ url,
    /// retries: 5 })`): QStash calls the route again on each failure, with
    /// its own backoff (`rules/retry.toml`), so the route's keyed requests
    /// are resent that long. Without `retries` the count is the plan's, not
    /// in the code: nothing is judged.
    fn publish(&mut self, c: &CallExpression<'_>) {
        let Some(p) = path_of(&c.callee) else { return };
        let Some((method, receiver)) = p.split_last() else {
            return;
        };
        let qstash = receiver
            .iter()
            .any(|r| r.to_ascii_lowercase().contains("qstash"));
        let publishes = matches!(method.as_str(), "publishJSON" | "enqueueJSON")
            || (qstash && matches!(method.as_str(), "publish" | "enqueue"));
        if !publishes {
            return;
        }
        let Some(Expression::ObjectExpression(o)) = arg(c, 0).map(bare) else {
            return;
        };
        let (Some(times), Some(url)) = (prop(o, "retries"), prop(o, "url")) else {
            return;
        };
        let Some(target) = route_path(url) else {
            return;
        };
        let at = span_of(&c.callee);
        let krate = "qstash";
        self.out.sites.push(RetrySite {
            function: self.function(),
            at,
            what: format!("QStash's delivery of `{target}`"),
            body: span(c.span),
            op_fn: None,
            policy: Policy {
                span: span(o.span),
                krate,
                kind: defaults_series("delay", "max_delay", times),
            },
            fresh_inside: false,
            before: None,
            target: Some(target),
        });
    }

    /// `headers: { 'Idempotency-Key': key }`: each quoted key a header name.
    fn header_object(&mut self, p: &ObjectProperty<'_>) {
        let is_headers = key_name(&p.key).is_some_and(|n| n.eq_ignore_ascii_case("headers"));
        let Expression::ObjectExpression(o) = bare(&p.value) else {
            return;
        };
        if !is_headers {
            return;
        }
        for q in &o.properties {
            if let oxc_ast::ast::ObjectPropertyKind::ObjectProperty(q) = q {
                if let oxc_ast::ast::PropertyKey::StringLiteral(k) = &q.key {
                    let at = span(k.span);
                    self.header_keys
                        .push(Span::new(at.start + 1, at.end.saturating_sub(1)));
                }
            }
        }
    }

    /// `headers.set('Idempotency-Key', key)`, `.append(..)`.
    fn header_setter(&mut self, c: &CallExpression<'_>) {
        let method = bare(&c.callee)
            .as_member_expression()
            .and_then(|m| m.static_property_name());
        if !matches!(method, Some("set" | "append")) || c.arguments.len() != 2 {
            return;
        }
        if let (Some(name), Some(value)) = (arg(c, 0).and_then(string_value), arg(c, 1)) {
            if super::key_source::is_idempotency_header(&name) {
                self.key_sent(&name, value, span(c.span));
            }
        }
    }

    /// A key sent under `name` (an SDK option or a header), `sent` where:
    /// a fresh send when it is made inside the retry, and a keyed request.
    fn key_sent(&mut self, name: &str, value: &Expression<'_>, sent: Span) {
        let option = KEY_OPTIONS.contains(&name);
        if !option && !super::key_source::is_idempotency_header(name) {
            return;
        }
        let how = if option {
            format!("as the `{name}` option")
        } else {
            format!("as the `{name}` header")
        };
        let direct = self.fresh_send(value, sent, how);
        if option && !generator_inside(value) && !matches!(bare(value), Expression::Identifier(_)) {
            self.stable_keys
                .push((self.function(), name.to_string(), span_of(value)));
        }
        // A fresh key written by an update replaces an expired one (a
        // rotation), not a key a duplicate is found by.
        let method = self.calls.last().and_then(|(n, _)| n.last().cloned());
        if method.is_some_and(|m| m.starts_with("update")) {
            self.rotations.push(sent);
        }
        self.request(value, sent, name, option, direct);
    }

    /// A key made fresh and sent (`how`): inside a retry, beside the input
    /// it keys (`${invoice.id}-${Date.now()}`), or else in an entry point
    /// the model may find redelivered. Whether a generator is written in
    /// place.
    fn fresh_send(&mut self, value: &Expression<'_>, sent: Span, how: String) -> bool {
        let direct = generator(value);
        let function = self.function();
        let bound = match bare(value) {
            Expression::Identifier(id) => self
                .fresh
                .get(id.name.as_str())
                .filter(|f| f.function == function),
            _ => None,
        };
        let active = |s: Option<usize>| s.and_then(|id| self.scopes.iter().find(|x| x.id == id));
        let made = match (&direct, bound) {
            (Some((at, what)), _) => {
                Some((*at, what.clone(), self.scopes.last(), input_part(value)))
            }
            (None, Some(f)) => Some((f.at, f.what.clone(), active(f.scope), f.from.clone())),
            _ => None,
        };
        let Some((at, what, scope, from)) = made else {
            return false;
        };
        let kind = match (scope, from) {
            (Some(s), _) => FreshKind::Retried {
                scope: s.at,
                what: s.what.clone(),
            },
            (None, Some(from)) => FreshKind::Mixed { from },
            (None, None) => FreshKind::Redelivered { why: None },
        };
        self.out.fresh.push(FreshSend {
            function,
            kind,
            maker: Maker::Generator(what),
            at,
            sent,
            how,
        });
        direct.is_some()
    }

    /// `config.headers[IDEMPOTENCY_KEY] = uuid()`: a key sent as a header,
    /// its name written or a string constant. Not under a test of a status
    /// that rejects the key itself (`status === 422`).
    fn header_assigned(
        &mut self,
        m: &oxc_ast::ast::ComputedMemberExpression<'_>,
        value: &Expression<'_>,
        sent: Span,
    ) {
        let on_headers = path_of(&m.object)
            .and_then(|p| p.last().cloned())
            .is_some_and(|l| l.eq_ignore_ascii_case("headers"));
        let name = match bare(&m.expression) {
            Expression::Identifier(id) => self.strs.get(id.name.as_str()).cloned(),
            e => string_value(e),
        };
        let Some(name) = name.filter(|_| on_headers) else {
            return;
        };
        if self.rekey_guards > 0 || !super::key_source::is_idempotency_header(&name) {
            return;
        }
        self.fresh_send(value, sent, format!("as the `{name}` header"));
    }

    /// A retry hook of `rules/retry.toml` (`axiosRetry(client, { onRetry
    /// })`): its body runs once per retry.
    fn hook(&self, p: &ObjectProperty<'_>) -> bool {
        let Some(name) = key_name(&p.key) else {
            return false;
        };
        let callee = self.calls.last().and_then(|(n, _)| n.last().cloned());
        knowledge::retry()
            .rekey
            .hooks
            .iter()
            .any(|[c, o]| *o == name && callee.as_deref() == Some(c.as_str()))
    }

    /// `x = randomUUID()` after `let x`: the name now holds a fresh key, or
    /// no longer does.
    fn assigned(&mut self, a: &oxc_ast::ast::AssignmentExpression<'_>) {
        if let oxc_ast::ast::AssignmentTarget::ComputedMemberExpression(m) = &a.left {
            self.header_assigned(m, &a.right, span(a.span));
            return;
        }
        let oxc_ast::ast::AssignmentTarget::AssignmentTargetIdentifier(id) = &a.left else {
            return;
        };
        let name = id.name.to_string();
        match generator(&a.right) {
            Some((at, what)) => {
                let fresh = Fresh {
                    at,
                    what,
                    scope: self.scopes.last().map(|s| s.id),
                    function: self.function(),
                    from: input_part(&a.right),
                };
                self.fresh.insert(name, fresh);
            }
            None => {
                self.fresh.remove(&name);
            }
        }
    }

    fn request(
        &mut self,
        value: &Expression<'_>,
        at: Span,
        name: &str,
        option: bool,
        fresh_here: bool,
    ) {
        let (callee, url) = self.calls.last().cloned().unwrap_or_default();
        let stripe = callee
            .iter()
            .any(|n| n.to_ascii_lowercase().contains("stripe"));
        let sdk_counterparty = (option && stripe)
            .then(|| {
                knowledge::retry()
                    .sdk
                    .iter()
                    .find(|s| s.path.len() == 1 && s.path[0] == name)
                    .map(|s| s.counterparty.clone())
            })
            .flatten();
        let key_made = match bare(value) {
            Expression::Identifier(id) => self.made.get(id.name.as_str()).copied(),
            _ => None,
        };
        let mut url_words = callee.clone();
        url_words.extend(self.frames.top().and_then(|f| f.name.clone()));
        self.out.requests.push(KeyedRequest {
            function: self.function(),
            at,
            header: if option {
                "Idempotency-Key".into()
            } else {
                name.to_string()
            },
            key: span_of(value),
            key_fresh_here: fresh_here,
            key_made,
            method: None,
            url,
            url_words,
            sdk_counterparty,
            client: callee.first().cloned(),
            client_on_self: callee.first().is_some_and(|c| c == "this"),
        });
    }
}

/// The input a key is made from beside its fresh part: the object of the
/// first member read in it (`invoice` of `${invoice.id}-${Date.now()}`),
/// other than a global's (`Date`, `Math`, `crypto`, `process`) or `this`.
fn input_part(e: &Expression) -> Option<String> {
    struct Find(Option<String>);
    impl<'a> Visit<'a> for Find {
        fn visit_static_member_expression(&mut self, m: &oxc_ast::ast::StaticMemberExpression<'a>) {
            if self.0.is_none() {
                if let Expression::Identifier(id) = bare(&m.object) {
                    let globals = [
                        "Date",
                        "Math",
                        "crypto",
                        "process",
                        "performance",
                        "globalThis",
                    ];
                    if !globals.contains(&id.name.as_str()) {
                        self.0 = Some(id.name.to_string());
                    }
                }
            }
            walk::walk_static_member_expression(self, m);
        }
    }
    let mut f = Find(None);
    f.visit_expression(e);
    f.0
}

/// Whether a test compares with a status that rejects the key itself
/// (`error.response?.status === 422`, `rules/retry.toml` `[rekey]`).
fn tests_rekey_status(test: &Expression) -> bool {
    struct Find(bool);
    impl<'a> Visit<'a> for Find {
        fn visit_numeric_literal(&mut self, n: &oxc_ast::ast::NumericLiteral<'a>) {
            let statuses = &knowledge::retry().rekey.statuses;
            self.0 |= n.value.fract() == 0.0 && statuses.contains(&(n.value as u64));
        }
    }
    let mut f = Find(false);
    f.visit_expression(test);
    f.0
}

/// A call that verifies the signature of a request its sender redelivers
/// (`rules/retry.toml` `[redelivered]`): who redelivers it.
fn redelivery_call(c: &CallExpression) -> Option<String> {
    let last = path_of(&c.callee)?.pop()?;
    knowledge::retry()
        .redelivered
        .calls
        .iter()
        .find(|k| k.name == last)
        .map(|k| format!("it verifies a signature with `{last}`: {}", k.who))
}

/// A generator of fresh keys anywhere inside `e` (closures included).
fn generator_inside(e: &Expression) -> bool {
    let mut f = FindGenerator(false);
    f.visit_expression(e);
    f.0
}

fn statement_has_generator(s: &Statement) -> bool {
    let mut f = FindGenerator(false);
    f.visit_statement(s);
    f.0
}

struct FindGenerator(bool);

impl<'a> Visit<'a> for FindGenerator {
    fn visit_call_expression(&mut self, c: &CallExpression<'a>) {
        self.0 |= generator_call(c).is_some();
        walk::walk_call_expression(self, c);
    }
}

/// A call of a generator of `rules/effects.toml` (`randomUUID()`,
/// `crypto.randomUUID()`, `uuidv4()`, `Date.now()`).
fn generator_call(c: &CallExpression) -> Option<(Span, String)> {
    let p = path_of(&c.callee)?;
    // `uuid()` is uuid's v4 imported under the package's name; a method
    // of that name (`event.uuid()`) reads an id the object already has.
    if p.len() > 1 && p.last().is_some_and(|l| l == "uuid") {
        return None;
    }
    let names: Vec<Name> = p.iter().map(|s| Name::from(s.as_str())).collect();
    CallShape::path(&names)
        .any_of(&knowledge::effects().fresh_key)
        .then(|| (span(c.span), format!("{}()", p.join("."))))
}

/// The path of a URL written as a literal or a template whose host is a
/// placeholder (`${APP_DOMAIN}/api/cron/payouts` → `/api/cron/payouts`),
/// when the rest holds no placeholder.
/// A geometric series whose delays are the library's defaults (named by
/// the setting that would change them) and whose count the code writes:
/// stripe-node's `maxNetworkRetries`, QStash's `retries`.
fn defaults_series(first: &'static str, max: &'static str, times: &Expression) -> PolicyKind {
    PolicyKind::Series {
        shape: Shape::Geometric,
        first: Setting::Default(first),
        ratio: Ratio::Default("factor"),
        max: Some(Setting::Default(max)),
        times: Some(Setting::Written {
            expr: super::consts::duration_expr(times),
            span: span_of(times),
            unit_ms: None,
        }),
        cap: None,
    }
}

fn route_path(e: &Expression) -> Option<String> {
    let text = match bare(e) {
        Expression::StringLiteral(s) => s.value.to_string(),
        Expression::TemplateLiteral(t) => t
            .quasis
            .iter()
            .map(|q| q.value.cooked.map(|c| c.to_string()).unwrap_or_default())
            .collect::<Vec<_>>()
            .join("{}"),
        _ => return None,
    };
    let rest = text
        .split_once("://")
        .map_or(text.as_str(), |(_, r)| r)
        .trim_start_matches("{}");
    let path = &rest[rest.find('/')?..];
    let path = path.split(['?', '#']).next().unwrap_or(path);
    (path.len() > 1 && !path.contains("{}")).then(|| path.trim_end_matches('/').to_string())
}

/// The first argument's text when it is a URL-like literal or template
/// (`{}` for each placeholder).
fn url_of(c: &CallExpression) -> Option<String> {
    match bare(arg(c, 0)?) {
        Expression::StringLiteral(s) => Some(s.value.to_string()),
        Expression::TemplateLiteral(t) => Some(
            t.quasis
                .iter()
                .map(|q| q.value.cooked.map(|c| c.to_string()).unwrap_or_default())
                .collect::<Vec<_>>()
                .join("{}"),
        ),
        _ => None,
    }
    .filter(|u| u.starts_with("http") || u.starts_with('/'))
}

impl<'a> Visit<'a> for Walk {
    fn enter_node(&mut self, kind: AstKind<'a>) {
        self.frames.enter(&kind);
    }

    fn leave_node(&mut self, kind: AstKind<'a>) {
        self.frames.leave(&kind);
    }

    fn visit_variable_declarator(&mut self, d: &VariableDeclarator<'a>) {
        self.frames.name_next(d);
        walk::walk_variable_declarator(self, d);
        self.frames.bind(d);
        let (oxc_ast::ast::BindingPattern::BindingIdentifier(id), Some(init)) = (&d.id, &d.init)
        else {
            return;
        };
        let name = id.name.to_string();
        if let Some(v) = string_value(init) {
            self.strs.insert(name.clone(), v);
        }
        match generator(init) {
            Some((at, what)) => {
                let fresh = Fresh {
                    at,
                    what,
                    scope: self.scopes.last().map(|s| s.id),
                    function: self.function(),
                    from: input_part(init),
                };
                self.fresh.insert(name.clone(), fresh);
                self.made.insert(name, (span(d.span), true));
            }
            None => {
                self.fresh.remove(&name);
                self.made.insert(name, (span(d.span), false));
            }
        }
    }

    fn visit_method_definition(&mut self, m: &oxc_ast::ast::MethodDefinition<'a>) {
        self.frames.name_member(&m.key, true);
        walk::walk_method_definition(self, m);
    }

    fn visit_assignment_expression(&mut self, a: &oxc_ast::ast::AssignmentExpression<'a>) {
        walk::walk_assignment_expression(self, a);
        self.assigned(a);
    }

    fn visit_call_expression(&mut self, c: &CallExpression<'a>) {
        if self.redelivery.is_none() {
            self.redelivery = redelivery_call(c);
        }
        let scoped = self.wrapper(c);
        self.header_setter(c);
        self.publish(c);
        let site = call_site(c);
        let mut names: Vec<String> = site.receiver.iter().map(|n| n.to_string()).collect();
        names.extend(site.path.iter().map(|n| n.to_string()));
        names.extend(site.method.iter().map(|n| n.to_string()));
        self.calls.push((names, url_of(c)));
        walk::walk_call_expression(self, c);
        self.calls.pop();
        if scoped {
            self.scopes.pop();
        }
    }

    fn visit_new_expression(&mut self, n: &oxc_ast::ast::NewExpression<'a>) {
        self.stripe_client(n);
        walk::walk_new_expression(self, n);
    }

    fn visit_object_property(&mut self, p: &ObjectProperty<'a>) {
        self.key_property(p);
        self.header_object(p);
        let hook = self.hook(p);
        if hook {
            let name = key_name(&p.key).unwrap_or_default();
            self.open(span(p.span), format!("retry hook `{name}`"));
        }
        walk::walk_object_property(self, p);
        if hook {
            self.scopes.pop();
        }
    }

    fn visit_if_statement(&mut self, i: &oxc_ast::ast::IfStatement<'a>) {
        let guard = tests_rekey_status(&i.test);
        self.visit_expression(&i.test);
        self.rekey_guards += usize::from(guard);
        self.visit_statement(&i.consequent);
        self.rekey_guards -= usize::from(guard);
        if let Some(alt) = &i.alternate {
            self.visit_statement(alt);
        }
    }

    fn visit_for_statement(&mut self, f: &oxc_ast::ast::ForStatement<'a>) {
        let scoped = self.a_loop(span(f.span), "for", f.test.as_ref(), &f.body);
        walk::walk_for_statement(self, f);
        if scoped {
            self.scopes.pop();
        }
    }

    fn visit_while_statement(&mut self, w: &oxc_ast::ast::WhileStatement<'a>) {
        let scoped = self.a_loop(span(w.span), "while", Some(&w.test), &w.body);
        walk::walk_while_statement(self, w);
        if scoped {
            self.scopes.pop();
        }
    }

    fn visit_do_while_statement(&mut self, w: &oxc_ast::ast::DoWhileStatement<'a>) {
        let scoped = self.a_loop(span(w.span), "do", Some(&w.test), &w.body);
        walk::walk_do_while_statement(self, w);
        if scoped {
            self.scopes.pop();
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::facts::retry::{PolicyKind, RetryFacts, Setting};
    use crate::source::{Dialect, FileKind};

    fn retried(f: &crate::facts::retry::FreshSend) -> bool {
        matches!(f.kind, crate::facts::retry::FreshKind::Retried { .. })
    }

    fn retry(src: &str) -> RetryFacts {
        let f = crate::frontend::parse(0, FileKind::Script(Dialect::Ts), src);
        f.code.map(|c| c.retry).unwrap_or_default()
    }

    #[test]
    fn a_wrappers_options_and_defaults_make_its_policy() {
        let r = retry(
            "async function f() {\n\
               await pRetry(() => send(), { retries: 3, minTimeout: 500 });\n\
               await backOff(() => send());\n\
               await retry(async () => send(), { retries: Infinity });\n\
             }\n",
        );
        assert_eq!(r.sites.len(), 3);
        let PolicyKind::Series {
            times: Some(Setting::Written { .. }),
            first: Setting::Written { .. },
            ..
        } = &r.sites[0].policy.kind
        else {
            panic!("{:?}", r.sites[0].policy)
        };
        assert_eq!(r.sites[1].policy.krate, "exponential-backoff");
        assert!(matches!(r.sites[2].policy.kind, PolicyKind::Unbounded(..)));
    }

    #[test]
    fn a_key_made_inside_the_retry_is_fresh_and_one_made_before_is_not() {
        let inside = retry(
            "async function f() {\n\
               for (let i = 0; i < 3; i++) {\n\
                 const key = crypto.randomUUID();\n\
                 const res = await fetch(url, { headers: { 'Idempotency-Key': key } });\n\
                 if (res.ok) break;\n\
                 await new Promise((r) => setTimeout(r, 1000));\n\
               }\n\
             }\n",
        );
        assert_eq!(inside.fresh.len(), 1);
        assert_eq!(inside.requests.len(), 1);
        let before = retry(
            "async function f() {\n\
               const key = crypto.randomUUID();\n\
               for (let i = 0; i < 3; i++) {\n\
                 const res = await fetch(url, { headers: { 'Idempotency-Key': key } });\n\
                 if (res.ok) return res;\n\
                 await sleep(1000);\n\
               }\n\
             }\n",
        );
        // Made once, outside the loop: no fresh key per retry (the model
        // judges it only in a redelivered entry point).
        assert!(before.fresh.iter().all(|f| !retried(f)), "{before:?}");
        assert_eq!(before.sites.len(), 1);
    }

    #[test]
    fn a_throttled_batch_is_no_retry_and_a_header_setter_sends_a_key() {
        let batch = retry(
            "async function f(items: Item[]) {\n\
               for (let i = 0; i < items.length; i++) {\n\
                 await stripe.transfers.create(items[i], { idempotencyKey: randomUUID() });\n\
                 await sleep(100);\n\
               }\n\
             }\n",
        );
        assert!(batch.sites.is_empty() && batch.fresh.iter().all(|f| !retried(f)));
        let set = retry(
            "async function f() {\n\
               while (attempt < 5) {\n\
                 const headers = new Headers();\n\
                 headers.set('Idempotency-Key', nanoid());\n\
                 const res = await fetch(url, { headers });\n\
                 if (res.ok) return res;\n\
                 await delay(2000);\n\
                 attempt++;\n\
               }\n\
             }\n",
        );
        assert_eq!(set.fresh.len(), 1, "{set:?}");
    }
}
