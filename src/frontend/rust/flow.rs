//! The flow walk: lowers each Rust function into its trace of steps
//! (`facts::flow`). Events per function, in source order, with their control context: SQL
//! statements and Redis commands with the connection or transaction they run
//! on, transaction begin/commit/rollback, and every other call (for the
//! model to match against the effect catalogue and to resolve across the
//! crate). Also the module's `use` items and struct fields (for that
//! resolution) and fresh keys sent from inside a retry. Classifying events as
//! claims, effects or records needs the schema and the catalogue and
//! happens in `model::flows`, not here.

use super::sql_strings::{self, StrConsts};
use crate::facts::flow::{
    CallSite, Claim, FlowFacts, FnTrace, FreshKey, Import, RedisKey, RedisOp, Step, StepKind,
    TypeDef,
};
use crate::facts::FileFacts;
use crate::knowledge::{self, CallShape, Name};
use crate::source::Span;
use std::collections::HashMap;
use syn::visit::{self, Visit};
use thin_vec::ThinVec;

/// Methods of a cache abstraction (`enum Cache { Redis(..), Memory(..) }`
/// dispatched to its backends, a `trait KeyCache`) read in idempotency
/// code as Redis commands: name, arguments, and the command.
const CACHE_METHODS: &[(&str, usize, RedisOp)] = &[
    ("get", 1, RedisOp::Get),
    ("exists", 1, RedisOp::Exists),
    ("set", 3, RedisOp::Set),
    ("set_if_not_exists", 3, RedisOp::SetNx),
    ("set_if_absent", 3, RedisOp::SetNx),
    ("set_nx", 3, RedisOp::SetNx),
    ("delete", 1, RedisOp::Del),
    ("remove", 1, RedisOp::Del),
];

/// Most events kept per function: beyond this the function is opaque.
const MAX_EVENTS: usize = 5_000;

/// The file's top-level string constants, by name.
/// A top-level `const` item whose value is SQL text: the walks read it
/// where its name is used, above or below its definition.
pub(super) fn add_const(consts: &mut StrConsts, file_text: &str, item: &syn::Item) {
    if let syn::Item::Const(c) = item {
        if let Some(s) = sql_strings::const_text(file_text, &c.expr) {
            consts.insert(c.ident.to_string(), s);
        }
    }
}

pub(super) struct FileWalker<'a> {
    text: &'a str,
    consts: &'a StrConsts,
    facts: &'a mut FileFacts,
    module: Vec<String>,
    owner: Option<String>,
    trait_of: Option<String>,
    /// The enclosing impl's generic bounds.
    impl_bounds: Vec<(String, Vec<String>)>,
    test: bool,
    out: FlowFacts,
}

fn type_text(t: &syn::Type) -> String {
    use quote::ToTokens;
    t.to_token_stream().to_string()
}

/// The last plain type name of a self type (`Foo<T>` → `Foo`).
fn type_name(t: &syn::Type) -> Option<String> {
    match t {
        syn::Type::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
        syn::Type::Reference(r) => type_name(&r.elem),
        _ => None,
    }
}

impl<'a> FileWalker<'a> {
    /// The walker of a file whose top-level string constants are `consts`.
    pub(super) fn new(text: &'a str, consts: &'a StrConsts, facts: &'a mut FileFacts) -> Self {
        FileWalker {
            text,
            consts,
            facts,
            module: Vec::new(),
            owner: None,
            trait_of: None,
            impl_bounds: Vec::new(),
            test: false,
            out: FlowFacts::default(),
        }
    }

    pub(super) fn finish(self) -> FlowFacts {
        self.out
    }

    fn function(
        &mut self,
        name: &syn::Ident,
        attrs: &[syn::Attribute],
        sig: &syn::Signature,
        block: &syn::Block,
    ) {
        let mut params = Vec::new();
        for a in &sig.inputs {
            if let syn::FnArg::Typed(t) = a {
                for n in pat_names(&t.pat) {
                    params.push((n, type_text(&t.ty)));
                }
            }
        }
        let mut f = FnWalker {
            text: self.text,
            consts: self.consts,
            facts: self.facts,
            events: Vec::new(),
            branch: Vec::new(),
            exits: Vec::new(),
            sites: 0,
            success: 0,
            opaque: None,
            vars: params.iter().cloned().collect(),
            let_keys: HashMap::new(),
            header_vars: std::collections::HashSet::new(),
            owner: self.owner.clone(),
            scopes: Vec::new(),
            fresh: Vec::new(),
            sql_roots: HashMap::new(),
            let_sql: HashMap::new(),
            unrun: Vec::new(),
            nested: Vec::new(),
            idem: super::cache::names_idempotency_sig(sig)
                || self.owner.as_deref().is_some_and(names_idempotency),
            claims: Vec::new(),
        };
        f.visit_block(block);
        f.drop_unrun();
        let test = self.test || super::redis_config::is_test(attrs);
        let FnWalker {
            mut events,
            opaque,
            fresh,
            nested,
            claims,
            ..
        } = f;
        let opaque =
            opaque.or_else(|| (events.len() > MAX_EVENTS).then(|| super::byte_span(name.span())));
        events.truncate(MAX_EVENTS);
        // Kept until the flow model is built: no growth slack.
        events.shrink_to_fit();
        if !test {
            self.out.fresh_keys.extend(fresh);
        }
        let mut bounds = self.impl_bounds.clone();
        bounds.extend(generic_bounds(&sig.generics));
        self.out.functions.push(FnTrace {
            name: name.to_string(),
            module: self.module.clone(),
            owner: self.owner.clone(),
            trait_of: self.trait_of.clone(),
            bounds,
            span: super::byte_span(name.span()),
            params,
            events,
            opaque,
            test,
            unconditional_set: unconditional_set(&name.to_string(), block),
            plain_claim: None,
            unlocked_check: unlocked_check(&name.to_string(), block),
            claims,
            script: false,
        });
        // Functions defined inside the body are functions of their own.
        let saved = self.owner.take();
        let saved_trait = self.trait_of.take();
        let saved_bounds = std::mem::take(&mut self.impl_bounds);
        for item in nested {
            self.visit_item_fn(&item);
        }
        self.owner = saved;
        self.trait_of = saved_trait;
        self.impl_bounds = saved_bounds;
    }
}

impl<'ast> Visit<'ast> for FileWalker<'_> {
    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        let saved = self.test;
        self.test |= super::redis_config::is_test(&m.attrs);
        self.module.push(m.ident.to_string());
        visit::visit_item_mod(self, m);
        self.module.pop();
        self.test = saved;
    }

    fn visit_item_use(&mut self, u: &'ast syn::ItemUse) {
        let mut prefix = Vec::new();
        use_tree(&u.tree, &mut prefix, &self.module, &mut self.out.uses);
    }

    fn visit_item_struct(&mut self, s: &'ast syn::ItemStruct) {
        let fields = s
            .fields
            .iter()
            .filter_map(|f| Some((f.ident.as_ref()?.to_string(), type_text(&f.ty))))
            .collect();
        self.out.structs.push(TypeDef {
            module: self.module.clone(),
            name: s.ident.to_string(),
            fields,
            bounds: generic_bounds(&s.generics),
        });
    }

    fn visit_item_impl(&mut self, i: &'ast syn::ItemImpl) {
        let saved = self
            .owner
            .replace(type_name(&i.self_ty).unwrap_or_default());
        let trait_of = i
            .trait_
            .as_ref()
            .and_then(|(_, p, _)| p.segments.last())
            .map(|s| s.ident.to_string());
        let saved_trait = std::mem::replace(&mut self.trait_of, trait_of);
        let saved_bounds = std::mem::replace(&mut self.impl_bounds, generic_bounds(&i.generics));
        visit::visit_item_impl(self, i);
        self.owner = saved;
        self.trait_of = saved_trait;
        self.impl_bounds = saved_bounds;
    }

    fn visit_item_trait(&mut self, t: &'ast syn::ItemTrait) {
        let saved = self.owner.replace(t.ident.to_string());
        for item in &t.items {
            if let syn::TraitItem::Fn(f) = item {
                if let Some(body) = &f.default {
                    self.function(&f.sig.ident, &f.attrs, &f.sig, body);
                }
            }
        }
        self.owner = saved;
    }

    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        self.function(&f.sig.ident, &f.attrs, &f.sig, &f.block);
    }

    fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
        self.function(&f.sig.ident, &f.attrs, &f.sig, &f.block);
    }
}

/// Words of a function's name that say it sets only when the key is absent.
/// The prefilter admits a Rust file that holds one (`rules/prefilter.toml`).
pub const CONDITIONAL_SET_NAMES: &[&str] =
    &["if_not_exist", "if_absent", "setnx", "set_nx", "if_not_set"];

fn named_for_conditional_set(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    CONDITIONAL_SET_NAMES.iter().any(|w| lower.contains(w))
}

