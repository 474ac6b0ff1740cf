//! Redis writes in TypeScript and the retention they give a store: ioredis
//! (`set(k, v, 'EX', n, 'NX')`, `setex`, `psetex`, `expire`, `pexpire`),
//! node-redis (`set(k, v, { EX: n, NX: true })`, `setEx`, `pExpire`, v5's
//! `expiration: { type, value }`), Upstash (`set(k, v, { ex, px, nx })`),
//! cache-manager and Keyv (`set(k, v, ttl)`: milliseconds; cache-manager
//! 4's `{ ttl }`: seconds), and BullMQ jobs whose `jobId` or
//! `deduplication.id` is a store's key (kept `removeOnComplete.age`
//! seconds; `deduplication.ttl` milliseconds). A receiver counts when its
//! name says Redis, cache or queue, or the file builds it with a client's
//! constructor (`new Redis(..)`, `Redis.fromEnv()`, `createClient(..)`,
//! `new Keyv(..)`, `caching(..)`, `new Queue(..)`); never any `.set`.
//! Not here: keys and TTLs passed in from another function (read where
//! they are written only when they are module constants).

use super::answers::Answered;
use super::key_source::{key_source, Sources};
use super::scopes::Frames;
use super::syntax::{arg, bare, call_site, path_of, prop, span, span_of, string_value};
use crate::facts::keys::KeySource;
use crate::facts::retention::ConstExpr;
use crate::facts::FileFacts;
use crate::frontend::key_writes::KeyWrite;
use crate::knowledge;
use crate::source::Span;
use oxc_ast::ast::{
    Argument, AssignmentExpression, AssignmentTarget, CallExpression, Expression, MethodDefinition,
    ObjectExpression, Program, PropertyDefinition, VariableDeclarator,
};
use oxc_ast::AstKind;
use oxc_ast_visit::{walk, Visit};
use std::collections::HashMap;

/// A TTL as read: its expression, its span, milliseconds per unit.
type Ttl = (ConstExpr, Span, u64);

/// How TypeScript's clients claim a key, for messages.
const CLAIM_HOW: &str = "`SET NX`";
/// Where a write method's TTL argument is and its unit.
type TtlArg = Option<(usize, u64)>;

const SECS: u64 = 1000;
const MILLIS: u64 = 1;

/// What a receiver is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Client {
    /// A Redis client: ioredis, node-redis, Upstash.
    Redis,
    /// A cache abstraction whose `set(k, v, ttl)` counts milliseconds:
    /// cache-manager 5+ (<https://github.com/jaredwray/cacheable/tree/main/packages/cache-manager#usage>),
    /// Keyv (<https://keyv.org/docs/#usage>).
    Cache,
    /// Named for a cache but neither built here nor named as cache-manager
    /// or Keyv are (`cacheService`, `redisCache`): a wrapper of the
    /// project's own, whose `set(k, v, n)` counts in a unit it alone knows.
    /// Its Redis tokens and options are read; a bare number is not.
    Wrapper,
    /// A BullMQ queue (<https://docs.bullmq.io/guide/jobs/job-ids>).
    Queue,
    /// Built by a constructor of something else (`new LRUCache(..)`,
    /// `new NodeCache(..)`, `new Map()`): not Redis, whatever its name.
    Other,
}

/// Constructors (`new X(..)`, the last name of `X`) and factories (the
/// last name of a called path) that build a client.
const BUILDERS: &[(&str, Client)] = &[
    ("Redis", Client::Redis),
    ("IORedis", Client::Redis),
    ("Cluster", Client::Redis),
    ("fromEnv", Client::Redis),
    ("createClient", Client::Redis),
    ("createCluster", Client::Redis),
    ("Keyv", Client::Cache),
    ("caching", Client::Cache),
    ("createCache", Client::Cache),
    ("Queue", Client::Queue),
    ("LRUCache", Client::Other),
    ("LRU", Client::Other),
    ("NodeCache", Client::Other),
    ("Map", Client::Other),
];

