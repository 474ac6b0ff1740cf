//! Rust front end on syn (full AST, real spans). Extraction is split into
//! visitors that each read one kind of fact; this module parses once, guards
//! the stack and hands the tree to them.

pub mod cache;
mod chunks;
use crate::lex::rust as comments;
pub mod flow;
pub mod jti;
pub mod key_source;
pub mod owner_keys;
pub mod redis_config;
pub mod retention;
pub mod retry;
pub mod scope;
pub mod span;
pub mod sql_strings;
pub mod test_regions;
pub mod units;

use crate::facts::flow::StepKind;
use crate::facts::headers::{StrLit, StrRole};
use crate::facts::{CodeFacts, FileFacts, Problem, StringConst};
use crate::source::Span;
use crate::timings::walks::{time, Walk};
use syn::visit::{self, Visit};

/// Rust files larger than this are not handed to syn. A syn tree takes
/// up to 140 times its source in memory (measured on dense one-line code), so
/// this keeps one file near 600 MiB; a Rust source this large is generated
/// (tables, bindings), not code that handles idempotency keys.
pub const MAX_RUST_BYTES: usize = 4 * 1024 * 1024;

#[cfg(test)]
use crate::knowledge::REDIS_KEY_CALLS;

pub fn parse(text: &str, facts: &mut FileFacts) {
    parse_as(text, facts, text.len() > BY_ITEMS_BYTES);
}

/// [`parse`], reading the file whole or one item at a time.
pub fn parse_as(text: &str, facts: &mut FileFacts, by_items: bool) {
    parse_how(
        text,
        facts,
        if by_items {
            Reading::ByItems
        } else {
            Reading::Whole
        },
    );
}

/// [`parse`], but reading only the items around `anchors` (ascending
/// offsets of what may matter, [`crate::prefilter::Keywords::anchors`]), and
/// every `use`, `const` and `static` item ([`chunks::Prepared`]):
/// what the others hold is not read. A run reads a big file this way
/// while nothing makes an idempotency store or sends a keyed request
/// ([`AROUND_WORDS_BYTES`]). A text that does not split into items is read
/// whole, from its tokens.
pub fn parse_around(text: &str, facts: &mut FileFacts, anchors: &[usize]) {
    parse_how(text, facts, Reading::Around(anchors));
}

/// A Rust file larger than this is read only around its words
/// ([`parse_around`]) while the rest of the run holds no idempotency
/// store and no keyed request, and in full once it does. Its words are
/// sparse and most of its parse is code no rule reads then: sqlparser's
/// 916 KiB `parser/mod.rs`, 450 KiB `ast/mod.rs` and 253 KiB `ddl.rs`
/// name ClickHouse's `DEDUPLICATE` in a few items, and were 300 of the
/// 380 ms of the cargo registry's Rust parse (2026-12-05; read around
/// its words, 90% of sqlparser's source is passed over). No Rust file of
/// the sweep's 29 trees parsed in full is this large (the largest is
/// 161 KiB), so none is read twice.
pub const AROUND_WORDS_BYTES: usize = 192 * 1024;

/// How a file is read: whole, one item at a time, or only around anchors.
#[derive(Clone, Copy)]
enum Reading<'a> {
    Whole,
    ByItems,
    Around(&'a [usize]),
}

fn parse_how(text: &str, facts: &mut FileFacts, reading: Reading<'_>) {
    parse_tree(text, facts, reading);
    // proc-macro2 keeps every tokenized file's text in a thread-local map for
    // span lookups, for as long as the thread lives; every span has been
    // turned into a byte range by now, so free it before the next file.
    proc_macro2::extra::invalidate_current_thread_spans();
}

fn parse_tree(text: &str, facts: &mut FileFacts, reading: Reading<'_>) {
    let _lines = Lines::of(text);
    if screened(text, facts) {
        return;
    }
    // A script (`#!`) is read whole.
    let source = match reading {
        Reading::ByItems if !text.starts_with("#!") => {
            Source::Chunks(chunks::Prepared::new(text, None))
        }
        Reading::Around(anchors) if !text.starts_with("#!") => {
            Source::Chunks(chunks::Prepared::new(text, Some(anchors)))
        }
        _ => match time(Walk::SynWhole, || syn::parse_file(text)) {
            Ok(f) => Source::File(f),
            Err(e) => return refused(text, e, facts),
        },
    };
    let mut result = read(text, &source, facts);
    if result.is_err() && matches!(source, Source::Chunks(..)) {
        // The text did not split into items as expected: read it again
        // from its tokens, which also say why syn refuses it, if it does.
        start_again(facts);
        proc_macro2::extra::invalidate_current_thread_spans();
        #[cfg(test)]
        tests::UNSPLIT.set(tests::UNSPLIT.get() + 1);
        result = read(text, &Source::Items(text), facts);
    }
    if let Err(e) = result {
        // Only a file read item by item is refused here, part-way: what its
        // first items gave goes, as if the whole file had been refused.
        start_again(facts);
        refused(text, e, facts);
    }
}

/// The checks before a parse (the Stripe header's hint, then the size,
/// nesting and chain bounds): whether the file is not to be parsed.
fn screened(text: &str, facts: &mut FileFacts) -> bool {
    time(Walk::Screens, || screens(text, facts))
}

fn screens(text: &str, facts: &mut FileFacts) -> bool {
    facts.hints.talks_to_stripe = crate::knowledge::headers().talks_to_stripe(text);
    if text.len() > MAX_RUST_BYTES {
        facts.problems.push(Problem::new(
            Span::new(0, 0),
            format!(
                "{:.1} MiB of Rust, over the {} MiB that are parsed (generated code?); not parsed",
                text.len() as f64 / 1048576.0,
                MAX_RUST_BYTES / 1048576
            ),
        ));
        return true;
    }
    if let Some(p) = super::too_deep(text) {
        facts.problems.push(p);
        return true;
    }
    let chain = max_chain_depth(text);
    if chain > MAX_CHAIN {
        facts.problems.push(Problem::new(
            Span::new(0, 0),
            format!("an expression chains {chain} operators deep (over {MAX_CHAIN}); not parsed"),
        ));
        return true;
    }
    false
}

/// A file's facts as before its front end read anything.
fn start_again(facts: &mut FileFacts) {
    let hints = std::mem::take(&mut facts.hints);
    *facts = FileFacts {
        file: facts.file,
        hints,
        ..FileFacts::default()
    };
}

/// A Rust file larger than this is read one item at a time (an inherent
/// `impl` one method at a time), twice: whole, syn's tree of it would take
/// about 56 times its text at once (sqlparser's 915 KiB `parser/mod.rs`:
/// 53 MiB, the peak of a run over the whole cargo registry). Read this
/// way, a file costs a second parse, and each item is tokenized alone
/// ([`chunks`]): it holds one item's tokens and tree at a time, about 9
/// times its text in all (the same file, 2026-12-05: 8.4 MB over an empty
/// run's peak; 27 MB when its items were read from the whole file's
/// tokens). The same bound as [`AROUND_WORDS_BYTES`]: a big file read
/// whole (the run holds a store) is read item by item too. At 768 KiB,
/// the hyperswitch fork's 585 KiB `core/payments.rs` took 33 MB whole and
/// made the run's peak (2026-12-06, `fast` build: 97 -> 73 MB for about
/// 8% more CPU time).
pub const BY_ITEMS_BYTES: usize = AROUND_WORDS_BYTES;

/// What syn refused: a parse error, or a template that is not Rust.
fn refused(text: &str, e: syn::Error, facts: &mut FileFacts) {
    let span = byte_span(e.span());
    let mut problem = Problem::invalid(span, "Rust", e.to_string());
    if is_template(text) {
        problem.message = "template (`{{ … }}` placeholders) that does not read as Rust".into();
        problem.reported = false;
    }
    facts.problems.push(problem);
}