/// Where a function named for a conditional set (an in-memory map behind
/// a lock) checks the key (`contains_key`, `get`, `get_raw(..).is_none()`)
/// and only then takes the lock it inserts under (`.write()`, `.lock()`),
/// with no check after that lock: two callers both see the key absent and
/// both insert, each told it won. An insert whose answer is read
/// (`insert(..).is_none()`, returned) decides under the lock and is fine;
/// so is a check repeated after the lock (double-checked locking).
fn unlocked_check(name: &str, block: &syn::Block) -> Option<(Span, Span, Span)> {
    use proc_macro2::{Delimiter, TokenTree};
    if !named_for_conditional_set(name) {
        return None;
    }
    #[derive(Clone, Copy, PartialEq)]
    enum Tok {
        Check,
        Lock,
        Insert,
    }
    fn scan(ts: proc_macro2::TokenStream, out: &mut Vec<(Tok, Span)>) {
        let trees: Vec<TokenTree> = ts.into_iter().collect();
        for (i, t) in trees.iter().enumerate() {
            match t {
                TokenTree::Ident(id) => {
                    let called = matches!(trees.get(i + 1), Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Parenthesis);
                    if !called {
                        continue;
                    }
                    let s = id.to_string();
                    // An insert whose answer is dropped (`map.insert(k, v);`):
                    // one whose answer is read decides under its lock.
                    let discarded =
                        matches!(trees.get(i + 2), Some(TokenTree::Punct(p)) if p.as_char() == ';');
                    let kind = match s.as_str() {
                        "contains_key" | "contains" | "get" | "get_raw" | "exists" => Tok::Check,
                        "write" | "lock" | "write_owned" | "lock_owned" | "try_write"
                        | "try_lock" => Tok::Lock,
                        "insert" if discarded => Tok::Insert,
                        _ => continue,
                    };
                    out.push((kind, super::byte_span(id.span())));
                }
                TokenTree::Group(g) => scan(g.stream(), out),
                _ => {}
            }
        }
    }
    let mut toks = Vec::new();
    scan(quote::ToTokens::to_token_stream(block), &mut toks);
    toks.sort_by_key(|(_, s)| s.start);
    let insert = toks.iter().position(|(k, _)| *k == Tok::Insert)?;
    let check = toks[..insert].iter().rposition(|(k, _)| *k == Tok::Check)?;
    let lock = toks[check..insert]
        .iter()
        .rposition(|(k, _)| *k == Tok::Lock)?
        + check;
    Some((toks[check].1, toks[lock].1, toks[insert].1))
}

/// Where a function named for a conditional set (`set_if_not_exists`,
/// `set_key_if_not_exists_with_expiry`, `setnx`) sets a Redis key, when
/// nothing in its body makes the set conditional: no `NX` (an argument, an
/// option, a constant named for it, `set_nx`), no script or `WATCH`.
fn unconditional_set(name: &str, block: &syn::Block) -> Option<Span> {
    if !named_for_conditional_set(name) {
        return None;
    }
    fn scan(ts: proc_macro2::TokenStream, set: &mut Option<Span>, nx: &mut bool) {
        for t in ts {
            match t {
                proc_macro2::TokenTree::Ident(i) => {
                    let s = i.to_string();
                    let l = s.to_ascii_lowercase();
                    if s == "NX"
                        || s.ends_with("_NX")
                        || matches!(l.as_str(), "set_nx" | "setnx" | "hsetnx" | "msetnx")
                        || matches!(
                            l.as_str(),
                            "eval" | "evalsha" | "watch" | "script" | "invoke"
                        )
                    {
                        *nx = true;
                    } else if set.is_none()
                        && (matches!(s.as_str(), "set" | "set_options" | "set_ex" | "pset_ex")
                            || s.ends_with("COMMAND_SET"))
                    {
                        *set = Some(super::byte_span(i.span()));
                    }
                }
                proc_macro2::TokenTree::Literal(l) => {
                    let written = l.to_string();
                    // A command is written in capitals (`"SET k v NX"`) or
                    // is one short word (`"nx"`); a message that mentions
                    // one is neither (`"SET NX failed"`).
                    let command =
                        !written.chars().any(|c| c.is_ascii_lowercase()) || written.len() <= 8;
                    let text = written.to_ascii_uppercase();
                    let inner = text.trim_matches('"');
                    if command
                        && (inner == "NX"
                            || inner.contains(" NX")
                            || inner.contains("SETNX")
                            || inner == "EVAL")
                    {
                        *nx = true;
                    } else if set.is_none() && inner == "SET" {
                        *set = Some(super::byte_span(l.span()));
                    }
                }
                proc_macro2::TokenTree::Group(g) => scan(g.stream(), set, nx),
                proc_macro2::TokenTree::Punct(_) => {}
            }
        }
    }
    let mut set = None;
    let mut nx = false;
    scan(quote::ToTokens::to_token_stream(block), &mut set, &mut nx);
    if nx {
        None
    } else {
        set
    }
}

/// The traits bounding each generic type parameter: `<G: A + B>` and
/// `where G: C` (last path segments; lifetimes and `?Sized` left out).
fn generic_bounds(g: &syn::Generics) -> Vec<(String, Vec<String>)> {
    fn traits<'b>(
        bounds: impl IntoIterator<Item = &'b syn::TypeParamBound>,
        out: &mut Vec<String>,
    ) {
        for b in bounds {
            if let syn::TypeParamBound::Trait(t) = b {
                if matches!(t.modifier, syn::TraitBoundModifier::None) {
                    if let Some(s) = t.path.segments.last() {
                        out.push(s.ident.to_string());
                    }
                }
            }
        }
    }
    let mut out: Vec<(String, Vec<String>)> = Vec::new();
    for p in g.type_params() {
        let mut t = Vec::new();
        traits(&p.bounds, &mut t);
        out.push((p.ident.to_string(), t));
    }
    if let Some(w) = &g.where_clause {
        for pred in &w.predicates {
            let syn::WherePredicate::Type(pt) = pred else {
                continue;
            };
            let syn::Type::Path(tp) = &pt.bounded_ty else {
                continue;
            };
            let Some(name) = tp.path.get_ident().map(ToString::to_string) else {
                continue;
            };
            let mut t = Vec::new();
            traits(&pt.bounds, &mut t);
            match out.iter_mut().find(|(n, _)| *n == name) {
                Some((_, v)) => v.extend(t),
                None => out.push((name, t)),
            }
        }
    }
    out.retain(|(_, t)| !t.is_empty());
    out
}

fn use_tree(t: &syn::UseTree, prefix: &mut Vec<String>, module: &[String], out: &mut Vec<Import>) {
    match t {
        syn::UseTree::Path(p) => {
            prefix.push(p.ident.to_string());
            use_tree(&p.tree, prefix, module, out);
            prefix.pop();
        }
        syn::UseTree::Name(n) => {
            let mut path = prefix.clone();
            path.push(n.ident.to_string());
            let alias = if n.ident == "self" {
                prefix.last().cloned().unwrap_or_default()
            } else {
                n.ident.to_string()
            };
            if n.ident == "self" {
                path.pop();
            }
            out.push(Import {
                module: module.to_vec(),
                alias,
                path,
                spec: None,
            });
        }
        syn::UseTree::Rename(r) => {
            let mut path = prefix.clone();
            path.push(r.ident.to_string());
            out.push(Import {
                module: module.to_vec(),
                alias: r.rename.to_string(),
                path,
                spec: None,
            });
        }
        syn::UseTree::Glob(_) => out.push(Import {
            module: module.to_vec(),
            alias: "*".into(),
            path: prefix.clone(),
            spec: None,
        }),
        syn::UseTree::Group(g) => {
            for t in &g.items {
                use_tree(t, prefix, module, out);
            }
        }
    }
}

pub(super) fn pat_names(p: &syn::Pat) -> Vec<String> {
    match p {
        syn::Pat::Ident(i) => vec![i.ident.to_string()],
        syn::Pat::Type(t) => pat_names(&t.pat),
        syn::Pat::Reference(r) => pat_names(&r.pat),
        // axum extractors: `State(db): State<Db>`, `Json(body): Json<T>`
        syn::Pat::TupleStruct(ts) => ts.elems.iter().flat_map(pat_names).collect(),
        syn::Pat::Tuple(t) => t.elems.iter().flat_map(pat_names).collect(),
        _ => Vec::new(),
    }
}

/// The conditional-set call an expression evaluates to, through `.await`,
/// `?`, parentheses and error mapping.
fn claim_call(e: &syn::Expr) -> Option<&syn::ExprMethodCall> {
    match e {
        syn::Expr::Await(a) => claim_call(&a.base),
        syn::Expr::Try(t) => claim_call(&t.expr),
        syn::Expr::Paren(p) => claim_call(&p.expr),
        syn::Expr::MethodCall(m)
            if matches!(
                m.method.to_string().as_str(),
                "map_err" | "context" | "with_context" | "wrap_err" | "is_ok" | "is_err"
            ) =>
        {
            claim_call(&m.receiver)
        }
        syn::Expr::MethodCall(m)
            if CACHE_METHODS
                .iter()
                .any(|(n, _, op)| *op == RedisOp::SetNx && m.method == n) =>
        {
            Some(m)
        }
        _ => None,
    }
}

/// Whether a pattern matched against a claim's answer drops it: it names
/// neither `true` nor `false`, has no guard, and binds no name that `then`
/// uses (`Ok(_)`, `Ok(())`, `if let Ok(won) = .. { true }`).
fn pattern_drops(p: &syn::Pat, then: Option<&syn::Block>) -> bool {
    use quote::ToTokens;
    let ts = p.to_token_stream();
    if tokens_contain_ident(&ts, &["true", "false"]) {
        return false;
    }
    let binds: Vec<String> = pat_names(p)
        .into_iter()
        .filter(|n| !n.starts_with('_') && n.chars().next().is_some_and(char::is_lowercase))
        .collect();
    match then {
        Some(b) if !binds.is_empty() => {
            let body = b.to_token_stream();
            !binds
                .iter()
                .any(|n| tokens_contain_ident(&body, &[n.as_str()]))
        }
        _ => binds.is_empty(),
    }
}