/// Write methods: (name, where the TTL argument is and its unit, NX).
/// `set` is read by its own arguments ([`Walk::set_args`]).
const WRITES: &[(&str, TtlArg, bool)] = &[
    ("setex", Some((1, SECS)), false),
    ("setEx", Some((1, SECS)), false),
    ("SETEX", Some((1, SECS)), false),
    ("psetex", Some((1, MILLIS)), false),
    ("pSetEx", Some((1, MILLIS)), false),
    ("expire", Some((1, SECS)), false),
    ("EXPIRE", Some((1, SECS)), false),
    ("pexpire", Some((1, MILLIS)), false),
    ("pExpire", Some((1, MILLIS)), false),
    ("setnx", None, true),
    ("setNX", None, true),
];

/// Words without which a file names no client this pass reads (a receiver
/// named for one, or one of [`BUILDERS`]' constructors of a client): a
/// cheap screen before the walk.
const CLIENT_WORDS: &[&str] = &[
    "redis",
    "valkey",
    "upstash",
    "cache",
    "keyv",
    "kv",
    "queue",
    "createclient",
    "createcluster",
];

/// Whether the file may hold a write this pass reads.
pub(super) fn may_write(text: &str) -> bool {
    CLIENT_WORDS
        .iter()
        .any(|w| knowledge::contains_ignore_ascii_case(text, w))
}

/// Read the file's Redis writes into `facts.redis_writes`, their stores'
/// retentions into `code.retention.pending` and the prefixes its sources
/// build into `facts.derived_prefixes`.
pub(super) fn read(program: &Program, answered: &[Answered], facts: &mut FileFacts) {
    let mut w = Walk {
        frames: Frames::new(program),
        clients: HashMap::new(),
        queues: HashMap::new(),
        writes: Vec::new(),
        answered,
    };
    w.visit_program(program);
    crate::frontend::key_writes::lower(w.writes, CLAIM_HOW, facts);
}

struct Walk<'x> {
    frames: Frames,
    /// The sets whose answer decides.
    answered: &'x [Answered],
    /// Names the file binds to a client it builds.
    clients: HashMap<String, Client>,
    /// Names bound to `new Queue('payouts', ..)`, with the queue's name:
    /// BullMQ keeps a job under `bull:<queue>:<jobId>`.
    queues: HashMap<String, String>,
    writes: Vec<KeyWrite>,
}

/// The client an expression builds (`new Redis(..)`, `await caching(..)`).
fn built(e: &Expression) -> Option<Client> {
    let e = match bare(e) {
        Expression::AwaitExpression(a) => bare(&a.argument),
        e => e,
    };
    let callee = match e {
        Expression::NewExpression(n) => &n.callee,
        Expression::CallExpression(c) => &c.callee,
        _ => return None,
    };
    let last = path_of(callee)?.pop()?;
    BUILDERS.iter().find(|(n, _)| *n == last).map(|(_, c)| *c)
}

/// The name `new Queue('payouts', ..)` gives its queue.
fn queue_name(e: &Expression) -> Option<String> {
    match bare(e) {
        Expression::NewExpression(n) => n.arguments.first()?.as_expression().and_then(string_value),
        _ => None,
    }
}