/// A file as syn reads it: whole, or one item at a time from the tokens
/// of the whole file, or one item at a time each tokenized alone, all of
/// them or those around anchors ([`chunks`]).
enum Source<'t> {
    File(syn::File),
    Items(&'t str),
    Chunks(chunks::Prepared<'t>),
}

/// One thing of a file, in the order `syn::visit::visit_file` visits them.
enum Piece<'a> {
    Attr(&'a syn::Attribute),
    Item(&'a syn::Item),
}

impl<'a> Piece<'a> {
    /// What `visit_file` does with it.
    fn visit<V: Visit<'a>>(&self, v: &mut V) {
        match *self {
            Piece::Attr(a) => v.visit_attribute(a),
            Piece::Item(i) => v.visit_item(i),
        }
    }
}

impl Source<'_> {
    /// Every inner attribute, then every item, in order.
    fn each(&self, f: &mut dyn FnMut(Piece<'_>)) -> syn::Result<()> {
        self.each_in(chunks::Pass::First, f)
    }

    /// [`Source::each`] for the readers of `pass`: a text read a chunk at
    /// a time passes over what they find nothing in ([`chunks::Pass`]);
    /// a tree already parsed is walked whole.
    fn each_in(&self, pass: chunks::Pass, f: &mut dyn FnMut(Piece<'_>)) -> syn::Result<()> {
        match self {
            Source::File(file) => {
                for a in &file.attrs {
                    f(Piece::Attr(a));
                }
                for i in &file.items {
                    f(Piece::Item(i));
                }
                Ok(())
            }
            Source::Items(text) => each_item(text, f),
            Source::Chunks(p) => p.each_in(pass, f).map_err(|chunks::Unsplit| {
                syn::Error::new(proc_macro2::Span::call_site(), "the items did not split")
            }),
        }
    }
}

/// The items of `text` one at a time, read as syn's `File` reads them
/// (inner attributes, then an item at a time to the end of the input),
/// but for an inherent `impl` without attributes, which is handed on as
/// one `impl` per item (`impl Parser { fn a; fn b }` as `impl Parser { fn
/// a }` then `impl Parser { fn b }`), its header parsed once.
fn each_item(text: &str, f: &mut dyn FnMut(Piece<'_>)) -> syn::Result<()> {
    use syn::parse::Parser;
    let items = |input: syn::parse::ParseStream| -> syn::Result<()> {
        for a in input.call(syn::Attribute::parse_inner)? {
            f(Piece::Attr(&a));
        }
        while !input.is_empty() {
            let Some((header, trees)) = inherent_impl(input) else {
                let item: syn::Item = input.parse()?;
                f(Piece::Item(&item));
                continue;
            };
            input.step(|cursor| {
                let mut at = *cursor;
                for _ in 0..trees {
                    at = at
                        .token_tree()
                        .map(|(_, next)| next)
                        .ok_or_else(|| cursor.error("impl"))?;
                }
                Ok(((), at))
            })?;
            let content;
            syn::braced!(content in input);
            let mut none = true;
            while !content.is_empty() {
                let item: syn::ImplItem = content.parse()?;
                none = false;
                f(Piece::Item(&syn::Item::Impl(syn::ItemImpl {
                    items: vec![item],
                    ..header.clone()
                })));
            }
            if none {
                f(Piece::Item(&syn::Item::Impl(header)));
            }
        }
        Ok(())
    };
    items.parse_str(text)
}

/// When `input` starts an inherent `impl` with no attributes (outer or
/// inner), its header as syn reads it (with an empty body) and how many
/// token trees come before the body.
fn inherent_impl(input: syn::parse::ParseStream) -> Option<(syn::ItemImpl, usize)> {
    use proc_macro2::{Delimiter, Group, TokenStream, TokenTree};
    if !(input.peek(syn::Token![impl])
        || input.peek(syn::Token![unsafe]) && input.peek2(syn::Token![impl])
        || input.peek(syn::Token![default]))
    {
        return None;
    }
    let fork = input.fork();
    fork.parse::<Option<syn::Token![default]>>().ok()?;
    fork.parse::<Option<syn::Token![unsafe]>>().ok()?;
    fork.parse::<syn::Token![impl]>().ok()?;
    fork.parse::<syn::Generics>().ok()?;
    if fork.peek(syn::Token![!]) || fork.peek(syn::Token![const]) || fork.peek(syn::Token![?]) {
        return None;
    }
    fork.parse::<syn::Type>().ok()?;
    if fork.peek(syn::Token![for]) {
        return None;
    }
    fork.parse::<Option<syn::WhereClause>>().ok()?;
    let (inside, body, _) = fork.cursor().group(Delimiter::Brace)?;
    if inside.punct().is_some_and(|(p, next)| {
        p.as_char() == '#' && next.punct().is_some_and(|(b, _)| b.as_char() == '!')
    }) {
        return None;
    }
    // The header's tokens, with an empty body where the body was: syn
    // reads it as it reads the whole `impl`.
    let mut header = TokenStream::new();
    let mut at = input.cursor();
    let mut trees = 0;
    while at != fork.cursor() {
        let (tree, next) = at.token_tree()?;
        header.extend([tree]);
        at = next;
        trees += 1;
    }
    let mut empty = Group::new(Delimiter::Brace, TokenStream::new());
    empty.set_span(body.join());
    header.extend([TokenTree::Group(empty)]);
    let header: syn::ItemImpl = syn::parse2(header).ok()?;
    (header.attrs.is_empty() && header.trait_.is_none() && header.items.is_empty())
        .then_some((header, trees))
}

/// Every reader of a parsed file, in two passes over its items: the first
/// reads strings, test regions, retentions and what the second needs of
/// the whole file (its string constants, `use` roots and retry
/// literals); the second walks flows, retries, caches and Redis settings.
/// Only the flow walk reads `facts` as it goes, after all the first pass
/// wrote: the order of what they find is the order of a walk of the whole
/// file by each reader in turn.
fn read(text: &str, source: &Source, facts: &mut FileFacts) -> syn::Result<()> {
    let mut strings = StringVisitor {
        facts,
        rust: CodeFacts::default(),
        role: None,
        header_vars: Vec::new(),
    };
    let mut regions = test_regions::Regions::default();
    let mut consts = sql_strings::StrConsts::new();
    let mut first = retry::FirstPass::default();
    // A whole file's retentions are read from its tree, which lives to the
    // end; a file read item by item carries the reader from item to item.
    let mut by_items = retention::ItemReader::default();
    time(Walk::FirstPass, || {
        source.each(&mut |piece| {
            time(Walk::Strings, || piece.visit(&mut strings));
            time(Walk::TestRegions, || piece.visit(&mut regions));
            if let Piece::Item(i) = piece {
                time(Walk::Consts, || flow::add_const(&mut consts, text, i));
            }
            time(Walk::RetryFirst, || first.read(&piece));
            if let Source::Items(_) | Source::Chunks(..) = source {
                time(Walk::Retention, || by_items.read(&piece));
            }
        })
    })?;
    if let Source::Items(_) | Source::Chunks(..) = source {
        // Its spans are byte ranges by now: free proc-macro2's copy of the
        // text before the second pass tokenizes it again.
        proc_macro2::extra::invalidate_current_thread_spans();
    }
    let mut rust = strings.rust;
    // Before the flow walk: schema text inside test code declares no store.
    facts.test_regions = regions.0;
    // The schema a crate ships as a `const` of DDL text, in file order.
    let mut ddl: Vec<&sql_strings::SqlText> = consts.values().collect();
    ddl.sort_by_key(|s| s.inner.map(|i| i.start));
    for sql in ddl {
        sql_strings::read_const_schema(text, sql, facts);
    }
    rust.retention = time(Walk::Retention, || match source {
        Source::File(file) => retention::extract(file, facts),
        Source::Items(_) | Source::Chunks(..) => by_items.finish(facts),
    });
    let mut gated = Gated::new(text, &consts);
    let mut flows = flow::FileWalker::new(text, &consts, facts);
    let mut retries = retry::Walker::new(&consts, first);
    time(Walk::SecondPass, || {
        source.each_in(chunks::Pass::Second, &mut |piece| {
            time(Walk::Flow, || piece.visit(&mut flows));
            time(Walk::Retry, || piece.visit(&mut retries));
            gated.visit(&piece);
        })
    })?;
    rust.flow = flows.finish();
    rust.retry = retries.finish();
    // Stores by data flow: only where a key or a statement can name one
    // (a Redis write, a SQL event) and a source's word occurs.
    let writes_keys = !facts.redis_writes.is_empty()
        || rust
            .flow
            .functions
            .iter()
            .flat_map(|f| &f.events)
            .any(|e| matches!(e.kind, StepKind::Sql { .. } | StepKind::Redis { .. }));
    if writes_keys && key_source::may_hold_a_source(text) {
        let mut derive = key_source::Walker::new(text, &consts);
        time(Walk::KeySource, || {
            source.each(&mut |piece| piece.visit(&mut derive))
        })?;
        key_source::apply(&derive.out, facts, &mut rust.flow);
        rust.derived = derive.out;
    }
    let literals = gated.keep(text, &facts.test_regions, &mut rust);
    facts.code = Some(rust);
    if let Some(l) = literals {
        l.apply(facts);
    }
    Ok(())
}

/// The walks of the second pass gated on a word of the text: each finds
/// nothing in a file without its word, so it is skipped there.
struct Gated<'c> {
    caches: Option<cache::Visitor>,
    literals: Option<redis_config::Literals>,
    units: Option<units::Visitor>,
    tokens: Option<jti::Visitor>,
    scopes: Option<scope::Visitor<'c>>,
    owners: Option<owner_keys::Visitor>,
}

impl<'c> Gated<'c> {
    fn new(text: &str, consts: &'c sql_strings::StrConsts) -> Self {
        Gated {
            // Every cache fact names a type with the word `cache` (an
            // identifier cannot be escaped), and a policy set from code
            // spells `maxmemory-policy` in a literal
            // ([`redis_config::may_set_policy`]).
            caches: crate::knowledge::contains_ignore_ascii_case(text, "cache")
                .then(cache::Visitor::default),
            literals: redis_config::may_set_policy(text).then(redis_config::Literals::default),
            units: units::may_hold(text).then(units::Visitor::default),
            tokens: jti::may_hold(text).then(jti::Visitor::default),
            scopes: key_source::may_hold_a_source(text).then(|| scope::Visitor::new(consts)),
            // Only a file that formats a string can build a key, and only a
            // file the prefilter admits by its text is read for one: a run
            // that reads every file whole reads the same ones. The
            // admission (a prefilter pass over the text) is asked only of a
            // file where the walk found a key; most find none.
            owners: text.contains("format").then(owner_keys::Visitor::default),
        }
    }

    fn visit(&mut self, piece: &Piece<'_>) {
        if let Some(c) = &mut self.caches {
            time(Walk::Cache, || piece.visit(c));
        }
        if let Some(l) = &mut self.literals {
            time(Walk::RedisLiterals, || piece.visit(l));
        }
        if let Some(u) = &mut self.units {
            time(Walk::Units, || piece.visit(u));
        }
        if let Some(t) = &mut self.tokens {
            time(Walk::Tokens, || piece.visit(t));
        }
        if let Some(s) = &mut self.scopes {
            time(Walk::Scope, || piece.visit(s));
        }
        if let Some(o) = &mut self.owners {
            time(Walk::OwnerKeys, || piece.visit(o));
        }
    }

    /// Keep what the walks found in `rust`, outside test code (`test_regions`)
    /// but for the caches. The Redis literals are applied to the file's facts
    /// once they hold `rust`: they are returned.
    fn keep(
        self,
        text: &str,
        test_regions: &[Span],
        rust: &mut CodeFacts,
    ) -> Option<redis_config::Literals> {
        if let Some(c) = self.caches {
            rust.cache = c.out;
        }
        let in_test = |s: &Span| {
            test_regions
                .iter()
                .any(|t| t.start <= s.start && s.end <= t.end)
        };
        if let Some(u) = self.units {
            rust.unit_slips = u.out.into_iter().filter(|s| !in_test(&s.span)).collect();
        }
        if let Some(t) = self.tokens {
            let mut out = t.out;
            out.expiries.retain(|e| !in_test(&e.span));
            out.leeways.retain(|l| !in_test(&l.span));
            rust.tokens = out;
        }
        if let Some(s) = self.scopes {
            rust.dropped_callers = s.out.into_iter().filter(|d| !in_test(&d.span)).collect();
        }
        if let Some(o) = self.owners.filter(|o| !o.out.is_empty()) {
            let gate = time(Walk::OwnerGate, || {
                crate::prefilter::rust_admission(text.as_bytes())
            });
            if gate != crate::prefilter::Admission::No {
                let late = gate == crate::prefilter::Admission::Late;
                rust.ownerless = o.out;
                rust.ownerless.iter_mut().for_each(|k| k.late = late);
            }
        }
        self.literals
    }
}

/// Whether Rust that syn refused is a template a generator renders
/// (cargo-generate's Liquid `{{ project-name }}`, `{% if %}`; Tera,
/// Handlebars): a placeholder opens in code, outside strings and comments.
/// Like a Helm template that does not read as YAML, it is counted as not
/// read, not reported: the file is valid in its own language.
fn is_template(text: &str) -> bool {
    let (comments, strings) = comments::comments_and_strings(text.as_bytes());
    let code =
        |at: &usize| !comments::contains(&comments, *at) && !comments::contains(&strings, *at);
    memchr::memmem::find_iter(text.as_bytes(), b"{{")
        .chain(memchr::memmem::find_iter(text.as_bytes(), b"{%"))
        .any(|at| code(&at))
}

/// Longest operator chain [`max_chain_depth`] lets through to syn. syn
/// builds `1 + 1 + …` and `x.a.b…` as left-nested trees without brackets,
/// and walking or dropping such a tree recurses once per operator: 100,000
/// fit in a parser thread's stack, a million do not. Real code stays far
/// below this.
const MAX_CHAIN: usize = 20_000;

/// An estimate (within a small factor) of how deep operators nest syn's
/// expression tree: per
/// bracket level, the operators (`.`, `+`, `?`, …) since the last `;` or `,`
/// at that level (siblings, not nesting), summed over the open brackets.
/// Strings and comments are skipped. Linear, no allocation per byte.
pub fn max_chain_depth(text: &str) -> usize {
    let b = text.as_bytes();
    let mut levels: Vec<usize> = vec![0];
    let mut sum = 0usize; // sum of `levels`
    let mut max = 0usize;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'"' => {
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
            }
            // a char literal such as '"' must not open a string
            b'\'' if b.get(i + 2) == Some(&b'\'') => i += 2,
            b'\'' if b.get(i + 1) == Some(&b'\\') && b.get(i + 3) == Some(&b'\'') => i += 3,
            b'/' if b.get(i + 1) == Some(&b'/') => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i += 2;
                while i + 1 < b.len() && !(b[i] == b'*' && b[i + 1] == b'/') {
                    i += 1;
                }
                i += 1;
            }
            b'(' | b'[' | b'{' => levels.push(0),
            b')' | b']' | b'}' if levels.len() > 1 => {
                sum -= levels.pop().unwrap_or(0);
            }
            b';' | b',' => {
                if let Some(top) = levels.last_mut() {
                    sum -= *top;
                    *top = 0;
                }
            }
            b'.' | b'+' | b'-' | b'*' | b'/' | b'%' | b'&' | b'|' | b'^' | b'<' | b'>' | b'='
            | b'!' | b'?' => {
                if let Some(top) = levels.last_mut() {
                    *top += 1;
                    sum += 1;
                    max = max.max(sum);
                }
            }
            _ => {}
        }
        i += 1;
    }
    max
}