fn tokens_contain_ident(ts: &proc_macro2::TokenStream, words: &[&str]) -> bool {
    ts.clone().into_iter().any(|t| match t {
        proc_macro2::TokenTree::Ident(i) => words.iter().any(|w| i == w),
        proc_macro2::TokenTree::Group(g) => tokens_contain_ident(&g.stream(), words),
        _ => false,
    })
}

/// A retry scope: a loop body or a closure a retry wrapper runs again.
struct RetryScope {
    span: Span,
    what: String,
    /// Bindings made fresh inside it: generator span and text.
    fresh: HashMap<String, (Span, String)>,
}

struct FnWalker<'a> {
    text: &'a str,
    consts: &'a StrConsts,
    facts: &'a mut FileFacts,
    events: Vec<Step>,
    branch: Vec<(u32, u32)>,
    exits: Vec<u32>,
    sites: u32,
    success: usize,
    opaque: Option<Span>,
    /// Parameter and binding types as written.
    vars: HashMap<String, String>,
    /// Bindings holding a Redis key built from a literal prefix.
    let_keys: HashMap<String, String>,
    /// Bindings holding an idempotency header's value or a value built
    /// from one (`let key = req.headers().get("Idempotency-Key")`).
    header_vars: std::collections::HashSet<String>,
    owner: Option<String>,
    scopes: Vec<RetryScope>,
    fresh: Vec<FreshKey>,
    /// SQL and Redis chain roots (span) and their events, whose executor the
    /// chain names later (`.execute(&mut *tx)`); `None` once it is known.
    sql_roots: HashMap<(usize, usize), Vec<usize>>,
    /// Queries built into a binding and not run there (`let q =
    /// sqlx::query!(..)`): their events, and whether the binding is used
    /// again (a query never run is no event).
    let_sql: HashMap<String, (Vec<usize>, bool)>,
    /// Events of queries whose binding was shadowed unused.
    unrun: Vec<usize>,
    nested: Vec<syn::ItemFn>,
    /// The function names idempotency (its name, its `impl` type, a
    /// parameter or a parameter's type): a cache it uses keeps keys.
    idem: bool,
    /// Claims through a cache abstraction, by their event's span.
    claims: Vec<(Span, Claim)>,
}

/// Macros whose arguments are expressions in order.
const EXPR_MACROS: &[&str] = &[
    "format",
    "vec",
    "println",
    "eprintln",
    "print",
    "eprint",
    "write",
    "writeln",
    "info",
    "debug",
    "warn",
    "error",
    "trace",
    "assert",
    "assert_eq",
    "assert_ne",
    "debug_assert",
    "anyhow",
    "bail",
    "ensure",
    "panic",
    "dbg",
    "Ok",
    "Some",
];

/// Macros that run their arguments concurrently: no order.
const CONCURRENT_MACROS: &[&str] = &["join", "try_join", "select", "select_biased"];

pub(super) fn root_of(e: &syn::Expr) -> &syn::Expr {
    match e {
        syn::Expr::MethodCall(m) => root_of(&m.receiver),
        syn::Expr::Await(a) => root_of(&a.base),
        syn::Expr::Try(t) => root_of(&t.expr),
        syn::Expr::Paren(p) => root_of(&p.expr),
        syn::Expr::Reference(r) => root_of(&r.expr),
        syn::Expr::Unary(u) => root_of(&u.expr),
        syn::Expr::Field(f) => root_of(&f.base),
        other => other,
    }
}

/// The methods of a chain from its root outward, up to and including `m`.
pub(super) fn chain_methods(m: &syn::ExprMethodCall) -> Vec<&syn::ExprMethodCall> {
    let mut out = vec![m];
    let mut cur: &syn::Expr = &m.receiver;
    loop {
        match cur {
            syn::Expr::MethodCall(x) => {
                out.push(x);
                cur = &x.receiver;
            }
            syn::Expr::Await(a) => cur = &a.base,
            syn::Expr::Try(t) => cur = &t.expr,
            syn::Expr::Paren(p) => cur = &p.expr,
            _ => break,
        }
    }
    out.reverse();
    out
}

/// The receiver as a path: `self.inner` → [self, inner], `state.db` → [state, db].
pub(super) fn path_of(e: &syn::Expr) -> Vec<String> {
    match e {
        syn::Expr::Path(p) => super::path_idents(&p.path),
        syn::Expr::Field(f) => {
            let mut v = path_of(&f.base);
            if let syn::Member::Named(n) = &f.member {
                v.push(n.to_string());
            }
            v
        }
        syn::Expr::Reference(r) => path_of(&r.expr),
        syn::Expr::Unary(u) => path_of(&u.expr),
        syn::Expr::Paren(p) => path_of(&p.expr),
        syn::Expr::MethodCall(m)
            if matches!(
                m.method.to_string().as_str(),
                "clone" | "as_ref" | "as_mut" | "deref" | "deref_mut" | "borrow" | "get_ref"
            ) =>
        {
            path_of(&m.receiver)
        }
        _ => Vec::new(),
    }
}

/// A method's receiver as a path (`self.repo` → self, repo), else the
/// chain's root (`pool.get().await?` → pool).
fn receiver_path(e: &syn::Expr) -> Vec<String> {
    let p = path_of(e);
    if p.is_empty() {
        path_of(root_of(e))
    } else {
        p
    }
}

/// The plain name an executor or argument starts from: `&mut *tx` → `tx`,
/// `&self.pool` → `pool`, `conn.as_mut()` → `conn`.
pub(super) fn root_name(e: &syn::Expr) -> Option<String> {
    path_of(e).into_iter().rfind(|s| s != "self")
}

/// Names as a call site keeps them.
pub(super) fn names<S: AsRef<str>>(v: impl IntoIterator<Item = S>) -> ThinVec<Name> {
    v.into_iter().map(|s| Name::from(s.as_ref())).collect()
}

/// The plain name each argument starts from ([`root_name`]).
fn arg_roots(args: &[&syn::Expr]) -> ThinVec<Option<Name>> {
    args.iter().map(|a| root_name(a).map(Name::from)).collect()
}

/// Path segments named in an expression's calls and struct literals.
fn arg_words(e: &syn::Expr, out: &mut Vec<String>) {
    match e {
        syn::Expr::Call(c) => {
            if let syn::Expr::Path(p) = &*c.func {
                out.extend(super::path_idents(&p.path));
            }
            for a in &c.args {
                arg_words(a, out);
            }
        }
        syn::Expr::Struct(s) => out.extend(super::path_idents(&s.path)),
        syn::Expr::Reference(r) => arg_words(&r.expr, out),
        syn::Expr::MethodCall(m) => arg_words(&m.receiver, out),
        syn::Expr::Paren(p) => arg_words(&p.expr, out),
        _ => {}
    }
}

pub(super) fn is_closure(e: &syn::Expr) -> bool {
    match e {
        syn::Expr::Closure(_) => true,
        syn::Expr::Paren(p) => is_closure(&p.expr),
        syn::Expr::Reference(r) => is_closure(&r.expr),
        _ => false,
    }
}

/// Whether a header name, as written, is an idempotency request header.
pub(super) fn is_idempotency_header(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    if lower.contains("replayed") {
        return false;
    }
    lower.contains("idempot")
        || knowledge::headers()
            .canonical
            .iter()
            .chain(&knowledge::headers().legitimate)
            .any(|h| h.header && h.name.eq_ignore_ascii_case(name) && !lower.contains("replay"))
}

fn names_idempotency(name: &str) -> bool {
    name.to_ascii_lowercase().contains("idempot")
}

/// Whether a word occurs in a token stream's text: inside one identifier or
/// literal, the only tokens with letters (the printed stream puts a space or
/// a punctuation mark between tokens). Walks the tokens instead of printing
/// them.
fn tokens_contain(ts: &proc_macro2::TokenStream, word: &str) -> bool {
    ts.clone().into_iter().any(|t| match t {
        proc_macro2::TokenTree::Ident(i) => i.to_string().contains(word),
        proc_macro2::TokenTree::Literal(l) => l.to_string().contains(word),
        proc_macro2::TokenTree::Group(g) => tokens_contain(&g.stream(), word),
        proc_macro2::TokenTree::Punct(_) => false,
    })
}

fn tokens_text(e: &impl quote::ToTokens) -> String {
    e.to_token_stream().to_string()
}