impl Walk<'_> {
    /// `name = <a client's constructor>(..)`.
    fn bind_client(&mut self, name: String, init: &Expression) {
        let Some(c) = built(init) else { return };
        if c == Client::Queue {
            if let Some(q) = queue_name(init) {
                self.queues.insert(name.clone(), q);
            }
        }
        self.clients.insert(name, c);
    }

    /// What the receiver of a call is, by the file's bindings or its name.
    fn client(&self, receiver: &[crate::knowledge::Name]) -> Option<Client> {
        let last = receiver.last()?;
        if let Some(c) = self.clients.get(last.as_str()) {
            return (*c != Client::Other).then_some(*c);
        }
        let lower = last.to_ascii_lowercase();
        // cache-manager as NestJS injects it (`@Inject(CACHE_MANAGER)
        // private cacheManager: Cache`), and Keyv.
        if ["cache", "cachemanager", "keyv"].contains(&lower.as_str()) {
            Some(Client::Cache)
        } else if ["redis", "valkey", "upstash"]
            .iter()
            .any(|w| lower.contains(w))
            || lower == "kv"
        {
            Some(Client::Redis)
        } else if lower.contains("cache") {
            Some(Client::Wrapper)
        } else if lower.ends_with("queue") {
            Some(Client::Queue)
        } else {
            None
        }
    }

    fn sources(&self) -> Sources {
        self.frames
            .top()
            .map(|f| f.sources.clone())
            .unwrap_or_default()
    }

    /// A key's literal prefix and source, through a `const` binding.
    fn key(&self, k: &Expression) -> (Option<String>, Option<KeySource>) {
        let sources = self.sources();
        let source = key_source(k, &sources, &self.frames.consts);
        let prefix = super::syntax::literal_prefix(k).or_else(|| match bare(k) {
            Expression::Identifier(id) => self
                .frames
                .top()
                .and_then(|f| f.lets.get(id.name.as_str()))
                .and_then(|l| l.prefix.clone()),
            _ => None,
        });
        (prefix, source)
    }

    /// A TTL expression, a function's own `const`s put in.
    fn ttl(&self, e: &Expression, unit: u64) -> Ttl {
        let expr = super::consts::duration_expr(e);
        let lets = self.frames.top().map(|f| &f.lets);
        let expr = match lets {
            Some(l) => substitute(expr, &|n| l.get(n).map(|v| v.expr.clone())),
            None => expr,
        };
        (expr, span_of(e), unit)
    }

    fn record(&mut self, at: Span, key: &Expression, ttl: Option<Ttl>, nx: bool) {
        let (prefix, source) = self.key(key);
        let claim = nx && self.answered.iter().any(|a| a.set == at);
        self.writes.push(KeyWrite {
            at,
            prefix,
            ttl: ttl.map(|(e, s, unit)| (e, s, Some(unit))),
            nx,
            source,
            fn_name: self.frames.top().and_then(|f| f.name.clone()),
            via: "Redis expiry",
            claim,
        });
    }

    fn call(&mut self, c: &CallExpression) {
        let site = call_site(c);
        let Some(method) = site.method.as_deref() else {
            return;
        };
        let Some(client) = self.client(&site.receiver) else {
            return;
        };
        let at = span(c.span);
        if client == Client::Queue {
            if method == "add" {
                let queue = site
                    .receiver
                    .last()
                    .and_then(|r| self.queues.get(r.as_str()))
                    .cloned();
                self.job(c, at, queue);
            }
            return;
        }
        let Some(key) = arg(c, 0) else { return };
        if method == "set" || method == "SET" {
            let (ttl, nx) = self.set_args(c, client);
            self.record(at, key, ttl, nx);
        } else if let Some((_, ttl, nx)) = WRITES.iter().find(|(m, ..)| *m == method) {
            let ttl = ttl.and_then(|(i, unit)| arg(c, i).map(|e| self.ttl(e, unit)));
            self.record(at, key, ttl, *nx);
        }
    }

    /// The TTL and `NX` of `set(k, v, ..)`: ioredis' tokens, an options
    /// object (node-redis, Upstash, cache-manager 4), or a cache's number.
    fn set_args(&self, c: &CallExpression, client: Client) -> (Option<Ttl>, bool) {
        let (mut ttl, mut nx) = (None, false);
        let rest: Vec<&Expression> = c
            .arguments
            .iter()
            .skip(2)
            .filter_map(Argument::as_expression)
            .collect();
        let mut i = 0;
        while i < rest.len() {
            match string_value(rest[i])
                .map(|s| s.to_ascii_uppercase())
                .as_deref()
            {
                Some("EX") => ttl = rest.get(i + 1).map(|e| self.ttl(e, SECS)),
                Some("PX") => ttl = rest.get(i + 1).map(|e| self.ttl(e, MILLIS)),
                Some("NX") => nx = true,
                Some(_) => {}
                None => match bare(rest[i]) {
                    Expression::ObjectExpression(o) => {
                        let (t, n) = self.set_options(o, client);
                        ttl = ttl.or(t);
                        nx |= n;
                    }
                    e if i == 0 && client == Client::Cache => ttl = Some(self.ttl(e, MILLIS)),
                    _ => {}
                },
            }
            i += 1;
        }
        (ttl, nx)
    }

    fn set_options(&self, o: &ObjectExpression, client: Client) -> (Option<Ttl>, bool) {
        let flag = |n: &str| {
            prop(o, n).is_some_and(|v| matches!(bare(v), Expression::BooleanLiteral(b) if b.value))
        };
        let nx = flag("NX")
            || flag("nx")
            || prop(o, "condition").and_then(string_value).as_deref() == Some("NX");
        let mut ttl = None;
        for (name, unit) in [("EX", SECS), ("ex", SECS), ("PX", MILLIS), ("px", MILLIS)] {
            if let Some(v) = prop(o, name) {
                ttl = Some(self.ttl(v, unit));
            }
        }
        // node-redis 5: `expiration: { type: 'EX', value: n }`.
        if let Some(Expression::ObjectExpression(x)) = prop(o, "expiration").map(bare) {
            let unit = match prop(x, "type").and_then(string_value).as_deref() {
                Some("EX") => Some(SECS),
                Some("PX") => Some(MILLIS),
                _ => None,
            };
            if let (Some(unit), Some(v)) = (unit, prop(x, "value")) {
                ttl = Some(self.ttl(v, unit));
            }
        }
        // cache-manager 4: `{ ttl }` in seconds.
        if client == Client::Cache {
            if let Some(v) = prop(o, "ttl") {
                ttl = Some(self.ttl(v, SECS));
            }
        }
        (ttl, nx)
    }

    /// BullMQ `queue.add(name, data, { jobId, removeOnComplete: { age } })`
    /// and `{ deduplication: { id, ttl } }`.
    fn job(&mut self, c: &CallExpression, at: Span, queue: Option<String>) {
        let Some(opts) = c
            .arguments
            .iter()
            .rev()
            .find_map(|a| match a.as_expression().map(bare) {
                Some(Expression::ObjectExpression(o))
                    if prop(o, "jobId").is_some() || prop(o, "deduplication").is_some() =>
                {
                    Some(o)
                }
                _ => None,
            })
        else {
            return;
        };
        if let Some(Expression::ObjectExpression(d)) = prop(opts, "deduplication").map(bare) {
            if let Some(id) = prop(d, "id") {
                let ttl = prop(d, "ttl").map(|t| self.ttl(t, MILLIS));
                self.job_write(at, id, ttl, None, "BullMQ `deduplication.ttl`");
            }
        }
        if let Some(id) = prop(opts, "jobId") {
            let ttl = match prop(opts, "removeOnComplete").map(bare) {
                Some(Expression::ObjectExpression(r)) => prop(r, "age").map(|a| self.ttl(a, SECS)),
                _ => None,
            };
            self.job_write(at, id, ttl, queue, "BullMQ `removeOnComplete.age`");
        }
    }

    /// A job whose id is a key: added once (a claim), kept `ttl`; under
    /// `bull:<queue>:` when the queue's name is known.
    fn job_write(
        &mut self,
        at: Span,
        id: &Expression,
        ttl: Option<Ttl>,
        queue: Option<String>,
        via: &'static str,
    ) {
        let (prefix, source) = self.key(id);
        let prefix = match queue {
            Some(q) => Some(format!("bull:{q}:{}", prefix.unwrap_or_default())),
            None => prefix,
        };
        self.writes.push(KeyWrite {
            at,
            prefix,
            ttl: ttl.map(|(e, s, unit)| (e, s, Some(unit))),
            nx: true,
            source,
            fn_name: self.frames.top().and_then(|f| f.name.clone()),
            via,
            claim: false,
        });
    }
}

