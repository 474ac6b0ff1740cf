//! Each function of a TypeScript or JavaScript file as a trace of steps
//! (`facts::flow::FnTrace`), in the order they run: Redis commands on a
//! key, statements on a table (Prisma's model accessors, SQL in strings
//! and tagged templates), transactions, and every other call as a
//! [`CallSite`] the model matches against the effect catalogue or resolves
//! to a function of the project.
//!
//! A function is a declaration, a class or object method, or a function
//! or arrow bound to a name (`export const POST = async (req) => ..`). A
//! function or arrow written inside another is read as part of it, as a
//! Rust closure is (the callback of `prisma.$transaction(async (tx) =>
//! ..)`, of `.map`, of `pRetry`); one passed at the top level (Express's
//! `app.post('/refund', async (req, res) => ..)`) is a function of its own,
//! named for the call that registers it.

use super::answers::Answered;
use super::key_source::{key_source, Sources};
use super::syntax::{self, bare, span, span_of};
use crate::facts::flow::{
    CallSite, FlowFacts, FnTrace, Import, ImportSpec, PlainClaim, RedisKey, RedisOp, Step,
    StepKind, TypeDef,
};
use crate::facts::store::{Dml, DmlKind};
use crate::source::Span;
use oxc_ast::ast::{
    ArrowFunctionExpression, AssignmentExpression, AwaitExpression, CallExpression, Class,
    ConditionalExpression, Expression, FormalParameter, FormalParameters, Function, IfStatement,
    MethodDefinition, ObjectProperty, Program, Statement, SwitchStatement,
    TaggedTemplateExpression, TryStatement, VariableDeclarator,
};
use oxc_ast_visit::{walk, Visit};
use oxc_syntax::scope::ScopeFlags;
use std::collections::HashMap;
use thin_vec::ThinVec;

/// Most steps kept per function: beyond this the function is opaque.
const MAX_STEPS: usize = 5_000;

/// Redis commands by method name, with the index of the key argument:
/// ioredis and node-redis (`set`, `setex`/`setEx`, `setnx`/`setNX`),
/// Upstash (`set` with `{ nx }`), and the get/exists/del/expire family.
const REDIS_METHODS: &[(&str, RedisOp)] = &[
    ("get", RedisOp::Get),
    ("exists", RedisOp::Exists),
    ("set", RedisOp::Set),
    ("setex", RedisOp::Set),
    ("setEx", RedisOp::Set),
    ("psetex", RedisOp::Set),
    ("pSetEx", RedisOp::Set),
    ("setnx", RedisOp::SetNx),
    ("setNX", RedisOp::SetNx),
    ("del", RedisOp::Del),
    ("unlink", RedisOp::Del),
    ("expire", RedisOp::Expire),
    ("pexpire", RedisOp::Expire),
    ("pExpire", RedisOp::Expire),
];

/// Words a receiver's name holds when it is a Redis or cache client
/// (`redis`, `this.redisClient`, `kv`, `upstash`, `cache`).
const REDIS_RECEIVERS: &[&str] = &["redis", "valkey", "upstash", "kv", "cache", "ioredis"];

/// Prisma Client's model methods and what they do to the model's table.
const PRISMA_METHODS: &[(&str, DmlKind)] = &[
    ("create", DmlKind::Insert),
    ("createMany", DmlKind::Insert),
    ("createManyAndReturn", DmlKind::Insert),
    ("upsert", DmlKind::Upsert),
    ("update", DmlKind::Update),
    ("updateMany", DmlKind::Update),
    ("delete", DmlKind::Delete),
    ("deleteMany", DmlKind::Delete),
    ("findUnique", DmlKind::Read),
    ("findUniqueOrThrow", DmlKind::Read),
    ("findFirst", DmlKind::Read),
    ("findFirstOrThrow", DmlKind::Read),
    ("findMany", DmlKind::Read),
    ("count", DmlKind::Read),
];

/// Names a Prisma client goes by (`prisma.x.create`, `this.prisma.x`,
/// `ctx.db.x`, a transaction's `tx.x`).
const PRISMA_CLIENTS: &[&str] = &["prisma", "db", "tx", "trx", "client", "prismaClient"];

/// Methods that send SQL given as their first argument (node-postgres
/// `query`, Knex `raw`, TypeORM `query`, Prisma `$queryRaw`/`$executeRaw`
/// and their `Unsafe` forms, mysql2 `execute`).
const SQL_METHODS: &[&str] = &[
    "query",
    "raw",
    "execute",
    "$queryRaw",
    "$executeRaw",
    "$queryRawUnsafe",
    "$executeRawUnsafe",
];