impl FnWalker<'_> {
    fn push(&mut self, span: Span, kind: StepKind) -> usize {
        self.events.push(Step {
            span,
            kind,
            branch: ThinVec::from(self.branch.as_slice()),
            exits: ThinVec::from(self.exits.as_slice()),
            success_only: self.success > 0,
            awaited: false,
        });
        self.events.len() - 1
    }

    fn site(&mut self) -> u32 {
        self.sites += 1;
        self.sites
    }

    fn in_arm(&mut self, site: u32, arm: u32, success: bool, f: impl FnOnce(&mut Self)) {
        self.branch.push((site, arm));
        self.success += usize::from(success);
        f(self);
        self.success -= usize::from(success);
        self.branch.pop();
    }

    /// Visit a block that leaves (returns, breaks) when it ends.
    fn in_exit(&mut self, exits: bool, f: impl FnOnce(&mut Self)) {
        if exits {
            let id = self.site();
            self.exits.push(id);
            f(self);
            self.exits.pop();
        } else {
            f(self);
        }
    }

    fn in_scope(&mut self, span: Span, what: &str, f: impl FnOnce(&mut Self)) {
        self.scopes.push(RetryScope {
            span,
            what: what.to_string(),
            fresh: HashMap::new(),
        });
        f(self);
        self.scopes.pop();
    }

    fn sql(&mut self, at: Span, sql: &sql_strings::SqlText, root: Span) {
        let found = sql_strings::read(self.text, sql, self.facts);
        let ids: Vec<usize> = found
            .into_iter()
            .map(|dml| self.push(at, StepKind::Sql { dml, conn: None }))
            .collect();
        if !ids.is_empty() {
            self.sql_roots.insert((root.start, root.end), ids);
        }
    }

    /// The type of a receiver, when a parameter or binding tells it.
    fn recv_type(&self, root: &syn::Expr) -> Option<String> {
        let p = path_of(root);
        self.type_of_path(&p)
    }

    fn type_of_path(&self, p: &[String]) -> Option<String> {
        match p {
            [s] if s == "self" => self.owner.clone(),
            [v] => self.vars.get(v).cloned(),
            _ => None,
        }
    }

    fn is_redis_receiver(&self, p: &[String]) -> bool {
        let ty = self
            .type_of_path(p)
            .unwrap_or_default()
            .to_ascii_lowercase();
        p.iter().any(|s| s.to_ascii_lowercase().contains("redis"))
            || ["redis", "multiplexed", "connectionmanager", "fred"]
                .iter()
                .any(|w| ty.contains(w))
    }

    fn redis_key(&self, e: &syn::Expr) -> RedisKey {
        let prefix = match e {
            syn::Expr::Reference(r) => return self.redis_key(&r.expr),
            syn::Expr::MethodCall(m)
                if matches!(
                    m.method.to_string().as_str(),
                    "as_str" | "clone" | "to_string" | "as_ref" | "as_bytes"
                ) =>
            {
                return self.redis_key(&m.receiver)
            }
            syn::Expr::Lit(_) => super::str_lit(e),
            syn::Expr::Macro(m) => super::retention::format_prefix(&m.mac),
            syn::Expr::Path(p) if p.path.segments.len() == 1 => p
                .path
                .segments
                .first()
                .and_then(|s| self.let_keys.get(&s.ident.to_string()).cloned()),
            _ => None,
        };
        RedisKey {
            prefix,
            text: tokens_text(e).replace(' ', "").into_boxed_str(),
            derived: false,
            from_header: self.reads_header(e),
            decides: false,
        }
    }

    fn redis(&mut self, at: Span, op: RedisOp, key: Option<&syn::Expr>, conn: Option<String>) {
        let Some(key) = key else { return };
        let key = self.redis_key(key);
        self.push(at, StepKind::Redis { op, key, conn });
    }

    /// `redis::cmd("SET").arg(k)…` and `redis::pipe()…cmd("SET")…`, read at
    /// the call that runs it (`query_async(&mut con)`).
    fn redis_chain(&mut self, m: &syn::ExprMethodCall, methods: &[&syn::ExprMethodCall]) -> bool {
        let root = root_of(&m.receiver);
        let root_cmd = match root {
            syn::Expr::Call(c) => match &*c.func {
                syn::Expr::Path(p) => {
                    let segs = super::path_idents(&p.path);
                    match segs.last().map(String::as_str) {
                        Some("cmd") => Some(c.args.first().and_then(super::str_lit)),
                        Some("pipe") => Some(None),
                        _ => None,
                    }
                }
                _ => None,
            },
            _ => None,
        };
        let Some(first) = root_cmd else {
            return false;
        };
        let name = m.method.to_string();
        if !matches!(
            name.as_str(),
            "query_async" | "query" | "exec" | "exec_async" | "query_async_raw"
        ) {
            return true;
        }
        let conn = m.args.first().and_then(root_name);
        let mut cmds: Vec<(String, Vec<&syn::Expr>, Span)> = Vec::new();
        if let Some(c) = first {
            cmds.push((c, Vec::new(), super::span::of(root)));
        }
        for c in methods {
            match c.method.to_string().as_str() {
                "cmd" => {
                    if let Some(n) = c.args.first().and_then(super::str_lit) {
                        cmds.push((n, Vec::new(), super::byte_span(c.method.span())));
                    }
                }
                "arg" => {
                    if let (Some(last), Some(a)) = (cmds.last_mut(), c.args.first()) {
                        last.1.push(a);
                    }
                }
                _ => {}
            }
        }
        for (cmd, args, at) in cmds {
            let nx = args
                .iter()
                .skip(2)
                .any(|a| super::str_lit(a).is_some_and(|s| s.eq_ignore_ascii_case("nx")));
            let op = match cmd.to_ascii_uppercase().as_str() {
                "GET" => RedisOp::Get,
                "EXISTS" => RedisOp::Exists,
                "SET" if nx => RedisOp::SetNx,
                "SET" | "SETEX" | "PSETEX" => RedisOp::Set,
                "SETNX" => RedisOp::SetNx,
                "DEL" | "UNLINK" => RedisOp::Del,
                "EXPIRE" | "PEXPIRE" => RedisOp::Expire,
                _ => continue,
            };
            self.redis(at, op, args.first().copied(), conn.clone());
        }
        true
    }

    /// `con.get(k)`, `set_nx`, `set_options(.., ExistenceCheck::NX ..)`,
    /// fred's `set(k, v, expiry, Some(SetOptions::NX), false)`, …
    fn redis_method(&mut self, m: &syn::ExprMethodCall) -> bool {
        let name = m.method.to_string();
        let args: Vec<&syn::Expr> = m.args.iter().collect();
        let op = match (name.as_str(), args.len()) {
            ("get", 1) => RedisOp::Get,
            ("exists", 1) => RedisOp::Exists,
            ("set", 2) | ("set_ex", 3) | ("pset_ex", 3) => RedisOp::Set,
            ("set_nx", 2) => RedisOp::SetNx,
            ("set_options", 3) | ("set", 5) => {
                let mut ttl = None;
                let mut nx = false;
                for o in &args[2..] {
                    super::retention::find_set_options(o, &mut ttl, &mut nx, 0);
                    // redis-rs `ExistenceCheck::NX` reads as a path ending in NX
                }
                if nx {
                    RedisOp::SetNx
                } else {
                    RedisOp::Set
                }
            }
            ("del", 1) | ("unlink", 1) => RedisOp::Del,
            ("expire", 2) | ("pexpire", 2) => RedisOp::Expire,
            _ => return false,
        };
        let key = self.redis_key(args[0]);
        let store_prefix = key
            .prefix
            .as_deref()
            .is_some_and(|p| knowledge::stores().is_store_prefix(p));
        let recv = receiver_path(&m.receiver);
        if !(store_prefix || self.is_redis_receiver(&recv)) {
            return false;
        }
        let conn = recv.into_iter().rfind(|s| s != "self");
        self.push(
            super::byte_span(m.method.span()),
            StepKind::Redis { op, key, conn },
        );
        true
    }

    /// A cache abstraction's call in idempotency code (`cache.get(&key)`,
    /// `cache.set_if_not_exists(&key, &Start, lock_ttl())`, `cache.set(key,
    /// &resp, ttl)`): a Redis command on the key, whatever backend the
    /// cache dispatches to. Also when the key is read from the idempotency
    /// header here.
    fn cache_method(&mut self, m: &syn::ExprMethodCall) -> bool {
        let name = m.method.to_string();
        let Some(&(_, _, op)) = CACHE_METHODS
            .iter()
            .find(|(n, a, _)| *n == name && *a == m.args.len())
        else {
            return false;
        };
        if !super::cache::names_cache(&m.receiver) {
            return false;
        }
        let args: Vec<&syn::Expr> = m.args.iter().collect();
        let mut key = self.redis_key(args[0]);
        if !(self.idem || key.from_header) {
            return false;
        }
        key.derived = true;
        let at = super::byte_span(m.method.span());
        let claim = (op == RedisOp::SetNx).then(|| {
            Box::new(Claim {
                ttl: Some((
                    super::retention::read_duration_arg(args[2]),
                    super::span::of(args[2]),
                )),
                dropped: None,
                fresh_store: super::cache::fresh_store(&m.receiver)
                    .map(|p| (super::span::of(&*m.receiver), p)),
            })
        });
        let conn = receiver_path(&m.receiver)
            .into_iter()
            .rfind(|s| s != "self");
        self.push(at, StepKind::Redis { op, key, conn });
        if let Some(c) = claim {
            self.claims.push((at, *c));
        }
        true
    }

    /// The claim `e` evaluates to (through `.await`, `?`, `map_err`), when
    /// its answer is dropped: mark it.
    fn drop_claim(&mut self, e: &syn::Expr, at: Span) {
        let Some(call) = claim_call(e) else { return };
        let span = super::byte_span(call.method.span());
        if let Some((_, c)) = self.claims.iter_mut().rev().find(|(s, _)| *s == span) {
            c.dropped.get_or_insert(at);
        }
    }

    /// A fresh key inside `e`, when inside a retry scope: a binding made
    /// fresh in the scope, or a generator written in place.
    fn fresh_in(&self, e: &syn::Expr) -> Option<(Span, String)> {
        if self.scopes.is_empty() {
            return None;
        }
        let mut f = FreshFinder {
            scopes: &self.scopes,
            found: None,
        };
        f.visit_expr(e);
        f.found
    }

    fn sent(&mut self, value: &syn::Expr, at: Span, how: String) {
        let Some((generator, what)) = self.fresh_in(value) else {
            return;
        };
        let Some(scope) = self.scopes.last() else {
            return;
        };
        if self.fresh.iter().any(|k| k.generator == generator) {
            return;
        }
        self.fresh.push(FreshKey {
            generator,
            what,
            scope: scope.span,
            scope_what: scope.what.clone(),
            sent: at,
            how,
        });
    }

    /// Whether a header-name argument names an idempotency header.
    fn idempotency_header_arg(&self, e: &syn::Expr) -> Option<String> {
        idempotency_header_name(self.consts, e)
    }

    /// Arguments that send a fresh key: a header value, an argument of a
    /// call named for idempotency, or a binding named for it.
    fn check_sends(&mut self, name: &str, args: &[&syn::Expr], at: Span) {
        if self.scopes.is_empty() {
            return;
        }
        match (name, args) {
            ("header" | "insert" | "append", [n, v]) => {
                if let Some(h) = self.idempotency_header_arg(n) {
                    self.sent(v, super::span::of(*v), format!("as the `{h}` header"));
                }
            }
            ("insert_header" | "append_header", [syn::Expr::Tuple(t)]) if t.elems.len() == 2 => {
                if let Some(h) = self.idempotency_header_arg(&t.elems[0]) {
                    self.sent(
                        &t.elems[1],
                        super::span::of(&t.elems[1]),
                        format!("as the `{h}` header"),
                    );
                }
            }
            _ => {}
        }
        for a in args {
            let named =
                names_idempotency(name) || path_of(a).last().is_some_and(|n| names_idempotency(n));
            if named {
                self.sent(a, at, format!("to `{name}`"));
            }
        }
    }

    /// `matches!(expr, pattern)`: the expression runs here; a claim
    /// matched against a pattern that drops its answer (`Ok(_)`) is marked.
    /// A pattern with a guard reads the answer.
    fn matches_macro(&mut self, m: &syn::Macro) {
        let parsed = m.parse_body_with(|input: syn::parse::ParseStream| {
            let e: syn::Expr = input.parse()?;
            let _: syn::Token![,] = input.parse()?;
            let p = syn::Pat::parse_multi_with_leading_vert(input)?;
            let guard = input.peek(syn::Token![if]);
            let _: proc_macro2::TokenStream = input.parse()?;
            Ok((e, p, guard))
        });
        let Ok((e, p, guard)) = parsed else {
            // Unreadable: as any macro that awaits, the order is unknown.
            if tokens_contain(&m.tokens, "await") {
                self.opaque.get_or_insert(super::span::of(m));
            }
            return;
        };
        self.visit_expr(&e);
        if !guard && pattern_drops(&p, None) {
            self.drop_claim(&e, super::span::of(&p));
        }
    }

    fn call_event(&mut self, at: Span, site: CallSite) {
        self.push(at, StepKind::Call(site));
    }

    /// Whether an expression reads an idempotency header's value or a
    /// binding that holds one.
    fn reads_header(&self, e: &syn::Expr) -> bool {
        let mut f = HeaderFinder {
            consts: self.consts,
            vars: &self.header_vars,
            found: false,
        };
        f.visit_expr(e);
        f.found
    }
}