/// A string literal's value (through a `&`).
pub(crate) fn str_lit(e: &syn::Expr) -> Option<String> {
    match e {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(s),
            ..
        }) => Some(s.value()),
        syn::Expr::Reference(r) => str_lit(&r.expr),
        _ => None,
    }
}

/// The identifiers of a path (`std::time::Duration::from_secs` → 4 words).
pub fn path_idents(path: &syn::Path) -> Vec<String> {
    path.segments.iter().map(|s| s.ident.to_string()).collect()
}

/// Byte range of a proc-macro2 span (span-locations is enabled).
///
/// proc-macro2 counts in chars and turns a char offset into a byte offset
/// by walking the text from the nearest offset it has turned before (4% of
/// omicron's CPU; 6% of sqlparser's `parser/mod.rs`, which has four lines
/// that are not ASCII). While a file is walked ([`Lines::of`]), a span's
/// line and column give the byte offset from the file's line table
/// instead: the line's start, plus the column on an ASCII line, or the
/// byte offset of the column's char on one that is not.
pub fn byte_span(span: proc_macro2::Span) -> Span {
    LINES
        .with_borrow(|lines| Some(Span::new(lines.at(span.start())?, lines.at(span.end())?)))
        .unwrap_or_else(|| {
            let r = span.byte_range();
            Span::new(r.start, r.end)
        })
}

/// The line table of the file being walked.
#[derive(Default)]
struct LineTable {
    /// The byte offset of every line; empty when there is no file.
    starts: Vec<usize>,
    /// For each line that is not ASCII (by index, ascending), the byte
    /// offset within the line of each of its chars, and of its end.
    wide: Vec<(usize, Vec<usize>)>,
    /// The line of the file on which the text being tokenized starts (a
    /// chunk of it, [`chunks`]); 0 for the whole file.
    base: usize,
}

impl LineTable {
    /// The byte offset of a line (1-based) and column (in chars).
    fn at(&self, p: proc_macro2::LineColumn) -> Option<usize> {
        let line = p.line.checked_sub(1)? + self.base;
        let start = *self.starts.get(line)?;
        if self.wide.is_empty() {
            return Some(start + p.column);
        }
        match self.wide.binary_search_by_key(&line, |(l, _)| *l) {
            Ok(i) => Some(start + self.wide[i].1.get(p.column)?),
            Err(_) => Some(start + p.column),
        }
    }
}

