//! Retentions in Rust: duration constants (`const IDEM_TTL: Duration =
//! Duration::from_secs(2 * DAY)`), retention-named bindings, and Redis key
//! writes with their expiry (`SET .. EX n`, `set_ex`, `expire`,
//! `SetExpiry::EX(n)`). Values are recorded as expression trees, not numbers:
//! a constant may be defined in another module, so folding happens in the
//! model where every file is visible (`model::retention`). Not for the header
//! strings (`mod.rs`) or for effects and flows.

use super::str_lit;
use crate::facts::keys::KeyFormat;
use crate::facts::redis::RedisKeyWrite;
use crate::facts::retention::{
    const_fn_ref, fold_duration, refs_of, ClientSetting, ConstExpr, DurDef, EarlyPurge, LetGoDefs,
    PendingRetention, RetentionFacts, StoreRef, CONFIG_REF, LET_GO_DEFS, MAX_EXPR_DEPTH,
    REQUEST_KEY_CONTEXT, SELF_FIELD,
};
use crate::facts::FileFacts;
use crate::frontend::key_format;
use crate::knowledge;
use crate::source::Span;
use std::collections::{HashMap, HashSet};
use syn::visit::{self, Visit};

impl RetentionFacts {
    /// Let the definitions go when there are [`LET_GO_DEFS`] or more, as
    /// read by [`parse_consts`] (`consts_only`) or by the whole parse: the
    /// same reader reads them again when a lookup may need one.
    pub fn let_go_defs(&mut self, consts_only: bool) {
        if self.defs.len() >= LET_GO_DEFS {
            let read_again = if consts_only {
                defs_of_consts
            } else {
                defs_of_whole
            };
            self.let_go = Some(LetGoDefs::new(&self.defs, read_again));
            self.defs = Vec::new();
        }
    }
}

/// The constants [`parse_consts`] reads in `text`.
fn defs_of_consts(text: &str) -> Vec<DurDef> {
    let mut f = FileFacts::default();
    parse_consts(text, &mut f);
    f.code.map(|r| r.retention.defs).unwrap_or_default()
}

/// The constants the whole parse reads in `text`.
fn defs_of_whole(text: &str) -> Vec<DurDef> {
    let mut f = FileFacts::default();
    super::parse(text, &mut f);
    f.code.map(|r| r.retention.defs).unwrap_or_default()
}

/// Longest `const`/`static` item the constants-only reader looks at.
const MAX_CONST_ITEM_BYTES: usize = 4096;

/// Read a parsed file.
pub fn extract(file: &syn::File, facts: &mut FileFacts) -> RetentionFacts {
    let mut v = Visitor::default();
    v.visit_file(file);
    finish(v, facts)
}

/// The retention reader of a file read one item at a time
/// ([`super::parse`] on a file too large to hold whole): what it has read
/// so far, carried from one item's tree to the next.
#[derive(Default)]
pub(super) struct ItemReader(Visitor<'static>);

impl ItemReader {
    pub(super) fn read<'p>(&mut self, piece: &super::Piece<'p>) {
        self.with(|v: &mut Visitor<'p>| piece.visit(v));
    }

    /// Run `f` with the reader bound to a tree that lives shorter than it.
    /// Between top-level items no function is being read: what borrows
    /// the tree (a function's `let` values, its node) is empty or unread
    /// until the next function clears it.
    fn with<'a>(&mut self, f: impl FnOnce(&mut Visitor<'a>)) {
        let mut v: Visitor<'a> = std::mem::take(&mut self.0);
        f(&mut v);
        // Every field but the two that borrow the tree, moved over.
        macro_rules! detach {
            ($($field:ident),*) => {{
                let Visitor { $($field,)* let_log: _, fn_node: _ } = v;
                Visitor { $($field,)* let_log: Vec::new(), fn_node: None }
            }};
        }
        self.0 = detach!(
            out,
            writes,
            lets,
            let_keys,
            params,
            fn_name,
            chains,
            offset,
            fn_sends_key,
            formats,
            let_formats,
            let_idents,
            config_reads,
            config_lets,
            early,
            const_fns,
            calls_as_refs,
            fn_idem,
            cache_store
        );
    }

    pub(super) fn finish(self, facts: &mut FileFacts) -> RetentionFacts {
        finish(self.0, facts)
    }
}

/// Read only the `const`/`static` items of a file that no keyword let
/// through the prefilter but that may define time constants (`pub const DAY:
/// u64 = 86_400;` in `time_consts.rs`). Each item is parsed on its own, so
/// the cost is the items', not the file's.
pub fn parse_consts(text: &str, facts: &mut FileFacts) {
    let items: Vec<(usize, syn::Item)> = const_items(text)
        .into_iter()
        .filter_map(|(start, end)| {
            let item_text = text.get(start..end)?;
            if c_typed_item(item_text)
                || crate::frontend::max_bracket_depth(item_text) > crate::frontend::MAX_NESTING
            {
                return None;
            }
            Some((start, syn::parse_str::<syn::Item>(item_text).ok()?))
        })
        .collect();
    let mut v = Visitor::default();
    for (start, item) in &items {
        v.offset = *start;
        v.visit_item(item);
    }
    v.offset = 0;
    let r = finish(v, facts);
    let rust = facts.code.get_or_insert_with(Default::default);
    rust.retention = r;
    // As in `rust::parse`: spans are byte ranges by now, free proc-macro2's
    // per-thread copy of the parsed text.
    proc_macro2::extra::invalidate_current_thread_spans();
}

fn finish(v: Visitor<'_>, facts: &mut FileFacts) -> RetentionFacts {
    // Fill the TTL of writes whose expiry folds with this file's constants.
    let local: HashMap<&str, &ConstExpr> = v
        .out
        .defs
        .iter()
        .map(|d| (d.name.as_str(), &d.expr))
        .collect();
    let lookup = |name: &str| local.get(name).copied();
    for (w, ttl) in &v.writes {
        let mut w = w.clone();
        if let Some((expr, span, unit_ms)) = ttl {
            w.ttl = fold_duration(expr, Some(*unit_ms), &lookup).map(|d| (d, *span));
        }
        facts.redis_writes.push(w);
    }
    for (expr, span, table, column) in &v.early {
        if let Some(lead) = fold_duration(expr, None, &lookup).filter(|d| d.secs > 0) {
            facts.early_purges.push(EarlyPurge {
                span: *span,
                lead,
                table: table.clone(),
                column: column.clone(),
            });
        }
    }
    // A format seen as a macro and again as a write's key: keep one.
    let mut formats = v.formats;
    formats.sort_by_key(|f| f.span.start);
    formats.dedup_by_key(|f| f.span.start);
    facts.key_formats.extend(formats);
    v.out
}

/// `ids` and, after them, what the bindings among them were built from.
fn expand_with(by_name: &HashMap<String, Vec<String>>, ids: Vec<String>) -> Vec<String> {
    let mut out = ids.clone();
    for i in &ids {
        if let Some(more) = by_name.get(i) {
            out.extend(more.iter().cloned());
        }
    }
    out
}

/// Every identifier in a token stream, once each, in order.
fn token_idents(ts: proc_macro2::TokenStream) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut seen: HashSet<String> = HashSet::new();
    let mut stack = vec![ts];
    while let Some(ts) = stack.pop() {
        for t in ts {
            match t {
                proc_macro2::TokenTree::Ident(i) => {
                    let s = i.to_string();
                    if seen.insert(s.clone()) {
                        out.push(s);
                    }
                }
                proc_macro2::TokenTree::Group(g) => stack.push(g.stream()),
                // `format!("{account_id}:{key}")` names its arguments inline.
                proc_macro2::TokenTree::Literal(l) => {
                    let s = l.to_string();
                    if !s.starts_with('"') && !s.starts_with("r\"") && !s.starts_with("r#") {
                        continue;
                    }
                    for part in s.split('{').skip(1) {
                        let inner = part.split(['}', ':']).next().unwrap_or("");
                        for id in key_format::idents(inner) {
                            if seen.insert(id.clone()) {
                                out.push(id);
                            }
                        }
                    }
                }
                _ => {}
            }
        }
    }
    out
}

/// Byte ranges of `const NAME ... ;` / `static NAME ... ;` items that start
/// a line (after `pub`/`pub(crate)`), ending at the first `;` outside
/// brackets and string literals. The keywords are found with a byte search
/// and their lines read back from there: most lines of a file hold neither.
fn const_items(text: &str) -> Vec<(usize, usize)> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut consts = memchr::memmem::find_iter(bytes, b"const ").peekable();
    let mut statics = memchr::memmem::find_iter(bytes, b"static ").peekable();
    loop {
        let at = match (consts.peek().copied(), statics.peek().copied()) {
            (Some(c), Some(s)) if c < s => consts.next(),
            (Some(_), None) => consts.next(),
            (_, Some(_)) => statics.next(),
            (None, None) => break,
        };
        let Some(at) = at else { break };
        let line_start = memchr::memrchr(b'\n', &bytes[..at]).map_or(0, |i| i + 1);
        // Both keywords are ASCII: `at` is a char boundary.
        let prefix = &text[line_start..at];
        if !only_visibility(prefix) {
            continue;
        }
        let item_start = at - prefix.trim_start().len();
        if let Some(end) = const_item_end(text, item_start) {
            out.push((item_start, end));
        }
    }
    out
}

/// Whether what precedes an item's keyword on its line is only whitespace
/// and a visibility (`pub`, `pub(crate)`, `pub(in a::b)`).
fn only_visibility(prefix: &str) -> bool {
    after_visibility(prefix) == Some("")
}

/// What follows a visibility (`pub`, `pub(crate)`, `pub(in a::b)`) and the
/// whitespace around it, or the text without one; `None` when `pub(` does
/// not close.
pub(super) fn after_visibility(text: &str) -> Option<&str> {
    let t = text.trim_start();
    let Some(r) = t.strip_prefix("pub") else {
        return Some(t);
    };
    let r = r.trim_start();
    match r.strip_prefix('(') {
        Some(r) => r.split_once(')').map(|(_, r)| r.trim_start()),
        None => Some(r),
    }
}

/// Whether a `const`/`static` item is typed as C names types (`pub const
/// SO_REUSEADDR: c_int = 2;`, `static mut X: crate::__u32`): a C flag or
/// size mirrored by a binding, no duration a retention is built from
/// ([`crate::lex::rust::c_cased`]). Most items of hand-written C bindings
/// (libc) are such constants.
fn c_typed_item(item: &str) -> bool {
    let rest = after_visibility(item).unwrap_or("");
    let Some(r) = rest
        .strip_prefix("const ")
        .or_else(|| rest.strip_prefix("static "))
    else {
        return false;
    };
    let r = r.trim_start();
    let r = r.strip_prefix("mut ").map_or(r, str::trim_start);
    let name = crate::lex::rust::ident_len(r.as_bytes());
    name > 0 && crate::lex::rust::c_typed(&r.as_bytes()[name..])
}

