//! Rust functions joined across the workspace: each function's events
//! classified as key checks, key writes (claims when atomic), effects,
//! possible effects and transaction boundaries, with calls to functions of
//! the workspace resolved (by module path, `use` items, another crate's
//! name, a method's receiver type followed through fields, and a generic
//! bound's or `impl Trait`'s impls, each an arm) and inlined several levels
//! deep, cycles cut. Every entry point (a function no other function calls)
//! that is not test code gets its flattened trace, which the flow rules
//! read; a function called by another is expanded only inside its callers'
//! traces.
//!
//! What it does not do: follow dynamic dispatch through trait objects, see
//! into macros other than the formatting ones, or follow stored closures.
//! An awaited method call it cannot resolve is a possible effect
//! ([`StepKind::Unresolved`]) when its name and receiver do not say it
//! reads, waits or keeps state; any other unknown call is no event. A
//! function whose order cannot be established is marked opaque and judged
//! by no rule.

use super::schema::{Guarding, SchemaModel};
use super::ts_paths::TsPaths;
use crate::config::Config;
use crate::facts::flow::{self, CallSite, FlowFacts, FnTrace, FreshKey, Import, RedisOp, TypeDef};
use crate::facts::store::DmlKind;
use crate::facts::FileFacts;
use crate::knowledge::{self, CallPattern, Name};
use crate::source::{FileId, SourceMap, Span};
use rayon::prelude::*;
use std::collections::HashMap;

/// How deep calls are inlined into an entry point's trace.
pub const MAX_CALL_DEPTH: usize = 6;
/// Most steps of one trace.
const MAX_TRACE: usize = 20_000;

/// Methods of std and common crates that are never resolved by their name
/// alone (a receiver of unknown type calling `insert` is most likely a map).
pub(super) const PLAIN_METHODS: &[&str] = &[
    "clone",
    "to_string",
    "to_owned",
    "as_str",
    "as_ref",
    "as_mut",
    "into",
    "unwrap",
    "expect",
    "unwrap_or",
    "unwrap_or_default",
    "unwrap_or_else",
    "ok",
    "err",
    "ok_or",
    "ok_or_else",
    "map",
    "map_err",
    "and_then",
    "or_else",
    "iter",
    "into_iter",
    "collect",
    "len",
    "is_empty",
    "bind",
    "push",
    "get",
    "insert",
    "remove",
    "contains",
    "contains_key",
    "borrow",
    "lock",
    "read",
    "write",
    "json",
    "status",
    "is_success",
    "is_ok",
    "is_err",
    "is_some",
    "is_none",
    "header",
    "headers",
    "new",
    "default",
    "build",
    "finish",
    "into_response",
    "send",
    "call",
    "run",
    "execute",
    "query",
    "fetch_one",
    "fetch_optional",
    "fetch_all",
    "arg",
    "cmd",
    "set",
    "del",
    "exists",
    "begin",
    "commit",
    "rollback",
    "from",
    "try_from",
    "fmt",
    "eq",
    "hash",
    "drop",
    "poll",
    "poll_ready",
    "next",
    "await",
    "text",
    "bytes",
    "body",
    "extend",
];

/// Wrappers looked through to find a receiver's type.
const TYPE_WRAPPERS: &[&str] = &[
    "Arc",
    "Rc",
    "Box",
    "State",
    "Data",
    "Extension",
    "Option",
    "mut",
    "web",
    "axum",
    "extract",
    "std",
    "sync",
    "rc",
    "actix_web",
    "Mutex",
    "RwLock",
    "tokio",
];

/// What an idempotency store key is: a SQL table or a Redis key prefix
/// (or, with no literal prefix, the key expression's text).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StoreKey {
    Table(String),
    Redis(String),
}

impl StoreKey {
    pub fn describe(&self) -> String {
        match self {
            StoreKey::Table(t) => format!("`{t}`"),
            StoreKey::Redis(k) => format!("Redis key `{k}`"),
        }
    }

    pub fn is_redis(&self) -> bool {
        matches!(self, StoreKey::Redis(_))
    }
}

/// Why a claim (a conditional set) does not hold the key while the handler
/// runs, so that the key is in effect recorded only after the effect.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unheld {
    /// Taken on a store made for this one call (`memory::new()`): the
    /// constructor.
    FreshStore { at: Span, what: String },
    /// Its answer is dropped: a request that lost the claim goes on too.
    Dropped { at: Span },
    /// It expires after `ms` milliseconds, before a handler that writes
    /// and answers can be relied on to finish.
    ShortTtl { at: Span, ms: u64 },
}

/// A claim whose expiry is below this many milliseconds expires before a
/// handler can be relied on to finish (a database write, a provider call).
pub const MIN_CLAIM_TTL_MS: u64 = 1_000;

fn unheld(
    claim: Option<&crate::facts::flow::Claim>,
    file: FileId,
    defs: &super::retention::ConstDefs<'_>,
) -> Option<Unheld> {
    let c = claim?;
    if let Some((at, what)) = &c.fresh_store {
        return Some(Unheld::FreshStore {
            at: *at,
            what: what.clone(),
        });
    }
    if let Some(at) = c.dropped {
        return Some(Unheld::Dropped { at });
    }
    let (expr, at) = c.ttl.as_ref()?;
    let mut steps = 0;
    let lookup = |n: &str| defs.find(file, n).map(|(_, d)| &d.expr);
    match crate::facts::retention::eval(expr, &lookup, &mut steps, 0)? {
        crate::facts::retention::Value::Dur(ms) if ms < u128::from(MIN_CLAIM_TTL_MS) => {
            Some(Unheld::ShortTtl {
                at: *at,
                ms: u64::try_from(ms).ok()?,
            })
        }
        _ => None,
    }
}

/// Whether a store table's key has a unique guard at the end of its history.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GuardState {
    Guarded,
    Missing,
    /// No migration defines the table: nothing is known.
    Unknown,
}

#[derive(Debug, Clone)]
pub enum StepKind {
    /// A read of a store (`SELECT … FROM idempotency_keys`, Redis `GET`).
    Check {
        store: StoreKey,
    },
    /// A write of a store's key.
    Write {
        store: StoreKey,
        /// `insert`, `upsert`, `update`, `SET`, `SET NX`.
        what: &'static str,
        /// Fails or skips on a duplicate: `ON CONFLICT DO NOTHING`, `NX`, or
        /// a plain insert into a table whose key has a unique guard.
        atomic: bool,
        /// A plain `INSERT` / `SET` (not an upsert or update).
        plain: bool,
        guard: GuardState,
        conn: Option<String>,
        /// A claim that does not hold until the record replaces it.
        unheld: Option<Unheld>,
        /// A claim whose answer decides what runs after it
        /// (`flow::RedisKey::decides`).
        decides: bool,
    },
    /// A read of a table that is no store by a key no unique guard covers
    /// (`model::lookups`): a check of that key when a create of the same
    /// table follows.
    Lookup {
        table: String,
        lookup: super::lookups::Unguarded,
    },
    /// Something that cannot be taken back with the handler's transaction.
    Effect {
        what: String,
        reason: String,
        /// For a SQL write, the executor it runs on.
        sql_conn: Option<Option<String>>,
        /// For a plain insert into a table that is no store, the table.
        inserts: Option<String>,
    },
    TxBegin {
        conn: Option<String>,
    },
    TxEnd {
        conn: Option<String>,
        commit: bool,
    },
    /// An awaited call the model cannot resolve and that may be an effect
    /// (see [`possible_effect`]): the rules take it for the effect only
    /// between a lookup and a record of the same key, at a lower severity.
    Unresolved {
        what: String,
        /// Why it is not resolved.
        why: &'static str,
        /// A method of a trait object: it may as well claim the key.
        trait_object: bool,
    },
}