thread_local! {
    /// The line table of the file being walked.
    static LINES: std::cell::RefCell<LineTable> = std::cell::RefCell::new(LineTable::default());
}

/// While it lives, [`byte_span`] reads the spans of a file tokenized from
/// its first byte through the file's line table. For a file with a shebang
/// line (syn tokenizes what follows it), spans are turned by proc-macro2 as
/// before.
#[must_use]
pub struct Lines(());

impl Lines {
    pub fn of(text: &str) -> Lines {
        let mut table = LineTable::default();
        if !text.starts_with("#!") {
            table.starts = std::iter::once(0)
                .chain(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i + 1))
                .collect();
            if !text.is_ascii() {
                for (line, &start) in table.starts.iter().enumerate() {
                    let end = table.starts.get(line + 1).map_or(text.len(), |&n| n - 1);
                    let s = &text[start..end];
                    if !s.is_ascii() {
                        let offsets = s.char_indices().map(|(i, _)| i).chain([s.len()]);
                        table.wide.push((line, offsets.collect()));
                    }
                }
            }
        }
        LINES.set(table);
        Lines(())
    }
}

impl Lines {
    /// Spans read from now on are those of text tokenized from the start of
    /// the file's line `line` (0-based), its first line padded to its
    /// column ([`chunks`]).
    fn at_line(line: usize) {
        LINES.with_borrow_mut(|l| l.base = line);
    }
}

impl Drop for Lines {
    fn drop(&mut self) {
        LINES.set(LineTable::default());
    }
}

/// The string literal an item's value is, if it is one.
fn str_literal(expr: &syn::Expr) -> Option<&syn::LitStr> {
    match expr {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(s),
            ..
        }) => Some(s),
        _ => None,
    }
}

struct StringVisitor<'a> {
    facts: &'a mut FileFacts,
    rust: CodeFacts,
    /// Role of the argument being visited, if it is a header read/write position.
    role: Option<StrRole>,
    /// Local bindings that hold a header map (`let mut out = HeaderMap::new()`),
    /// so `out.insert(..)` counts as a header write. File-wide, not scoped:
    /// a cheap approximation that only widens what counts as a header map.
    header_vars: Vec<String>,
}

impl StringVisitor<'_> {
    /// A `const`/`static` whose value is a string literal.
    fn str_const(&mut self, ident: &syn::Ident, s: &syn::LitStr, role: StrRole) {
        let idx = self.push_lit(s, role);
        self.rust.str_consts.push(StringConst {
            name: ident.to_string(),
            string: idx,
        });
    }

    fn push_lit(&mut self, lit: &syn::LitStr, role: StrRole) -> usize {
        let value = lit.value();
        let full = byte_span(lit.span());
        // Inside the quotes when the literal is a plain "..." string.
        let span = if full.len() >= 2 + value.len() && full.len() == value.len() + 2 {
            Span::new(full.start + 1, full.end - 1)
        } else {
            full
        };
        self.facts.strings.push(StrLit { value, span, role });
        self.facts.strings.len() - 1
    }

    fn visit_args_with_role(
        &mut self,
        args: &syn::punctuated::Punctuated<syn::Expr, syn::Token![,]>,
        role: StrRole,
    ) {
        for (i, arg) in args.iter().enumerate() {
            let r = if i == 0 { Some(role) } else { None };
            let saved = std::mem::replace(&mut self.role, r);
            if let (Some(role), Some(id)) = (r, const_ident(arg)) {
                self.rust.ident_args.push((id, role));
            }
            self.visit_expr(arg);
            self.role = saved;
        }
    }
}

/// The constant an argument names: `REPLAYED`, `&REPLAYED`, `headers::REPLAYED`.
fn const_ident(arg: &syn::Expr) -> Option<String> {
    match arg {
        syn::Expr::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
        syn::Expr::Reference(r) => const_ident(&r.expr),
        syn::Expr::Paren(p) => const_ident(&p.expr),
        _ => None,
    }
}

/// The literal of `HeaderName::from_static("…")` (any path ending so).
fn header_name_literal(e: &syn::Expr) -> Option<&syn::LitStr> {
    match e {
        syn::Expr::Call(call) => from_static_literal(call),
        _ => None,
    }
}

fn from_static_literal(call: &syn::ExprCall) -> Option<&syn::LitStr> {
    let syn::Expr::Path(f) = &*call.func else {
        return None;
    };
    let segs = path_idents(&f.path);
    let named = segs.len() >= 2
        && segs[segs.len() - 1] == "from_static"
        && segs[segs.len() - 2] == "HeaderName";
    match (named, call.args.first()) {
        (
            true,
            Some(syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            })),
        ) => Some(s),
        _ => None,
    }
}

/// The role a method call gives its first argument, when it looks up or
/// sets a header.
/// Generic map methods (`get`, `insert`) count only on a receiver that
/// speaks of headers, so `json.get("idempotency_key")` is not a header read.
fn method_role(method: &str, argc: usize, receiver_is_headers: bool) -> Option<StrRole> {
    match method {
        "get" | "get_all" | "contains_key" if receiver_is_headers => Some(StrRole::Read),
        "insert" | "append" if receiver_is_headers => Some(StrRole::Write),
        "get_header" | "typed_get" => Some(StrRole::Read),
        "insert_header" | "append_header" | "set_header" | "add_header" => Some(StrRole::Write),
        "header" if argc >= 2 => Some(StrRole::Write),
        "header" if argc == 1 => Some(StrRole::Read),
        _ => None,
    }
}

/// Whether a name speaks of headers (`headers`, `req_headers`, `HeaderMap`).
fn header_word(name: &str) -> bool {
    name.to_ascii_lowercase().contains("header")
}

impl StringVisitor<'_> {
    /// Whether an expression is a header map: `resp.headers()`,
    /// `req.headers_mut()`, `self.headers`, `HeaderMap::new()`, a binding
    /// named for headers or bound to one, through `&`, `?`, `.clone()`.
    /// Structural, so `json.get(..)` and `body.get(..)` stay plain map reads.
    fn is_header_map(&self, e: &syn::Expr) -> bool {
        match e {
            syn::Expr::MethodCall(m) => {
                let name = m.method.to_string();
                header_word(&name)
                    || (matches!(
                        name.as_str(),
                        "clone" | "as_ref" | "as_mut" | "unwrap" | "borrow" | "borrow_mut" | "lock"
                    ) && self.is_header_map(&m.receiver))
            }
            syn::Expr::Field(f) => match &f.member {
                syn::Member::Named(id) => header_word(&id.to_string()),
                syn::Member::Unnamed(_) => false,
            },
            syn::Expr::Path(p) => p.path.segments.last().is_some_and(|s| {
                let id = s.ident.to_string();
                header_word(&id) || self.header_vars.contains(&id)
            }),
            syn::Expr::Call(c) => match &*c.func {
                syn::Expr::Path(p) => p.path.segments.iter().any(|s| s.ident == "HeaderMap"),
                _ => false,
            },
            syn::Expr::Reference(r) => self.is_header_map(&r.expr),
            syn::Expr::Paren(p) => self.is_header_map(&p.expr),
            syn::Expr::Try(t) => self.is_header_map(&t.expr),
            _ => false,
        }
    }
}