/// The end of the item at `item_start`: past its first `;` outside brackets
/// and string literals, within [`MAX_CONST_ITEM_BYTES`].
fn const_item_end(text: &str, item_start: usize) -> Option<usize> {
    let mut depth = 0i32;
    let mut in_str = false;
    let mut prev = '\0';
    // A constant fits in a few lines; a `const fn` or a stray `const`
    // in a comment must not make the scan quadratic.
    let window_end = crate::source::clamp_to_char_boundary(text, item_start + MAX_CONST_ITEM_BYTES);
    let window = text.get(item_start..window_end).unwrap_or("");
    for (i, c) in window.char_indices() {
        match c {
            '"' if prev != '\\' => in_str = !in_str,
            '(' | '[' | '{' if !in_str => depth += 1,
            ')' | ']' | '}' if !in_str => depth -= 1,
            ';' if !in_str && depth <= 0 => return Some(item_start + i + 1),
            _ => {}
        }
        prev = c;
    }
    None
}

/// Read an integer or duration expression outside this module's own walk
/// (the retry reader), with the function's `let` values and its parameters
/// (which are never guessed).
pub fn read_expr(
    e: &syn::Expr,
    lets: &HashMap<String, ConstExpr>,
    params: &HashSet<String>,
) -> ConstExpr {
    let v = Visitor {
        lets: lets.clone(),
        params: params.clone(),
        config_reads: true,
        ..Visitor::default()
    };
    v.read(e, 0)
}

/// Read a duration as [`read_expr`] does, with a zero-argument call of a
/// plain name (`lock_ttl()`) read as a reference to the `const fn` of that
/// name, which the model folds where every file's definitions are known.
pub fn read_duration_arg(e: &syn::Expr) -> ConstExpr {
    let v = Visitor {
        calls_as_refs: true,
        ..Visitor::default()
    };
    v.read(e, 0)
}

/// The setting a field path or `env::var("…")` call reads; a path from a
/// `let` bound to a setting's section (`let w = &settings.payouts;`)
/// continues it.
fn config_read<'l>(e: &syn::Expr, lets: &dyn Fn(&str) -> Option<&'l ConstExpr>) -> Option<String> {
    match e {
        syn::Expr::Field(_) => {
            let mut segs = Vec::new();
            let mut cur = e;
            loop {
                match cur {
                    syn::Expr::Field(f) => {
                        let syn::Member::Named(n) = &f.member else {
                            return None;
                        };
                        segs.push(n.to_string());
                        cur = &f.base;
                    }
                    syn::Expr::Path(p) if p.path.segments.len() == 1 => {
                        let root = p.path.segments[0].ident.to_string();
                        match lets(&root) {
                            Some(ConstExpr::Ref(r)) if r.starts_with(CONFIG_REF) => {
                                segs.reverse();
                                return Some(format!("{r}.{}", segs.join(".")));
                            }
                            _ if root != "self" => segs.push(root),
                            _ => {}
                        }
                        break;
                    }
                    syn::Expr::Paren(p) => cur = &p.expr,
                    syn::Expr::Reference(r) => cur = &r.expr,
                    _ => return None,
                }
            }
            segs.reverse();
            (segs.len() >= 2).then(|| format!("{CONFIG_REF}{}", segs.join(".")))
        }
        syn::Expr::Call(c) => {
            let syn::Expr::Path(f) = &*c.func else {
                return None;
            };
            let segs = super::path_idents(&f.path);
            let n = segs.len();
            let is_var = n >= 2
                && matches!(segs[n - 1].as_str(), "var" | "var_os")
                && matches!(segs[n - 2].as_str(), "env" | "dotenvy" | "dotenv");
            if !is_var || c.args.len() != 1 {
                return None;
            }
            let name = str_lit(&c.args[0])?;
            (!name.is_empty()).then(|| format!("{CONFIG_REF}${name}"))
        }
        _ => None,
    }
}

/// Duration constructors and the milliseconds one unit of their argument is
/// (`std::time::Duration`, `chrono::Duration`/`TimeDelta`, `time::Duration`).
fn constructor_ms(name: &str) -> Option<u64> {
    let name = name.strip_prefix("try_").unwrap_or(name);
    Some(match name {
        "from_millis" | "milliseconds" => 1,
        "from_secs" | "seconds" | "new" => 1000,
        "from_mins" | "minutes" => 60_000,
        "from_hours" | "hours" => 3_600_000,
        "from_days" | "days" => 86_400_000,
        "from_weeks" | "weeks" => 604_800_000,
        _ => return None,
    })
}

/// diesel's `IntervalDsl` methods on an integer literal (`7.days()`), in
/// milliseconds a unit; months and years are left out (their length
/// varies).
fn interval_dsl_ms(name: &str) -> Option<u64> {
    Some(match name {
        "milliseconds" => 1,
        "second" | "seconds" => 1000,
        "minute" | "minutes" => 60_000,
        "hour" | "hours" => 3_600_000,
        "day" | "days" => 86_400_000,
        "week" | "weeks" => 604_800_000,
        _ => return None,
    })
}

fn is_int_lit(e: &syn::Expr) -> bool {
    match e {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(_),
            ..
        }) => true,
        syn::Expr::Paren(p) => is_int_lit(&p.expr),
        _ => false,
    }
}

/// `time::Duration::DAY` and friends.
fn duration_const_ms(name: &str) -> Option<u64> {
    Some(match name {
        "MILLISECOND" => 1,
        "SECOND" => 1000,
        "MINUTE" => 60_000,
        "HOUR" => 3_600_000,
        "DAY" => 86_400_000,
        "WEEK" => 604_800_000,
        _ => return None,
    })
}

fn is_duration_type(seg: &str) -> bool {
    matches!(
        seg,
        "Duration" | "TimeDelta" | "StdDuration" | "ChronoDuration"
    )
}

/// Which unit a Redis expiry argument counts.
const SECS: u64 = 1000;
const MILLIS: u64 = 1;

/// An expiry as read: expression, its span, milliseconds per unit.
type Expiry = (ConstExpr, Span, u64);

#[derive(Default)]
struct Visitor<'ast> {
    out: RetentionFacts,
    /// Writes and their unfolded expiry (expression, its span, unit).
    writes: Vec<(RedisKeyWrite, Option<Expiry>)>,
    /// `let` bindings of the function being read: value expression or, for
    /// a key built with `format!`, its literal prefix.
    lets: HashMap<String, ConstExpr>,
    let_keys: HashMap<String, String>,
    /// Function parameters shadow constants of the same name: unknown.
    params: HashSet<String>,
    fn_name: Option<String>,
    /// Roots of `cmd(..)` chains already read (an outer call reads them all).
    chains: HashSet<(usize, usize)>,
    /// Added to every span (items parsed out of a larger file).
    offset: usize,
    /// The function being read sends an idempotency key on an outgoing
    /// request ([`sends_idempotency_key`]).
    fn_sends_key: bool,
    /// Request-key formats (`format!("idem:{}:{}", tenant, key)`) found.
    formats: Vec<KeyFormat>,
    /// `let` bindings of the function built with a key format.
    let_formats: HashMap<String, KeyFormat>,
    /// Every `let` of the function in order: its name and value.
    let_log: Vec<(String, &'ast syn::Expr)>,
    /// The identifiers each of the first `n` bindings of `let_log` was built
    /// from, by name (a later binding of a name wins): `(n, identifiers)`.
    /// Printing every `let`'s value cost about 5% of omicron's Rust parse
    /// time, for the few functions that build a key format, so it waits for
    /// [`Self::expand`].
    let_idents: std::cell::RefCell<(usize, HashMap<String, Vec<String>>)>,
    /// The function being read, whose identifiers say which caller is at
    /// hand around a key format; printed only when a format is found.
    fn_node: Option<&'ast dyn quote::ToTokens>,
    /// Read a field path (`cfg.payouts.max_retries`) or an environment
    /// variable (`env::var("PAYOUT_MAX_RETRIES")`) as a reference to a
    /// setting ([`CONFIG_REF`]), for the retry reader; elsewhere unknown.
    config_reads: bool,
    /// `let` bindings of the function that read a setting
    /// (`let url = env::var("REDIS_URL")?;`), used when reading with
    /// `config_reads` (a TTL or a client's URL that nothing else gives).
    config_lets: HashMap<String, ConstExpr>,
    /// Deletes of a store's rows before their expiry: the lead unfolded,
    /// its span, the table and the expiry column.
    early: Vec<(ConstExpr, Span, String, String)>,
    /// Zero-argument `const fn`s of the file read so far whose body is one
    /// duration or integer expression (`const fn lock_ttl() -> Duration {
    /// Duration::from_secs(5) }`): a call to one reads as a reference to it
    /// (`Ref("lock_ttl()")`).
    const_fns: HashSet<String>,
    /// Read every zero-argument call of a plain name as such a reference
    /// (the flow reader, which folds it in the model, where an unknown
    /// name gives nothing).
    calls_as_refs: bool,
    /// The function being read names idempotency in its signature (its
    /// name, a parameter or its type: `key: &IdempotencyKey`).
    fn_idem: bool,
    /// The write being recorded goes to an idempotency code's cache
    /// abstraction: a store whatever its key says.
    cache_store: bool,
}

impl<'ast> Visitor<'ast> {
    fn span(&self, s: proc_macro2::Span) -> Span {
        super::byte_span(s).shift(self.offset)
    }

    fn expr_span(&self, e: &syn::Expr) -> Span {
        super::span::of(e).shift(self.offset)
    }