/// Finds a read of an idempotency header (`headers.get("Idempotency-Key")`,
/// `req.header(IDEMPOTENCY_KEY)`) or a binding that holds one, also inside
/// `format!` arguments and inline `{name}` captures.
struct HeaderFinder<'s> {
    consts: &'s StrConsts,
    vars: &'s std::collections::HashSet<String>,
    found: bool,
}

impl<'ast> Visit<'ast> for HeaderFinder<'_> {
    fn visit_expr(&mut self, e: &'ast syn::Expr) {
        if self.found {
            return;
        }
        match e {
            syn::Expr::Path(p) if p.path.segments.len() == 1 => {
                self.found = self.vars.contains(&p.path.segments[0].ident.to_string());
            }
            syn::Expr::MethodCall(m)
                if matches!(
                    m.method.to_string().as_str(),
                    "get" | "header" | "get_header" | "get_all" | "get_one"
                ) && m
                    .args
                    .first()
                    .is_some_and(|a| idempotency_header_name(self.consts, a).is_some()) =>
            {
                self.found = true;
            }
            _ => visit::visit_expr(self, e),
        }
    }

    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        if self.found {
            return;
        }
        if let Ok(args) = m.parse_body_with(
            syn::punctuated::Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated,
        ) {
            for (i, a) in args.iter().enumerate() {
                if i == 0 {
                    if let Some(fmt) = super::str_lit(a) {
                        self.found |= self.vars.iter().any(|v| {
                            fmt.contains(&format!("{{{v}}}")) || fmt.contains(&format!("{{{v}:"))
                        });
                    }
                }
                self.visit_expr(a);
            }
        }
    }
}

/// The idempotency header a header-name argument names: a literal, a
/// constant holding one or named for one, or `HeaderName::from_static(..)`.
pub(super) fn idempotency_header_name(consts: &StrConsts, e: &syn::Expr) -> Option<String> {
    match e {
        syn::Expr::Lit(_) | syn::Expr::Reference(_) => {
            super::str_lit(e).filter(|s| is_idempotency_header(s))
        }
        syn::Expr::Path(p) => {
            let name = p.path.segments.last()?.ident.to_string();
            let value = consts.get(&name).map(|v| &v.text);
            (value.is_some_and(|v| is_idempotency_header(v)) || names_idempotency(&name))
                .then(|| value.cloned().unwrap_or(name))
        }
        syn::Expr::Call(c) => c
            .args
            .first()
            .and_then(super::str_lit)
            .filter(|s| is_idempotency_header(s)),
        _ => None,
    }
}

struct FreshFinder<'s> {
    scopes: &'s [RetryScope],
    found: Option<(Span, String)>,
}

/// A generator of fresh keys (`Uuid::new_v4()`, `nanoid!()`), by the
/// catalogue: its text, written with `call` (`()` or `!()`) after the path.
fn generator(segs: &[String], call: &str) -> Option<String> {
    CallShape::path(&names(segs))
        .any_of(&knowledge::effects().fresh_key)
        .then(|| format!("{}{call}", segs.join("::")))
}

pub(super) fn generator_call(c: &syn::ExprCall) -> Option<String> {
    let syn::Expr::Path(p) = &*c.func else {
        return None;
    };
    generator(&super::path_idents(&p.path), "()")
}

pub(super) fn generator_macro(m: &syn::Macro) -> Option<String> {
    generator(&super::path_idents(&m.path), "!()")
}

impl<'ast> Visit<'ast> for FreshFinder<'_> {
    fn visit_expr(&mut self, e: &'ast syn::Expr) {
        if self.found.is_some() {
            return;
        }
        match e {
            syn::Expr::Path(p) if p.path.segments.len() == 1 => {
                let name = p.path.segments[0].ident.to_string();
                self.found = self
                    .scopes
                    .iter()
                    .rev()
                    .find_map(|s| s.fresh.get(&name).cloned());
            }
            syn::Expr::Call(c) => match generator_call(c) {
                Some(what) => self.found = Some((super::span::of(c), what)),
                None => visit::visit_expr(self, e),
            },
            syn::Expr::Closure(_) => {}
            _ => visit::visit_expr(self, e),
        }
    }

    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        if self.found.is_some() {
            return;
        }
        if let Some(what) = generator_macro(m) {
            self.found = Some((super::span::of(m), what));
            return;
        }
        if let Ok(args) = m.parse_body_with(
            syn::punctuated::Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated,
        ) {
            for a in &args {
                self.visit_expr(a);
            }
        }
    }
}

fn closure_param(e: &syn::Expr) -> Option<String> {
    match e {
        syn::Expr::Closure(c) => c
            .inputs
            .first()
            .and_then(|p| pat_names(p).into_iter().next()),
        syn::Expr::Paren(p) => closure_param(&p.expr),
        _ => None,
    }
}

/// Whether a block ends by leaving: `return`, `break`, `continue`, or a
/// macro that does (`bail!`, `panic!`).
fn block_leaves(b: &syn::Block) -> bool {
    match b.stmts.last() {
        Some(syn::Stmt::Expr(e, _)) => expr_leaves(e),
        Some(syn::Stmt::Macro(m)) => macro_leaves(&m.mac),
        _ => false,
    }
}

fn expr_leaves(e: &syn::Expr) -> bool {
    match e {
        syn::Expr::Return(_) | syn::Expr::Break(_) | syn::Expr::Continue(_) => true,
        syn::Expr::Block(b) => block_leaves(&b.block),
        syn::Expr::Macro(m) => macro_leaves(&m.mac),
        _ => false,
    }
}

fn macro_leaves(m: &syn::Macro) -> bool {
    m.path.segments.last().is_some_and(|s| {
        matches!(
            s.ident.to_string().as_str(),
            "bail" | "panic" | "unreachable" | "todo" | "unimplemented"
        )
    })
}

/// `Ok(..)` as a pattern.
fn is_ok_pat(p: &syn::Pat) -> bool {
    match p {
        syn::Pat::TupleStruct(ts) => ts.path.segments.last().is_some_and(|s| s.ident == "Ok"),
        syn::Pat::Or(o) => o.cases.iter().all(is_ok_pat),
        _ => false,
    }
}

/// A condition that holds on success: `r.is_ok()`, `resp.status().is_success()`.
fn is_success_cond(e: &syn::Expr) -> bool {
    match e {
        syn::Expr::MethodCall(m) => matches!(
            m.method.to_string().as_str(),
            "is_ok" | "is_success" | "is_some"
        ),
        syn::Expr::Let(l) => is_ok_pat(&l.pat),
        syn::Expr::Paren(p) => is_success_cond(&p.expr),
        syn::Expr::Binary(b) if matches!(b.op, syn::BinOp::And(_)) => {
            is_success_cond(&b.left) || is_success_cond(&b.right)
        }
        _ => false,
    }
}