/// `e` with each name `f` knows replaced by its value.
fn substitute(e: ConstExpr, f: &dyn Fn(&str) -> Option<ConstExpr>) -> ConstExpr {
    let b = |x: Box<ConstExpr>| Box::new(substitute(*x, f));
    match e {
        ConstExpr::Ref(n) => f(&n).unwrap_or(ConstExpr::Ref(n)),
        ConstExpr::Add(l, r) => ConstExpr::Add(b(l), b(r)),
        ConstExpr::Sub(l, r) => ConstExpr::Sub(b(l), b(r)),
        ConstExpr::Mul(l, r) => ConstExpr::Mul(b(l), b(r)),
        ConstExpr::Div(l, r) => ConstExpr::Div(b(l), b(r)),
        other => other,
    }
}

impl<'a> Visit<'a> for Walk<'_> {
    fn enter_node(&mut self, kind: AstKind<'a>) {
        self.frames.enter(&kind);
    }

    fn leave_node(&mut self, kind: AstKind<'a>) {
        self.frames.leave(&kind);
    }

    fn visit_variable_declarator(&mut self, d: &VariableDeclarator<'a>) {
        if let (oxc_ast::ast::BindingPattern::BindingIdentifier(id), Some(init)) = (&d.id, &d.init)
        {
            self.bind_client(id.name.to_string(), init);
        }
        self.frames.name_next(d);
        walk::walk_variable_declarator(self, d);
        self.frames.bind(d);
    }

    fn visit_method_definition(&mut self, m: &MethodDefinition<'a>) {
        self.frames.name_member(&m.key, true);
        walk::walk_method_definition(self, m);
    }

    fn visit_property_definition(&mut self, p: &PropertyDefinition<'a>) {
        if let (Some(v), Some(k)) = (&p.value, super::syntax::key_name(&p.key)) {
            self.bind_client(k, v);
            self.frames
                .name_member(&p.key, super::scopes::is_function(v));
        }
        walk::walk_property_definition(self, p);
    }

    fn visit_assignment_expression(&mut self, a: &AssignmentExpression<'a>) {
        // `this.redis = new Redis(url)` in a constructor.
        if let AssignmentTarget::StaticMemberExpression(m) = &a.left {
            self.bind_client(m.property.name.to_string(), &a.right);
        }
        walk::walk_assignment_expression(self, a);
        self.frames.assign(a);
    }

    fn visit_call_expression(&mut self, c: &CallExpression<'a>) {
        self.call(c);
        walk::walk_call_expression(self, c);
    }
}