    fn read(&self, e: &syn::Expr, depth: usize) -> ConstExpr {
        if depth > MAX_EXPR_DEPTH {
            return ConstExpr::Unknown;
        }
        let rd = |x: &syn::Expr| Box::new(self.read(x, depth + 1));
        if self.config_reads {
            let lets = |n: &str| -> Option<&ConstExpr> {
                self.config_lets.get(n).or_else(|| self.lets.get(n))
            };
            if let Some(name) = config_read(e, &lets) {
                return ConstExpr::Ref(name);
            }
            match e {
                // `env::var("N")?.parse()?`, `cfg.retries.unwrap_or(5)`: the
                // setting, as deployed.
                syn::Expr::Try(t) => return self.read(&t.expr, depth + 1),
                syn::Expr::MethodCall(m)
                    if matches!(
                        m.method.to_string().as_str(),
                        "parse"
                            | "ok"
                            | "unwrap_or"
                            | "unwrap_or_default"
                            | "unwrap_or_else"
                            | "and_then"
                            | "context"
                            | "with_context"
                            | "wrap_err"
                            | "map_err"
                    ) =>
                {
                    return self.read(&m.receiver, depth + 1)
                }
                _ => {}
            }
        }
        let read = match e {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Int(i),
                ..
            }) => i
                .base10_parse::<u64>()
                .map(ConstExpr::Int)
                .unwrap_or(ConstExpr::Unknown),
            syn::Expr::Paren(p) => self.read(&p.expr, depth + 1),
            syn::Expr::Group(g) => self.read(&g.expr, depth + 1),
            syn::Expr::Reference(r) => self.read(&r.expr, depth + 1),
            syn::Expr::Cast(c) => self.read(&c.expr, depth + 1),
            syn::Expr::Binary(b) => match b.op {
                syn::BinOp::Add(_) => ConstExpr::Add(rd(&b.left), rd(&b.right)),
                syn::BinOp::Sub(_) => ConstExpr::Sub(rd(&b.left), rd(&b.right)),
                syn::BinOp::Mul(_) => ConstExpr::Mul(rd(&b.left), rd(&b.right)),
                syn::BinOp::Div(_) => ConstExpr::Div(rd(&b.left), rd(&b.right)),
                _ => ConstExpr::Unknown,
            },
            syn::Expr::Path(p) => self.read_path(&p.path),
            syn::Expr::Field(f) => self_field(f).map_or(ConstExpr::Unknown, ConstExpr::Ref),
            syn::Expr::Call(c) => {
                let syn::Expr::Path(f) = &*c.func else {
                    return ConstExpr::Unknown;
                };
                let segs = super::path_idents(&f.path);
                let last = segs.last().map(String::as_str).unwrap_or("");
                let owner = segs.iter().rev().nth(1).map(String::as_str).unwrap_or("");
                if c.args.is_empty()
                    && segs.len() == 1
                    && (self.calls_as_refs || self.const_fns.contains(last))
                {
                    return ConstExpr::Ref(const_fn_ref(last));
                }
                match (c.args.first(), constructor_ms(last)) {
                    (Some(arg), Some(ms)) if is_duration_type(owner) || owner == "IntervalDsl" => {
                        ConstExpr::Dur { ms, arg: rd(arg) }
                    }
                    // `u64::from(x)`, `usize::try_from(x)`
                    (Some(arg), _)
                        if matches!(last, "from" | "try_from")
                            && matches!(owner, "u64" | "u32" | "usize" | "i64" | "u128") =>
                    {
                        self.read(arg, depth + 1)
                    }
                    _ => ConstExpr::Unknown,
                }
            }
            syn::Expr::MethodCall(m) => match m.method.to_string().as_str() {
                "unwrap" | "expect" | "into" | "try_into" | "clone" | "to_owned" => {
                    self.read(&m.receiver, depth + 1)
                }
                "as_secs" | "num_seconds" | "whole_seconds" => ConstExpr::ToInt {
                    ms: 1000,
                    arg: rd(&m.receiver),
                },
                "as_millis" | "num_milliseconds" | "whole_milliseconds" => ConstExpr::ToInt {
                    ms: 1,
                    arg: rd(&m.receiver),
                },
                // diesel's `IntervalDsl` on an integer: `7.days()`, `1.hours()`.
                name if m.args.is_empty() && is_int_lit(&m.receiver) => {
                    match interval_dsl_ms(name) {
                        Some(ms) => ConstExpr::Dur {
                            ms,
                            arg: rd(&m.receiver),
                        },
                        None => ConstExpr::Unknown,
                    }
                }
                _ => ConstExpr::Unknown,
            },
            _ => ConstExpr::Unknown,
        };
        // A tree with an unknown part is unknown as a whole.
        if refs_unknown(&read) {
            ConstExpr::Unknown
        } else {
            read
        }
    }

    fn read_path(&self, path: &syn::Path) -> ConstExpr {
        let segs = super::path_idents(path);
        let Some(last) = segs.last() else {
            return ConstExpr::Unknown;
        };
        if segs.len() >= 2 && is_duration_type(&segs[segs.len() - 2]) {
            return match duration_const_ms(last) {
                Some(ms) => ConstExpr::Dur {
                    ms,
                    arg: Box::new(ConstExpr::Int(1)),
                },
                None => ConstExpr::Unknown,
            };
        }
        if segs.len() == 1 {
            let config = self.config_reads.then(|| self.config_lets.get(last));
            if let Some(e) = config.flatten().or_else(|| self.lets.get(last)) {
                return e.clone();
            }
            if self.params.contains(last) {
                return ConstExpr::Unknown;
            }
        }
        ConstExpr::Ref(last.clone())
    }

    /// The literal prefix of a Redis key expression: a string literal, the
    /// text of a `format!` before its first placeholder, or a `let` bound to
    /// one of those.
    fn key_prefix(&self, e: &syn::Expr) -> Option<String> {
        match e {
            syn::Expr::Reference(r) => self.key_prefix(&r.expr),
            syn::Expr::Paren(p) => self.key_prefix(&p.expr),
            syn::Expr::Group(g) => self.key_prefix(&g.expr),
            syn::Expr::MethodCall(m)
                if matches!(
                    m.method.to_string().as_str(),
                    "as_str" | "to_string" | "as_ref" | "clone" | "to_owned" | "as_bytes"
                ) =>
            {
                self.key_prefix(&m.receiver)
            }
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            }) => Some(s.value()).filter(|s| !s.is_empty()),
            syn::Expr::Macro(m) => format_prefix(&m.mac),
            syn::Expr::Path(p) if p.path.segments.len() == 1 => {
                let name = p.path.segments.first()?.ident.to_string();
                self.let_keys.get(&name).cloned()
            }
            _ => None,
        }
    }

    /// The request-key format a Redis key expression is built with: a
    /// `format!`, or a `let` bound to one.
    fn key_format(&self, e: &syn::Expr) -> Option<KeyFormat> {
        match e {
            syn::Expr::Reference(r) => self.key_format(&r.expr),
            syn::Expr::Paren(p) => self.key_format(&p.expr),
            syn::Expr::Group(g) => self.key_format(&g.expr),
            syn::Expr::MethodCall(m)
                if matches!(
                    m.method.to_string().as_str(),
                    "as_str" | "to_string" | "as_ref" | "clone" | "to_owned" | "as_bytes"
                ) =>
            {
                self.key_format(&m.receiver)
            }
            syn::Expr::Macro(m) => self.format_macro(&m.mac),
            syn::Expr::Path(p) if p.path.segments.len() == 1 => {
                let name = p.path.segments.first()?.ident.to_string();
                self.let_formats.get(&name).cloned()
            }
            _ => None,
        }
    }

    /// `format!("idem:{}:{}", merchant_id, key)`, `format!("idem:{tenant}:{key}")`,
    /// `format!("idem:{t}:{k}", t = tenant, k = key)` whose prefix names a
    /// request-key store.
    fn format_macro(&self, mac: &syn::Macro) -> Option<KeyFormat> {
        use syn::punctuated::Punctuated;
        let name = mac.path.segments.last()?.ident.to_string();
        if !matches!(name.as_str(), "format" | "formatcp") {
            return None;
        }
        let args = mac
            .parse_body_with(Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated)
            .ok()?;
        let mut it = args.iter();
        let syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(lit),
            ..
        }) = it.next()?
        else {
            return None;
        };
        let v = lit.value();
        let (literals, holes, first) = key_format::split_rust(&v)?;
        let prefix = key_format::request_key_prefix(&v, first)?.to_string();
        let mut positional = Vec::new();
        let mut named: HashMap<String, Vec<String>> = HashMap::new();
        for a in it {
            if let syn::Expr::Assign(x) = a {
                if let syn::Expr::Path(p) = &*x.left {
                    if let Some(id) = p.path.get_ident() {
                        named.insert(id.to_string(), self.expr_idents(&x.right));
                        continue;
                    }
                }
            }
            positional.push(self.expr_idents(a));
        }
        let mut next = 0;
        let holes = holes
            .iter()
            .map(|h| match h {
                key_format::Hole::Next => {
                    let a = positional.get(next).cloned().unwrap_or_default();
                    next += 1;
                    a
                }
                key_format::Hole::Index(n) => positional.get(*n).cloned().unwrap_or_default(),
                key_format::Hole::Inline(n) => named
                    .get(n)
                    .cloned()
                    .unwrap_or_else(|| self.expand(key_format::idents(n))),
            })
            .collect();
        Some(KeyFormat {
            span: self.span(lit.span()),
            text: v.clone(),
            prefix,
            literals,
            holes,
            around: self
                .fn_node
                .map(|f| token_idents(f.to_token_stream()))
                .unwrap_or_default(),
        })
    }

    /// The identifiers an expression names, with what the function's `let`
    /// bindings among them were built from.
    fn expr_idents(&self, e: &syn::Expr) -> Vec<String> {
        use quote::ToTokens;
        self.expand(token_idents(e.to_token_stream()))
    }

    fn expand(&self, ids: Vec<String>) -> Vec<String> {
        use quote::ToTokens;
        let mut idents = self.let_idents.borrow_mut();
        let (done, by_name) = &mut *idents;
        for (name, value) in self.let_log.get(*done..).unwrap_or_default() {
            let built_from = expand_with(by_name, token_idents(value.to_token_stream()));
            by_name.insert(name.clone(), built_from);
        }
        *done = self.let_log.len();
        expand_with(by_name, ids)
    }

    fn record_write(
        &mut self,
        at: Span,
        key: Option<&syn::Expr>,
        ttl: Option<(&syn::Expr, u64)>,
        nx: bool,
    ) {
        let key_prefix = key.and_then(|k| self.key_prefix(k));
        let ttl_read = ttl.map(|(e, unit)| (self.read_or_config(e), self.expr_span(e), unit, e));
        if let Some((expr, span, unit, e)) = &ttl_read {
            let refs = refs_of(expr);
            let mut context: Vec<String> = key_prefix.iter().cloned().collect();
            if self.cache_store {
                context.push(REQUEST_KEY_CONTEXT.to_string());
            }
            context.extend(refs.iter().cloned());
            context.extend(self.fn_name.iter().cloned());
            let stores = knowledge::stores();
            let is_store = self.cache_store
                || key_prefix
                    .as_deref()
                    .is_some_and(|p| stores.is_store_prefix(p))
                || refs.iter().any(|r| stores.is_store_table(r));
            // `idem:lock:{id}` with 30 s, `IDEM_IN_FLIGHT_TTL`: the lifetime of
            // a claim, not how long the key is kept.
            let words = knowledge::retention_words();
            let is_lock = key_prefix.iter().chain(&refs).any(|c| words.is_excluded(c));
            if is_store && !is_lock && *expr != ConstExpr::Unknown {
                let direct_ref = match (e, expr) {
                    (_, ConstExpr::Ref(n)) => Some(n.clone()),
                    (_, ConstExpr::ToInt { arg, .. }) => match &**arg {
                        ConstExpr::Ref(n) => Some(n.clone()),
                        _ => None,
                    },
                    _ => None,
                };
                let target = StoreRef::RedisPrefix(key_prefix.clone().unwrap_or_default());
                self.out.pending.push(PendingRetention {
                    span: *span,
                    expr: expr.clone(),
                    unit_ms: Some(*unit),
                    target,
                    via: format!(
                        "Redis expiry{}",
                        key_prefix
                            .as_deref()
                            .map(|p| format!(" on `{p}` keys"))
                            .unwrap_or_default()
                    ),
                    context,
                    site: Some(at),
                    direct_ref,
                    standalone: false,
                    labels: Vec::new(),
                });
            }
        }
        if let Some(f) = key.and_then(|k| self.key_format(k)) {
            self.formats.push(f);
        }
        let ttl = ttl_read.map(|(expr, span, unit, _)| (expr, span, unit));
        self.writes.push((
            RedisKeyWrite {
                span: at,
                key_prefix,
                ttl: None,
                nx,
            },
            ttl,
        ));
    }

    /// An expression as a constant, else as a setting the code reads
    /// (`settings.webhooks.ttl_secs`, `env::var("DEDUP_TTL")?.parse()?`,
    /// `self.ttl` set from one), for the model to join with the
    /// configuration files.
    fn read_or_config(&mut self, e: &syn::Expr) -> ConstExpr {
        let plain = self.read(e, 0);
        if plain != ConstExpr::Unknown {
            return plain;
        }
        let was = std::mem::replace(&mut self.config_reads, true);
        let read = self.read(e, 0);
        self.config_reads = was;
        read
    }

    /// `Self { ttl_secs: settings.webhooks.ttl_secs, .. }`: each field set
    /// to a constant or a setting becomes a definition `self.<field>`, for
    /// `self.ttl_secs` read in the same file.
    fn record_struct_fields(&mut self, e: &syn::ExprStruct) {
        for f in &e.fields {
            let syn::Member::Named(name) = &f.member else {
                continue;
            };
            let value = self.read_or_config(&f.expr);
            if value != ConstExpr::Unknown {
                let span = self.expr_span(&f.expr);
                self.out.defs.push(DurDef {
                    name: format!("{SELF_FIELD}{name}"),
                    expr: value,
                    span,
                });
            }
        }
    }

    /// A Redis client built from a setting (`redis::Client::open(url)`,
    /// bb8's `RedisConnectionManager::new`, deadpool's and fred's
    /// `Config::from_url`).
    fn record_client(&mut self, c: &syn::ExprCall) {
        let syn::Expr::Path(f) = &*c.func else { return };
        let segs = super::path_idents(&f.path);
        let n = segs.len();
        let (Some(owner), Some(last)) = (n.checked_sub(2).map(|i| &segs[i]), segs.last()) else {
            return;
        };
        let client = matches!(
            (owner.as_str(), last.as_str()),
            ("Client", "open")
                | ("RedisConnectionManager", "new")
                | ("Config" | "RedisConfig", "from_url")
        );
        let redis_path = owner == "Client" || segs.iter().any(|s| s.contains("redis"));
        let Some(arg) = c.args.first().filter(|_| client && redis_path) else {
            return;
        };
        let arg = strip_string_views(arg);
        let was = std::mem::replace(&mut self.config_reads, true);
        let read = self.read(arg, 0);
        self.config_reads = was;
        if let ConstExpr::Ref(r) = read {
            if let Some(setting) = r.strip_prefix(CONFIG_REF) {
                self.out.clients.push(ClientSetting {
                    span: self.expr_span(arg),
                    read: setting.to_string(),
                    call: segs.join("::"),
                });
            }
        }
    }

    /// A `DELETE` on a store whose age cut-off is bound from the clock
    /// minus a duration: `sqlx::query("DELETE FROM stripe_events WHERE
    /// created_at < $1").bind(Utc::now() - Duration::hours(24))`, the same
    /// through `query!`'s arguments or a `let`.
    fn record_bound_delete(&mut self, sql: &syn::Expr, binds: &[&syn::Expr]) {
        let Some(text) = str_lit(sql) else { return };
        let Some(cut) = crate::frontend::sql::retention::bound_cutoff(&text) else {
            return;
        };
        let Some(bound) = binds.get(cut.param) else {
            return;
        };
        let at = self.expr_span(sql);
        self.record_cutoff(&cut.table, &cut.column, bound, at);
    }

    /// A store's rows deleted when `column` is older than `bound`, a
    /// cut-off read from the clock minus a duration.
    fn record_cutoff(&mut self, table: &str, column: &str, bound: &syn::Expr, at: Span) {
        let Some(age) = self.clock_minus(bound, 0) else {
            self.record_early_purge(table, column, bound);
            return;
        };
        let expr = self.read(age, 0);
        if expr == ConstExpr::Unknown {
            return;
        }
        let mut context = vec![table.to_string()];
        context.extend(refs_of(&expr));
        context.extend(self.fn_name.iter().cloned());
        let label = format!("`{table}` rows whose `{column}` is older than this are deleted here");
        self.out.pending.push(PendingRetention {
            span: self.expr_span(age),
            expr,
            unit_ms: None,
            target: StoreRef::Table(table.to_string()),
            via: format!(
                "`DELETE` of `{table}` rows whose `{column}` is older than a bound cut-off"
            ),
            context,
            site: None,
            direct_ref: None,
            standalone: false,
            labels: vec![(at, label)],
        });
    }

    /// `t::expires_at.lt(Utc::now() + D)`: rows deleted `D` before their
    /// own expiry.
    fn record_early_purge(&mut self, table: &str, column: &str, bound: &syn::Expr) {
        if !crate::frontend::sql::retention::is_expiry_column(column) {
            return;
        }
        let mut e = bound;
        while let syn::Expr::Paren(p) = e {
            e = &p.expr;
        }
        let syn::Expr::Binary(b) = e else { return };
        if !matches!(b.op, syn::BinOp::Add(_)) || !reads_clock(&b.left, &self.let_log) {
            return;
        }
        let expr = self.read(&b.right, 0);
        if expr == ConstExpr::Unknown {
            return;
        }
        let span = self.expr_span(&b.right);
        self.early
            .push((expr, span, table.to_string(), column.to_string()));
    }

    /// diesel's `delete(t::table).filter(..)`: the filter after the call.
    fn record_diesel_delete_chain(&mut self, m: &syn::ExprMethodCall) {
        if m.method != "filter" {
            return;
        }
        let syn::Expr::Call(c) = &*m.receiver else {
            return;
        };
        let syn::Expr::Path(f) = &*c.func else { return };
        let segs = super::path_idents(&f.path);
        let is_delete = segs.last().is_some_and(|l| l == "delete")
            && (segs.len() == 1 || segs.first().is_some_and(|s| s == "diesel"));
        if !is_delete {
            return;
        }
        let Some(dml) = super::sql_strings::diesel_dsl(&syn::Expr::Call(c.clone()), &[]) else {
            return;
        };
        let stores = knowledge::stores();
        if !stores.is_store_table(&dml.table) && !stores.is_provider_event_table(&dml.table) {
            return;
        }
        self.diesel_filter(&dml.table, m);
    }

    /// The age or expiry comparison of one diesel `filter(..)` on a store.
    fn diesel_filter(&mut self, table: &str, m: &syn::ExprMethodCall) -> bool {
        let Some(syn::Expr::MethodCall(cmp)) = m.args.first() else {
            return false;
        };
        let column = match &*cmp.receiver {
            syn::Expr::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
            _ => None,
        };
        let lt = matches!(cmp.method.to_string().as_str(), "lt" | "le");
        let (true, Some(column), Some(bound)) = (lt, column, cmp.args.first()) else {
            return false;
        };
        let at = self.expr_span(&cmp.receiver);
        self.record_cutoff(table, &column, bound, at);
        true
    }

    /// diesel's `delete(t::table.filter(t::created_at.lt(Utc::now() - D)))`
    /// on a store (`le` too; the column bare under `use t::dsl::*`).
    fn record_diesel_delete(&mut self, c: &syn::ExprCall) {
        let syn::Expr::Path(f) = &*c.func else { return };
        let segs = super::path_idents(&f.path);
        let is_delete = segs.last().is_some_and(|l| l == "delete")
            && (segs.len() == 1 || segs.first().is_some_and(|s| s == "diesel"));
        let Some(arg) = c.args.first().filter(|_| is_delete) else {
            return;
        };
        let Some(dml) = super::sql_strings::diesel_dsl(&syn::Expr::Call(c.clone()), &[]) else {
            return;
        };
        let stores = knowledge::stores();
        if !stores.is_store_table(&dml.table) && !stores.is_provider_event_table(&dml.table) {
            return;
        }
        let mut cur = arg;
        for _ in 0..16 {
            let syn::Expr::MethodCall(m) = cur else {
                return;
            };
            if m.method == "filter" && self.diesel_filter(&dml.table, m) {
                return;
            }
            cur = &m.receiver;
        }
    }

    /// The duration subtracted from the clock: `Utc::now() - D`,
    /// `now.checked_sub_signed(D)`, or a `let` bound to one.
    fn clock_minus<'e>(&'e self, e: &'e syn::Expr, depth: usize) -> Option<&'e syn::Expr> {
        if depth > 4 {
            return None;
        }
        match e {
            syn::Expr::Binary(b) if matches!(b.op, syn::BinOp::Sub(_)) => {
                reads_clock(&b.left, &self.let_log).then_some(&*b.right)
            }
            syn::Expr::MethodCall(m) => match m.method.to_string().as_str() {
                "checked_sub_signed" | "checked_sub" | "sub" | "saturating_sub" => {
                    (reads_clock(&m.receiver, &self.let_log)).then(|| m.args.first())?
                }
                "unwrap" | "expect" | "naive_utc" | "to_owned" | "clone" => {
                    self.clock_minus(&m.receiver, depth + 1)
                }
                _ => None,
            },
            syn::Expr::Reference(r) => self.clock_minus(&r.expr, depth + 1),
            syn::Expr::Paren(p) => self.clock_minus(&p.expr, depth + 1),
            syn::Expr::Path(p) if p.path.segments.len() == 1 => {
                let name = p.path.segments[0].ident.to_string();
                let (_, init) = self.let_log.iter().rev().find(|(n, _)| *n == name)?;
                self.clock_minus(init, depth + 1)
            }
            _ => None,
        }
    }

    /// `sqlx::query("DELETE …").bind(a).bind(b)…`: the SQL and the bound
    /// values, from the outermost call of the chain.
    fn read_bind_chain(&mut self, outer: &syn::ExprMethodCall) {
        if outer.method != "bind" {
            return;
        }
        let mut binds: Vec<&syn::Expr> = outer.args.first().into_iter().collect();
        let mut cur: &syn::Expr = &outer.receiver;
        let root = loop {
            match cur {
                syn::Expr::MethodCall(m) if m.method == "bind" => {
                    binds.extend(m.args.first());
                    cur = &m.receiver;
                }
                other => break other,
            }
        };
        let syn::Expr::Call(c) = root else { return };
        let syn::Expr::Path(f) = &*c.func else { return };
        let root_span = self.expr_span(root);
        if !self.chains.insert((root_span.start, root_span.end)) {
            return;
        }
        let segs = super::path_idents(&f.path);
        let sql_call = matches!(
            segs.last().map(String::as_str),
            Some("query" | "query_as" | "query_scalar")
        );
        if let (true, Some(sql)) = (sql_call, c.args.first()) {
            binds.reverse();
            self.record_bound_delete(sql, &binds);
        }
    }

    /// `sqlx::query!("DELETE … < $1", cutoff)` (also `query_as!` and
    /// `query_scalar!`, whose first argument may be the row type).
    fn read_query_macro(&mut self, mac: &syn::Macro) {
        use syn::parse::Parser;
        let name = mac.path.segments.last().map(|s| s.ident.to_string());
        if !matches!(name.as_deref(), Some("query" | "query_as" | "query_scalar"))
            || !mac
                .tokens
                .to_string()
                .to_ascii_lowercase()
                .contains("delete")
        {
            return;
        }
        let parser = syn::punctuated::Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated;
        let Ok(args) = parser.parse2(mac.tokens.clone()) else {
            return;
        };
        let args: Vec<syn::Expr> = args.into_iter().collect();
        let Some(at) = args.iter().position(|a| str_lit(a).is_some()) else {
            return;
        };
        let binds: Vec<&syn::Expr> = args[at + 1..].iter().collect();
        self.record_bound_delete(&args[at], &binds);
    }

    /// A binding or constant whose name speaks of a store's retention.
    fn record_named(&mut self, name: &str, expr: &syn::Expr) {
        let value = self.read(expr, 0);
        if value == ConstExpr::Unknown {
            return;
        }
        if !(knowledge::retention_words().is_retention_name(name)
            && knowledge::stores().is_store_table(name))
        {
            return;
        }
        let unit_ms = crate::duration::key_suffix_unit(name).map(|s| (s * 1000.0) as u64);
        let span = self.expr_span(expr);
        let mut context = vec![name.to_string()];
        context.extend(refs_of(&value));
        context.extend(self.fn_name.iter().cloned());
        self.out.pending.push(PendingRetention {
            span,
            expr: value,
            unit_ms,
            target: StoreRef::Constant(name.to_string()),
            via: format!("`{name}`"),
            context,
            site: None,
            direct_ref: None,
            standalone: true,
            labels: Vec::new(),
        });
    }

    /// `const fn lock_ttl() -> Duration { Duration::from_secs(5) }`: a
    /// constant written as a function, known as `lock_ttl()`.
    fn record_const_fn(&mut self, sig: &syn::Signature, block: &syn::Block) {
        if sig.constness.is_none() || !sig.inputs.is_empty() || !sig.generics.params.is_empty() {
            return;
        }
        let [syn::Stmt::Expr(body, None)] = block.stmts.as_slice() else {
            return;
        };
        let name = sig.ident.to_string();
        let before = self.out.defs.len();
        self.record_item(&const_fn_ref(&name), body);
        if self.out.defs.len() > before {
            self.const_fns.insert(name);
        }
    }

    fn record_item(&mut self, name: &str, expr: &syn::Expr) {
        let value = self.read(expr, 0);
        if value != ConstExpr::Unknown {
            let span = self.expr_span(expr);
            self.out.defs.push(DurDef {
                name: name.to_string(),
                expr: value,
                span,
            });
            self.record_named(name, expr);
        }
    }

    /// `redis::cmd("SET").arg(k).arg(v).arg("EX").arg(n)`, also pipelines
    /// (`pipe().cmd("SET")...cmd("EXPIRE")...`).
    fn read_cmd_chain(&mut self, outer: &syn::ExprMethodCall) -> bool {
        // From the outermost call down to the root.
        let mut calls: Vec<&syn::ExprMethodCall> = Vec::new();
        let mut cur: &syn::Expr = &outer.receiver;
        calls.push(outer);
        let root = loop {
            match cur {
                syn::Expr::MethodCall(m) => {
                    calls.push(m);
                    cur = &m.receiver;
                }
                other => break other,
            }
        };
        let root_cmd = match root {
            syn::Expr::Call(c) => match &*c.func {
                syn::Expr::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == "cmd") => {
                    c.args.first().and_then(str_lit)
                }
                _ => None,
            },
            _ => None,
        };
        if root_cmd.is_none() && !calls.iter().any(|c| c.method == "cmd") {
            return false;
        }
        let root_span = self.expr_span(root);
        if !self.chains.insert((root_span.start, root_span.end)) {
            return true;
        }
        calls.reverse();
        // Split into commands: (name, args, span of the command's text).
        let mut cmds: Vec<(String, Vec<&syn::Expr>, Span)> = Vec::new();
        if let Some(name) = root_cmd {
            cmds.push((name, Vec::new(), root_span));
        }
        for c in calls {
            let m = c.method.to_string();
            if m == "cmd" {
                if let Some(name) = c.args.first().and_then(str_lit) {
                    let span = self.span(c.method.span());
                    cmds.push((name, Vec::new(), span));
                }
            } else if m == "arg" {
                if let (Some(last), Some(a)) = (cmds.last_mut(), c.args.first()) {
                    last.1.push(a);
                }
            }
        }
        for (name, args, span) in cmds {
            self.read_command(&name.to_ascii_uppercase(), &args, span);
        }
        true
    }

    fn read_command(&mut self, name: &str, args: &[&syn::Expr], at: Span) {
        let key = args.first().copied();
        match name {
            "SET" => {
                let mut ttl = None;
                let mut nx = false;
                let mut i = 2;
                while i < args.len() {
                    match str_lit(args[i]).map(|s| s.to_ascii_uppercase()).as_deref() {
                        Some("EX") => ttl = args.get(i + 1).map(|e| (*e, SECS)),
                        Some("PX") => ttl = args.get(i + 1).map(|e| (*e, MILLIS)),
                        Some("EXAT") => {
                            ttl = args
                                .get(i + 1)
                                .and_then(|e| after_now(e))
                                .map(|e| (e, SECS))
                        }
                        Some("PXAT") => {
                            ttl = args
                                .get(i + 1)
                                .and_then(|e| after_now(e))
                                .map(|e| (e, MILLIS))
                        }
                        Some("NX") => nx = true,
                        _ => {}
                    }
                    i += 1;
                }
                self.record_write(at, key, ttl, nx);
            }
            "SETEX" => self.record_write(at, key, args.get(1).map(|e| (*e, SECS)), false),
            "PSETEX" => self.record_write(at, key, args.get(1).map(|e| (*e, MILLIS)), false),
            "SETNX" => self.record_write(at, key, None, true),
            "EXPIRE" => self.record_write(at, key, args.get(1).map(|e| (*e, SECS)), false),
            "PEXPIRE" => self.record_write(at, key, args.get(1).map(|e| (*e, MILLIS)), false),
            _ => {}
        }
    }

    /// `con.set_ex(k, v, secs)`, `pset_ex`, `expire`, `set_nx`,
    /// `set_options(k, v, SetOptions::default().with_expiration(SetExpiry::EX(n)))`,
    /// fred's `set(k, v, Some(Expiration::EX(n)), Some(SetOptions::NX), false)`.
    fn read_method(&mut self, call: &syn::ExprMethodCall) {
        let m = call.method.to_string();
        let args: Vec<&syn::Expr> = call.args.iter().collect();
        // the method's span, looked up only for a write
        let at = |v: &Self| v.span(call.method.span());
        let key = args.first().copied();
        match (m.as_str(), args.len()) {
            ("set_ex", 3) => self.record_write(at(self), key, Some((args[2], SECS)), false),
            ("pset_ex", 3) => self.record_write(at(self), key, Some((args[2], MILLIS)), false),
            ("expire", 2) | ("expire", 3) => {
                self.record_write(at(self), key, Some((args[1], SECS)), false)
            }
            ("pexpire", 2) | ("pexpire", 3) => {
                self.record_write(at(self), key, Some((args[1], MILLIS)), false)
            }
            ("set_nx", 2) => self.record_write(at(self), key, None, true),
            ("set_options", 3) | ("set", 5) => {
                let opts = args[2..].iter().copied();
                let mut ttl = None;
                let mut nx = false;
                for o in opts {
                    find_set_options(o, &mut ttl, &mut nx, 0);
                }
                self.record_write(at(self), key, ttl, nx);
            }
            ("set", 2) if key.is_some_and(|k| self.key_prefix(k).is_some()) => {
                self.record_write(at(self), key, None, false)
            }
            // A cache abstraction's `cache.set(&key, &value, ttl)` in
            // idempotency code (`key: &IdempotencyKey`): the TTL the
            // stored response is kept for.
            ("set", 3) if self.fn_idem && super::cache::names_cache(&call.receiver) => {
                self.cache_store = true;
                self.record_write(at(self), key, Some((args[2], MILLIS)), false);
                self.cache_store = false;
            }
            _ => {}
        }
    }
}