#[derive(Debug, Clone)]
pub struct Step {
    pub file: FileId,
    pub span: Span,
    /// The call in the entry point that leads here, when inlined.
    pub via: Option<(FileId, Span)>,
    pub kind: StepKind,
    pub branch: Vec<(u64, u32)>,
    /// Leaving blocks the step is in (see `flow::Step::exits`).
    pub exits: Vec<u64>,
    pub success_only: bool,
}

impl Step {
    /// Whether this step cannot run before `later`: they sit in different
    /// arms of one branch, or this one is in a block that leaves and
    /// `later` is not.
    pub fn exclusive(&self, later: &Step) -> bool {
        self.branch
            .iter()
            .any(|(s, a)| later.branch.iter().any(|(t, b)| s == t && a != b))
            || self.exits.iter().any(|x| !later.exits.contains(x))
    }
}

/// A function of the crate.
#[derive(Debug, Clone)]
pub struct FnEntry {
    pub file: FileId,
    /// How the function's language joins a call's path in messages: `::`
    /// in Rust, `.` elsewhere (`refund.New`, `stripe.refunds`).
    pub path_sep: &'static str,
    pub name: String,
    pub owner: Option<String>,
    pub crate_key: String,
    pub module: Vec<String>,
    pub span: Span,
    pub test: bool,
    /// See `flow::FnTrace::unconditional_set`.
    pub unconditional_set: Option<Span>,
    /// See `flow::FnTrace::unlocked_check`.
    pub unlocked_check: Option<(Span, Span, Span)>,
    /// See `flow::FnTrace::plain_claim`.
    pub plain_claim: Option<crate::facts::flow::PlainClaim>,
}

/// A flattened entry point.
#[derive(Debug, Clone)]
pub struct Trace {
    pub function: usize,
    pub steps: Vec<Step>,
}

#[derive(Debug, Default)]
pub struct FlowModel {
    pub functions: Vec<FnEntry>,
    /// Entry points that are not test code and whose order is known.
    pub traces: Vec<Trace>,
    pub fresh_keys: Vec<(FileId, FreshKey)>,
    /// By function index: each call resolved to a function of the crate
    /// (the call's span and the callee), for rules that follow a body's
    /// calls (retry-outlives-key-retention).
    pub calls: Vec<Vec<(Span, usize)>>,
}

/// One function's own events, classified, with calls still unexpanded.
#[derive(Debug, Clone)]
enum Local {
    Step(Step),
    Call {
        /// One callee, or a bound's impls, one of which runs.
        targets: Vec<usize>,
        file: FileId,
        span: Span,
        branch: Vec<(u64, u32)>,
        exits: Vec<u64>,
        success_only: bool,
        /// Callee parameter → caller's name for it.
        subst: Vec<(String, String)>,
    },
}

/// Crate (the directory above `src/`) and module path of a file.
pub(super) fn module_of(path: &str) -> (String, Vec<String>) {
    let p = path.replace('\\', "/");
    if let Some(m) = script_module_of(&p) {
        return m;
    }
    let (root, rest) = if let Some(rest) = p.strip_prefix("src/") {
        (String::new(), rest.to_string())
    } else if let Some(i) = p.rfind("/src/") {
        (p[..i].to_string(), p[i + 5..].to_string())
    } else {
        match p.rsplit_once('/') {
            Some((dir, file)) => (dir.to_string(), file.to_string()),
            None => (String::new(), p.clone()),
        }
    };
    let mut parts: Vec<String> = rest.split('/').map(str::to_string).collect();
    if let Some(last) = parts.last_mut() {
        *last = last.trim_end_matches(".rs").to_string();
        if matches!(last.as_str(), "mod" | "lib" | "main") {
            parts.pop();
        }
    }
    (root, parts)
}

/// The crate and module of a TypeScript or JavaScript file: the directory
/// above its last `src/`, else the checked tree's root (a Next.js app keeps
/// `app/` and `lib/` side by side); the module is the path below it without
/// its extension (`lib/stripe`), an `index` file its directory's. Imports
/// (`frontend::ts`) name modules the same way.
fn script_module_of(p: &str) -> Option<(String, Vec<String>)> {
    const EXTENSIONS: &[&str] = &[".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs"];
    let stem = EXTENSIONS.iter().find_map(|e| p.strip_suffix(e))?;
    let (root, rest) = match stem.rfind("/src/") {
        Some(i) => (format!("ts:{}", &stem[..i]), &stem[i + 5..]),
        None => ("ts:".to_string(), stem.strip_prefix("src/").unwrap_or(stem)),
    };
    let mut parts: Vec<String> = rest.split('/').map(str::to_string).collect();
    if parts.len() > 1 && parts.last().is_some_and(|l| l == "index") {
        parts.pop();
    }
    Some((root, parts))
}

/// The type a type's text names, looking through `&`, `Arc<..>`,
/// `State<..>` and kin; `Err(())` for a trait object.
pub(super) fn type_name(text: &str) -> Result<Option<String>, ()> {
    let words: Vec<&str> = text
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .collect();
    if words.contains(&"dyn") {
        return Err(());
    }
    Ok(words
        .into_iter()
        .find(|w| !TYPE_WRAPPERS.contains(w) && w.starts_with(|c: char| c.is_uppercase()))
        .map(str::to_string))
}