impl<'ast> Visit<'ast> for StringVisitor<'_> {
    fn visit_expr_method_call(&mut self, call: &'ast syn::ExprMethodCall) {
        let method = call.method.to_string();
        self.visit_expr(&call.receiver);
        let headers = matches!(
            method.as_str(),
            "get" | "get_all" | "contains_key" | "insert" | "append"
        ) && self.is_header_map(&call.receiver);
        match method_role(&method, call.args.len(), headers) {
            Some(role) => self.visit_args_with_role(&call.args, role),
            None => {
                let saved = self.role.take();
                for a in &call.args {
                    self.visit_expr(a);
                }
                self.role = saved;
            }
        }
    }

    fn visit_local(&mut self, local: &'ast syn::Local) {
        // `let out = HeaderMap::new();`, `let h = resp.headers();`
        if let (syn::Pat::Ident(id), Some(init)) = (&local.pat, &local.init) {
            if self.is_header_map(&init.expr) {
                self.header_vars.push(id.ident.to_string());
            }
        }
        visit::visit_local(self, local);
    }

    fn visit_pat_type(&mut self, pt: &'ast syn::PatType) {
        // `fn f(h: &HeaderMap)`, `let h: HeaderMap = ..`
        let ty = match &*pt.ty {
            syn::Type::Reference(r) => &*r.elem,
            t => t,
        };
        if let (syn::Pat::Ident(id), syn::Type::Path(p)) = (&*pt.pat, ty) {
            if p.path.segments.iter().any(|s| s.ident == "HeaderMap") {
                self.header_vars.push(id.ident.to_string());
            }
        }
        visit::visit_pat_type(self, pt);
    }

    fn visit_item_const(&mut self, item: &'ast syn::ItemConst) {
        if let Some(s) = header_name_literal(&item.expr) {
            self.str_const(&item.ident, s, StrRole::HeaderName);
        } else if let Some(s) = str_literal(&item.expr) {
            self.str_const(&item.ident, s, StrRole::Mention);
        } else {
            visit::visit_item_const(self, item);
        }
    }

    fn visit_item_static(&mut self, item: &'ast syn::ItemStatic) {
        match str_literal(&item.expr) {
            Some(s) => self.str_const(&item.ident, s, StrRole::Mention),
            None => visit::visit_item_static(self, item),
        }
    }

    fn visit_expr_call(&mut self, call: &'ast syn::ExprCall) {
        // `HeaderName::from_static("…")` names a header wherever it stands;
        // in an argument position the caller's role wins.
        if let Some(s) = from_static_literal(call) {
            let role = self.role.unwrap_or(StrRole::HeaderName);
            self.push_lit(s, role);
            return;
        }
        let saved = self.role.take();
        visit::visit_expr_call(self, call);
        self.role = saved;
    }

    fn visit_lit_str(&mut self, lit: &'ast syn::LitStr) {
        let role = self.role.unwrap_or(StrRole::Mention);
        self.push_lit(lit, role);
    }

    fn visit_expr(&mut self, e: &'ast syn::Expr) {
        // Only a literal directly in the argument position carries the role;
        // `get(&format!(..))` or `get(x.as_str())` do not pass it deeper.
        match e {
            syn::Expr::Lit(_)
            | syn::Expr::Reference(_)
            | syn::Expr::Paren(_)
            | syn::Expr::Group(_)
            | syn::Expr::Call(_) => visit::visit_expr(self, e),
            // actix: `insert_header(("Idempotency-Key", v))` names the header
            // in the tuple's first element.
            syn::Expr::Tuple(t) if self.role.is_some() => {
                let saved = self.role;
                for (i, elem) in t.elems.iter().enumerate() {
                    if i == 0 {
                        if let (Some(role), Some(id)) = (saved, const_ident(elem)) {
                            self.rust.ident_args.push((id, role));
                        }
                    } else {
                        self.role = None;
                    }
                    self.visit_expr(elem);
                }
                self.role = saved;
            }
            _ => {
                let saved = self.role.take();
                visit::visit_expr(self, e);
                self.role = saved;
            }
        }
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        // Literals inside macro calls (`json!`, `format!`, `vec!`) are tokens,
        // not expressions: read them as mentions.
        for tt in mac.tokens.clone() {
            visit_tokens(self, tt);
        }
    }
}