/// `SetExpiry::EX(n)`/`PX(n)`, `Expiration::EX(n)`/`PX(n)` and `NX`
/// anywhere in an options expression.
pub(super) fn find_set_options<'e>(
    e: &'e syn::Expr,
    ttl: &mut Option<(&'e syn::Expr, u64)>,
    nx: &mut bool,
    depth: usize,
) {
    if depth > MAX_EXPR_DEPTH {
        return;
    }
    match e {
        syn::Expr::Call(c) => {
            if let syn::Expr::Path(p) = &*c.func {
                let last = p.path.segments.last().map(|s| s.ident.to_string());
                match (last.as_deref(), c.args.first()) {
                    (Some("EX"), Some(a)) => *ttl = Some((a, SECS)),
                    (Some("PX"), Some(a)) => *ttl = Some((a, MILLIS)),
                    _ => {}
                }
            }
            for a in &c.args {
                find_set_options(a, ttl, nx, depth + 1);
            }
        }
        syn::Expr::MethodCall(m) => {
            find_set_options(&m.receiver, ttl, nx, depth + 1);
            for a in &m.args {
                find_set_options(a, ttl, nx, depth + 1);
            }
        }
        syn::Expr::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == "NX") => {
            *nx = true;
        }
        syn::Expr::Reference(r) => find_set_options(&r.expr, ttl, nx, depth + 1),
        syn::Expr::Paren(r) => find_set_options(&r.expr, ttl, nx, depth + 1),
        _ => {}
    }
}