struct Index<'a> {
    fns: Vec<(&'a FnEntry, &'a FnTrace, &'a FlowFacts)>,
    /// (crate, module path + name) → free functions.
    free: HashMap<(&'a str, Vec<String>), Vec<usize>>,
    free_by_name: HashMap<(&'a str, &'a str), Vec<usize>>,
    methods: HashMap<(&'a str, &'a str, &'a str), Vec<usize>>,
    methods_by_name: HashMap<(&'a str, &'a str), Vec<usize>>,
    /// (type, method) → methods in every crate of the workspace.
    methods_anywhere: HashMap<(&'a str, &'a str), Vec<usize>>,
    /// (trait, method) → the methods of its impls, in every crate.
    impls: HashMap<(&'a str, &'a str), Vec<usize>>,
    structs: HashMap<(&'a str, &'a str), &'a TypeDef>,
    /// A TypeScript file's imported name that its `tsconfig` `paths` lead
    /// to a module: (file, alias) → (crate, module path + name).
    aliased: HashMap<(FileId, String), (&'a str, Vec<String>)>,
    structs_anywhere: HashMap<&'a str, Vec<&'a TypeDef>>,
    /// A workspace crate's name as `use` paths write it (its directory,
    /// `-` as `_`) → its crate key.
    crates: HashMap<String, &'a str>,
}

const TRAIT_OBJECT: &str = "a method of a trait object (`dyn`): which impl runs is not known";

enum Resolved {
    Fn(usize),
    /// A generic bound's or `impl Trait`'s method: each impl the workspace
    /// holds, one of which runs.
    Many(Vec<usize>),
    /// A method the analysis cannot resolve: a trait object's, or one of a
    /// type the workspace does not define. Why, for the possible effect.
    Unresolved(&'static str),
    None,
}

/// A receiver's type as far as the types of the crate tell it.
enum RecvType {
    Named(String),
    TraitObject,
    Unknown,
}

impl<'a> Index<'a> {
    /// The index of every function, struct and trait impl of the workspace.
    fn build(
        entries: &'a [FnEntry],
        flows: &[(&'a FnTrace, &'a FlowFacts)],
        crate_files: &'a [(String, &'a FlowFacts)],
    ) -> Self {
        let mut index = Index {
            fns: Vec::new(),
            free: HashMap::new(),
            free_by_name: HashMap::new(),
            methods: HashMap::new(),
            methods_by_name: HashMap::new(),
            methods_anywhere: HashMap::new(),
            impls: HashMap::new(),
            structs: HashMap::new(),
            structs_anywhere: HashMap::new(),
            crates: HashMap::new(),
            aliased: HashMap::new(),
        };
        for (i, (e, (func, facts))) in entries.iter().zip(flows).enumerate() {
            index.fns.push((e, func, facts));
            let k = e.crate_key.as_str();
            let name = e.name.as_str();
            match e.owner.as_deref() {
                Some(o) => {
                    index.methods.entry((k, o, name)).or_default().push(i);
                    index.methods_by_name.entry((k, name)).or_default().push(i);
                    index.methods_anywhere.entry((o, name)).or_default().push(i);
                    if let Some(t) = func.trait_of.as_deref() {
                        index.impls.entry((t, name)).or_default().push(i);
                    }
                }
                None => {
                    let mut path = e.module.clone();
                    path.push(e.name.clone());
                    index.free.entry((k, path)).or_default().push(i);
                    index.free_by_name.entry((k, name)).or_default().push(i);
                }
            }
            if let Some(n) = crate::prefilter::reading::crate_name(k) {
                index.crates.entry(n).or_insert(k);
            }
        }
        for (k, facts) in crate_files {
            let k = k.as_str();
            for s in &facts.structs {
                index.structs.insert((k, s.name.as_str()), s);
                index
                    .structs_anywhere
                    .entry(s.name.as_str())
                    .or_default()
                    .push(s);
            }
        }
        index
    }

    /// A method of type `ty`: in the caller's crate, else in the one
    /// crate of the workspace that defines it.
    fn method_of(&self, krate: &str, ty: &str, m: &str) -> Option<usize> {
        if let Some(v) = self.methods.get(&(krate, ty, m)) {
            return v.first().copied();
        }
        let v = self.methods_anywhere.get(&(ty, m))?;
        let first = self.fns[*v.first()?].0.crate_key.as_str();
        v.iter()
            .all(|&g| self.fns[g].0.crate_key == first)
            .then(|| v[0])
    }

    fn struct_of(&self, krate: &str, ty: &str) -> Option<&'a TypeDef> {
        if let Some(s) = self.structs.get(&(krate, ty)) {
            return Some(s);
        }
        match self.structs_anywhere.get(ty)?.as_slice() {
            [one] => Some(one),
            _ => None,
        }
    }

    /// The type of a receiver path: its root's type (`self`'s impl type, a
    /// parameter's or binding's), then each field's through the structs of
    /// the workspace.
    fn receiver_type(&self, caller: usize, site: &CallSite) -> RecvType {
        let (entry, _, _) = self.fns[caller];
        let krate = entry.crate_key.as_str();
        let mut ty = match site.receiver.first().map(Name::as_str) {
            Some("self") => match entry.owner.clone() {
                Some(o) => o,
                None => return RecvType::Unknown,
            },
            Some(_) => match site.recv_type.as_deref().map(type_name) {
                Some(Ok(Some(t))) => t,
                Some(Err(())) => return RecvType::TraitObject,
                _ => return RecvType::Unknown,
            },
            None => return RecvType::Unknown,
        };
        for field in site.receiver.iter().skip(1) {
            let Some(st) = self.struct_of(krate, &ty) else {
                return RecvType::Unknown;
            };
            let Some((_, text)) = st.fields.iter().find(|(n, _)| n == field) else {
                return RecvType::Unknown;
            };
            ty = match type_name(text) {
                Ok(Some(t)) => t,
                Ok(None) => return RecvType::Unknown,
                Err(()) => return RecvType::TraitObject,
            };
        }
        RecvType::Named(ty)
    }

    /// A method call on a receiver of type `ty`: the type's method, a
    /// bound's or named trait's impls, or why it stays unresolved.
    fn resolve_on(&self, caller: usize, ty: &str, m: &str) -> Resolved {
        let (entry, func, _) = self.fns[caller];
        let krate = entry.crate_key.as_str();
        let traits: Vec<&str> = match func.bounds.iter().find(|(p, _)| p == ty) {
            Some((_, b)) => b.iter().map(String::as_str).collect(),
            None => vec![ty],
        };
        let impls: Vec<usize> = traits
            .iter()
            .filter_map(|t| self.impls.get(&(*t, m)))
            .flatten()
            .copied()
            .collect();
        match impls.as_slice() {
            [] => {}
            [one] => return Resolved::Fn(*one),
            _ => return Resolved::Many(impls),
        }
        // A trait's default method, or the type's own.
        if let Some(g) = traits.iter().find_map(|t| self.method_of(krate, t, m)) {
            return Resolved::Fn(g);
        }
        if traits.len() == 1 && traits[0] == ty && ty.len() > 1 {
            return Resolved::Unresolved("a method of a type the workspace does not define");
        }
        Resolved::Unresolved("a method of a generic bound whose impls the workspace does not hold")
    }

    fn resolve(&self, caller: usize, site: &CallSite) -> Resolved {
        let (entry, _, facts) = self.fns[caller];
        let krate = entry.crate_key.as_str();
        let first = |v: Option<&Vec<usize>>| v.and_then(|v| v.first().copied());
        if let Some(m) = site.method.as_deref() {
            return match self.receiver_type(caller, site) {
                RecvType::TraitObject => Resolved::Unresolved(
                    "a method of a trait object (`dyn`): which impl runs is not known",
                ),
                RecvType::Named(t) => self.resolve_on(caller, &t, m),
                RecvType::Unknown => match self.methods_by_name.get(&(krate, m)) {
                    Some(v) if v.len() == 1 && !PLAIN_METHODS.contains(&m) => Resolved::Fn(v[0]),
                    _ => Resolved::Unresolved("a method of a receiver whose type is not known"),
                },
            };
        }
        let segs: Vec<String> = site.path.iter().map(|s| s.to_string()).collect();
        let segs = &segs;
        let Some(last) = segs.last() else {
            return Resolved::None;
        };
        let mut candidates: Vec<Vec<String>> = Vec::new();
        match segs.first().map(String::as_str) {
            Some("crate") => candidates.push(segs[1..].to_vec()),
            Some("self") => candidates.push([&entry.module[..], &segs[1..]].concat()),
            Some("super") => {
                let ups = segs.iter().take_while(|s| *s == "super").count();
                let keep = entry.module.len().saturating_sub(ups);
                candidates.push([&entry.module[..keep], &segs[ups..]].concat());
            }
            Some("Self") if segs.len() == 2 => {
                if let Some(o) = entry.owner.as_deref() {
                    if let Some(g) = first(self.methods.get(&(krate, o, last.as_str()))) {
                        return Resolved::Fn(g);
                    }
                }
                return Resolved::None;
            }
            Some(head) => {
                if let Some((k, p)) = self.aliased.get(&(entry.file, head.to_string())) {
                    let full = [&p[..], &segs[1..]].concat();
                    if let Some(g) = first(self.free.get(&(*k, full))) {
                        return Resolved::Fn(g);
                    }
                }
                for u in uses_in(facts, &entry.module) {
                    if u.alias == head {
                        let full = [&u.path[..], &segs[1..]].concat();
                        candidates.extend(absolute(&full, &u.module));
                    }
                }
                candidates.push([&entry.module[..], &segs[..]].concat());
                candidates.push(segs.clone());
            }
            None => {}
        }
        for c in &candidates {
            // `payments::client::charge`: a function of another crate of
            // the workspace, by its name.
            let other = c
                .first()
                .and_then(|h| self.crates.get(h.as_str()))
                .map(|k| (*k, c[1..].to_vec()));
            for (k, c) in std::iter::once((krate, c.clone())).chain(other) {
                if c.len() >= 2 {
                    let ty = &c[c.len() - 2];
                    if ty.starts_with(|ch: char| ch.is_uppercase()) {
                        if let Some(g) = first(self.methods.get(&(k, ty.as_str(), last.as_str()))) {
                            return Resolved::Fn(g);
                        }
                    }
                }
                if let Some(g) = first(self.free.get(&(k, c))) {
                    return Resolved::Fn(g);
                }
            }
        }
        if segs.len() == 1 {
            for u in uses_in(facts, &entry.module).filter(|u| u.alias == "*") {
                for c in absolute(&[&u.path[..], &segs[..]].concat(), &u.module) {
                    if let Some(g) = first(self.free.get(&(krate, c))) {
                        return Resolved::Fn(g);
                    }
                }
            }
            if let Some(v) = self.free_by_name.get(&(krate, last.as_str())) {
                if v.len() == 1 {
                    return Resolved::Fn(v[0]);
                }
            }
        }
        Resolved::None
    }
}

/// The imported functions of TypeScript files that the project's
/// `tsconfig` `paths` lead to a module of a crate that has functions.
fn aliased<'a>(
    files: &[FileFacts],
    sources: &SourceMap,
    paths: &TsPaths,
    entries: &'a [FnEntry],
) -> HashMap<(FileId, String), (&'a str, Vec<String>)> {
    let mut out = HashMap::new();
    let crates: HashMap<&str, &'a str> = entries
        .iter()
        .map(|e| (e.crate_key.as_str(), e.crate_key.as_str()))
        .collect();
    for f in files {
        let Some(flow) = f.code.as_ref().map(|r| &r.flow) else {
            continue;
        };
        let importer = sources.path(f.file);
        for u in &flow.uses {
            let Some(spec) = &u.spec else { continue };
            let (Some(name), Some(target)) = (&spec.name, paths.resolve(importer, &spec.text))
            else {
                continue;
            };
            let Some((krate, mut module)) = script_module_of(&format!("{target}.ts")) else {
                continue;
            };

            if let Some(k) = crates.get(krate.as_str()) {
                module.push(name.clone());
                out.insert((f.file, u.alias.clone()), (*k, module));
            }
        }
    }
    out
}