/// Words of a name that ask for a set only when the key is absent
/// (`setIfNotExist`, `ifNotExists`, `setNx`), lower-cased: a function so
/// named, or a test so named, whose Redis `SET` has no `NX` gives every
/// caller the claim. `rules/prefilter.toml` admits a TypeScript file that
/// holds one (a test holds them to it).
pub const CONDITIONAL_SET_NAMES: &[&str] = &[
    "ifnotexist",
    "if_not_exist",
    "ifabsent",
    "if_absent",
    "ifnotset",
    "if_not_set",
    "setnx",
    "set_nx",
];

fn named_for_conditional_set(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    CONDITIONAL_SET_NAMES.iter().any(|w| lower.contains(w))
}

/// Read the functions of a parsed file; `answered` are the Redis sets
/// whose answer decides (`super::answers`).
pub(super) fn read(program: &Program, text: &str, answered: &[Answered]) -> FlowFacts {
    let module = super::scopes::Frames::new(program);
    let mut r = Reader {
        consts: module.consts,
        libs: module.libs,
        text,
        answered,
        out: FlowFacts::default(),
        open: Vec::new(),
        class: Vec::new(),
        next_name: None,
        sites: 0,
        awaited: Vec::new(),
        orm_chains: Vec::new(),
        claims: 0,
    };
    r.visit_program(program);
    r.out.uses = imports(program);
    r.out
}

/// `import { charge as pay } from "./stripe"` as the model's imports:
/// `pay` stands for `super::stripe::charge` (the file is its own module,
/// so `./` is its parent's); `@/lib/stripe` and `~/lib/stripe` for
/// `crate::lib::stripe::…` (the alias most projects give their source
/// root). A package's name (`stripe`, `@nestjs/common`) is kept as written.
fn imports(program: &Program) -> Vec<Import> {
    use oxc_ast::ast::ImportDeclarationSpecifier as S;
    let mut out = Vec::new();
    for s in &program.body {
        let Statement::ImportDeclaration(d) = s else {
            continue;
        };
        let module = module_path(d.source.value.as_str());
        for spec in d.specifiers.iter().flatten() {
            let (local, name) = match spec {
                S::ImportSpecifier(i) => (i.local.name.to_string(), i.imported.name().to_string()),
                S::ImportDefaultSpecifier(i) => (i.local.name.to_string(), "default".to_string()),
                S::ImportNamespaceSpecifier(i) => (i.local.name.to_string(), String::new()),
            };
            let mut path = module.clone();
            let spec = ImportSpec {
                text: d.source.value.to_string(),
                name: (!name.is_empty()).then(|| name.clone()),
            };
            if !name.is_empty() {
                path.push(name);
            }
            out.push(Import {
                module: Vec::new(),
                alias: local,
                path,
                spec: Some(spec),
            });
        }
    }
    out
}

/// An import's module specifier as a path of the model.
fn module_path(spec: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = spec;
    if let Some(r) = ["@/", "~/", "#/"].iter().find_map(|p| spec.strip_prefix(p)) {
        out.push("crate".to_string());
        rest = r;
    } else if spec.starts_with('.') {
        out.push("super".to_string());
        rest = spec.strip_prefix("./").unwrap_or(spec);
    }
    for part in rest.split('/') {
        match part {
            ".." => out.push("super".to_string()),
            "." | "" => {}
            p => out.push(strip_extension(p).to_string()),
        }
    }
    if out.last().is_some_and(|l| l == "index") && out.len() > 1 {
        out.pop();
    }
    out
}

fn strip_extension(p: &str) -> &str {
    [".js", ".ts", ".tsx", ".jsx", ".mjs", ".cjs"]
        .iter()
        .find_map(|e| p.strip_suffix(e))
        .unwrap_or(p)
}

/// The call an `await` waits on: the outermost call of a chain
/// (`client.api(path).query(q).get()` waits on `get`, a read), looking
/// through `.then`, `.catch` and `.finally` to the call they follow
/// (`await client.refund(id).catch(log)` waits on `refund`). Calls in a
/// chain share their start, so the call is told by its end.
fn awaited_call<'b, 'a>(mut c: &'b CallExpression<'a>) -> &'b CallExpression<'a> {
    while let Some(m) = c.callee.as_member_expression() {
        let promise = matches!(m.static_property_name(), Some("then" | "catch" | "finally"));
        match bare(m.object()) {
            Expression::CallExpression(inner) if promise => c = inner,
            _ => break,
        }
    }
    c
}