/// The relative part of an absolute expiry, `now + TTL` (`EXAT`/`PXAT`):
/// the side of an addition whose other side reads the clock.
fn after_now(e: &syn::Expr) -> Option<&syn::Expr> {
    use quote::ToTokens;
    let syn::Expr::Binary(b) = e else {
        return None;
    };
    if !matches!(b.op, syn::BinOp::Add(_)) {
        return None;
    }
    let clock = |x: &syn::Expr| {
        let t = x.to_token_stream().to_string().to_ascii_lowercase();
        t.contains("now") || t.contains("timestamp")
    };
    match (clock(&b.left), clock(&b.right)) {
        (true, false) => Some(&b.right),
        (false, true) => Some(&b.left),
        _ => None,
    }
}

/// The literal text of a `format!` (or `concat!`) before its first
/// placeholder: `format!("idem:stripe:{}", id)` gives `idem:stripe:`.
pub(super) fn format_prefix(mac: &syn::Macro) -> Option<String> {
    let name = mac.path.segments.last()?.ident.to_string();
    if !matches!(name.as_str(), "format" | "concat") {
        return None;
    }
    let first = mac.tokens.clone().into_iter().next()?;
    let proc_macro2::TokenTree::Literal(l) = first else {
        return None;
    };
    let syn::Lit::Str(s) =
        syn::parse2::<syn::Lit>(proc_macro2::TokenTree::Literal(l).into()).ok()?
    else {
        return None;
    };
    let v = s.value();
    let prefix = v.split('{').next().unwrap_or("").to_string();
    (!prefix.is_empty()).then_some(prefix)
}