/// The `use` items visible in a module of a file (its own and its parents').
fn uses_in<'f>(facts: &'f FlowFacts, module: &'f [String]) -> impl Iterator<Item = &'f Import> {
    facts
        .uses
        .iter()
        .filter(move |u| module.starts_with(&u.module))
}

/// A `use` path as crate-relative candidates: `crate::a` → `a`,
/// `super::a` from `m::n` → `m::a`, `a::b` → itself and without its first
/// segment (an external or this crate's own name).
fn absolute(path: &[String], module: &[String]) -> Vec<Vec<String>> {
    match path.first().map(String::as_str) {
        Some("crate") => vec![path[1..].to_vec()],
        Some("self") => vec![[module, &path[1..]].concat()],
        Some("super") => {
            let ups = path.iter().take_while(|s| *s == "super").count();
            let keep = module.len().saturating_sub(ups);
            vec![[&module[..keep], &path[ups..]].concat()]
        }
        _ => vec![
            path.to_vec(),
            path.get(1..).map(<[String]>::to_vec).unwrap_or_default(),
        ],
    }
}

struct Classifier<'a> {
    schema: &'a SchemaModel,
    effects: Vec<&'a CallPattern>,
}

impl Classifier<'_> {
    /// Whether `table` is a store only because it carries a key column
    /// (a `transfers` table with an `idempotency_key`), not by its name
    /// or the config.
    fn carrier(&self, table: &str) -> bool {
        self.schema
            .find_table(table)
            .and_then(|t| self.schema.store(t))
            .is_some_and(|s| !s.dedicated)
    }

    fn guard(&self, table: &str) -> GuardState {
        let Some(t) = self.schema.find_table(table) else {
            return GuardState::Unknown;
        };
        match self.schema.store(t).map(|s| s.guarding(t)) {
            Some(Guarding::Missing) => GuardState::Missing,
            Some(_) => GuardState::Guarded,
            None => GuardState::Unknown,
        }
    }

    fn effect(&self, site: &CallSite, script: bool, sep: &str) -> Option<(String, String)> {
        let shape = if script {
            site.shape().in_script()
        } else {
            site.shape()
        };
        let p = self.effects.iter().find(|p| p.matches(shape))?;
        let what = match &site.method {
            Some(m) => format!("`.{m}()`"),
            None => format!(
                "`{}`",
                site.path
                    .iter()
                    .rev()
                    .take(2)
                    .rev()
                    .cloned()
                    .collect::<Vec<_>>()
                    .join(sep)
            ),
        };
        Some((what, p.reason.clone().unwrap_or_else(|| p.id.clone())))
    }
}