/// A function being read.
struct Open {
    trace: FnTrace,
    /// `const key = \`idem:${id}\``: each binding's literal prefix, for a
    /// Redis key passed by name.
    prefixes: Vec<(String, String)>,
    /// `const x = new X(..)`, `const x: X = ..`: each binding's type.
    types: Vec<(String, String)>,
    /// What the function's bindings hold, as far as keys go.
    sources: Sources,
    branch: Vec<(u32, u32)>,
    exits: Vec<u32>,
    success: usize,
    /// Tests enclosing the step that ask for a set only if absent
    /// (`if (ifNotExists)`), innermost last.
    conditional: Vec<Span>,
}

struct Reader<'t> {
    text: &'t str,
    answered: &'t [Answered],
    /// The module's string constants and the webhook libraries it imports,
    /// for [`key_source`].
    consts: HashMap<String, String>,
    libs: Vec<String>,
    out: FlowFacts,
    open: Vec<Open>,
    class: Vec<String>,
    /// The name the next function takes: its binding's, its property's,
    /// its method's, or the call that registers it.
    next_name: Option<(String, Span)>,
    /// Branch sites numbered in the file.
    sites: u32,
    /// Starts of the calls an `await` waits for.
    awaited: Vec<u32>,
    /// Starts of the ORM query chains being read: the calls inside one
    /// (`db.insert(t)` of `db.insert(t).values(v)`) are part of its step.
    orm_chains: Vec<u32>,
    /// How many `try` blocks being read have a `catch` that tests a unique
    /// violation ([`catches_unique_violation`]).
    claims: u32,
}