/// `self.ttl_secs`: the field, as a [`SELF_FIELD`] name.
fn self_field(f: &syn::ExprField) -> Option<String> {
    let syn::Member::Named(name) = &f.member else {
        return None;
    };
    match &*f.base {
        syn::Expr::Path(p) if p.path.is_ident("self") => Some(format!("{SELF_FIELD}{name}")),
        _ => None,
    }
}

/// A URL argument without the calls that only view it as text
/// (`url.as_str()`, `&cfg.redis.url`, `secret.expose_secret()`).
fn strip_string_views(e: &syn::Expr) -> &syn::Expr {
    let mut cur = e;
    for _ in 0..8 {
        cur = match cur {
            syn::Expr::Reference(r) => &r.expr,
            syn::Expr::Paren(p) => &p.expr,
            syn::Expr::MethodCall(m)
                if matches!(
                    m.method.to_string().as_str(),
                    "as_str" | "as_ref" | "to_string" | "clone" | "expose_secret" | "as_deref"
                ) && m.args.is_empty() =>
            {
                &m.receiver
            }
            _ => return cur,
        };
    }
    cur
}

/// Whether an expression reads the clock: `Utc::now()`,
/// `OffsetDateTime::now_utc()`, `SystemTime::now()`, or a `let` bound to
/// one.
fn reads_clock(e: &syn::Expr, lets: &[(String, &syn::Expr)]) -> bool {
    use quote::ToTokens;
    if let syn::Expr::Path(p) = e {
        if let Some(id) = p.path.get_ident() {
            let name = id.to_string();
            return match lets.iter().rev().find(|(n, _)| *n == name) {
                Some((_, init)) => init.to_token_stream().to_string().contains("now"),
                None => false,
            };
        }
        // diesel's SQL `now`: `diesel::dsl::now`, `dsl::now`.
        let segs = super::path_idents(&p.path);
        return segs.len() >= 2
            && segs.last().is_some_and(|l| l == "now")
            && segs.iter().rev().nth(1).is_some_and(|s| s == "dsl");
    }
    let t = e.to_token_stream().to_string();
    t.contains("now ()") || t.contains("now_utc ()") || t.contains("now()")
}

/// Whether a direct part of `e` is unknown (deeper parts were checked when
/// they were read).
fn refs_unknown(e: &ConstExpr) -> bool {
    let unknown = |x: &ConstExpr| *x == ConstExpr::Unknown;
    match e {
        ConstExpr::Add(a, b)
        | ConstExpr::Sub(a, b)
        | ConstExpr::Mul(a, b)
        | ConstExpr::Div(a, b) => unknown(a) || unknown(b),
        ConstExpr::Dur { arg, .. } | ConstExpr::ToInt { arg, .. } => unknown(arg),
        ConstExpr::Int(_) | ConstExpr::Ref(_) | ConstExpr::Unknown => false,
    }
}

fn pat_ident(p: &syn::Pat) -> Option<String> {
    match p {
        syn::Pat::Ident(i) => Some(i.ident.to_string()),
        syn::Pat::Type(t) => pat_ident(&t.pat),
        _ => None,
    }
}

impl<'ast> Visit<'ast> for Visitor<'ast> {
    fn visit_item_const(&mut self, item: &'ast syn::ItemConst) {
        self.record_item(&item.ident.to_string(), &item.expr);
        visit::visit_item_const(self, item);
    }

    fn visit_item_static(&mut self, item: &'ast syn::ItemStatic) {
        self.record_item(&item.ident.to_string(), &item.expr);
        visit::visit_item_static(self, item);
    }

    fn visit_impl_item_const(&mut self, item: &'ast syn::ImplItemConst) {
        self.record_item(&item.ident.to_string(), &item.expr);
        visit::visit_impl_item_const(self, item);
    }

    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        self.record_const_fn(&f.sig, &f.block);
        let outer = self.enter_fn(&f.sig, f);
        visit::visit_item_fn(self, f);
        self.leave_fn(outer);
    }

    fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
        let outer = self.enter_fn(&f.sig, f);
        visit::visit_impl_item_fn(self, f);
        self.leave_fn(outer);
    }

    fn visit_expr_path(&mut self, e: &'ast syn::ExprPath) {
        let segs = super::path_idents(&e.path);
        if segs
            .windows(2)
            .any(|w| w[0] == "RequestStrategy" && w[1] == "Idempotent")
        {
            self.fn_sends_key = true;
        }
        visit::visit_expr_path(self, e);
    }

    fn visit_expr_macro(&mut self, m: &'ast syn::ExprMacro) {
        if let Some(f) = self.format_macro(&m.mac) {
            self.formats.push(f);
        }
        self.read_query_macro(&m.mac);
        visit::visit_expr_macro(self, m);
    }

    fn visit_item_struct(&mut self, item: &'ast syn::ItemStruct) {
        for f in &item.fields {
            let Some(name) = &f.ident else { continue };
            for a in f.attrs.iter().filter(|a| a.path().is_ident("serde")) {
                let _ = a.parse_nested_meta(|meta| {
                    if meta.path.is_ident("rename") || meta.path.is_ident("alias") {
                        // `rename = "x"`; `rename(deserialize = "x")` is skipped.
                        if let Ok(v) = meta.value().and_then(|v| v.parse::<syn::LitStr>()) {
                            self.out.renames.push((name.to_string(), v.value()));
                        }
                    } else if meta.input.peek(syn::Token![=]) {
                        let _ = meta.value().and_then(|v| v.parse::<syn::Expr>());
                    }
                    Ok(())
                });
            }
        }
        visit::visit_item_struct(self, item);
    }

    fn visit_stmt_macro(&mut self, m: &'ast syn::StmtMacro) {
        self.read_query_macro(&m.mac);
        visit::visit_stmt_macro(self, m);
    }

    fn visit_expr_struct(&mut self, e: &'ast syn::ExprStruct) {
        self.record_struct_fields(e);
        visit::visit_expr_struct(self, e);
    }

    fn visit_expr_call(&mut self, c: &'ast syn::ExprCall) {
        self.record_client(c);
        self.record_diesel_delete(c);
        visit::visit_expr_call(self, c);
    }

    fn visit_local(&mut self, local: &'ast syn::Local) {
        if let (Some(name), Some(init)) = (pat_ident(&local.pat), &local.init) {
            if let Some(prefix) = self.key_prefix(&init.expr) {
                self.let_keys.insert(name.clone(), prefix);
            }
            if let Some(f) = self.key_format(&init.expr) {
                self.let_formats.insert(name.clone(), f);
            }
            self.let_log.push((name.clone(), &init.expr));
            let value = self.read(&init.expr, 0);
            if value == ConstExpr::Unknown {
                let setting = self.read_or_config(&init.expr);
                if setting == ConstExpr::Unknown {
                    self.config_lets.remove(&name);
                } else {
                    self.config_lets.insert(name.clone(), setting);
                }
            } else {
                self.config_lets.remove(&name);
            }
            self.record_named(&name, &init.expr);
            self.params.remove(&name);
            self.lets.insert(name, value);
        }
        visit::visit_local(self, local);
    }

    fn visit_expr_method_call(&mut self, call: &'ast syn::ExprMethodCall) {
        if sends_idempotency_key(call) {
            self.fn_sends_key = true;
        }
        if !self.read_cmd_chain(call) {
            self.read_method(call);
        }
        self.read_bind_chain(call);
        self.record_diesel_delete_chain(call);
        visit::visit_expr_method_call(self, call);
    }
}

/// Whether a call puts an idempotency key on an outgoing request: a
/// builder's `.idempotency_key(k)`, or a header write (`.header(..)`,
/// `.insert(..)`, `.append(..)`) whose name is an idempotency header
/// (`"Idempotency-Key"`, `"X-Idempotency-Key"`). Reading the header
/// (`.get(..)`) is what a server does with keys it receives.
fn sends_idempotency_key(call: &syn::ExprMethodCall) -> bool {
    let m = call.method.to_string();
    if matches!(
        m.as_str(),
        "idempotency_key" | "with_idempotency_key" | "set_idempotency_key"
    ) && !call.args.is_empty()
    {
        return true;
    }
    if !matches!(m.as_str(), "header" | "insert" | "append") || call.args.len() != 2 {
        return false;
    }
    match call.args.first() {
        Some(syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(name),
            ..
        })) => {
            let name = name.value().to_ascii_lowercase();
            name.contains("idempot") && name.ends_with("key")
        }
        _ => false,
    }
}

/// What `enter_fn` saves of the function around a nested one.
struct OuterFn<'ast> {
    node: Option<&'ast dyn quote::ToTokens>,
    sends_key: bool,
    first_pending: usize,
}

impl<'ast> Visitor<'ast> {
    /// NOTE: a Redis cache of the key a client sent to Stripe
    /// (`stripe:idempotency:{order}` for 24 h, passed to
    /// `RequestStrategy::Idempotent`) is an outbound store: Stripe's key
    /// retention bounds it, not the 30 days Stripe may resend a webhook.
    /// Every retention recorded in a function that sends the key is marked
    /// outbound when the function ends, since the send may come after the
    /// write.
    fn leave_fn(&mut self, outer: OuterFn<'ast>) {
        self.fn_node = outer.node;
        if self.fn_sends_key {
            for p in &mut self.out.pending[outer.first_pending..] {
                if p.site.is_some() {
                    p.context.push("outbound".to_string());
                }
            }
        }
        self.fn_sends_key = outer.sends_key;
    }