pub(crate) fn redis_store(key: &crate::facts::flow::RedisKey) -> Option<StoreKey> {
    let stores = knowledge::stores();
    match &key.prefix {
        // A key built from the idempotency header's value or a provider
        // event's identity keeps that key, whatever its prefix says.
        Some(p) if key.derived || key.from_header || stores.is_store_prefix(p) => {
            Some(StoreKey::Redis(p.clone()))
        }
        None if key.derived || key.from_header => Some(StoreKey::Redis(key.text.to_string())),
        Some(_) => None,
        None if stores.redis_prefix.matches(&key.text) => {
            Some(StoreKey::Redis(key.text.to_string()))
        }
        None => None,
    }
}

impl FlowModel {
    pub fn build(
        files: &[FileFacts],
        sources: &SourceMap,
        config: &Config,
        schema: &SchemaModel,
        paths: &TsPaths,
    ) -> Self {
        Self::with_expansion(files, sources, config, schema, paths).0
    }

    /// The model, and the expansion it was traced from (which the tests
    /// read for functions that have no trace).
    fn with_expansion(
        files: &[FileFacts],
        sources: &SourceMap,
        config: &Config,
        schema: &SchemaModel,
        paths: &TsPaths,
    ) -> (Self, Expansion) {
        let mut entries = Vec::new();
        let mut flows: Vec<(&FnTrace, &FlowFacts)> = Vec::new();
        let mut fresh_keys = Vec::new();
        let mut crate_files: Vec<(String, &FlowFacts)> = Vec::new();
        for f in files {
            let Some(flow) = f.code.as_ref().map(|r| &r.flow) else {
                continue;
            };
            let (crate_key, file_module) = module_of(sources.path(f.file));
            crate_files.push((crate_key.clone(), flow));
            for func in &flow.functions {
                let rust = sources.get(f.file).kind == crate::source::FileKind::Rust;
                entries.push(FnEntry {
                    file: f.file,
                    path_sep: if rust { "::" } else { "." },
                    name: func.name.clone(),
                    owner: func.owner.clone(),
                    crate_key: crate_key.clone(),
                    module: [&file_module[..], &func.module[..]].concat(),
                    span: func.span,
                    // A function of a test file (`*.test.ts`, `tests/`)
                    // is test code whatever its attributes say.
                    test: func.test || f.test_path,
                    unconditional_set: func.unconditional_set,
                    unlocked_check: func.unlocked_check,
                    plain_claim: func.plain_claim,
                });
                flows.push((func, flow));
            }
            fresh_keys.extend(flow.fresh_keys.iter().map(|k| (f.file, k.clone())));
        }
        let mut index = Index::build(&entries, &flows, &crate_files);
        index.aliased = aliased(files, sources, paths, &entries);
        let defs = super::retention::ConstDefs::new(files, sources);
        let classifier = Classifier {
            schema,
            effects: knowledge::effects()
                .effect
                .iter()
                .chain(&config.effect)
                .collect(),
        };
        let opaque: Vec<bool> = flows.iter().map(|(f, _)| f.opaque.is_some()).collect();
        let mut called = vec![false; entries.len()];
        // Each function's steps on its own, side by side (the flow model's
        // largest part on the hyperswitch fork), with whether it makes a
        // call that cannot be known.
        let lowering = Lowering {
            index: &index,
            classifier: &classifier,
            defs: &defs,
        };
        let built: Vec<(Vec<Local>, bool)> = (0..entries.len())
            .into_par_iter()
            .map(|i| lowering.locals(i))
            .collect();
        let mut opaque = opaque;
        let locals: Vec<Vec<Local>> = built
            .into_iter()
            .zip(&mut opaque)
            .map(|((out, unknown), opaque)| {
                *opaque |= unknown;
                out
            })
            .collect();
        for l in &locals {
            for s in l {
                if let Local::Call { targets, .. } = s {
                    for t in targets {
                        called[*t] = true;
                    }
                }
            }
        }
        let calls = locals
            .iter()
            .map(|l| {
                l.iter()
                    .flat_map(|s| match s {
                        Local::Call { targets, span, .. } => {
                            targets.iter().map(|t| (*span, *t)).collect::<Vec<_>>()
                        }
                        Local::Step(_) => Vec::new(),
                    })
                    .collect()
            })
            .collect();
        // Every reader of a trace (the flow rules, the inventory's writers)
        // looks for a write to a store or a key's unguarded lookup: with
        // none in any function, no trace can hold one, and none is expanded
        // (omicron: no store).
        let writes = locals.iter().flatten().any(|l| {
            matches!(
                l,
                Local::Step(Step {
                    kind: StepKind::Write { .. } | StepKind::Lookup { .. },
                    ..
                })
            )
        });
        let expansion = Expansion { locals, opaque };
        // A called function is expanded inside its callers' traces and test
        // code is judged by no flow rule: neither needs a trace of its own
        // (on the cargo registry's sources, expanding every function was 27%
        // of the CPU).
        let traces = (0..entries.len())
            .into_par_iter()
            .filter(|&i| writes && !called[i] && !entries[i].test)
            .filter_map(|i| {
                let (steps, opaque) = expansion.flatten(i);
                (!opaque).then_some(Trace { function: i, steps })
            })
            .collect();
        let model = FlowModel {
            functions: entries,
            traces,
            fresh_keys,
            calls,
        };
        (model, expansion)
    }
}

/// What classifies a function's events as steps: the index of the
/// functions a call can reach, the store and effect catalogues, and the
/// constants a claim's expiry can name.
struct Lowering<'i, 'a> {
    index: &'i Index<'a>,
    classifier: &'i Classifier<'a>,
    defs: &'i super::retention::ConstDefs<'a>,
}

/// Where an event sits, for the steps and calls made of it.
struct At<'e> {
    file: FileId,
    ev: &'e flow::Step,
    /// Its branches and leaving blocks, made unique to its function.
    branch: Vec<(u64, u32)>,
    exits: Vec<u64>,
}

impl<'e> At<'e> {
    fn new(i: usize, file: FileId, ev: &'e flow::Step) -> Self {
        At {
            file,
            ev,
            branch: ev
                .branch
                .iter()
                .map(|(s, a)| (((i as u64) << 32) | u64::from(*s), *a))
                .collect(),
            exits: ev
                .exits
                .iter()
                .map(|x| ((i as u64) << 32) | u64::from(*x))
                .collect(),
        }
    }

    fn step(&self, kind: StepKind) -> Local {
        Local::Step(Step {
            file: self.file,
            span: self.ev.span,
            via: None,
            kind,
            branch: self.branch.clone(),
            exits: self.exits.clone(),
            success_only: self.ev.success_only,
        })
    }

    fn call(&self, targets: Vec<usize>, subst: Vec<(String, String)>) -> Local {
        Local::Call {
            targets,
            file: self.file,
            span: self.ev.span,
            branch: self.branch.clone(),
            exits: self.exits.clone(),
            success_only: self.ev.success_only,
            subst,
        }
    }
}