impl Reader<'_> {
    fn begin(&mut self, fallback: Span, params: &FormalParameters) {
        let (name, at) = self
            .next_name
            .take()
            .unwrap_or_else(|| ("<anonymous>".to_string(), fallback));
        let name_of_trace = name.clone();
        let trace = FnTrace {
            name,
            module: Vec::new(),
            owner: self.class.last().cloned(),
            trait_of: None,
            bounds: Vec::new(),
            span: at,
            params: params.items.iter().filter_map(param).collect(),
            events: Vec::new(),
            opaque: None,
            test: false,
            unconditional_set: None,
            plain_claim: None,
            unlocked_check: None,
            claims: Vec::new(),
            script: true,
        };
        self.open.push(Open {
            trace,
            prefixes: Vec::new(),
            types: Vec::new(),
            sources: {
                let mut s = Sources::default();
                s.fn_name = Some(name_of_trace.clone());
                s.libs = self.libs.clone();
                s
            },
            branch: Vec::new(),
            exits: Vec::new(),
            success: 0,
            conditional: Vec::new(),
        });
    }

    fn end(&mut self) {
        if let Some(o) = self.open.pop() {
            self.out.functions.push(o.trace);
        }
    }

    /// Whether a function met here starts a trace of its own: at the top
    /// level, or as a method of a class (a class sets the open functions
    /// aside while its body is read).
    fn own_trace(&self) -> bool {
        self.open.is_empty()
    }

    fn push(&mut self, at: Span, kind: StepKind, awaited: bool) {
        let Some(o) = self.open.last_mut() else {
            return;
        };
        if o.trace.events.len() >= MAX_STEPS {
            o.trace.opaque.get_or_insert(at);
            return;
        }
        o.trace.events.push(Step {
            span: at,
            kind,
            branch: o.branch.iter().copied().collect::<ThinVec<_>>(),
            exits: o.exits.iter().copied().collect::<ThinVec<_>>(),
            success_only: o.success > 0,
            awaited,
        });
    }

    /// A Redis `SET` without `NX` taken for a claim: in a function named
    /// for a conditional set (`setIfNotExist`), under a test so named
    /// (`if (ifNotExists)`), or whose answer decides.
    fn plain_claim(&mut self, at: Span, kind: &StepKind) {
        if !matches!(
            kind,
            StepKind::Redis {
                op: RedisOp::Set,
                ..
            }
        ) {
            return;
        }
        let read = self.answered.iter().find(|a| a.set == at).map(|a| a.read);
        let Some(o) = self.open.last_mut() else {
            return;
        };
        let t = &mut o.trace;
        if named_for_conditional_set(&t.name) {
            t.unconditional_set.get_or_insert(at);
        } else if let Some(by) = read {
            t.plain_claim.get_or_insert(PlainClaim {
                set: at,
                by,
                answer: true,
            });
        } else if let Some(&by) = o.conditional.last() {
            t.plain_claim.get_or_insert(PlainClaim {
                set: at,
                by,
                answer: false,
            });
        }
    }

    fn with_arm(&mut self, site: u32, arm: u32, f: impl FnOnce(&mut Self)) {
        if let Some(o) = self.open.last_mut() {
            o.branch.push((site, arm));
        }
        f(self);
        if let Some(o) = self.open.last_mut() {
            o.branch.pop();
        }
    }

    fn with_exit(&mut self, leaves: bool, f: impl FnOnce(&mut Self)) {
        let id = self.sites;
        if leaves {
            self.sites += 1;
            if let Some(o) = self.open.last_mut() {
                o.exits.push(id);
            }
        }
        f(self);
        if leaves {
            if let Some(o) = self.open.last_mut() {
                o.exits.pop();
            }
        }
    }

    fn new_site(&mut self) -> u32 {
        self.sites += 1;
        self.sites
    }

    /// The step a call is: a Redis command, a statement, or a call.
    fn classify(&self, call: &CallExpression) -> StepKind {
        let mut site = syntax::call_site(call);
        site.recv_type = self.type_of(site.receiver.first().map(|n| n.as_str()));
        if let Some(k) = self.redis_step(call, &site) {
            return k;
        }
        if let Some(k) = super::orm::step(call) {
            return k;
        }
        if let Some(k) = prisma_step(&site) {
            return if self.claims > 0 {
                claim(call, k)
            } else {
                read_by(call, k)
            };
        }
        if let Some(k) = sql_step(call, &site) {
            return k;
        }
        StepKind::Call(site)
    }

    /// The type a parameter's annotation or a binding's constructor
    /// (`const payments = new PaymentsService()`) gives a name.
    fn type_of(&self, name: Option<&str>) -> Option<crate::knowledge::Name> {
        let name = name.filter(|n| *n != "self")?;
        let o = self.open.last()?;
        let (_, ty) = (o.types.iter().rev())
            .chain(o.trace.params.iter().rev())
            .find(|(n, _)| n == name)?;
        Some(crate::knowledge::Name::from(ty.as_str()))
    }

    fn redis_step(&self, call: &CallExpression, site: &CallSite) -> Option<StepKind> {
        let method = site.method.as_deref()?;
        let &(_, mut op) = REDIS_METHODS.iter().find(|(m, _)| *m == method)?;
        let receiver = site.receiver.last()?.to_ascii_lowercase();
        // A `set` with Redis's expiry or condition after the value
        // (`this.client?.set(k, v, 'EX', n)`) is Redis's whatever its
        // receiver is called.
        let named = REDIS_RECEIVERS.iter().any(|w| receiver.contains(w));
        if !site.chain.is_empty() || !(named || super::answers::is_redis_set(call)) {
            return None;
        }
        let key = syntax::arg(call, 0)?;
        if op == RedisOp::Set && sets_only_if_absent(call) {
            op = RedisOp::SetNx;
        }
        let text = self
            .text
            .get(span_of(key).start..span_of(key).end)
            .unwrap_or_default();
        let prefix = syntax::literal_prefix(key).or_else(|| {
            let Expression::Identifier(id) = bare(key) else {
                return None;
            };
            let o = self.open.last()?;
            let (_, p) = o
                .prefixes
                .iter()
                .rev()
                .find(|(n, _)| id.name == n.as_str())?;
            Some(p.clone())
        });
        let source = self
            .open
            .last()
            .and_then(|o| key_source(key, &o.sources, &self.consts));
        Some(StepKind::Redis {
            op,
            key: RedisKey {
                prefix,
                text: text.into(),
                derived: source.is_some(),
                from_header: source.is_some_and(|s| !s.event),
                decides: op == RedisOp::SetNx
                    && self.answered.iter().any(|a| a.set == span(call.span)),
            },
            conn: site.receiver.last().map(|n| n.to_string()),
        })
    }
}

/// `set(k, v, 'EX', n, 'NX')` (ioredis), `set(k, v, { NX: true })`
/// (node-redis), `set(k, v, { nx: true })` (Upstash).
fn sets_only_if_absent(call: &CallExpression) -> bool {
    call.arguments.iter().skip(2).any(|a| {
        let Some(e) = a.as_expression() else {
            return false;
        };
        if syntax::string_value(e).is_some_and(|s| s.eq_ignore_ascii_case("nx")) {
            return true;
        }
        let Expression::ObjectExpression(o) = bare(e) else {
            return false;
        };
        ["nx", "NX"].iter().any(|n| {
            syntax::prop(o, n)
                .is_some_and(|v| matches!(bare(v), Expression::BooleanLiteral(b) if b.value))
        })
    })
}

/// `prisma.processedEvent.create(..)`: the model's table, by its accessor
/// lower-cased (`processedevent`); the model joins it with the Prisma
/// schema's model of that name.
fn prisma_step(site: &CallSite) -> Option<StepKind> {
    let method = site.method.as_deref()?;
    let &(_, kind) = PRISMA_METHODS.iter().find(|(m, _)| *m == method)?;
    if !site.chain.is_empty() || site.receiver.len() < 2 {
        return None;
    }
    let model = site.receiver.last()?;
    let client = &site.receiver[site.receiver.len() - 2];
    if !PRISMA_CLIENTS.contains(&client.as_str()) || model.starts_with('$') {
        return None;
    }
    Some(StepKind::Sql {
        dml: Dml::new(kind, model.to_ascii_lowercase().to_string()),
        conn: Some(client.to_string()),
    })
}