    fn enter_fn(&mut self, sig: &syn::Signature, node: &'ast dyn quote::ToTokens) -> OuterFn<'ast> {
        let outer = OuterFn {
            node: self.fn_node.replace(node),
            sends_key: self.fn_sends_key,
            first_pending: self.out.pending.len(),
        };
        self.fn_sends_key = false;
        self.lets.clear();
        self.config_lets.clear();
        self.let_keys.clear();
        self.let_formats.clear();
        self.let_log.clear();
        *self.let_idents.get_mut() = Default::default();
        self.params = sig
            .inputs
            .iter()
            .filter_map(|a| match a {
                syn::FnArg::Typed(t) => pat_ident(&t.pat),
                syn::FnArg::Receiver(_) => None,
            })
            .collect();
        self.fn_name = Some(sig.ident.to_string());
        self.fn_idem = super::cache::names_idempotency_sig(sig);
        outer
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `const_items` as it was, line by line: the reference the byte search
    /// must agree with.
    fn const_items_by_line(text: &str) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        let mut line_start = 0;
        for line in text.split_inclusive('\n') {
            let start = line_start;
            line_start += line.len();
            let t = line.trim_start();
            let indent = line.len() - t.len();
            let mut rest = t;
            if let Some(r) = rest.strip_prefix("pub") {
                let r = r.trim_start();
                rest = match r.strip_prefix('(') {
                    Some(r) => r.split_once(')').map(|(_, r)| r.trim_start()).unwrap_or(""),
                    None => r,
                };
            }
            if !(rest.starts_with("const ") || rest.starts_with("static ")) {
                continue;
            }
            if let Some(end) = const_item_end(text, start + indent) {
                out.push((start + indent, end));
            }
        }
        out
    }

    #[test]
    fn c_typed_constants_are_not_read_for_durations() {
        for item in [
            "pub const SO_REUSEADDR: c_int = 2;",
            "pub(crate) static mut X: crate::__u32 = 0;",
            "const P: *mut sem_t = ptr::null_mut();",
            "pub const Y: ::core::ffi::c_uint = 1;",
        ] {
            assert!(c_typed_item(item), "{item}");
        }
        for item in [
            "pub const DAY: u64 = 86_400;",
            "pub static TTL: Duration = Duration::from_secs(3600);",
            "const WINDOW: chrono::Duration = chrono::Duration::days(30);",
            "const fn f() -> c_int { 1 }",
            "pub const K: &str = \"idem\";",
        ] {
            assert!(!c_typed_item(item), "{item}");
        }
        let mut facts = FileFacts::default();
        parse_consts(
            "pub const HOUR: c_int = 3600;\npub const DAY: u64 = 86_400;\n",
            &mut facts,
        );
        let defs = &facts.code.as_ref().map(|r| &r.retention.defs);
        let names: Vec<&str> = defs
            .iter()
            .flat_map(|d| d.iter().map(|d| d.name.as_str()))
            .collect();
        assert_eq!(names, ["DAY"]);
    }

    #[test]
    fn const_items_found_by_byte_search_are_those_read_line_by_line() {
        let crafted = "pub const DAY: u64 = 86_400;\n\
            \tpub(crate) static TTL: Duration = Duration::from_secs(3 * DAY);\n\
            pub(in crate::a) const X: [u8; 2] = [1, 2];\n\
            pub(crate)static Y: u8 = 1;\n\
            pubconst Z: u8 = 2;\n\
            let s = \"const not an item\"; const W: &str = \"a;b\";\n\
            pub(a) b) const V: u8 = 3;\n\
            pub(in const ) const U: u8 = 4;\n\
            \u{2003}const EM: u8 = 5;\n\
            const fn f() -> u8 { 1 }\n\
            // const IN_COMMENT: u8 = 6;\n\
            static\n\
            const LAST: u8 = 7";
        assert_eq!(const_items(crafted), const_items_by_line(crafted));
        assert_eq!(
            const_items(crafted)
                .iter()
                .map(|&(a, b)| &crafted[a..b])
                .take(4)
                .collect::<Vec<_>>(),
            [
                "pub const DAY: u64 = 86_400;",
                "pub(crate) static TTL: Duration = Duration::from_secs(3 * DAY);",
                "pub(in crate::a) const X: [u8; 2] = [1, 2];",
                "pub(crate)static Y: u8 = 1;",
            ]
        );
        // This crate's own sources.
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut files = 0;
        for entry in ignore::WalkBuilder::new(root).build().flatten() {
            let p = entry.path();
            if p.extension().is_some_and(|x| x == "rs") {
                let text = std::fs::read_to_string(p).unwrap();
                assert_eq!(
                    const_items(&text),
                    const_items_by_line(&text),
                    "{}",
                    p.display()
                );
                files += 1;
            }
        }
        assert!(files > 20);
    }

    use crate::duration::{DAY, HOUR};

    fn read(text: &str) -> (FileFacts, RetentionFacts) {
        let mut f = FileFacts::default();
        let file = syn::parse_file(text).unwrap();
        let r = extract(&file, &mut f);
        (f, r)
    }

    /// A placeholder names what its `let` was built from when it was bound,
    /// through a chain of bindings; a later binding of the same name does
    /// not change what an earlier one was built from.
    #[test]
    fn a_format_hole_follows_let_bindings_as_they_stood() {
        let (f, _) = read(
            r#"
fn key(req: &Req) -> String {
    let merchant = req.merchant_id.clone();
    let scoped = merchant;
    let merchant = 5;
    format!("idem:{}:{}", scoped, merchant)
}
"#,
        );
        let holes: Vec<&Vec<Vec<String>>> = f.key_formats.iter().map(|k| &k.holes).collect();
        let scoped = ["scoped", "merchant", "req", "merchant_id", "clone"];
        assert_eq!(
            holes,
            [&vec![
                scoped.map(String::from).to_vec(),
                vec!["merchant".to_string()]
            ]]
        );
    }

    fn fold_local(r: &RetentionFacts, p: &PendingRetention) -> Option<u64> {
        let lookup = |n: &str| r.defs.iter().find(|d| d.name == n).map(|d| &d.expr);
        fold_duration(&p.expr, p.unit_ms, &lookup).map(|d| d.secs)
    }

    #[test]
    fn duration_constructors_and_arithmetic_fold() {
        let text = r#"
const DAY: u64 = 24 * 60 * 60;
const A: Duration = Duration::from_secs(2 * DAY);
const B: chrono::Duration = chrono::Duration::hours(36);
const C: TimeDelta = TimeDelta::try_days(30).unwrap();
const D: time::Duration = time::Duration::DAY * 7;
const E: u64 = A.as_secs() / 2;
const F: Duration = Duration::from_millis(90_000);
"#;
        let (_, r) = read(text);
        let v = |n: &str| {
            let d = r.defs.iter().find(|d| d.name == n).unwrap();
            let lookup = |n: &str| r.defs.iter().find(|d| d.name == n).map(|d| &d.expr);
            fold_duration(&d.expr, Some(1000), &lookup).map(|d| d.secs)
        };
        assert_eq!(v("A"), Some(2 * DAY));
        assert_eq!(v("B"), Some(36 * HOUR));
        assert_eq!(v("C"), Some(30 * DAY));
        assert_eq!(v("D"), Some(7 * DAY));
        assert_eq!(v("E"), Some(DAY));
        assert_eq!(v("F"), Some(90));
    }

    #[test]
    fn a_redis_write_in_a_function_that_sends_the_key_is_outbound() {
        let text = r#"
async fn charge(con: &mut Conn, client: &stripe::Client, id: &str) {
    con.set_ex(format!("stripe:idempotency:{id}"), 1, 86_400).await?;
    let c = client.clone().with_strategy(stripe::RequestStrategy::Idempotent(k));
}
async fn post(con: &mut Conn, http: &reqwest::Client, id: &str, k: &str) {
    con.set_ex(format!("stripe:idempotency:{id}"), k, 86_400).await?;
    http.post(URL).header("Idempotency-Key", k).send().await?;
}
async fn receive(con: &mut Conn, req: &Request) {
    let k = req.headers().get("Idempotency-Key");
    con.set_ex(format!("stripe:idempotency:{k}"), 1, 86_400).await?;
}
"#;
        let (_, r) = read(text);
        let outbound: Vec<bool> = r
            .pending
            .iter()
            .map(|p| p.context.iter().any(|c| c == "outbound"))
            .collect();
        assert_eq!(outbound, vec![true, true, false]);
    }

    #[test]
    fn cyclic_constants_fold_to_nothing() {
        let (_, r) = read("const A: u64 = B + 1;\nconst B: u64 = A * 2;\n");
        let lookup = |n: &str| r.defs.iter().find(|d| d.name == n).map(|d| &d.expr);
        assert_eq!(fold_duration(&r.defs[0].expr, Some(1000), &lookup), None);
    }

    #[test]
    fn redis_cmd_set_ex_on_idem_stripe_key_is_a_pending_retention() {
        let text = r#"
async fn claim(con: &mut Conn, id: &str) {
    let key = format!("idem:stripe:{}", id);
    let _: () = redis::cmd("SET").arg(&key).arg(1).arg("EX").arg(STRIPE_EVENT_TTL_SECS).arg("NX")
        .query_async(con).await?;
}
"#;
        let (f, r) = read(text);
        assert_eq!(f.redis_writes.len(), 1);
        let w = &f.redis_writes[0];
        assert_eq!(w.key_prefix.as_deref(), Some("idem:stripe:"));
        assert!(w.nx);
        assert_eq!(r.pending.len(), 1);
        let p = &r.pending[0];
        assert_eq!(p.target, StoreRef::RedisPrefix("idem:stripe:".into()));
        assert_eq!(p.direct_ref.as_deref(), Some("STRIPE_EVENT_TTL_SECS"));
        assert_eq!(&text[p.span.start..p.span.end], "STRIPE_EVENT_TTL_SECS");
        assert_eq!(p.unit_ms, Some(1000));
    }

    #[test]
    fn set_ex_set_options_and_expire_are_read_with_their_units() {
        let text = r#"
async fn f(con: &mut Conn, id: &str, ttl: u64) {
    con.set_ex(format!("idempotency:{id}"), 1, 86_400).await?;
    con.pset_ex(format!("dedup:{id}"), 1, 3_600_000).await?;
    con.set_options(format!("idem:{id}"), 1,
        SetOptions::default().conditional_set(ExistenceCheck::NX).with_expiration(SetExpiry::EX(2 * 3600))).await?;
    con.expire("idem:x", ttl).await?;
    con.set_ex(format!("session:{id}"), 1, 86_400).await?;
    con.set_ex(format!("idem:lock:{id}"), 1, 30).await?;
}
"#;
        let (f, r) = read(text);
        assert_eq!(f.redis_writes.len(), 6);
        let secs: Vec<Option<u64>> = f
            .redis_writes
            .iter()
            .map(|w| w.ttl.map(|(d, _)| d.secs))
            .collect();
        assert_eq!(
            secs,
            vec![
                Some(DAY),
                Some(HOUR),
                Some(2 * HOUR),
                None,
                Some(DAY),
                Some(30)
            ]
        );
        assert!(f.redis_writes[2].nx);
        // The parameter `ttl` is never guessed; the session key is no store;
        // the lock's expiry is not a retention.
        let pending: Vec<Option<u64>> = r.pending.iter().map(|p| fold_local(&r, p)).collect();
        assert_eq!(pending, vec![Some(DAY), Some(HOUR), Some(2 * HOUR)]);
    }

    #[test]
    fn fred_set_with_expiration_and_let_bound_durations_are_read() {
        let text = r#"
async fn f(client: &RedisClient, id: &str) {
    let window = chrono::Duration::days(2);
    let key = format!("processed:adyen:{id}");
    client.set(&key, 1, Some(Expiration::EX(window.num_seconds())), Some(SetOptions::NX), false).await?;
    let dedup_ttl = Duration::from_secs(6 * 3600);
    client.expire(format!("dedup:{id}"), env_ttl(), None).await?;
}
"#;
        let (f, r) = read(text);
        assert_eq!(f.redis_writes.len(), 2);
        let w = &f.redis_writes[0];
        assert_eq!(w.key_prefix.as_deref(), Some("processed:adyen:"));
        assert!(w.nx);
        assert_eq!(w.ttl.map(|(d, _)| d.secs), Some(2 * DAY));
        assert_eq!(
            &text[w.ttl.unwrap().1.start..w.ttl.unwrap().1.end],
            "window.num_seconds()"
        );
        // `env_ttl()` is a call: never guessed.
        assert_eq!(f.redis_writes[1].ttl, None);
        let folded: Vec<(String, Option<u64>)> = r
            .pending
            .iter()
            .map(|p| (format!("{:?}", p.target), fold_local(&r, p)))
            .collect();
        assert_eq!(
            folded,
            vec![
                (
                    "RedisPrefix(\"processed:adyen:\")".to_string(),
                    Some(2 * DAY)
                ),
                ("Constant(\"dedup_ttl\")".to_string(), Some(6 * HOUR)),
            ]
        );
    }

    #[test]
    fn exat_reads_the_relative_part_of_now_plus_ttl() {
        let text = r#"
async fn f(con: &mut C, id: &str) {
    let now = Utc::now().timestamp() as u64;
    redis::cmd("SET").arg(format!("idem:{id}")).arg(1).arg("NX").arg("EXAT").arg(now + 6 * 3600).query_async(con).await?;
    redis::cmd("SET").arg(format!("idem:b:{id}")).arg(1).arg("EXAT").arg(deadline).query_async(con).await?;
}
"#;
        let (f, _) = read(text);
        let ttl: Vec<Option<u64>> = f
            .redis_writes
            .iter()
            .map(|w| w.ttl.map(|(d, _)| d.secs))
            .collect();
        assert_eq!(ttl, vec![Some(6 * HOUR), None]);
    }

    #[test]
    fn parameters_shadow_constants_and_are_never_guessed() {
        let text = r#"
const TTL: u64 = 86_400;
async fn f(con: &mut C, id: &str, TTL: u64) {
    con.set_ex(format!("idem:{id}"), 1, TTL).await?;
}
"#;
        let (f, r) = read(text);
        assert_eq!(f.redis_writes[0].ttl, None);
        assert!(r.pending.is_empty());
    }

    #[test]
    fn deep_arithmetic_is_cut_off_not_overflowed() {
        // Run on a parser-sized stack, as the pipeline does: syn's own tree
        // for 5,000 chained additions is deep, our reading of it is not.
        let r = std::thread::Builder::new()
            .stack_size(64 * 1024 * 1024)
            .spawn(|| {
                let text = format!("const IDEM_TTL_SECS: u64 = {}1;", "1 + ".repeat(5_000));
                read(&text).1
            })
            .unwrap()
            .join()
            .unwrap();
        assert!(r.pending.is_empty());
        assert!(r.defs.is_empty());
    }

    #[test]
    fn retention_named_constants_need_a_store_word_and_a_unit() {
        let text = r#"
const IDEM_TTL_SECS: u64 = 86_400;
const STRIPE_DEDUP_WINDOW: Duration = Duration::from_secs(3 * 86_400);
const SESSION_TTL_SECS: u64 = 86_400;
const DEDUP_TTL: u64 = 3600;
const IDEMPOTENCY_LOCK_TTL: Duration = Duration::from_secs(30);
"#;
        let (_, r) = read(text);
        let named: Vec<(String, Option<u64>)> = r
            .pending
            .iter()
            .map(|p| (format!("{:?}", p.target), fold_local(&r, p)))
            .collect();
        assert_eq!(
            named,
            vec![
                ("Constant(\"IDEM_TTL_SECS\")".to_string(), Some(DAY)),
                (
                    "Constant(\"STRIPE_DEDUP_WINDOW\")".to_string(),
                    Some(3 * DAY)
                ),
                // No unit in the name and a bare integer: never guessed.
                ("Constant(\"DEDUP_TTL\")".to_string(), None),
            ]
        );
    }

    #[test]
    fn constants_only_parse_reads_time_constants_with_file_spans() {
        let text = "//! Time units.\n\npub const DAY: u64 = 24 * HOUR;\npub(crate) const HOUR: u64 = 3_600;\nfn unrelated() { let x = [1; 3]; }\n";
        let mut f = FileFacts::default();
        parse_consts(text, &mut f);
        let r = f.code.unwrap().retention;
        assert_eq!(r.defs.len(), 2);
        assert_eq!(&text[r.defs[0].span.start..r.defs[0].span.end], "24 * HOUR");
        assert_eq!(&text[r.defs[1].span.start..r.defs[1].span.end], "3_600");
    }

    #[test]
    fn a_delete_bound_to_the_clock_minus_a_duration_is_a_retention_of_its_store() {
        let (_, r) = read(
            "async fn purge(pool: &PgPool) {\n    let cutoff = Utc::now() - chrono::Duration::hours(24);\n    sqlx::query(\"DELETE FROM stripe_webhook_events WHERE received_at < $1\").bind(cutoff).execute(pool).await;\n    sqlx::query!(\"DELETE FROM idempotency_keys WHERE created_at < $1\", OffsetDateTime::now_utc() - time::Duration::days(3));\n}\nasync fn by_operator(pool: &PgPool, before: DateTime<Utc>) {\n    sqlx::query(\"DELETE FROM idempotency_keys WHERE created_at < $1\").bind(before).execute(pool).await;\n    sqlx::query(\"DELETE FROM sessions WHERE created_at < $1\").bind(Utc::now() - Duration::hours(1)).execute(pool).await;\n}\n",
        );
        let got: Vec<(String, Option<u64>)> = r
            .pending
            .iter()
            .map(|p| (format!("{:?}", p.target), fold_local(&r, p)))
            .collect();
        assert_eq!(
            got,
            vec![
                ("Table(\"stripe_webhook_events\")".to_string(), Some(86_400)),
                ("Table(\"idempotency_keys\")".to_string(), Some(259_200)),
            ]
        );
        assert_eq!(r.pending[0].labels.len(), 1);
    }

    #[test]
    fn a_diesel_delete_filtered_on_the_clock_minus_a_duration_is_a_retention() {
        let (_, r) = read(
            "fn purge(conn: &mut PgConnection) {\n    let cutoff = Utc::now() - Duration::days(2);\n    diesel::delete(processed_webhook_events::table.filter(processed_webhook_events::created_at.lt(cutoff))).execute(conn);\n    diesel::delete(sessions::table.filter(sessions::created_at.lt(Utc::now() - Duration::days(1)))).execute(conn);\n}\n",
        );
        let got: Vec<(String, Option<u64>)> = r
            .pending
            .iter()
            .map(|p| (format!("{:?}", p.target), fold_local(&r, p)))
            .collect();
        assert_eq!(
            got,
            vec![(
                "Table(\"processed_webhook_events\")".to_string(),
                Some(172_800)
            )]
        );
    }

    #[test]
    fn serde_renames_of_settings_fields_are_kept() {
        let (_, r) = read(
            "#[derive(Deserialize)]\nstruct Webhooks {\n    #[serde(rename = \"dedup-ttl\", default)]\n    event_ttl_secs: u64,\n    #[serde(alias = \"redis_dsn\")]\n    url: String,\n    #[serde(with = \"humantime_serde\")]\n    window: Duration,\n}\n",
        );
        assert_eq!(
            r.renames,
            vec![
                ("event_ttl_secs".to_string(), "dedup-ttl".to_string()),
                ("url".to_string(), "redis_dsn".to_string()),
            ]
        );
    }

    #[test]
    fn ttls_and_clients_read_from_settings_are_references_to_them() {
        let (_, r) = read(
            "impl Claims {\n    fn new(cfg: &AppConfig) -> Self { Self { ttl: Duration::from_secs(cfg.webhooks.event_ttl_secs) } }\n    async fn claim(&mut self, id: &str) { self.con.set_ex(format!(\"idem:stripe:{id}\"), 1, self.ttl.as_secs()).await; }\n}\nasync fn open() {\n    let url = std::env::var(\"REDIS_URL\").context(\"unset\")?;\n    let c = redis::Client::open(url.as_str())?;\n    let d = deadpool_redis::Config::from_url(&settings.redis.url);\n    let ttl: u64 = env::var(\"DEDUP_TTL\")?.parse()?;\n    con.set_ex(format!(\"dedup:adyen:{id}\"), 1, ttl).await;\n}\n",
        );
        let field = r.defs.iter().find(|d| d.name == "self.ttl").unwrap();
        assert_eq!(
            refs_of(&field.expr),
            vec!["config:cfg.webhooks.event_ttl_secs"]
        );
        let refs: Vec<Vec<String>> = r.pending.iter().map(|p| refs_of(&p.expr)).collect();
        assert_eq!(
            refs,
            vec![
                vec!["self.ttl".to_string()],
                vec!["config:$DEDUP_TTL".to_string()]
            ]
        );
        let clients: Vec<(&str, &str)> = r
            .clients
            .iter()
            .map(|c| (c.read.as_str(), c.call.as_str()))
            .collect();
        assert_eq!(
            clients,
            vec![
                ("$REDIS_URL", "redis::Client::open"),
                ("settings.redis.url", "deadpool_redis::Config::from_url"),
            ]
        );
    }
}