impl Lowering<'_, '_> {
    /// Function `i`'s steps on its own, calls unexpanded, with whether it
    /// makes a call that cannot be known.
    fn locals(&self, i: usize) -> (Vec<Local>, bool) {
        let (e, func, _) = self.index.fns[i];
        let mut out = Vec::new();
        let mut unknown = false;
        for ev in &func.events {
            let at = At::new(i, e.file, ev);
            let kind = match &ev.kind {
                flow::StepKind::Sql { dml, conn } => self.sql(dml, conn),
                flow::StepKind::Redis { key, op, conn } => {
                    let claim = func
                        .claims
                        .iter()
                        .find(|(s, _)| *s == ev.span)
                        .map(|(_, c)| c);
                    let unheld = || unheld(claim, e.file, self.defs);
                    self.redis(*op, key, conn, &unheld)
                }
                flow::StepKind::TxBegin { var } => Some(StepKind::TxBegin { conn: var.clone() }),
                flow::StepKind::TxEnd { var, commit } => Some(StepKind::TxEnd {
                    conn: var.clone(),
                    commit: *commit,
                }),
                flow::StepKind::Call(site) => {
                    let (local, opaque) = self.call(i, e, &at, site);
                    out.extend(local);
                    unknown |= opaque;
                    None
                }
            };
            out.extend(kind.map(|k| at.step(k)));
        }
        (out, unknown)
    }

    /// The step of a statement on a table: a check or a write of a store,
    /// an effect on any other table.
    fn sql(&self, dml: &crate::facts::store::Dml, conn: &Option<String>) -> Option<StepKind> {
        let classifier = self.classifier;
        let store = classifier.schema.is_store_name(&dml.table);
        let table = StoreKey::Table(classifier.schema.resolve(&dml.table).to_string());
        let write = |what, atomic, plain| StepKind::Write {
            store: table.clone(),
            what,
            atomic,
            plain,
            guard: classifier.guard(&dml.table),
            conn: conn.clone(),
            unheld: None,
            decides: false,
        };
        Some(match (store, dml.kind) {
            (true, DmlKind::Read) => StepKind::Check {
                store: table.clone(),
            },
            (true, DmlKind::Insert) => write(
                "insert",
                classifier.guard(&dml.table) == GuardState::Guarded,
                true,
            ),
            (true, DmlKind::InsertDoNothing) => write("insert", true, false),
            (true, DmlKind::Upsert) => write("upsert", false, false),
            // An update of a table that only carries the key (a transfer's
            // status) writes a row some insert keyed before: no record of
            // the key.
            (true, DmlKind::Update) if classifier.carrier(&dml.table) => return None,
            (true, DmlKind::Update) => write("update", false, false),
            (false, DmlKind::Read) if !dml.conflict.is_empty() => {
                let StoreKey::Table(table) = table else {
                    return None;
                };
                let lookup = classifier
                    .schema
                    .unguarded_lookup(&dml.table, &dml.conflict)?;
                StepKind::Lookup { table, lookup }
            }
            (true, DmlKind::Delete) | (false, DmlKind::Read) => return None,
            (false, k) => StepKind::Effect {
                what: format!("the {} on `{}`", k.as_str(), dml.table),
                reason: "a write to a table that is not the key's store".into(),
                sql_conn: Some(conn.clone()),
                inserts: matches!(k, DmlKind::Insert | DmlKind::InsertDoNothing)
                    .then(|| classifier.schema.resolve(&dml.table).to_string()),
            },
        })
    }

    /// The step of a Redis command on a store's key: a check or a write
    /// (`unheld`: how its claim may not hold).
    fn redis(
        &self,
        op: RedisOp,
        key: &crate::facts::flow::RedisKey,
        conn: &Option<String>,
        unheld: &dyn Fn() -> Option<Unheld>,
    ) -> Option<StepKind> {
        let store = redis_store(key)?;
        let write = |what, atomic| StepKind::Write {
            store: store.clone(),
            what,
            atomic,
            plain: true,
            guard: GuardState::Unknown,
            conn: conn.clone(),
            unheld: unheld(),
            decides: atomic && key.decides,
        };
        match op {
            RedisOp::Get | RedisOp::Exists => Some(StepKind::Check {
                store: store.clone(),
            }),
            RedisOp::Set => Some(write("SET", false)),
            RedisOp::SetNx => Some(write("SET NX", true)),
            RedisOp::Del | RedisOp::Expire => None,
        }
    }

    /// A call from function `i`: an effect's step, or a call of the
    /// functions it can reach; with whether its order is unknown (a trait
    /// object's method the crate defines, which may claim or record the
    /// key).
    fn call(&self, i: usize, e: &FnEntry, at: &At, site: &CallSite) -> (Option<Local>, bool) {
        let script = self.index.fns[i].1.script;
        if let Some((what, reason)) = self.classifier.effect(site, script, e.path_sep) {
            let kind = StepKind::Effect {
                what,
                reason,
                sql_conn: None,
                inserts: None,
            };
            return (Some(at.step(kind)), false);
        }
        let index = self.index;
        match index.resolve(i, site) {
            Resolved::Fn(g) if g != i => (
                Some(at.call(vec![g], subst_of(index.fns[g].1, site))),
                false,
            ),
            Resolved::Many(gs) => {
                let gs: Vec<usize> = gs.into_iter().filter(|&g| g != i).collect();
                let first = gs.first().copied();
                (
                    first.map(|g| at.call(gs, subst_of(index.fns[g].1, site))),
                    false,
                )
            }
            Resolved::Unresolved(why) => match possible_effect(at.ev.awaited, site, why) {
                Some(kind) => (Some(at.step(kind)), false),
                None => {
                    let unknown = why == TRAIT_OBJECT
                        && site.method.as_deref().is_some_and(|m| {
                            index
                                .methods_by_name
                                .contains_key(&(e.crate_key.as_str(), m))
                        });
                    (None, unknown)
                }
            },
            _ => (None, false),
        }
    }
}

/// Every function's own steps, calls unexpanded, and whether it makes a
/// call whose target cannot be known.
struct Expansion {
    locals: Vec<Vec<Local>>,
    opaque: Vec<bool>,
}

impl Expansion {
    /// Function `i`'s steps with its calls expanded, and whether anything
    /// on the way is opaque (or the trace hit its length limit).
    fn flatten(&self, i: usize) -> (Vec<Step>, bool) {
        let mut steps = Vec::new();
        let mut op = false;
        flatten(
            i,
            &self.locals,
            &self.opaque,
            &mut vec![i],
            None,
            &[],
            &[],
            &[],
            false,
            &mut steps,
            &mut op,
        );
        (steps, op)
    }
}