/// A Prisma `create` or `upsert` inside a `try` whose `catch` tests a unique
/// violation: the code leans on a unique guard and takes the violation for
/// a replay, as `INSERT … ON CONFLICT DO NOTHING` does. The create becomes
/// that insert, its conflict columns the fields it writes (`data`); an
/// upsert's are the fields of its `where`, the unique key Prisma requires.
fn claim(call: &CallExpression, kind: StepKind) -> StepKind {
    let StepKind::Sql { mut dml, conn } = kind else {
        return kind;
    };
    let (field, to) = match dml.kind {
        DmlKind::Insert => ("data", DmlKind::InsertDoNothing),
        DmlKind::Upsert => ("where", DmlKind::Upsert),
        DmlKind::Read => return read_by(call, StepKind::Sql { dml, conn }),
        _ => return StepKind::Sql { dml, conn },
    };
    if let Some(fields) = arg_fields(call, field) {
        dml.kind = to;
        dml.conflict = fields;
    }
    StepKind::Sql { dml, conn }
}

/// A Prisma read with the fields its `where` names, kept as the
/// statement's columns (`conflict`): whether it looks a key up. A compound
/// unique's selector (`where: { invoiceId_programId: { invoiceId,
/// programId } }`, named for its fields joined by `_`) names its fields.
fn read_by(call: &CallExpression, kind: StepKind) -> StepKind {
    match kind {
        StepKind::Sql { mut dml, conn } if dml.kind == DmlKind::Read => {
            dml.conflict = where_fields(call).unwrap_or_default();
            StepKind::Sql { dml, conn }
        }
        k => k,
    }
}

/// The fields a call's `where` names, a compound unique's selector read
/// as its fields.
fn where_fields(call: &CallExpression) -> Option<ThinVec<String>> {
    let o = arg_object(call, "where")?;
    let mut out = ThinVec::new();
    for p in &o.properties {
        let oxc_ast::ast::ObjectPropertyKind::ObjectProperty(p) = p else {
            continue;
        };
        let Some(name) = syntax::key_name(&p.key) else {
            continue;
        };
        let inner: Option<Vec<String>> = match bare(&p.value) {
            Expression::ObjectExpression(v) => v
                .properties
                .iter()
                .map(|q| match q {
                    oxc_ast::ast::ObjectPropertyKind::ObjectProperty(q) => syntax::key_name(&q.key),
                    _ => None,
                })
                .collect(),
            _ => None,
        };
        match inner {
            Some(fields) if fields.len() > 1 && fields.join("_") == name => out.extend(fields),
            _ => out.push(name),
        }
    }
    Some(out)
}

/// The object literal given as `field` of a call's first argument.
fn arg_object<'b, 'a>(
    call: &'b CallExpression<'a>,
    field: &str,
) -> Option<&'b oxc_ast::ast::ObjectExpression<'a>> {
    syntax::arg(call, 0)
        .and_then(|a| match bare(a) {
            Expression::ObjectExpression(o) => syntax::prop(o, field),
            _ => None,
        })
        .and_then(|d| match bare(d) {
            Expression::ObjectExpression(o) => Some(&**o),
            _ => None,
        })
}

/// The names of the fields of an object literal given as `field` of a
/// call's first argument (`{ data: { eventId, amount } }`).
fn arg_fields(call: &CallExpression, field: &str) -> Option<ThinVec<String>> {
    let o = arg_object(call, field)?;
    Some(
        o.properties
            .iter()
            .filter_map(|p| match p {
                oxc_ast::ast::ObjectPropertyKind::ObjectProperty(p) => syntax::key_name(&p.key),
                _ => None,
            })
            .collect(),
    )
}

/// Whether a `catch` clause tests one of the codes a database client gives
/// a unique violation (`error.code === "P2002"`), as a string in its text.
fn catches_unique_violation(text: &str, handler: Span) -> bool {
    let body = text.get(handler.start..handler.end).unwrap_or_default();
    crate::knowledge::stores()
        .unique_violation
        .codes
        .iter()
        .any(|c| {
            ["\"", "'", "`"]
                .iter()
                .any(|q| body.contains(&format!("{q}{c}{q}")))
        })
}