impl FnWalker<'_> {
    /// `let q = sqlx::query!(..)`: the query's events wait for the binding
    /// to be used.
    fn bind_query(&mut self, name: &str, init: &syn::Expr, before: usize) {
        if let Some((ids, false)) = self.let_sql.remove(name) {
            self.unrun.extend(ids);
        }
        if matches!(init, syn::Expr::Await(_) | syn::Expr::Try(_)) {
            return;
        }
        let ids: Vec<usize> = (before..self.events.len())
            .filter(|&i| matches!(self.events[i].kind, StepKind::Sql { conn: None, .. }))
            .collect();
        if !ids.is_empty() {
            self.let_sql.insert(name.to_string(), (ids, false));
        }
    }

    /// A bound query run on an executor: `tx.execute(q)`, `q.fetch_one(&pool)`.
    fn run_bound_query(&mut self, m: &syn::ExprMethodCall) {
        let name = m.method.to_string();
        if !(sql_strings::is_exec_method(&name) || name == "execute" || name == "query") {
            return;
        }
        let recv = path_of(&m.receiver);
        let arg = m.args.first().map(path_of).unwrap_or_default();
        let (query, conn) = match (recv.as_slice(), arg.as_slice()) {
            ([q], _) if self.let_sql.contains_key(q) => {
                (q.clone(), m.args.first().and_then(root_name))
            }
            (_, [q]) if self.let_sql.contains_key(q) => (q.clone(), root_name(&m.receiver)),
            _ => return,
        };
        let Some((ids, _)) = self.let_sql.get(&query) else {
            return;
        };
        for &id in ids {
            if let Some(Step {
                kind: StepKind::Sql { conn: c, .. },
                ..
            }) = self.events.get_mut(id)
            {
                if c.is_none() {
                    c.clone_from(&conn);
                }
            }
        }
    }

    /// A method whose closure runs inside a scope, walked in it:
    /// `conn.transaction(|tx| async move { .. })` in a transaction, backon's
    /// `(|| async { .. }).retry(policy)` in a retry. Whether it was one.
    fn closure_scope(
        &mut self,
        m: &syn::ExprMethodCall,
        name: &str,
        args: &[&syn::Expr],
        at: Span,
    ) -> bool {
        // `conn.transaction(|tx| async move { .. })`: the closure runs inside.
        if name == "transaction" && args.iter().any(|a| is_closure(a)) {
            self.visit_expr(&m.receiver);
            let var = args.iter().find_map(|a| closure_param(a));
            self.push(at, StepKind::TxBegin { var: var.clone() });
            for a in args {
                self.visit_expr(a);
            }
            self.push(at, StepKind::TxEnd { var, commit: true });
            return true;
        }
        // backon: `(|| async { .. }).retry(policy)`
        if is_closure(&m.receiver) && CallShape::method(name).any_of(&knowledge::effects().retry) {
            self.in_scope(at, &format!("`.{name}()`"), |w| w.visit_expr(&m.receiver));
            for a in args {
                self.visit_expr(a);
            }
            return true;
        }
        false
    }

    /// A transaction begun or ended by a method without arguments
    /// (`tx.commit()`): its event. Whether it was one.
    fn tx_method(&mut self, m: &syn::ExprMethodCall, name: &str, at: Span) -> bool {
        match (name, m.args.len()) {
            ("begin", 0) | ("transaction", 0) | ("begin_transaction", 0) => {
                self.push(at, StepKind::TxBegin { var: None });
                true
            }
            ("commit", 0) | ("rollback", 0) => {
                let var = receiver_path(&m.receiver)
                    .into_iter()
                    .rfind(|s| s != "self");
                self.push(
                    at,
                    StepKind::TxEnd {
                        var,
                        commit: name == "commit",
                    },
                );
                true
            }
            _ => false,
        }
    }

    /// Drop the events of queries built and never run.
    fn drop_unrun(&mut self) {
        let mut gone = std::mem::take(&mut self.unrun);
        gone.extend(
            self.let_sql
                .drain()
                .filter(|(_, (_, used))| !used)
                .flat_map(|(_, (ids, _))| ids),
        );
        if gone.is_empty() {
            return;
        }
        let gone: std::collections::HashSet<usize> = gone.into_iter().collect();
        let mut i = 0;
        self.events.retain(|_| {
            i += 1;
            !gone.contains(&(i - 1))
        });
    }
}