fn visit_tokens(v: &mut StringVisitor<'_>, tt: proc_macro2::TokenTree) {
    match tt {
        proc_macro2::TokenTree::Literal(l) => {
            if let Ok(syn::Lit::Str(s)) =
                syn::parse2::<syn::Lit>(proc_macro2::TokenTree::Literal(l).into())
            {
                v.push_lit(&s, StrRole::Mention);
            }
        }
        proc_macro2::TokenTree::Group(g) => {
            for t in g.stream() {
                visit_tokens(v, t);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    thread_local! {
        /// How many files this thread read from their tokens after their
        /// text did not split into items.
        pub(super) static UNSPLIT: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    }

    fn facts(text: &str) -> FileFacts {
        let mut f = FileFacts::default();
        parse(text, &mut f);
        f
    }

    /// What a file read one item at a time gives next to what it gives
    /// read whole: `None` when they are the same.
    fn by_items_differs(text: &str) -> Option<String> {
        let read = |by_items| {
            let mut f = FileFacts::default();
            parse_as(text, &mut f, by_items);
            format!("{f:#?}")
        };
        let unsplit = UNSPLIT.get();
        let (whole, items) = (read(false), read(true));
        // A file syn reads splits into its items in the text.
        if UNSPLIT.get() != unsplit
            && !text.starts_with("#!")
            && syn::parse_file(text).is_ok()
            && max_chain_depth(text) <= MAX_CHAIN
            && super::super::too_deep(text).is_none()
        {
            return Some("the items did not split in the text".to_string());
        }
        first_difference(("whole", &whole), ("by items", &items))
    }

    /// Where two descriptions of facts first differ, with the lines
    /// around it in each; `None` when they are the same.
    fn first_difference((x, a): (&str, &str), (y, b): (&str, &str)) -> Option<String> {
        (a != b).then(|| {
            let at = a
                .lines()
                .zip(b.lines())
                .position(|(p, q)| p != q)
                .unwrap_or(0);
            let near = |t: &str| {
                t.lines()
                    .skip(at.saturating_sub(3))
                    .take(8)
                    .collect::<Vec<_>>()
                    .join("\n")
            };
            format!("{x}:\n{}\n{y}:\n{}", near(a), near(b))
        })
    }

    /// The second pass over a file read item by item passes over a
    /// constant whose value is a number literal ([`chunks::Pass::Second`]),
    /// which the first pass reads: the file gives what it gives whole,
    /// the expiry a Redis write takes from one of them included.
    #[test]
    fn literal_constants_are_passed_over_by_the_second_pass_alone() {
        let text = "pub const RETRY_DELAY_SECS: u64 = 30;\n\
            pub(crate) const E_FAIL: ::sys::core::HRESULT = -2147467259;\n\
            const MASK: u32 = 0xFF_u32;\n\
            /// A day.\nconst KEY_TTL: u64 = 86_400;\n\
            #[allow(dead_code)]\nconst ATTR: u32 = 1;\n\
            const NAME: &str = \"processed_events\";\n\
            const CAST: u64 = 5 as u64;\n\
            const fn g() -> u64 { 7 }\n\
            async fn f(c: &mut redis::aio::MultiplexedConnection, id: &str) {\n    \
            let _: () = c.set_ex(format!(\"{NAME}:{id}\"), 1, KEY_TTL).await;\n}\n";
        assert_eq!(by_items_differs(text), None);
        let names = |pass| {
            let mut out = Vec::new();
            let p = chunks::Prepared::new(text, None);
            let read = p.each_in(pass, &mut |piece| match piece {
                Piece::Item(syn::Item::Const(c)) => out.push(c.ident.to_string()),
                Piece::Item(syn::Item::Fn(f)) => out.push(f.sig.ident.to_string()),
                _ => {}
            });
            assert!(read.is_ok());
            out
        };
        let all = [
            "RETRY_DELAY_SECS",
            "E_FAIL",
            "MASK",
            "KEY_TTL",
            "ATTR",
            "NAME",
            "CAST",
            "g",
            "f",
        ];
        assert_eq!(names(chunks::Pass::First), all);
        assert_eq!(
            names(chunks::Pass::Second),
            ["ATTR", "NAME", "CAST", "g", "f"]
        );
        let mut facts = FileFacts::default();
        parse_as(text, &mut facts, true);
        assert!(!facts.redis_writes.is_empty(), "{facts:#?}");
    }

    /// A file read one item at a time, an inherent `impl` one method at a
    /// time, gives every fact it gives read whole, in the same order:
    /// constants used above their definition, `use` roots and retry
    /// literals the walks read, test regions, keys, expiries, a cache, a
    /// policy set across two items' literals, and a file syn refuses.
    #[test]
    fn a_file_read_item_by_item_gives_what_it_gives_whole() {
        let text = r##"#![allow(dead_code)]
use backoff::ExponentialBackoff;
use std::time::Duration;

pub struct Charges { cache: RedisCache, http: reqwest::Client }

impl<'a, T: Clone> Charges where T: Send {
    pub async fn claim(&self, con: &mut C, id: &str) -> bool {
        let key = format!("idem:stripe:{id}");
        con.set_ex(&key, 1, IDEM_TTL_SECS).await;
        let q = CLAIM_SQL;
        sqlx::query(q).bind(id).execute(&self.pool).await.is_ok()
    }

    fn charge(&self, key: &str) {
        let resp = self.http.post("https://api.stripe.com/v1/charges")
            .header("Idempotency-Key", key).send();
        let policy = ExponentialBackoff { max_elapsed_time: Some(Duration::from_secs(3 * 3600)), ..Default::default() };
    }

    const LIMIT: usize = 3;
}

impl Charges {}

impl Drop for Charges { fn drop(&mut self) { let _ = "retry attempts"; } }

#[cfg(test)]
impl Charges { fn fixture() { let _ = "Idempotent-Replayed"; } }

pub const IDEM_TTL_SECS: u64 = 24 * 3600;
pub const CLAIM_SQL: &str = "INSERT INTO idempotency_keys (key) VALUES ($1) ON CONFLICT DO NOTHING";

fn policy(con: &mut redis::Connection) {
    redis::cmd("CONFIG").arg("SET maxmemory-policy").arg("allkeys-lru").query::<()>(con);
}

#[cfg(test)]
mod tests { #[test] fn t() { let _ = "idem:test:1"; } }
"##;
        assert_eq!(by_items_differs(text), None);
        // Pieces: the inner attribute, then the items, the first `impl`'s
        // three one at a time, the empty and attributed ones whole.
        let mut pieces = Vec::new();
        each_item(text, &mut |p| {
            pieces.push(match p {
                Piece::Attr(_) => "attr".to_string(),
                Piece::Item(syn::Item::Impl(i)) => format!("impl {}", i.items.len()),
                Piece::Item(_) => "item".to_string(),
            })
        })
        .unwrap();
        assert_eq!(
            pieces,
            [
                "attr", "item", "item", "item", "impl 1", "impl 1", "impl 1", "impl 0", "impl 1",
                "impl 1", "item", "item", "item", "item"
            ]
        );
        let f = facts(text);
        assert!(f.strings.len() > 5 && !f.test_regions.is_empty());
        assert!(f
            .code
            .as_ref()
            .is_some_and(|r| !r.flow.functions.is_empty()));
        for refused in [
            "fn f() { let x = ; }\nimpl A { fn g() {} }\n",
            "impl A { fn g( }\n",
        ] {
            assert_eq!(by_items_differs(refused), None, "{refused}");
            assert_eq!(facts(refused).problems.len(), 1);
        }
    }

    /// The items of a big file are found in its text and each tokenized
    /// alone: the pieces are those read from the whole file's tokens, and
    /// so are the facts, across what the text scan must step over (line
    /// ends `\r\n` after inner doc comments, brackets in strings, chars
    /// and comments, an item that ends at a brace before its `;`,
    /// attributes, an `impl` on one line, one with a where clause, inner
    /// attributes or a brace in its generics, text that is not ASCII).
    #[test]
    fn items_found_in_the_text_are_those_read_from_the_tokens() {
        let describe = |text: &str, chunked: bool| {
            let mut pieces = Vec::new();
            let mut f = |p: Piece<'_>| {
                pieces.push(match p {
                    Piece::Attr(_) => "attr".to_string(),
                    Piece::Item(syn::Item::Impl(i)) => format!("impl {}", i.items.len()),
                    Piece::Item(_) => "item".to_string(),
                })
            };
            let ok = if chunked {
                chunks::Prepared::new(text, None).each(&mut f).is_ok()
            } else {
                each_item(text, &mut f).is_ok()
            };
            (ok, pieces)
        };
        for text in [
            "//! Docs\r\n//! more\r\n#![allow(dead_code)]\r\nfn f() {}\r\n",
            "// License.\n\n//! Only docs, no item.\n",
            "#[cfg(test)]\nmod t { fn f() {} }\nconst X: S = S { a: 1 };\nuse a::{b, c};\n",
            "fn f() -> [u8; 2] { [1, 2] }\nstatic S: &'static str = \"}\";\nconst C: char = '}';\n",
            "impl<T: Fn(u8)> A<T> where T: Send {\n    fn a(&self) {}\n    const N: usize = 1;\n}\nimpl A {}\nimpl B { fn b() {} } impl C { fn c() {} }\n",
            "/// doc\nimpl D { fn d() {} }\nimpl E { #![allow(x)] fn e() {} }\nimpl X<{ N }> { fn x() {} }\n",
            "macro_rules! m { ($x:expr) => { $x }; }\nm! { a b }\nm!(c);\n",
            "fn g() { let s = r#\"{ \"#; } // }\n/* } */ struct T { a: u8 }\n",
            "impl Über {\n    fn ü(&self) -> &str { \"ä\" }\n    fn k(&self) { let _ = \"Idempotency-Key\"; }\n}\n",
        ] {
            let (ok, pieces) = describe(text, true);
            assert!(ok, "{text}");
            assert_eq!(pieces, describe(text, false).1, "{text}");
            assert_eq!(by_items_differs(text), None, "{text}");
        }
        // Text that does not split is read from its tokens instead; so is
        // text syn refuses, after a bounded number of tries, not one per
        // boundary to the end of the file.
        let refused = format!("fn f() {{ let x = ; }}\n{}", "fn g() {}\n".repeat(200));
        for text in ["fn f() {}\n/// nothing after\n", "fn f() {} ;\n", &refused] {
            assert!(!describe(text, true).0, "{text}");
            assert_eq!(by_items_differs(text), None, "{text}");
        }
    }

    /// What a file read around `anchors` gives against what it gives read
    /// whole with the items passed over blanked (spaces; line breaks kept,
    /// so every span stays where it was), or read whole when it did not
    /// split: `None` when they are the same. Also how many bytes were
    /// passed over.
    fn around_differs(text: &str, anchors: &[usize]) -> (Option<String>, usize) {
        chunks::PASSED.with(|p| p.borrow_mut().clear());
        let unsplit = UNSPLIT.get();
        let mut around = FileFacts::default();
        parse_around(text, &mut around, anchors);
        // Both passes over the items pass over the same ones.
        let mut passed = chunks::PASSED.with(|p| std::mem::take(&mut *p.borrow_mut()));
        passed.sort_unstable_by_key(|r| (r.start, r.end));
        passed.dedup();
        let mut blank = text.as_bytes().to_vec();
        let mut skipped = 0;
        if UNSPLIT.get() == unsplit {
            for r in &passed {
                skipped += r.len();
                for b in &mut blank[r.clone()] {
                    if !matches!(*b, b'\n' | b'\r') {
                        *b = b' ';
                    }
                }
            }
        }
        let blank = String::from_utf8(blank).expect("items end at ASCII bytes");
        let mut whole = FileFacts::default();
        parse_as(&blank, &mut whole, blank.len() > BY_ITEMS_BYTES);
        // Said of the whole text, and read from it alike.
        around.hints = Default::default();
        whole.hints = Default::default();
        let differs = first_difference(
            ("blanked, whole", &format!("{whole:#?}")),
            ("around", &format!("{around:#?}")),
        );
        (differs, skipped)
    }

    /// A file read around its words reads the items that hold one, those
    /// that name a constant holding one, and every `use`, `const` and
    /// `static` item, each as a whole read does; it passes over the rest
    /// (a `const fn`, a function taking `*const u8`, a struct, a test
    /// module, the members of an inherent `impl` that hold no word, a type
    /// whose brace ends it too soon in the text).
    #[test]
    fn a_file_read_around_its_words_reads_only_the_items_that_hold_one() {
        let text = "//! Payouts.\nuse std::time::Duration;\nuse crate::keys::record_key;\n\nconst TABLE: &str = \"payout_log\";\nconst KEY_PREFIX: &str = \"dedup:\";\npub(crate) static TTL: Duration = Duration::from_secs(86_400);\nconst fn double(x: u64) -> u64 { x * 2 }\n\n/// Sends a payout.\n#[tracing::instrument]\npub async fn send(pool: &PgPool, id: &str) -> Result<(), Error> {\n    sqlx::query(&format!(\"INSERT INTO {TABLE} VALUES ($1)\")).bind(id).execute(pool).await?;\n    Ok(())\n}\n\nfn key(id: &str) -> String {\n    format!(\"{KEY_PREFIX}{id}\")\n}\n\nfn raw(p: *const u8) -> u8 { unsafe { *p } }\n\npub struct Plain { a: u8 }\n\nimpl Parser {\n    fn a(&self) {}\n    fn b(&self) { self.dedup_once(); }\n    const N: u8 = 1;\n}\n\nimpl DedupStore {\n    fn x(&self) {}\n}\n\ntype Wide = Array<{ 4 }>;\n\npub fn header(r: RequestBuilder, k: &str) -> RequestBuilder {\n    r.header(\"Idemptoency-Key\", k)\n}\n\n#[cfg(test)]\nmod tests {\n    fn t() {}\n}\n";
        let anchors = crate::prefilter::Keywords::new(&[], 1)
            .anchors(text.as_bytes())
            .expect("UTF-8 without a suppression");
        let mut read = Vec::new();
        let mut f = |p: Piece<'_>| {
            read.push(match p {
                Piece::Attr(_) => "attr".to_string(),
                Piece::Item(syn::Item::Use(_)) => "use".to_string(),
                Piece::Item(syn::Item::Const(c)) => format!("const {}", c.ident),
                Piece::Item(syn::Item::Static(c)) => format!("static {}", c.ident),
                Piece::Item(syn::Item::Fn(f)) => format!("fn {}", f.sig.ident),
                Piece::Item(syn::Item::Impl(i)) => {
                    let syn::Type::Path(t) = &*i.self_ty else {
                        unreachable!()
                    };
                    let member = i.items.iter().map(|m| match m {
                        syn::ImplItem::Fn(f) => f.sig.ident.to_string(),
                        syn::ImplItem::Const(c) => c.ident.to_string(),
                        _ => "?".to_string(),
                    });
                    format!(
                        "impl {} {}",
                        t.path.segments[0].ident,
                        member.collect::<String>()
                    )
                }
                Piece::Item(other) => format!("{other:?}"),
            })
        };
        assert!(chunks::Prepared::new(text, Some(&anchors))
            .each(&mut f)
            .is_ok());
        assert_eq!(
            read,
            [
                "attr",
                "use",
                "use",
                "const TABLE",
                "const KEY_PREFIX",
                "static TTL",
                "fn key",
                "impl Parser b",
                "impl Parser N",
                "impl DedupStore x",
                "fn header",
            ]
        );
        let (differs, skipped) = around_differs(text, &anchors);
        assert_eq!(differs, None);
        assert!(skipped > text.len() / 3, "{skipped}");
        // A constant that names one that holds a word holds it too.
        let chain = "const A: &str = \"x_dedup\";\nconst B: &str = A;\nfn f() { get(B); }\nfn g() { get(C); }\n";
        let anchors = crate::prefilter::Keywords::new(&[], 1)
            .anchors(chain.as_bytes())
            .unwrap();
        let (differs, skipped) = around_differs(chain, &anchors);
        assert_eq!(differs, None);
        assert_eq!(skipped, "fn g() { get(C); }".len() + 1);
        // Text that does not split where it is read is read whole.
        let refused = "fn dedup() { let x = ; }\nfn g() {}\n";
        let mut f = FileFacts::default();
        parse_around(refused, &mut f, &[4]);
        assert_eq!(f.problems.len(), 1, "{f:?}");
    }

    /// Every Rust file under the folders of `IDEMLINT_AROUND_ORACLE` read
    /// around the anchors of its words gives what its items read give
    /// ([`around_differs`]), and says how much of the text was passed
    /// over. Run by hand: `IDEMLINT_AROUND_ORACLE=DIR cargo test --release
    /// --lib -- --ignored around_its_words`.
    #[test]
    #[ignore]
    fn every_rust_file_read_around_its_words_gives_what_its_items_give() {
        let keywords = crate::prefilter::Keywords::new(&[], 1);
        let (mut differ, mut bytes, mut skipped) = (Vec::new(), 0, 0);
        let files = each_oracle_file("IDEMLINT_AROUND_ORACLE", |path, text| {
            let Some(anchors) = keywords.anchors(text.as_bytes()) else {
                return;
            };
            let (d, s) = around_differs(text, &anchors);
            bytes += text.len();
            skipped += s;
            if let Some(d) = d {
                eprintln!("{}:\n{d}\n", path.display());
                differ.push(path.display().to_string());
            }
        });
        eprintln!(
            "{files} files, {} differ; {skipped} of {bytes} bytes passed over",
            differ.len()
        );
        assert!(differ.is_empty(), "{differ:#?}");
    }

    /// Every Rust file under the folders of `IDEMLINT_BY_ITEMS_ORACLE`
    /// (separated by `:`; the sweep's trees, the cargo registry) gives read
    /// one item at a time what it gives read whole. Run by hand:
    /// `IDEMLINT_BY_ITEMS_ORACLE=DIR cargo test --release --lib -- --ignored by_items`.
    #[test]
    #[ignore]
    fn every_rust_file_read_by_items_gives_what_it_gives_whole() {
        let mut differ = Vec::new();
        let files = each_oracle_file("IDEMLINT_BY_ITEMS_ORACLE", |path, text| {
            if let Some(d) = by_items_differs(text) {
                eprintln!("{}:\n{d}\n", path.display());
                differ.push(path.display().to_string());
            }
        });
        eprintln!("{files} files, {} differ", differ.len());
        assert!(differ.is_empty(), "{differ:#?}");
    }

    /// Calls `f` with every Rust file (not over [`MAX_RUST_BYTES`]) under
    /// the folders of environment variable `var`, separated by `:`; how
    /// many there were. For the oracles run by hand on real code.
    fn each_oracle_file(var: &str, mut f: impl FnMut(&std::path::Path, &str)) -> usize {
        let dirs = std::env::var(var).unwrap_or_default();
        let mut files = 0;
        for dir in dirs.split(':').filter(|d| !d.is_empty()) {
            for entry in ignore::WalkBuilder::new(dir)
                .standard_filters(false)
                .build()
                .flatten()
            {
                let path = entry.path();
                if path.extension().is_none_or(|e| e != "rs") {
                    continue;
                }
                let Ok(text) = std::fs::read_to_string(path) else {
                    continue;
                };
                if text.len() <= MAX_RUST_BYTES {
                    files += 1;
                    f(path, &text);
                }
            }
        }
        files
    }

    /// Every test item the prefilter finds without parsing
    /// ([`comments::test_items`]) lies in a test region of the parsed
    /// file, in every Rust file under the folders of
    /// `IDEMLINT_TEST_ITEMS_ORACLE`: the prefilter never silences words of
    /// code the rules judge. Also says how many regions it does not find.
    /// Run by hand: `IDEMLINT_TEST_ITEMS_ORACLE=DIR cargo test --release
    /// --lib -- --ignored test_items`.
    #[test]
    #[ignore]
    fn test_items_found_without_parsing_lie_in_test_regions() {
        let (mut outside, mut regions, mut missed) = (Vec::new(), 0, 0);
        let files = each_oracle_file("IDEMLINT_TEST_ITEMS_ORACLE", |path, text| {
            let Ok(file) = syn::parse_file(text) else {
                return;
            };
            let parsed = test_regions::rust_regions(&file);
            let (c, s) = comments::comments_and_strings(text.as_bytes());
            let found = comments::test_items(text.as_bytes(), &c, &s);
            let within =
                |r: &std::ops::Range<usize>, g: &Span| g.start <= r.start && r.end <= g.end;
            for r in &found {
                if !parsed.iter().any(|g| within(r, g)) {
                    eprintln!(
                        "{}: {r:?} {:?}",
                        path.display(),
                        &text[r.start..(r.start + 60).min(r.end)]
                    );
                    outside.push(format!("{}:{r:?}", path.display()));
                }
            }
            regions += parsed.len();
            missed += parsed
                .iter()
                .filter(|g| !found.iter().any(|r| r.start < g.end && g.start < r.end))
                .count();
        });
        eprintln!(
            "{files} files, {regions} test regions, {missed} not found, {} found outside",
            outside.len()
        );
        assert!(outside.is_empty(), "{outside:#?}");
    }

    /// Every method the key readers take a Redis key from is in
    /// [`REDIS_KEY_CALLS`]: a literal key given to each of these methods,
    /// with one to five arguments, on a Redis connection, on a plain
    /// receiver, and as a command chain's argument, is read as a key only
    /// through a listed name.
    #[test]
    fn the_redis_key_calls_cover_every_key_reader() {
        let key_of = |text: &str| {
            let f = facts(text);
            let flow = f.code.as_ref().map_or(0, |r| {
                r.flow
                    .functions
                    .iter()
                    .flat_map(|func| &func.events)
                    .filter(|e| matches!(&e.kind, StepKind::Redis { key, .. } if key.text.contains("processed_events")))
                    .count()
            });
            let writes = f
                .redis_writes
                .iter()
                .filter(|w| w.key_prefix.as_deref() == Some("processed_events"))
                .count();
            flow + writes
        };
        // The listed names, and more that a Redis client has.
        let methods = REDIS_KEY_CALLS.iter().copied().chain([
            "setnx",
            "expire_at",
            "pexpire_at",
            "persist",
            "incr",
            "decr",
            "incr_by",
            "getset",
            "get_del",
            "get_ex",
            "hset",
            "hget",
            "hset_nx",
            "hdel",
            "sadd",
            "sismember",
            "srem",
            "zadd",
            "lpush",
            "rpush",
            "append",
            "mset",
            "mget",
            "setex",
            "psetex",
            "ttl",
            "pttl",
            "insert",
            "put",
            "key",
            "query",
            "execute",
        ]);
        let mut read = 0;
        for m in methods {
            for n in 1..=5 {
                let rest = ", 1".repeat(n - 1);
                for recv in ["redis_conn", "conn"] {
                    let text = format!(
                        "async fn f({recv}: &mut redis::aio::MultiplexedConnection) {{ let _: () = {recv}.{m}(\"processed_events\"{rest}).await; }}\n"
                    );
                    if key_of(&text) > 0 {
                        read += 1;
                        assert!(REDIS_KEY_CALLS.contains(&m), "{m} reads a key: {text}");
                    }
                }
            }
            let chain = format!(
                "async fn f(c: &mut redis::aio::MultiplexedConnection) {{ let _: () = redis::cmd(\"{}\").arg(\"processed_events\").arg(1).arg(\"EX\").arg(60).query_async(c).await; }}\n",
                m.to_ascii_uppercase()
            );
            if key_of(&chain) > 0 {
                read += 1;
            }
        }
        assert!(read > 10, "{read}");
        // A binding's value, and a prefix made by `format!`.
        assert!(key_of("async fn f(c: &mut redis::aio::MultiplexedConnection) { let k = \"processed_events\"; let _: () = c.set_ex(k, 1, 60).await; }\n") > 0);
        assert!(key_of("async fn f(c: &mut redis::aio::MultiplexedConnection, id: &str) { let _: () = c.set_ex(format!(\"processed_events{id}\"), 1, 60).await; }\n") > 0);
    }

    /// The walks skipped in a file without their word still run where the
    /// word is written in another case or spelled with escapes.
    #[test]
    fn the_cache_and_policy_walks_run_wherever_their_word_can_be() {
        let cache =
            facts("pub enum Store { Redis(RedisCACHE) }\nimpl KeyCACHE for RedisStore {}\n");
        assert_eq!(cache.code.unwrap().cache.redis_backends.len(), 1);
        assert!(facts("pub enum Store { Redis(RedisConn) }\n")
            .code
            .unwrap()
            .cache
            .redis_backends
            .is_empty());
        for policy in [
            r#""MAXMEMORY-POLICY""#,
            r#""maxmemory\x2dpolicy""#,
            r#""maxmemory\u{2d}policy""#,
            "\"maxmemory-\\\n        policy\"",
            "\"maxmemory-\\\r\n        policy\"",
        ] {
            let text = format!(
                "fn f(c: &mut Conn) {{ redis::cmd(\"CONFIG\").arg(\"SET\").arg({policy}).arg(\"allkeys-lru\").query(c); }}\n"
            );
            let f = facts(&text);
            assert_eq!(f.redis.settings.len(), 1, "{text}");
            assert_eq!(f.redis.settings[0].value, "allkeys-lru");
        }
        assert!(!redis_config::may_set_policy(
            "let s = \"maxmemory policy\\n\";"
        ));
    }

    #[test]
    fn header_lookups_are_reads_and_builders_are_writes() {
        let text = r#"
const REPLAYED: &str = "Idempotency-Replayed";
fn f(resp: &Response, b: Builder) {
    let a = resp.headers().get("Idempotent-Replayed");
    let b = b.header("Idempotency-Key", key);
    let c = resp.headers().get(REPLAYED);
}
"#;
        let f = facts(text);
        let role = |v: &str| f.strings.iter().find(|s| s.value == v).map(|s| s.role);
        assert_eq!(role("Idempotent-Replayed"), Some(StrRole::Read));
        assert_eq!(role("Idempotency-Key"), Some(StrRole::Write));
        assert_eq!(role("Idempotency-Replayed"), Some(StrRole::Mention));
        let rust = f.code.unwrap();
        assert_eq!(rust.str_consts[0].name, "REPLAYED");
        assert_eq!(
            rust.ident_args,
            vec![("REPLAYED".to_string(), StrRole::Read)]
        );
        let s = f
            .strings
            .iter()
            .find(|s| s.value == "Idempotent-Replayed")
            .unwrap();
        assert_eq!(&text[s.span.start..s.span.end], "Idempotent-Replayed");
    }

    #[test]
    fn header_maps_bound_to_locals_and_params_count_as_headers() {
        let text = r#"
use http::HeaderName;
const REPLAYED: HeaderName = HeaderName::from_static("idempotency-replayed");
fn server(out: &mut axum::http::HeaderMap) {
    out.insert(REPLAYED, HeaderValue::from_static("true"));
}
fn client(resp: &reqwest::Response, body: &serde_json::Value) {
    let h = resp.headers().clone();
    let a = h.get("idempotent-replayed");
    let b = body.get("idempotency_key");
}
"#;
        let f = facts(text);
        let role = |v: &str| f.strings.iter().find(|s| s.value == v).map(|s| s.role);
        assert_eq!(role("idempotency-replayed"), Some(StrRole::HeaderName));
        assert_eq!(role("idempotent-replayed"), Some(StrRole::Read));
        assert_eq!(role("idempotency_key"), Some(StrRole::Mention));
        let rust = f.code.unwrap();
        assert_eq!(
            rust.ident_args,
            vec![("REPLAYED".to_string(), StrRole::Write)]
        );
    }

    #[test]
    fn actix_header_tuples_name_the_header_first() {
        let text = r#"
fn f() -> HttpResponse {
    HttpResponse::Ok()
        .insert_header(("Idempotency-Replayed", "true"))
        .append_header((REPLAYED_HEADER, "true"))
        .finish()
}
"#;
        let f = facts(text);
        let role = |v: &str| f.strings.iter().find(|s| s.value == v).map(|s| s.role);
        assert_eq!(role("Idempotency-Replayed"), Some(StrRole::Write));
        assert_eq!(role("true"), Some(StrRole::Mention));
        assert_eq!(
            f.code.unwrap().ident_args,
            vec![("REPLAYED_HEADER".to_string(), StrRole::Write)]
        );
    }

    #[test]
    fn a_generator_template_is_counted_and_invalid_rust_is_reported() {
        let run = |text: &str| {
            let mut f = FileFacts::default();
            parse(text, &mut f);
            f.problems
        };
        // cargo-generate (Liquid): placeholders where names go.
        let liquid = "use transformers as {{project-name | downcase}};\n\
            pub struct {{project-name | pascal_case}};\n\
            impl {{project-name | pascal_case}} { pub fn new() -> Self { Self } }\n";
        let p = run(liquid);
        assert_eq!(p.len(), 1, "{p:?}");
        assert!(!p[0].reported, "a template is counted, not reported");
        assert!(p[0].message.contains("template"), "{}", p[0].message);
        let p = run("{% if redis %}\nuse redis::Client;\n{% endif %}\nfn main() {}\n");
        assert!(p.len() == 1 && !p[0].reported, "{p:?}");
        // Braces in a string or a comment are not a placeholder: this is
        // invalid Rust, and said.
        let p = run("// {{ not a template }}\nfn f() { let s = \"{{x}}\"; let = ; }\n");
        assert!(p.len() == 1 && p[0].reported, "{p:?}");
        assert_eq!(p[0].message, "invalid Rust");
        // A block in a block is Rust, and parses.
        assert!(run("fn f() {{ let x = 1; }}\n").is_empty());
    }

    #[test]
    fn long_operator_chains_are_reported_not_parsed() {
        let text = format!("fn f() -> u32 {{ 1{} }}", " + 1".repeat(MAX_CHAIN + 1));
        let f = facts(&text);
        assert_eq!(f.problems.len(), 1);
        assert!(f.problems[0].message.contains("operators deep"));
    }

    #[test]
    fn statements_and_arguments_do_not_add_up_as_a_chain() {
        let many_statements = "x.a.b.c(1 + 2, y.z);\n".repeat(50_000);
        assert!(max_chain_depth(&many_statements) < 10);
        let strings = format!(
            "const S: &str = \"{}\"; // {}",
            ".".repeat(50_000),
            "+".repeat(50_000)
        );
        assert!(max_chain_depth(&strings) < 10);
        assert_eq!(max_chain_depth("a.b(c.d.e).f"), 3);
        let quote_char = format!("let q = '\"'; let x = 1{};", " + 1".repeat(100));
        assert_eq!(max_chain_depth(&quote_char), 100 + 1);
    }

    #[test]
    fn deep_nesting_is_reported_not_parsed() {
        let text = format!(
            "fn f() {{ let x = {}1{}; }}",
            "(".repeat(50_000),
            ")".repeat(50_000)
        );
        let f = facts(&text);
        assert_eq!(f.problems.len(), 1);
    }
}