/// SQL given to a query method as a literal: the first table it touches.
fn sql_step(call: &CallExpression, site: &CallSite) -> Option<StepKind> {
    let method = site.method.as_deref()?;
    if !SQL_METHODS.contains(&method) {
        return None;
    }
    let text = sql_text(syntax::arg(call, 0)?)?;
    let dml = crate::frontend::sql::dml::classify(&text)
        .into_iter()
        .next()?;
    Some(StepKind::Sql {
        dml,
        conn: site.receiver.last().map(|n| n.to_string()),
    })
}

/// The text of SQL written as a string or a template: a template's
/// placeholders read as `$1`, `$2`, … (as `sql\`…\`` and `$queryRaw` send them).
fn sql_text(e: &Expression) -> Option<String> {
    match bare(e) {
        Expression::StringLiteral(s) => Some(s.value.to_string()),
        Expression::TemplateLiteral(t) => Some(template_sql(t)),
        _ => None,
    }
}

fn template_sql(t: &oxc_ast::ast::TemplateLiteral) -> String {
    let mut out = String::new();
    for (i, q) in t.quasis.iter().enumerate() {
        out.push_str(q.value.cooked.as_deref().unwrap_or(q.value.raw.as_str()));
        if i + 1 < t.quasis.len() {
            out.push_str(&format!("${}", i + 1));
        }
    }
    out
}

/// The name a route registration gives its handler: `POST /refund` for
/// `app.post('/refund', handler)`, else the method's name.
fn registered_name(call: &CallExpression) -> Option<String> {
    let site = syntax::call_site(call);
    let method = site
        .method
        .as_deref()
        .or(site.path.last().map(|n| n.as_str()))?;
    let route = syntax::arg(call, 0).and_then(syntax::string_value);
    Some(match route {
        Some(r) => format!("{} {r}", method.to_ascii_uppercase()),
        None => method.to_string(),
    })
}