impl<'ast> Visit<'ast> for FnWalker<'_> {
    fn visit_expr_path(&mut self, p: &'ast syn::ExprPath) {
        if let Some(id) = p.path.get_ident() {
            if let Some((_, used)) = self.let_sql.get_mut(&id.to_string()) {
                *used = true;
            }
        }
    }

    fn visit_expr_await(&mut self, a: &'ast syn::ExprAwait) {
        let before = self.events.len();
        self.visit_expr(&a.base);
        let mut base: &syn::Expr = &a.base;
        while let syn::Expr::Paren(p) = base {
            base = &p.expr;
        }
        let at = match base {
            syn::Expr::MethodCall(m) => super::byte_span(m.method.span()),
            syn::Expr::Call(c) => super::span::of(c),
            _ => return,
        };
        if let Some(ev) = self.events[before..]
            .iter_mut()
            .rev()
            .find(|e| e.span == at && matches!(e.kind, StepKind::Call(_)))
        {
            ev.awaited = true;
        }
    }

    fn visit_item(&mut self, i: &'ast syn::Item) {
        if let syn::Item::Fn(f) = i {
            self.nested.push(f.clone());
        }
    }

    fn visit_expr_if(&mut self, e: &'ast syn::ExprIf) {
        self.visit_expr(&e.cond);
        if let syn::Expr::Let(l) = &*e.cond {
            if pattern_drops(&l.pat, Some(&e.then_branch)) {
                self.drop_claim(&l.expr, super::span::of(&*l.pat));
            }
        }
        let site = self.site();
        let success = is_success_cond(&e.cond);
        let leaves = block_leaves(&e.then_branch);
        self.in_arm(site, 0, success, |w| {
            w.in_exit(leaves, |w| w.visit_block(&e.then_branch))
        });
        if let Some((_, els)) = &e.else_branch {
            let leaves = expr_leaves(els);
            self.in_arm(site, 1, false, |w| w.in_exit(leaves, |w| w.visit_expr(els)));
        }
    }

    fn visit_expr_match(&mut self, e: &'ast syn::ExprMatch) {
        self.visit_expr(&e.expr);
        let site = self.site();
        for (i, arm) in e.arms.iter().enumerate() {
            let arm_no = u32::try_from(i).unwrap_or(u32::MAX);
            let leaves = expr_leaves(&arm.body);
            self.in_arm(site, arm_no, is_ok_pat(&arm.pat), |w| {
                if let Some((_, g)) = &arm.guard {
                    w.visit_expr(g);
                }
                w.in_exit(leaves, |w| w.visit_expr(&arm.body));
            });
        }
    }

    fn visit_expr_for_loop(&mut self, e: &'ast syn::ExprForLoop) {
        self.visit_expr(&e.expr);
        let span = super::byte_span(e.for_token.span);
        self.in_scope(span, "`for` loop", |w| w.visit_block(&e.body));
    }

    fn visit_expr_loop(&mut self, e: &'ast syn::ExprLoop) {
        let span = super::byte_span(e.loop_token.span);
        self.in_scope(span, "`loop`", |w| w.visit_block(&e.body));
    }

    fn visit_expr_while(&mut self, e: &'ast syn::ExprWhile) {
        let span = super::byte_span(e.while_token.span);
        self.in_scope(span, "`while` loop", |w| {
            w.visit_expr(&e.cond);
            w.visit_block(&e.body);
        });
    }

    fn visit_stmt(&mut self, st: &'ast syn::Stmt) {
        visit::visit_stmt(self, st);
        match st {
            syn::Stmt::Expr(e, Some(semi)) => self.drop_claim(e, super::byte_span(semi.span)),
            syn::Stmt::Local(syn::Local {
                pat: syn::Pat::Wild(w),
                init: Some(init),
                ..
            }) => self.drop_claim(&init.expr, super::span::of(w)),
            _ => {}
        }
    }

    fn visit_local(&mut self, local: &'ast syn::Local) {
        let before = self.events.len();
        if let Some(init) = &local.init {
            self.visit_expr(&init.expr);
            if let Some((_, d)) = &init.diverge {
                self.in_exit(true, |w| w.visit_expr(d));
            }
        }
        let names = pat_names(&local.pat);
        let (Some(name), Some(init)) = (names.first(), &local.init) else {
            return;
        };
        self.bind_query(name, &init.expr, before);
        for ev in &mut self.events[before..] {
            if let StepKind::TxBegin { var } = &mut ev.kind {
                if var.is_none() {
                    *var = Some(name.clone());
                }
            }
        }
        if let syn::Pat::Type(t) = &local.pat {
            self.vars.insert(name.clone(), type_text(&t.ty));
        } else if let syn::Expr::Call(c) = root_of(&init.expr) {
            // `let repo = IdemRepo::new(..)`
            if let syn::Expr::Path(p) = &*c.func {
                let segs = super::path_idents(&p.path);
                if let [.., ty, _] = segs.as_slice() {
                    if ty.starts_with(|ch: char| ch.is_ascii_uppercase()) {
                        self.vars.insert(name.clone(), ty.clone());
                    }
                }
            }
        } else if let Some(ty) = self.recv_type(root_of(&init.expr)) {
            // `let mut con = redis_pool.get().await?`: a connection of that pool
            self.vars.insert(name.clone(), ty);
        }
        if let Some(prefix) = match &*init.expr {
            syn::Expr::Macro(m) => super::retention::format_prefix(&m.mac),
            _ => None,
        } {
            self.let_keys.insert(name.clone(), prefix);
        }
        if self.reads_header(&init.expr) {
            self.header_vars.insert(name.clone());
        } else {
            self.header_vars.remove(name);
        }
        if !self.scopes.is_empty() {
            let mut f = FreshFinder {
                scopes: &[],
                found: None,
            };
            f.visit_expr(&init.expr);
            let found = f.found.or_else(|| self.fresh_in(&init.expr));
            if let (Some(found), Some(scope)) = (found, self.scopes.last_mut()) {
                scope.fresh.insert(name.clone(), found);
            }
        }
    }

    fn visit_expr_struct(&mut self, s: &'ast syn::ExprStruct) {
        visit::visit_expr_struct(self, s);
        for f in &s.fields {
            if let syn::Member::Named(n) = &f.member {
                let n = n.to_string();
                if names_idempotency(&n) {
                    self.sent(&f.expr, super::span::of(f), format!("as `{n}`"));
                }
            }
        }
    }

    fn visit_expr_macro(&mut self, e: &'ast syn::ExprMacro) {
        if let Some(sql) = sql_strings::of_macro(self.text, &e.mac) {
            let span = super::span::of(e);
            self.sql(span, &sql, span);
            return;
        }
        self.visit_macro(&e.mac);
    }

    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        let name = m
            .path
            .segments
            .last()
            .map(|s| s.ident.to_string())
            .unwrap_or_default();
        if CONCURRENT_MACROS.contains(&name.as_str()) {
            self.opaque.get_or_insert(super::span::of(m));
            return;
        }
        if name == "matches" {
            self.matches_macro(m);
            return;
        }
        if EXPR_MACROS.contains(&name.as_str()) {
            if let Ok(args) = m.parse_body_with(
                syn::punctuated::Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated,
            ) {
                for a in &args {
                    self.visit_expr(a);
                }
            }
            return;
        }
        // A macro we cannot see into that awaits something hides the order.
        let awaits = tokens_contain(&m.tokens, "await");
        if awaits {
            self.opaque.get_or_insert(super::span::of(m));
        }
    }

    fn visit_expr_call(&mut self, c: &'ast syn::ExprCall) {
        let segs = match &*c.func {
            syn::Expr::Path(p) => super::path_idents(&p.path),
            _ => Vec::new(),
        };
        let args: Vec<&syn::Expr> = c.args.iter().collect();
        let path = names(&segs);
        if !segs.is_empty() && CallShape::path(&path).any_of(&knowledge::effects().retry) {
            let at = super::span::of(&c.func);
            let what = format!("`{}`", segs.join("::"));
            for a in &args {
                if is_closure(a) {
                    self.in_scope(at, &what, |w| w.visit_expr(a));
                } else {
                    self.visit_expr(a);
                }
            }
            return;
        }
        if let Some(sql) = sql_strings::of_call(self.text, c, self.consts) {
            for a in &args {
                self.visit_expr(a);
            }
            let span = super::span::of(c);
            self.sql(span, &sql, span);
            return;
        }
        visit::visit_expr_call(self, c);
        let last = segs.last().cloned().unwrap_or_default();
        let span = super::span::of(c);
        self.check_sends(&last, &args, span);
        // `Ok(x)`, `Json(x)`: constructors, not calls.
        if segs.is_empty() || (segs.len() == 1 && last.starts_with(|ch: char| ch.is_uppercase())) {
            return;
        }
        let mut words = Vec::new();
        for a in &args {
            arg_words(a, &mut words);
        }
        let site = CallSite {
            path,
            args: names(words),
            arg_roots: arg_roots(&args),
            ..CallSite::default()
        };
        self.call_event(span, site);
    }

    fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
        let name = m.method.to_string();
        let args: Vec<&syn::Expr> = m.args.iter().collect();
        let at = super::byte_span(m.method.span());
        if self.closure_scope(m, &name, &args, at) {
            return;
        }
        self.visit_expr(&m.receiver);
        let success = matches!(
            name.as_str(),
            "and_then" | "map" | "map_ok" | "inspect" | "inspect_ok" | "then"
        );
        self.success += usize::from(success);
        for a in &args {
            self.visit_expr(a);
        }
        self.success -= usize::from(success);
        self.check_sends(&name, &args, at);

        let methods = chain_methods(m);
        let root = root_of(&m.receiver);
        let root_span = super::span::of(root);
        let root_key = (root_span.start, root_span.end);
        self.run_bound_query(m);
        // SQL handed to a method (`tx.execute("…", &[..])`)
        if let Some(sql) = sql_strings::of_method(self.text, m, self.consts) {
            let conn = receiver_path(&m.receiver)
                .into_iter()
                .rfind(|s| s != "self");
            let found = sql_strings::read(self.text, &sql, self.facts);
            for dml in found {
                self.push(
                    at,
                    StepKind::Sql {
                        dml,
                        conn: conn.clone(),
                    },
                );
            }
            return;
        }
        // the executor of a query built earlier in the chain
        if sql_strings::is_exec_method(&name) {
            if let Some(ids) = self.sql_roots.get(&root_key).cloned() {
                let conn = args.first().and_then(|a| root_name(a));
                for id in ids {
                    if let Some(Step {
                        kind: StepKind::Sql { conn: c, .. },
                        ..
                    }) = self.events.get_mut(id)
                    {
                        if c.is_none() {
                            c.clone_from(&conn);
                        }
                    }
                }
                return;
            }
            let names: Vec<String> = methods.iter().map(|x| x.method.to_string()).collect();
            if let Some(dml) = sql_strings::diesel_dsl(root, &names) {
                let conn = args.first().and_then(|a| root_name(a));
                let id = self.push(at, StepKind::Sql { dml, conn });
                self.sql_roots.insert(root_key, vec![id]);
                return;
            }
        }
        if self.sql_roots.contains_key(&root_key) || self.redis_chain(m, &methods) {
            return;
        }
        if self.redis_method(m) || self.cache_method(m) {
            return;
        }
        if matches!(name.as_str(), "is_ok" | "is_err") && m.args.is_empty() {
            self.drop_claim(&m.receiver, at);
        }
        if self.tx_method(m, &name, at) {
            return;
        }
        let mut chain: Vec<String> = methods
            .iter()
            .take(methods.len().saturating_sub(1))
            .map(|x| x.method.to_string())
            .collect();
        if let syn::Expr::Call(c) = root {
            if let syn::Expr::Path(p) = &*c.func {
                chain.extend(super::path_idents(&p.path));
            }
        }
        let mut words = Vec::new();
        for a in &args {
            arg_words(a, &mut words);
        }
        // The receiver is the chain's root only for the first method on it.
        let receiver = if methods.len() == 1 {
            receiver_path(&m.receiver)
        } else {
            Vec::new()
        };
        // The root's type: the model follows the fields from there.
        let recv_type = match receiver.first() {
            Some(r) if r != "self" => self.vars.get(r).cloned(),
            _ => None,
        };
        let site = CallSite {
            path: ThinVec::new(),
            method: Some(Name::from(name)),
            receiver: names(receiver),
            recv_type: recv_type.map(Name::from),
            chain: names(chain),
            args: names(words),
            arg_roots: arg_roots(&args),
        };
        self.call_event(at, site);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_word_in_a_token_stream_is_found_inside_one_token() {
        let ts: proc_macro2::TokenStream = "x.await; y(\"awaits\", r#await) { z.aw_ait }"
            .parse()
            .unwrap();
        assert!(tokens_contain(&ts, "await"));
        assert!(tokens_contain(&ts, "awaits"));
        assert!(!tokens_contain(&ts, "aw_aitx"));
        let ts: proc_macro2::TokenStream = "aw ait . aw_ait".parse().unwrap();
        assert!(!tokens_contain(&ts, "await"));
        assert_eq!(
            ts.to_string().contains("await"),
            tokens_contain(&ts, "await")
        );
        proc_macro2::extra::invalidate_current_thread_spans();
    }

    #[test]
    fn a_step_stays_small() {
        // One per call of every parsed function (44,600 on omicron): at
        // 240 bytes they were the largest part of a Rust tree's peak.
        assert!(std::mem::size_of::<Step>() <= 128);
        assert!(std::mem::size_of::<CallSite>() <= 88);
    }

    fn flows(text: &str) -> (FlowFacts, FileFacts) {
        let mut f = FileFacts::default();
        super::super::parse(text, &mut f);
        let flow = f.code.as_ref().map(|r| r.flow.clone()).unwrap_or_default();
        (flow, f)
    }

    fn summary(f: &FnTrace) -> Vec<String> {
        f.events
            .iter()
            .filter(|e| !matches!(e.kind, StepKind::Call(_)))
            .map(|e| match &e.kind {
                StepKind::Sql { dml, conn } => format!(
                    "sql {} {} on {}",
                    dml.kind.as_str(),
                    dml.table,
                    conn.as_deref().unwrap_or("?")
                ),
                StepKind::Redis { op, key, .. } => format!(
                    "redis {op:?} {}",
                    key.prefix.as_deref().unwrap_or(&key.text)
                ),
                StepKind::TxBegin { var } => format!("begin {}", var.as_deref().unwrap_or("?")),
                StepKind::TxEnd { var, commit } => format!(
                    "{} {}",
                    if *commit { "commit" } else { "rollback" },
                    var.as_deref().unwrap_or("?")
                ),
                StepKind::Call(c) => match &c.method {
                    Some(m) => format!("call .{m}"),
                    None => format!("call {}", c.path.join("::")),
                },
            })
            .collect()
    }

    #[test]
    fn a_query_bound_and_never_run_is_no_event_and_a_bound_one_runs_on_its_executor() {
        let text = r#"
async fn begin(pool: &PgPool, key: &str) -> Result<()> {
    let mut tx = pool.begin().await?;
    let claim = sqlx::query!("INSERT INTO idempotency_keys (key) VALUES ($1) ON CONFLICT DO NOTHING", key);
    let seen = sqlx::query("SELECT 1 FROM idempotency_keys WHERE key = $1").bind(key);
    seen.fetch_optional(&mut *tx).await?;
    let ledger = sqlx::query("INSERT INTO ledger (amount) VALUES (1)");
    tx.execute(ledger).await?;
    Ok(())
}
"#;
        let (flow, _) = flows(text);
        assert_eq!(
            summary(&flow.functions[0]),
            vec![
                "begin tx",
                "sql read idempotency_keys on tx",
                "sql insert ledger on tx",
            ]
        );
    }

    #[test]
    fn a_helper_named_for_a_conditional_set_without_nx_is_marked() {
        let text = r#"
impl Cache {
    async fn set_if_not_exists(&self, k: &str, v: &str) -> bool {
        let r: Option<String> = redis::cmd("SET").arg(k).arg(v).arg("PX").arg(5000).query_async(&mut c).await?;
        tracing::debug!("SET NX done");
        r.is_some()
    }
    async fn set_key_if_not_exists(&self, k: &str, v: &str) -> bool {
        self.pool.set(k, v, None, Some(SetOptions::NX), false).await.is_ok()
    }
    async fn set_raw(&self, k: &str, v: &str) { self.pool.set(k, v, None, None, false).await; }
}
"#;
        let (flow, _) = flows(text);
        let marked: Vec<bool> = flow
            .functions
            .iter()
            .map(|f| f.unconditional_set.is_some())
            .collect();
        assert_eq!(marked, vec![true, false, false]);
    }

    #[test]
    fn sqlx_statements_carry_their_table_kind_and_executor_in_order() {
        let text = r##"
async fn pay(pool: &PgPool, key: &str) -> Result<()> {
    let mut tx = pool.begin().await?;
    let claimed = sqlx::query!("INSERT INTO idempotency_keys (key) VALUES ($1) ON CONFLICT DO NOTHING", key)
        .execute(&mut *tx).await?;
    sqlx::query(r#"INSERT INTO ledger (amount) VALUES ($1)"#).bind(1).execute(&mut *tx).await?;
    tx.commit().await?;
    sqlx::query("UPDATE idempotency_keys SET response = $2 WHERE key = $1").execute(pool).await?;
    Ok(())
}
"##;
        let (flow, _) = flows(text);
        assert_eq!(
            summary(&flow.functions[0]),
            vec![
                "begin tx",
                "sql insert-on-conflict-do-nothing idempotency_keys on tx",
                "sql insert ledger on tx",
                "commit tx",
                "sql update idempotency_keys on pool",
            ]
        );
    }

    #[test]
    fn tokio_postgres_diesel_and_redis_forms_are_read() {
        let text = r#"
async fn a(client: &tokio_postgres::Client, id: &str) {
    client.query_opt("SELECT 1 FROM processed_events WHERE event_id = $1", &[&id]).await?;
    client.execute("INSERT INTO processed_events (event_id) VALUES ($1)", &[&id]).await?;
}
fn b(conn: &mut PgConnection, k: &str) {
    diesel::insert_into(idempotency_keys::table).values(&row).on_conflict(idempotency_keys::key).do_nothing().execute(conn)?;
    diesel::update(idempotency_keys::table.find(k)).set(x).execute(conn)?;
}
async fn c(con: &mut redis::aio::MultiplexedConnection, id: &str) {
    let key = format!("idem:stripe:{}", id);
    let seen: Option<String> = con.get(&key).await?;
    let _: () = redis::cmd("SET").arg(&key).arg("1").arg("NX").arg("EX").arg(86400).query_async(con).await?;
    let _: () = con.set_ex(&key, "done", 60).await?;
}
"#;
        let (flow, _) = flows(text);
        assert_eq!(
            summary(&flow.functions[0]),
            vec![
                "sql read processed_events on client",
                "sql insert processed_events on client"
            ]
        );
        assert_eq!(
            summary(&flow.functions[1]),
            vec![
                "sql insert-on-conflict-do-nothing idempotency_keys on conn",
                "sql update idempotency_keys on conn"
            ]
        );
        assert_eq!(
            summary(&flow.functions[2]),
            vec![
                "redis Get idem:stripe:",
                "redis SetNx idem:stripe:",
                "redis Set idem:stripe:"
            ]
        );
    }

    #[test]
    fn ok_arms_and_success_guards_are_success_only_and_arms_are_exclusive() {
        let text = r#"
async fn f(con: &mut redis::aio::ConnectionManager, client: &reqwest::Client, key: String) {
    match client.post(URL).json(&b).send().await {
        Ok(resp) => { let _: () = con.set(&key, "done").await.unwrap(); }
        Err(e) => { let _: () = con.del(&key).await.unwrap(); }
    }
}
"#;
        let (flow, _) = flows(text);
        let ev = &flow.functions[0].events;
        let set = ev
            .iter()
            .find(|e| {
                matches!(
                    e.kind,
                    StepKind::Redis {
                        op: RedisOp::Set,
                        ..
                    }
                )
            })
            .unwrap();
        let del = ev
            .iter()
            .find(|e| {
                matches!(
                    e.kind,
                    StepKind::Redis {
                        op: RedisOp::Del,
                        ..
                    }
                )
            })
            .unwrap();
        assert!(set.success_only);
        assert!(!del.success_only);
        assert_eq!(set.branch.len(), 1);
        assert_ne!(set.branch, del.branch);
    }

    #[test]
    fn a_uuid_made_per_attempt_and_sent_as_the_header_is_a_fresh_key() {
        let text = r#"
async fn payout(http: &reqwest::Client, job: &Job) {
    let stable = format!("payout-{}", job.id);
    for attempt in 0..5 {
        let key = Uuid::new_v4().to_string();
        http.post(URL).header("Idempotency-Key", &key).send().await;
        http.post(URL).header("Idempotency-Key", &stable).send().await;
    }
    let once = Uuid::new_v4();
    backoff::future::retry(policy, || async {
        http.post(URL).header("Idempotency-Key", once.to_string()).send().await
    }).await;
}
"#;
        let (flow, _) = flows(text);
        assert_eq!(flow.fresh_keys.len(), 1, "{:?}", flow.fresh_keys);
        assert_eq!(flow.fresh_keys[0].what, "Uuid::new_v4()");
        assert_eq!(flow.fresh_keys[0].scope_what, "`for` loop");
    }

    #[test]
    fn pooled_connections_fred_and_pipelines_are_redis() {
        let text = r#"
async fn a(pool: &deadpool_redis::Pool, id: &str) {
    let mut conn = pool.get().await?;
    let seen: Option<String> = conn.get(id).await?;
    let _: () = redis::pipe().atomic().cmd("SET").arg(id).arg(1).arg("NX").ignore().cmd("EXPIRE").arg(id).arg(60).query_async(&mut conn).await?;
}
async fn b(client: &fred::clients::Client, id: &str) {
    let _: Option<String> = client.set(id, "1", Some(Expiration::EX(60)), Some(SetOptions::NX), false).await?;
}
"#;
        let (flow, _) = flows(text);
        assert_eq!(
            summary(&flow.functions[0]),
            vec!["redis Get id", "redis SetNx id", "redis Expire id"]
        );
        assert_eq!(summary(&flow.functions[1]), vec!["redis SetNx id"]);
    }

    #[test]
    fn concurrent_macros_make_a_function_opaque() {
        let text = r#"
async fn f() { tokio::join!(a(), b()); }
"#;
        let (flow, _) = flows(text);
        assert!(flow.functions[0].opaque.is_some());
    }

    #[test]
    fn a_rust_reaper_delete_is_a_retention() {
        let text = r#"
async fn reap(pool: &PgPool) {
    sqlx::query("DELETE FROM idempotency_keys WHERE created_at < now() - interval '24 hours'").execute(pool).await.ok();
}
"#;
        let (_, facts) = flows(text);
        assert_eq!(facts.retention.len(), 1);
        assert_eq!(facts.retention[0].duration.secs, 24 * 3600);
        let s = facts.retention[0].span;
        assert_eq!(&text[s.start..s.end], "24 hours");
    }
}

#[cfg(test)]
mod sdk_call_tests {
    use super::*;

    #[test]
    fn an_sdk_request_handed_to_execute_is_a_call_with_its_request_type() {
        let text = r#"
async fn capture(paypal: &mut Client, id: &str) -> anyhow::Result<()> {
    paypal.execute(&CaptureOrder::new(id)).await?;
    Ok(())
}
"#;
        let mut f = FileFacts::default();
        super::super::parse(text, &mut f);
        let flow = f.code.as_ref().map(|r| r.flow.clone()).unwrap_or_default();
        let calls: Vec<(Option<Name>, ThinVec<Name>)> = flow.functions[0]
            .events
            .iter()
            .filter_map(|e| match &e.kind {
                StepKind::Call(c) => Some((c.method.clone(), c.args.clone())),
                _ => None,
            })
            .collect();
        assert!(
            calls
                .iter()
                .any(|(m, a)| m.as_deref() == Some("execute")
                    && a.iter().any(|w| w == "CaptureOrder")),
            "{calls:?}"
        );
    }
}