/// Append function `f`'s steps, its calls expanded, to `out`.
#[allow(clippy::too_many_arguments)]
fn flatten(
    f: usize,
    locals: &[Vec<Local>],
    opaque: &[bool],
    stack: &mut Vec<usize>,
    via: Option<(FileId, Span)>,
    branch: &[(u64, u32)],
    exits: &[u64],
    subst: &[(String, String)],
    success: bool,
    out: &mut Vec<Step>,
    op: &mut bool,
) {
    *op |= opaque[f];
    let rename = |c: &Option<String>| -> Option<String> {
        c.as_ref().map(|c| {
            subst
                .iter()
                .find(|(p, _)| p == c)
                .map_or(c, |(_, a)| a)
                .clone()
        })
    };
    for l in &locals[f] {
        if out.len() >= MAX_TRACE {
            *op = true;
            return;
        }
        match l {
            Local::Step(s) => {
                let mut s = s.clone();
                if via.is_some() {
                    s.via = via;
                }
                s.branch.splice(0..0, branch.iter().copied());
                s.exits.splice(0..0, exits.iter().copied());
                s.success_only |= success;
                match &mut s.kind {
                    StepKind::Write { conn, .. }
                    | StepKind::TxBegin { conn }
                    | StepKind::TxEnd { conn, .. }
                    | StepKind::Effect {
                        sql_conn: Some(conn),
                        ..
                    } => *conn = rename(conn),
                    _ => {}
                }
                out.push(s);
            }
            Local::Call {
                targets,
                file,
                span,
                branch: b,
                exits: x,
                success_only,
                subst: inner,
            } => {
                let here = via.or(Some((*file, *span)));
                let composed: Vec<(String, String)> = inner
                    .iter()
                    .map(|(p, a)| {
                        let a = subst.iter().find(|(q, _)| q == a).map_or(a, |(_, x)| x);
                        (p.clone(), a.clone())
                    })
                    .collect();
                let mut br = branch.to_vec();
                br.extend(b.iter().copied());
                let mut ex = exits.to_vec();
                ex.extend(x.iter().copied());
                // One of several impls runs: each is an arm of its own.
                let site =
                    (u64::from(span.start as u32) << 32) | (1 << 31) | (f as u64 & 0x7fff_ffff);
                for (arm, target) in targets.iter().enumerate() {
                    if stack.contains(target) || stack.len() > MAX_CALL_DEPTH {
                        continue;
                    }
                    let mut br = br.clone();
                    if targets.len() > 1 {
                        br.push((site, u32::try_from(arm).unwrap_or(u32::MAX)));
                    }
                    stack.push(*target);
                    flatten(
                        *target,
                        locals,
                        opaque,
                        stack,
                        here,
                        &br,
                        &ex,
                        &composed,
                        success || *success_only,
                        out,
                        op,
                    );
                    stack.pop();
                }
            }
        }
    }
}

/// Callee parameter → the caller's name for its argument, and `self` → the
/// receiver's last name.
fn subst_of(callee: &FnTrace, site: &CallSite) -> Vec<(String, String)> {
    let mut subst: Vec<(String, String)> = callee
        .params
        .iter()
        .zip(&site.arg_roots)
        .filter_map(|((p, _), a)| Some((p.clone(), a.as_deref()?.to_string())))
        .collect();
    if let Some(r) = site.receiver.last() {
        subst.push(("self".into(), r.to_string()));
    }
    subst
}