impl<'a> Visit<'a> for Reader<'_> {
    fn visit_function(&mut self, it: &Function<'a>, flags: ScopeFlags) {
        if let Some(id) = &it.id {
            if self.open.is_empty() || self.next_name.is_none() {
                self.next_name
                    .get_or_insert((id.name.to_string(), span(id.span)));
            }
        }
        if self.own_trace() {
            self.begin(span(it.span), &it.params);
            walk::walk_function(self, it, flags);
            self.end();
        } else {
            self.next_name = None;
            walk::walk_function(self, it, flags);
        }
    }

    fn visit_arrow_function_expression(&mut self, it: &ArrowFunctionExpression<'a>) {
        if self.own_trace() {
            self.begin(span(it.span), &it.params);
            walk::walk_arrow_function_expression(self, it);
            self.end();
        } else {
            self.next_name = None;
            walk::walk_arrow_function_expression(self, it);
        }
    }

    fn visit_class(&mut self, it: &Class<'a>) {
        let name = it.id.as_ref().map(|i| i.name.to_string());
        self.class.push(name.unwrap_or_default());
        let open = std::mem::take(&mut self.open);
        walk::walk_class(self, it);
        self.open = open;
        self.class.pop();
    }

    fn visit_method_definition(&mut self, it: &MethodDefinition<'a>) {
        if let Some(n) = syntax::key_name(&it.key) {
            self.next_name = Some((n, span_of(&it.key)));
        }
        walk::walk_method_definition(self, it);
        self.next_name = None;
    }

    fn visit_object_property(&mut self, it: &ObjectProperty<'a>) {
        if self.open.is_empty()
            && matches!(
                bare(&it.value),
                Expression::ArrowFunctionExpression(_) | Expression::FunctionExpression(_)
            )
        {
            if let Some(n) = syntax::key_name(&it.key) {
                self.next_name = Some((n, span_of(&it.key)));
            }
        }
        walk::walk_object_property(self, it);
    }

    fn visit_variable_declarator(&mut self, it: &VariableDeclarator<'a>) {
        let is_fn = it.init.as_ref().is_some_and(|e| {
            matches!(
                bare(e),
                Expression::ArrowFunctionExpression(_) | Expression::FunctionExpression(_)
            )
        });
        if is_fn && self.open.is_empty() {
            if let Some(id) = it.id.get_binding_identifier() {
                self.next_name = Some((id.name.to_string(), span(id.span)));
            }
        }
        walk::walk_variable_declarator(self, it);
        if let (Some(init), Some(o)) = (&it.init, self.open.last_mut()) {
            o.sources.bind(&it.id, init, &self.consts);
        }
        let bound = it.id.get_binding_identifier().zip(it.init.as_ref());
        if let (Some((id, init)), Some(o)) = (bound, self.open.last_mut()) {
            if let Some(p) = syntax::literal_prefix(init) {
                o.prefixes.push((id.name.to_string(), p));
            }
            let annotated = it
                .type_annotation
                .as_ref()
                .and_then(|t| type_name(&t.type_annotation));
            let built = match bare(init) {
                Expression::NewExpression(n) => {
                    syntax::path_of(&n.callee).and_then(|p| p.last().cloned())
                }
                _ => None,
            };
            if let Some(ty) = annotated.or(built) {
                o.types.push((id.name.to_string(), ty));
            }
        }
    }

    fn visit_assignment_expression(&mut self, it: &AssignmentExpression<'a>) {
        walk::walk_assignment_expression(self, it);
        let target = it.left.get_identifier_name();
        if let (Some(name), Some(o)) = (target, self.open.last_mut()) {
            o.sources.assign(name, &it.right, &self.consts);
        }
    }

    fn visit_await_expression(&mut self, it: &AwaitExpression<'a>) {
        if let Expression::CallExpression(c) = bare(&it.argument) {
            self.awaited.push(awaited_call(c).span.end);
        }
        walk::walk_await_expression(self, it);
    }

    fn visit_call_expression(&mut self, it: &CallExpression<'a>) {
        if self.open.is_empty() {
            // A handler registered at the top level is named for the call.
            let handler = it.arguments.iter().any(|a| {
                matches!(
                    a.as_expression().map(bare),
                    Some(
                        Expression::ArrowFunctionExpression(_) | Expression::FunctionExpression(_)
                    )
                )
            });
            if handler {
                self.next_name = registered_name(it).map(|n| (n, span_of(&it.callee)));
            }
            walk::walk_call_expression(self, it);
            self.next_name = None;
            return;
        }
        if self.orm_chains.last() == Some(&it.span.start) {
            walk::walk_call_expression(self, it);
            return;
        }
        let kind = self.classify(it);
        let chain = matches!(kind, StepKind::Sql { .. }) && super::orm::step(it).is_some();
        if chain {
            self.orm_chains.push(it.span.start);
        }
        let tx = transaction_callback(&kind);
        let then = then_callback(&kind);
        if let Some(var) = &tx {
            self.push(span(it.span), StepKind::TxBegin { var: var.clone() }, true);
        }
        if then {
            if let Some(o) = self.open.last_mut() {
                o.success += 1;
            }
        }
        walk::walk_call_expression(self, it);
        if chain {
            self.orm_chains.pop();
        }
        if then {
            if let Some(o) = self.open.last_mut() {
                o.success -= 1;
            }
        }
        if let Some(var) = tx {
            let end = Span::new(it.span.end as usize, it.span.end as usize);
            self.push(end, StepKind::TxEnd { var, commit: true }, true);
            return;
        }
        let awaited = self.awaited.last() == Some(&it.span.end);
        if awaited {
            self.awaited.pop();
        }
        self.plain_claim(span(it.span), &kind);
        self.push(span(it.span), kind, awaited);
    }

    fn visit_tagged_template_expression(&mut self, it: &TaggedTemplateExpression<'a>) {
        let tag = syntax::path_of(&it.tag).and_then(|p| p.last().cloned());
        if matches!(tag.as_deref(), Some("sql" | "$queryRaw" | "$executeRaw")) {
            let text = template_sql(&it.quasi);
            if let Some(dml) = crate::frontend::sql::dml::classify(&text)
                .into_iter()
                .next()
            {
                let conn = syntax::root_name(&it.tag);
                self.push(span(it.span), StepKind::Sql { dml, conn }, false);
            }
        }
        walk::walk_tagged_template_expression(self, it);
    }

    fn visit_if_statement(&mut self, it: &IfStatement<'a>) {
        self.visit_expression(&it.test);
        let site = self.new_site();
        let test = span_of(&it.test);
        let asks = !matches!(bare(&it.test), Expression::UnaryExpression(_))
            && named_for_conditional_set(self.text.get(test.start..test.end).unwrap_or_default());
        self.with_arm(site, 0, |r| {
            if let (true, Some(o)) = (asks, r.open.last_mut()) {
                o.conditional.push(test);
            }
            r.with_exit(syntax::leaves(&it.consequent), |r| {
                r.visit_statement(&it.consequent)
            });
            if let (true, Some(o)) = (asks, r.open.last_mut()) {
                o.conditional.pop();
            }
        });
        if let Some(alt) = &it.alternate {
            self.with_arm(site, 1, |r| {
                r.with_exit(syntax::leaves(alt), |r| r.visit_statement(alt));
            });
        }
    }

    fn visit_try_statement(&mut self, it: &TryStatement<'a>) {
        let claims = it
            .handler
            .as_ref()
            .is_some_and(|h| catches_unique_violation(self.text, span(h.span)));
        self.claims += u32::from(claims);
        self.visit_block_statement(&it.block);
        self.claims -= u32::from(claims);
        if let Some(h) = &it.handler {
            self.visit_catch_clause(h);
        }
        if let Some(f) = &it.finalizer {
            self.visit_block_statement(f);
        }
    }

    fn visit_conditional_expression(&mut self, it: &ConditionalExpression<'a>) {
        self.visit_expression(&it.test);
        let site = self.new_site();
        self.with_arm(site, 0, |r| r.visit_expression(&it.consequent));
        self.with_arm(site, 1, |r| r.visit_expression(&it.alternate));
    }

    fn visit_switch_statement(&mut self, it: &SwitchStatement<'a>) {
        self.visit_expression(&it.discriminant);
        let site = self.new_site();
        for (arm, case) in it.cases.iter().enumerate() {
            let leaves = case.consequent.iter().any(syntax::leaves);
            self.with_arm(site, arm as u32, |r| {
                r.with_exit(leaves, |r| r.visit_switch_case(case));
            });
        }
    }
}