#[cfg(test)]
mod tests {
    use crate::source::{Dialect, FileKind};

    use crate::frontend::key_writes::Seen;

    /// Each write, and the pending retentions' `via`.
    fn writes(src: &str) -> (Vec<Seen>, Vec<String>) {
        let f = crate::frontend::parse(0, FileKind::Script(Dialect::Ts), src);
        crate::frontend::key_writes::seen(&f)
    }

    #[test]
    fn each_clients_expiry_is_read_in_its_unit() {
        let (w, p) = writes(
            "const DAY = 86_400;\n\
             const client = createClient({ url });\n\
             const cache = await caching('memory');\n\
             async function f(id: string, queue: Queue) {\n\
               const ttl = DAY * 2;\n\
               await client.set(`idem:${id}`, v, { EX: ttl, NX: true });\n\
               await client.setEx(`dedup:${id}`, DAY, v);\n\
               await cache.set(`idempotency:${id}`, v, 60_000);\n\
               await this.redis.set(`processed:${id}`, v, 'PX', 5000, 'NX');\n\
               await queue.add('refund', data, { jobId: `dedup:${id}`, removeOnComplete: { age: 3600 } });\n\
               await lru.set(`idem:${id}`, v, 60_000);\n\
               await this.cacheService.set(`idem:${id}`, v, 3600);\n\
               await other.set(`idem:${id}`, v);\n\
             }\n",
        );
        assert_eq!(
            w,
            [
                ("idem:".to_string(), Some(172_800), true),
                ("dedup:".to_string(), Some(86_400), false),
                ("idempotency:".to_string(), Some(60), false),
                ("processed:".to_string(), Some(5), true),
                ("dedup:".to_string(), Some(3600), true),
                ("idem:".to_string(), None, false),
            ]
        );
        assert_eq!(p.len(), 5, "{p:?}");
    }

    #[test]
    fn a_key_from_a_verified_event_is_a_store_whatever_its_prefix() {
        let (w, p) = writes(
            "export async function POST(req: Request) {\n\
               const event = stripe.webhooks.constructEvent(await req.text(), sig, secret);\n\
               const key = `seen:${event.id}`;\n\
               await redis.set(key, '1', 'EX', 3600, 'NX');\n\
               await redis.set(`lock:${event.id}`, '1', 'EX', 30, 'NX');\n\
             }\n",
        );
        assert_eq!(w.len(), 2);
        assert_eq!(p, ["Redis expiry on `seen:` keys, built from `event.id`"]);
    }
}