/// An awaited method call the model cannot resolve, which may be the
/// effect: not a read, a wait or a store's own command by its name or its
/// receiver's (`[possible_effect]` of `rules/effects.toml`).
fn possible_effect(awaited: bool, site: &CallSite, why: &'static str) -> Option<StepKind> {
    let m = site.method.as_deref()?;
    if !awaited || PLAIN_METHODS.contains(&m) || site.receiver.is_empty() {
        return None;
    }
    let mut recv: Vec<&str> = site.receiver.iter().map(Name::as_str).collect();
    if let Some(t) = site.recv_type.as_deref() {
        recv.push(t);
    }
    if !knowledge::effects().possible_effect.may_be_effect(m, &recv) {
        return None;
    }
    let receiver = site.receiver.join(".");
    Some(StepKind::Unresolved {
        what: format!("`{receiver}.{m}(..)`"),
        why,
        trait_object: why.contains("trait object"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::{FileKind, SourceFile};

    /// The flow model of a small project given as (path, text) pairs, and
    /// the expansion its traces come from.
    fn model(files: &[(&str, &str)], config: &Config) -> (FlowModel, Expansion) {
        let mut sources = SourceMap::default();
        let mut facts = Vec::new();
        for (id, (path, text)) in files.iter().enumerate() {
            let kind = if path.ends_with(".sql") {
                FileKind::Sql
            } else {
                FileKind::Rust
            };
            sources.files.push(SourceFile::new(*path, kind, *text));
            facts.push(crate::frontend::parse(id, kind, text));
        }
        let schema = SchemaModel::build(&facts, &sources, config);
        FlowModel::with_expansion(&facts, &sources, config, &schema, &TsPaths::default())
    }

    /// What a function does, with the calls it makes followed.
    #[derive(Debug, Default)]
    struct Summary {
        checks: bool,
        claims: bool,
        effects: bool,
        records: bool,
        opaque: bool,
    }

    fn summary_of((m, x): &(FlowModel, Expansion), name: &str) -> Summary {
        let i = m.functions.iter().position(|f| f.name == name).unwrap();
        let (steps, opaque) = x.flatten(i);
        let mut s = Summary {
            opaque,
            ..Summary::default()
        };
        for st in &steps {
            match &st.kind {
                StepKind::Check { .. } => s.checks = true,
                StepKind::Write { atomic, .. } => {
                    s.records = true;
                    s.claims |= *atomic;
                }
                StepKind::Effect { .. } => s.effects = true,
                _ => {}
            }
        }
        s
    }

    #[test]
    fn a_claim_three_calls_deep_in_other_modules_is_the_handler_s_claim() {
        let m = model(
            &[
                (
                    "src/api.rs",
                    "use crate::idem::begin;
async fn handler(pool: &PgPool) { let mut tx = pool.begin().await?; begin(&mut tx, k).await?; tx.commit().await?; }",
                ),
                (
                    "src/idem/mod.rs",
                    "mod store;
pub async fn begin(tx: &mut PgConnection, k: &str) { store::claim_row(tx, k).await }",
                ),
                (
                    "src/idem/store.rs",
                    "pub async fn claim_row(c: &mut PgConnection, k: &str) { super::super::db::insert_key(c, k).await }",
                ),
                (
                    "src/db.rs",
                    "pub async fn insert_key(c: &mut PgConnection, k: &str) { sqlx::query(\"INSERT INTO idempotency_keys (key) VALUES ($1) ON CONFLICT DO NOTHING\").bind(k).execute(c).await }",
                ),
            ],
            &Config::default(),
        );
        let s = summary_of(&m, "handler");
        assert!(s.claims && s.records && !s.effects, "{s:?}");
        // only the handler is an entry point
        assert_eq!(m.0.traces.len(), 1);
        let steps = &m.0.traces[0].steps;
        let conn = steps.iter().find_map(|s| match &s.kind {
            StepKind::Write { conn, .. } => conn.clone(),
            _ => None,
        });
        // the helper's parameter is the handler's transaction
        assert_eq!(conn.as_deref(), Some("tx"));
        assert!(steps
            .iter()
            .all(|s| s.via.is_some_and(|(f, _)| f == 0) || s.file == 0));
    }

    #[test]
    fn recursion_and_cycles_terminate() {
        let m = model(
            &[(
                "src/lib.rs",
                "fn a(n: u32) { b(n); a(n - 1); }
fn b(n: u32) { a(n); reqwest::Client::new().post(U).send(); }
fn record(pool: &PgPool) { sqlx::query(\"INSERT INTO idempotency_keys (key) VALUES ($1)\").execute(pool); }
fn main() { a(3); record(&POOL); }",
            )],
            &Config::default(),
        );
        assert!(summary_of(&m, "main").effects);
        assert_eq!(m.0.traces.len(), 1);
    }

    /// Every reader of a trace looks for a write to a store: with none in
    /// the crate, no trace is built, though calls are still resolved.
    #[test]
    fn no_store_write_builds_no_trace() {
        let m = model(
            &[(
                "src/lib.rs",
                "fn b() { reqwest::Client::new().post(U).send(); }
fn main() { b(); sqlx::query(\"SELECT 1 FROM idempotency_keys WHERE key = $1\").fetch_optional(&POOL); }",
            )],
            &Config::default(),
        );
        assert!(summary_of(&m, "main").effects);
        assert!(m.0.traces.is_empty());
        assert_eq!(m.0.calls.iter().map(Vec::len).sum::<usize>(), 1);
    }

    #[test]
    fn methods_resolve_by_receiver_type_and_trait_objects_make_a_function_opaque() {
        let text = "
struct Repo { pool: PgPool }
impl Repo { async fn record(&self, k: &str) { sqlx::query(\"INSERT INTO idempotency_keys (key) VALUES ($1)\").execute(&self.pool).await; } }
struct Svc { repo: Repo, store: Arc<dyn KeyStore> }
impl Svc {
    async fn typed(&self, k: &str) { self.repo.record(k).await; }
    async fn dynamic(&self, k: &str) { self.store.record(k).await; }
}
";
        let m = model(&[("src/svc.rs", text)], &Config::default());
        assert!(summary_of(&m, "typed").records);
        assert!(summary_of(&m, "dynamic").opaque);
        assert!(!m
            .0
            .traces
            .iter()
            .any(|t| m.0.functions[t.function].name == "dynamic"));
    }

    #[test]
    fn a_config_effect_counts_and_an_unknown_call_does_not() {
        let text = "async fn h(bank: &Bank, k: &str) { bank.post_entry(k).await; }";
        let plain = model(&[("src/h.rs", text)], &Config::default());
        assert!(!summary_of(&plain, "h").effects);
        let config = Config::parse(
            "[[effect]]\nmethod = \"post_entry\"\nreason = \"ledger\"\n",
            "c.toml",
        )
        .unwrap();
        let with = model(&[("src/h.rs", text)], &config);
        assert!(summary_of(&with, "h").effects);
    }

    #[test]
    fn fields_of_a_parameter_generic_bounds_and_workspace_crates_resolve() {
        let client = "pub struct PspClient { http: reqwest::Client }
impl PspClient { pub async fn charge(&self) { self.http.post(U).json(&b).send().await; } }";
        let m = model(
            &[
                ("crates/psp-client/src/lib.rs", client),
                (
                    "crates/api/src/state.rs",
                    "pub struct AppState { pub psp: Arc<psp_client::PspClient> }",
                ),
                (
                    "crates/api/src/pay.rs",
                    "async fn via_state(State(state): State<AppState>) { state.psp.charge().await; }
trait Gateway { async fn capture(&self); }
struct Stripe; struct Adyen;
impl Gateway for Stripe { async fn capture(&self) { stripe::PaymentIntent::capture(&c, &i, p).await; } }
impl Gateway for Adyen { async fn capture(&self) { sqlx::query(\"SELECT 1 FROM payments\").fetch_one(&P).await; } }
struct Svc<G: Gateway> { gw: G }
impl<G: Gateway> Svc<G> { async fn bound(&self) { self.gw.capture().await; } }
async fn where_bound<P>(p: &P) where P: Gateway { p.capture().await; }
async fn unknown(p: &Arc<dyn Provider>) { p.create_transfer().await; }",
                ),
            ],
            &Config::default(),
        );
        assert!(summary_of(&m, "via_state").effects);
        assert!(summary_of(&m, "bound").effects);
        assert!(summary_of(&m, "where_bound").effects);
        assert!(!summary_of(&m, "unknown").effects);
        let i =
            m.0.functions
                .iter()
                .position(|f| f.name == "unknown")
                .unwrap();
        let (steps, opaque) = m.1.flatten(i);
        assert!(!opaque);
        assert!(steps.iter().any(|s| matches!(
            &s.kind,
            StepKind::Unresolved {
                trait_object: true,
                ..
            }
        )));
        // the two impls of the bound are two arms: never both run
        let b =
            m.0.functions
                .iter()
                .position(|f| f.name == "bound")
                .unwrap();
        let (steps, _) = m.1.flatten(b);
        let effect = steps
            .iter()
            .find(|s| matches!(s.kind, StepKind::Effect { .. }))
            .unwrap();
        assert_eq!(effect.branch.len(), 1);
    }

    #[test]
    fn a_redis_key_made_from_the_idempotency_header_is_a_store_whatever_its_prefix() {
        let m = model(
            &[(
                "src/mw.rs",
                "async fn mw(mut cache: ConnectionManager, req: Request, next: Next) -> Response {
    let v = req.headers().get(\"Idempotency-Key\").cloned();
    let slot = format!(\"responses:{}\", v);
    let r = next.run(req).await;
    let _: () = cache.set(&slot, body(&r)).await;
    r
}",
            )],
            &Config::default(),
        );
        let s = summary_of(&m, "mw");
        assert!(s.effects && s.records, "{s:?}");
    }

    #[test]
    fn files_map_to_crates_and_modules() {
        assert_eq!(
            module_of("src/handlers/pay.rs"),
            (String::new(), vec!["handlers".into(), "pay".into()])
        );
        assert_eq!(
            module_of("crates/api/src/idem/mod.rs"),
            ("crates/api".into(), vec!["idem".into()])
        );
        assert_eq!(module_of("crates/api/src/lib.rs").1, Vec::<String>::new());
        assert_eq!(
            module_of("flag/webhook.rs"),
            ("flag".into(), vec!["webhook".into()])
        );
    }

    #[test]
    fn receiver_types_look_through_wrappers_and_refuse_trait_objects() {
        assert_eq!(type_name("& IdemStore"), Ok(Some("IdemStore".into())));
        assert_eq!(
            type_name("State < Arc < AppState > >"),
            Ok(Some("AppState".into()))
        );
        assert_eq!(type_name("Arc < dyn Provider + Send >"), Err(()));
        assert_eq!(
            type_name("& mut PgConnection"),
            Ok(Some("PgConnection".into()))
        );
    }
}