/// `prisma.$transaction(async (tx) => ..)`: the callback runs in one
/// transaction, begun at the call and committed at its end.
fn transaction_callback(kind: &StepKind) -> Option<Option<String>> {
    let StepKind::Call(site) = kind else {
        return None;
    };
    matches!(site.method.as_deref(), Some("$transaction" | "transaction"))
        .then(|| site.receiver.last().map(|n| n.to_string()))
}

/// `.then(cb)`: the callback runs only when the promise is fulfilled.
fn then_callback(kind: &StepKind) -> bool {
    matches!(kind, StepKind::Call(site) if site.method.as_deref() == Some("then"))
}

/// Classes and the types of their fields, for the model to follow a
/// method call's receiver (`this.payments.refund(..)`) to its class.
pub(super) fn type_defs(program: &Program) -> Vec<TypeDef> {
    let mut out = Vec::new();
    for s in &program.body {
        let class = match s {
            Statement::ClassDeclaration(c) => Some(&**c),
            Statement::ExportDeclaration(e) => match &e.declaration {
                oxc_ast::ast::Declaration::ClassDeclaration(c) => Some(&**c),
                _ => None,
            },
            Statement::ExportDefaultDeclaration(e) => match &e.declaration {
                oxc_ast::ast::ExportDefaultDeclarationKind::ClassDeclaration(c) => Some(&**c),
                _ => None,
            },
            _ => None,
        };
        if let Some(c) = class {
            out.extend(class_def(c));
        }
    }
    out
}

/// A parameter's name and the type its annotation names.
fn param(p: &FormalParameter) -> Option<(String, String)> {
    let name = p.pattern.get_binding_identifier()?.name.to_string();
    let ty = p
        .type_annotation
        .as_ref()
        .and_then(|t| type_name(&t.type_annotation))
        .unwrap_or_default();
    Some((name, ty))
}

/// The type a plain type reference names (`PaymentsService`,
/// `Repository<Event>` → `Repository`).
fn type_name(t: &oxc_ast::ast::TSType) -> Option<String> {
    use oxc_ast::ast::{TSType, TSTypeName};
    match t {
        TSType::TSTypeReference(r) => match &r.type_name {
            TSTypeName::IdentifierReference(i) => Some(i.name.to_string()),
            _ => None,
        },
        _ => None,
    }
}

fn class_def(c: &Class) -> Option<TypeDef> {
    use oxc_ast::ast::ClassElement;
    let name = c.id.as_ref()?.name.to_string();
    let mut fields = Vec::new();
    for el in &c.body.body {
        match el {
            ClassElement::PropertyDefinition(p) => {
                let ty = p
                    .type_annotation
                    .as_ref()
                    .and_then(|t| type_name(&t.type_annotation));
                if let (Some(n), Some(ty)) = (syntax::key_name(&p.key), ty) {
                    fields.push((n, ty));
                }
            }
            ClassElement::MethodDefinition(m)
                if syntax::key_name(&m.key).as_deref() == Some("constructor") =>
            {
                // `constructor(private readonly payments: PaymentsService)`.
                for p in &m.value.params.items {
                    let ty = p
                        .type_annotation
                        .as_ref()
                        .and_then(|t| type_name(&t.type_annotation));
                    let n = p
                        .pattern
                        .get_binding_identifier()
                        .map(|i| i.name.to_string());
                    if let (Some(n), Some(ty), true) = (n, ty, p.has_modifier()) {
                        fields.push((n, ty));
                    }
                }
            }
            _ => {}
        }
    }
    Some(TypeDef {
        module: Vec::new(),
        name,
        fields,
        bounds: Vec::new(),
    })
}
