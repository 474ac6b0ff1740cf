//! How a file is read: two pure decisions, each made in one place, that
//! the read (`read::load_text`) and the parse scheduler (`schedule`)
//! execute.
//!
//! First, before a file is decoded ([`first`]): from its bytes, its kind,
//! its path and the run's prefilter ([`Keywords`]), one [`Reading`]: not
//! read (and why), refused (binary), its constants only, whole, around its
//! words (a big Rust file), held back for its retries, or held for the
//! schema.
//!
//! Then, after the first pass ([`after_first_pass`]): whether a Rust file
//! the first pass did not read whole is read whole: a file held back for
//! its retries ([`Reading::Held`]) or a big file read around its words
//! ([`Reading::Around`]). One decision per file, from its text, its crate
//! and what the first pass found ([`Reach`]); the parse scheduler asks it
//! of each such file and executes the answer.
//!
//! A file is read whole when something in it can reach a finding:
//! - it is in a package that holds keys (a store or a keyed request), or
//!   whose code the functions that touch keys call ([`Reach::judged`]),
//!   and may hold what the rules judge in any file of such a package: a
//!   unit slip (`frontend::rust::units`), a used-token record or a leeway
//!   (`frontend::rust::jti`), a key format that leaves its owner out
//!   (`frontend::rust::owner_keys`);
//! - or it can join the functions that touch a store or send a keyed
//!   request: in one of their crates it names one of the functions they
//!   call or are called by (calls resolve by name inside a crate); in
//!   another crate it names such a function together with a type, trait
//!   or crate those calls go through (how calls cross crates), or defines
//!   a method they call in an `impl` or `trait` block of the type or trait
//!   they call it on.
//!
//! Nothing else in a file can change what the model says: a held file
//! makes no store and no keyed request itself (each is named with a word
//! that admits a file in full).

use super::{Admission, Keywords};
use crate::source::FileKind;
use std::collections::HashSet;
use std::ops::RangeInclusive;
use std::path::Path;

/// How a file is read, decided before it is decoded ([`first`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reading {
    /// Not kept for the run: the reason, for `--verbose` (no word of the
    /// prefilter, generated code, test code).
    Skip(String),
    /// Kept, but nothing of it is read: the problem that says why (binary
    /// content; a file too big or unreadable, refused before its bytes
    /// are read, `read::read_candidate`).
    Refused(String),
    /// Only its `const` and `static` items (a Rust file let through by
    /// the second tier alone, [`super::rust_constants_prefilter`]).
    ConstantsOnly,
    /// Read whole by the first pass.
    Whole,
    /// A big Rust file read by the first pass only around these offsets
    /// ([`Keywords::anchors`], ascending); whole after it when it can
    /// reach a finding ([`after_first_pass`]).
    Around(Vec<usize>),
    /// Held back for its retries ([`Admission::Late`]): read whole after
    /// the first pass when it can reach a finding ([`after_first_pass`]).
    Held,
    /// An SQL file or a Prisma schema held for the schema
    /// ([`Admission::Schema`]): read when
    /// it names a table the files read hold as a store or a key carrier.
    Schema,
}

impl Reading {
    /// Whether the first pass reads the file, some of it or whole.
    pub fn first_pass(&self) -> bool {
        matches!(
            self,
            Reading::ConstantsOnly | Reading::Whole | Reading::Around(_)
        )
    }

    /// Whether anything of the file is read, now or later.
    pub fn reads(&self) -> bool {
        !matches!(self, Reading::Skip(_) | Reading::Refused(_))
    }
}

/// How far into a file a NUL byte makes it binary.
const BINARY_HEAD_BYTES: usize = 8192;

/// The first decision for a file of `kind` at `path` ([`Reading`]), from
/// its bytes and the run's prefilter, before it is decoded. `test_path`
/// says whether its path is test code (asked only when it matters);
/// `around` are the sizes of a Rust file read around its words (the Rust
/// front end's: over `AROUND_WORDS_BYTES`, up to `MAX_RUST_BYTES`). A run
/// that reads every file whole ([`Keywords::reads_all`]) reads every file
/// that is not binary whole.
pub fn first(
    keywords: &Keywords,
    kind: FileKind,
    path: &Path,
    bytes: &[u8],
    test_path: &dyn Fn() -> bool,
    around: &RangeInclusive<usize>,
) -> Reading {
    let head = &bytes[..bytes.len().min(BINARY_HEAD_BYTES)];
    if memchr::memchr(0, head).is_some() {
        return Reading::Refused("binary content (a NUL byte); not parsed".to_string());
    }
    let (rust, all) = (kind == FileKind::Rust, keywords.reads_all());
    let script = matches!(kind, FileKind::Script(_));
    let generated = match kind {
        FileKind::Rust => super::generated_rust(bytes),
        FileKind::Go => super::generated_go(bytes),
        _ => false,
    };
    if generated && !all {
        return Reading::Skip("generated code (a generated-file marker at its top)".to_string());
    }
    // As in Rust, words in test code do not count unless tests are judged:
    // a Go or Python test file by its path (`_test.go`,
    // `tests/test_pay.py`) is not read. What it holds is fixtures and
    // mocks, and the rules that judge code spare it. Not TypeScript: a
    // test that writes a Prisma model's key (`prisma.waitpoint.create({
    // idempotencyKey })`) is what makes the model a store the schema rules
    // judge (trigger.dev, 2026-12-07: two notes).
    let code = matches!(kind, FileKind::Go | FileKind::Python);
    if code
        && !all
        && !keywords.judges_tests()
        && test_path()
        && memchr::memmem::find(bytes, b"idemlint").is_none()
    {
        return Reading::Skip("test code (a test file; `--include-tests` reads it)".to_string());
    }
    let admission = if all {
        Admission::Full
    } else {
        keywords.admission_in(kind, path, bytes, test_path)
    };
    match admission {
        Admission::No if rust && super::rust_constants_prefilter(bytes) => Reading::ConstantsOnly,
        // A TypeScript module of time constants (`export const DAY_SECONDS
        // = 86_400`) that a TTL of another file may name.
        Admission::No if script && super::ts_constants_prefilter(bytes) => Reading::ConstantsOnly,
        Admission::No if (rust || script) && !keywords.judges_tests() && test_path() => {
            Reading::Skip("test code (a test file; `--include-tests` reads it)".to_string())
        }
        // A TypeScript module with no word may still be where a store is
        // written (`prisma.transfer.update(..)`) or a function that does
        // so is called: held, as a Rust file is for its retries.
        Admission::No if script => Reading::Held,
        Admission::No => Reading::Skip(format!("no word of the prefilter{}", outside(kind))),
        Admission::Late => Reading::Held,
        Admission::Schema => Reading::Schema,
        Admission::Full if rust && !all && around.contains(&bytes.len()) => keywords
            .anchors(bytes)
            .map_or(Reading::Whole, Reading::Around),
        Admission::Full => Reading::Whole,
    }
}

/// Where the prefilter's words do not count in a file of `kind`, as the
/// reason a file is not read says it.
pub fn outside(kind: FileKind) -> &'static str {
    match kind {
        FileKind::Rust => " outside comments and test code",
        _ => "",
    }
}

/// What the first pass found that a file read partly, or not at all, can
/// matter to. Built by the model (`model::reach`); empty when the run
/// holds no keys.
#[derive(Debug, Default, Clone)]
pub struct Reach {
    /// The run holds a store or a keyed request.
    pub keys: bool,
    /// The crates (`model::crate_of`) of the functions that touch a store
    /// or send a keyed request, of their callers and of their callees.
    pub crates: HashSet<String>,
    /// Those functions' names and the names they call.
    pub names: HashSet<String>,
    /// The segments of the paths they call (`payments_core::charge`): a
    /// crate whose name is one of them is called into.
    pub paths: HashSet<String>,
    /// The names of [`Reach::crates`] as `use` paths write them: a file of
    /// another crate that names one may call into it.
    pub crate_names: HashSet<String>,
    /// (type or trait, method) they call on a receiver of known type or
    /// bound: a file of another crate that defines such a method for such
    /// a type may be what the call resolves to.
    pub methods: HashSet<(String, String)>,
    /// (type or trait, name) of those functions that are methods: a file
    /// of another crate may call them on their type.
    pub owned: HashSet<(String, String)>,
    /// The packages (`source::Packages`) where what a file may hold
    /// anywhere is judged (a unit slip, a used-token record, a key format
    /// without its owner): those with a file that holds keys, and those of
    /// [`Reach::crates`].
    pub judged: HashSet<String>,
    /// The tables the parsed files hold as a store or a key carrier, and
    /// the names code reaches them by (a Prisma accessor, an ORM table
    /// object), lowered: a held TypeScript file that names one may read or
    /// write a store.
    pub tables: Vec<String>,
    /// The names of the functions that touch a store or send a keyed
    /// request and of their callers, transitively, and of the types that
    /// own them: a TypeScript file that imports one may call it.
    pub defined: HashSet<String>,
    /// The names the reached functions call and the types they call them
    /// through: a TypeScript file that defines one may be what they call.
    pub called: HashSet<String>,
}

/// How a Rust file that was held back or read around its words is read
/// once the first pass is done.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum After {
    /// Read whole: something in it can reach a finding.
    Whole,
    /// Left as it is: not read (held) or read around its words (big).
    AsIs,
}

/// A file not read whole by the first pass, as the decision reads it.
pub struct Unread<'t> {
    pub text: &'t str,
    /// Its crate (`model::crate_of` of its path).
    pub crate_key: &'t str,
    /// Its package (`source::Packages::of` its path).
    pub package: &'t str,
    /// It may hold what the rules judge in every file of a package that
    /// holds keys ([`Reach::judged`]), whatever calls it: a unit slip, a used-token record or a
    /// leeway, a key format without its owner (the front end's own
    /// screens of its text: `units::may_slip`, `jti::may_hold`,
    /// `owner_keys::may_hold`).
    pub judged_anywhere: bool,
    /// A TypeScript or JavaScript file, read whole when it names a table
    /// of [`Reach::tables`].
    pub script: bool,
}

/// The decision for one file, from the file and the run's [`Reach`].
pub fn after_first_pass(file: &Unread<'_>, reach: &Reach) -> After {
    if !reach.keys {
        return After::AsIs;
    }
    if file.judged_anywhere && reach.judged.contains(file.package) {
        return After::Whole;
    }
    if file.script {
        return script_after(file.text, reach);
    }
    let crate_key = file.crate_key;
    let lexed = Lexed::new(file.text);
    let idents = idents(&lexed);
    let names = || idents.iter().any(|i| reach.names.contains(*i));
    let defined = std::cell::OnceCell::new();
    let joins = if reach.crates.contains(crate_key) {
        names()
    } else {
        let own = crate_name(crate_key);
        own.as_deref().is_some_and(|n| reach.paths.contains(n))
            || reach.methods.iter().any(|(t, m)| {
                idents.contains(t.as_str())
                    && idents.contains(m.as_str())
                    && defined
                        .get_or_init(|| methods(&lexed))
                        .iter()
                        .any(|(name, owners)| name == m && owners.contains(&t.as_str()))
            })
            || reach
                .owned
                .iter()
                .any(|(t, m)| idents.contains(t.as_str()) && idents.contains(m.as_str()))
            || idents.iter().any(|i| reach.crate_names.contains(*i)) && names()
    };
    if joins {
        After::Whole
    } else {
        After::AsIs
    }
}

/// [`after_first_pass`] for a held TypeScript or JavaScript file. Imports
/// are explicit in these languages, so names join by them, not by the
/// package a file is in (every file of a Next.js app is one package, and
/// the names its functions call are `from`, `push`, `map`): the file is
/// read whole when it names a key table, imports a reached function or
/// type, or defines a function, method or class the reached functions call.
fn script_after(text: &str, reach: &Reach) -> After {
    match script_why(text, reach) {
        Some(_) => After::Whole,
        None => After::AsIs,
    }
}

/// Why a held script is read whole ([`script_after`]), or `None`.
pub fn script_why(text: &str, reach: &Reach) -> Option<String> {
    let lower = text.as_bytes().to_ascii_lowercase();
    if let Some(t) = reach.tables.iter().find(|t| reaches_table(&lower, t)) {
        return Some(format!("table {t}"));
    }
    let (imports, defines) = script_links(text);
    if let Some(i) = imports.iter().find(|i| reach.defined.contains(**i)) {
        return Some(format!("imports {i}"));
    }
    defines
        .iter()
        .find(|d| reach.called.contains(**d))
        .map(|d| format!("defines {d}"))
}

/// The names a TypeScript or JavaScript text imports (`import { a, b as c }
/// from`, `export { a } from`, `const { a } = require(..)`) and those it
/// defines (`function f`, `class C`, `const f = (..) =>`, a method or a
/// property holding a function at the start of a line: a method's line
/// ends with its body's `{`, or with `(` when its parameters go on). Read from the text
/// as written, comments included: a wider answer is never a wrong one here.
fn script_links(text: &str) -> (HashSet<&str>, HashSet<&str>) {
    use regex::Regex;
    static RES: std::sync::OnceLock<[Regex; 2]> = std::sync::OnceLock::new();
    let [imports, defines] = RES.get_or_init(|| {
        [
            Regex::new(
                r#"(?s)\b(?:import|export)\s+(?:type\s+)?([^;]*?)\s*\bfrom\s*['"]|(?:const|let|var)\s*(\{[^}]*\}|[A-Za-z_$][\w$]*)\s*=\s*require\s*\("#,
            )
            .expect("a valid pattern"),
            Regex::new(
                r#"(?m)\b(?:function\s*\*?|class)\s+([A-Za-z_$][\w$]*)|\b(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*(?::[^=\n]*)?=\s*(?:async\b\s*)?(?:\(|function\b|[A-Za-z_$][\w$]*\s*=>)|^[ \t]*(?:(?:public|private|protected|static|readonly|override|async|get|set)\s+)*([A-Za-z_$][\w$]*)\s*(?:<[^>\n]*>\s*)?(?:\((?:[^\n=]|=[^>\n])*\)[^\n;=]*\{[ \t]*$|\([ \t]*$|[:=]\s*(?:async\b\s*)?(?:\(|function\b))"#,
            )
            .expect("a valid pattern"),
        ]
    });
    let mut imported = HashSet::new();
    for c in imports.captures_iter(text) {
        for g in [c.get(1), c.get(2)].into_iter().flatten() {
            imported.extend(script_words(g.as_str()));
        }
    }
    let mut defined = HashSet::new();
    for c in defines.captures_iter(text) {
        defined.extend(
            [c.get(1), c.get(2)]
                .into_iter()
                .flatten()
                .map(|m| m.as_str()),
        );
        // `return (`, `for (const x of xs) {`: a statement, not a method.
        defined.extend(c.get(3).filter(|m| !statement(text, m)).map(|m| m.as_str()));
    }
    (imported, defined)
}

/// Whether a name at the start of a line that looks like a method's is a
/// statement's keyword followed by a space (`if (`, `for (`, `return (`):
/// a method so named is written without one.
fn statement(text: &str, m: &regex::Match<'_>) -> bool {
    const KEYWORDS: &[&str] = &[
        "if", "for", "while", "switch", "catch", "return", "with", "await", "yield", "typeof",
        "void", "delete", "new", "throw", "else", "do", "case",
    ];
    KEYWORDS.contains(&m.as_str()) && text[m.end()..].starts_with([' ', '\t'])
}

/// Whether a lowered TypeScript or JavaScript text names `table` (lowered)
/// where the front end can read a statement on it (`frontend::ts::flow`,
/// `frontend::ts::orm`): after a `.` (a Prisma accessor `prisma.taskrun.`,
/// Drizzle's `db.query.runs.`, a schema's `schema.runs`), a `(` (Drizzle's
/// `db.insert(runs)`, TypeORM's `getRepository(Run)`), a quote (SQL in a
/// string, `"TaskRun"`, a table's declared name), or a word SQL puts
/// before a table (`from`, `into`, `update`, `join`, …). A type
/// (`run: TaskRun`, `Array<TaskRun>`, `import type { TaskRun }`) or a
/// variable (`const taskRun =`) is no statement on it.
fn reaches_table(lower: &[u8], table: &str) -> bool {
    const SQL_BEFORE: &[&[u8]] = &[
        b"from",
        b"join",
        b"into",
        b"update",
        b"only",
        b"insert",
        b"replace",
        b"ignore",
        b"or",
        b"low_priority",
        b"high_priority",
        b"delayed",
        b"table",
        b"exists",
        b"references",
    ];
    let t = table.as_bytes();
    if t.is_empty() {
        return false;
    }
    let part = |c: u8| c.is_ascii_alphanumeric() || c == b'_' || c == b'$';
    memchr::memmem::find_iter(lower, t).any(|at| {
        let end = at + t.len();
        if at.checked_sub(1).is_some_and(|p| part(lower[p]))
            || lower.get(end).is_some_and(|&c| part(c))
        {
            return false;
        }
        let before = &lower[..at];
        let Some(p) = before.iter().rposition(|c| !c.is_ascii_whitespace()) else {
            return false;
        };
        match before[p] {
            b'.' | b'(' | b'"' | b'\'' | b'`' | b'[' => true,
            c if part(c) => {
                let start = before[..=p]
                    .iter()
                    .rposition(|&c| !part(c))
                    .map_or(0, |s| s + 1);
                SQL_BEFORE.contains(&&before[start..=p])
            }
            _ => false,
        }
    })
}

/// The identifiers of a piece of TypeScript.
fn script_words(s: &str) -> impl Iterator<Item = &str> {
    s.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'))
        .filter(|w| w.starts_with(|c: char| c.is_alphabetic() || c == '_' || c == '$'))
}

/// The name a `use` path gives a crate: its directory's, `-` as `_`
/// (`crates/payments-client` → `payments_client`), as the flow model
/// resolves it.
pub fn crate_name(crate_key: &str) -> Option<String> {
    let dir = crate_key.rsplit('/').next().filter(|d| !d.is_empty())?;
    Some(dir.replace('-', "_"))
}

/// A Rust text with its comments and string literals found once
/// (`lex::rust::comments_and_strings`), for [`idents`] and [`methods`].
struct Lexed<'t> {
    text: &'t str,
    comments: Vec<std::ops::Range<usize>>,
    strings: Vec<std::ops::Range<usize>>,
}

impl<'t> Lexed<'t> {
    fn new(text: &'t str) -> Self {
        let (comments, strings) = crate::lex::rust::comments_and_strings(text.as_bytes());
        Lexed {
            text,
            comments,
            strings,
        }
    }
}

/// The methods a text defines in `impl` and `trait` blocks, each with the
/// words of the headers of the blocks around it (`impl<T> Charge for
/// Db<T>` gives `impl`, `T`, `Charge`, `for`, `Db`): where a method call
/// on one of those types or traits may resolve. Comments and strings are
/// skipped; braces are counted as written (a wider answer is never a wrong
/// one here).
fn methods<'t>(lexed: &Lexed<'t>) -> Vec<(&'t str, Vec<&'t str>)> {
    let (text, bytes) = (lexed.text, lexed.text.as_bytes());
    let mut silent: Vec<std::ops::Range<usize>> = lexed
        .comments
        .iter()
        .chain(&lexed.strings)
        .cloned()
        .collect();
    silent.sort_by_key(|r| r.start);
    let mut out = Vec::new();
    // One entry an open brace: the header words of the block it opens.
    let mut blocks: Vec<Option<Vec<&str>>> = Vec::new();
    let mut header: Option<Vec<&str>> = None;
    let mut after_fn = false;
    let mut word: Option<(usize, usize)> = None;
    let is_ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b >= 0x80;
    let code = crate::lex::rust::code(bytes, &silent, 0).chain([(bytes.len(), b' ')]);
    for (at, b) in code {
        if is_ident(b) {
            word = Some(word.map_or((at, at + 1), |(s, _)| (s, at + 1)));
            continue;
        }
        if let Some((s, e)) = word.take() {
            let w = &text[s..e];
            if after_fn && blocks.iter().any(Option::is_some) {
                let owners = blocks.iter().flatten().flatten().copied().collect();
                out.push((w, owners));
            }
            after_fn = w == "fn";
            match (&mut header, w) {
                (_, "impl" | "trait") => header = Some(vec![w]),
                (Some(h), _) => h.push(w),
                (None, _) => {}
            }
        }
        match b {
            b'{' => blocks.push(header.take()),
            b'}' => drop(blocks.pop()),
            b';' => header = None,
            _ => {}
        }
        if !b.is_ascii_whitespace() {
            after_fn = false;
        }
    }
    out
}

/// The identifiers of a text's code, each once: comments left out (a
/// word in a comment calls nothing), strings kept (a macro's may be code;
/// a wider answer is never a wrong one here).
fn idents<'t>(lexed: &Lexed<'t>) -> HashSet<&'t str> {
    let text = lexed.text;
    let mut from = 0;
    let mut out = HashSet::new();
    for r in lexed.comments.iter().chain([&(text.len()..text.len())]) {
        let code = text.get(from..r.start).unwrap_or("");
        out.extend(
            code.split(|c: char| !(c.is_alphanumeric() || c == '_'))
                .filter(|w| w.starts_with(|c: char| c.is_alphabetic() || c == '_')),
        );
        from = r.end.max(from);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The first decision of a file of `kind` at `path`, test code by its
    /// path when `test`, a Rust file over 100 bytes read around its words.
    fn first_of(k: &Keywords, kind: FileKind, path: &str, text: &[u8], test: bool) -> Reading {
        first(k, kind, Path::new(path), text, &|| test, &(101..=1_000))
    }

    fn rust(k: &Keywords, text: &str) -> Reading {
        first_of(k, FileKind::Rust, "src/pay.rs", text.as_bytes(), false)
    }

    #[test]
    fn a_file_with_no_word_is_skipped_and_says_why() {
        let k = Keywords::new(&[], 1);
        assert_eq!(
            rust(&k, "fn main() {}\n"),
            Reading::Skip("no word of the prefilter outside comments and test code".into())
        );
        let yaml = first_of(&k, FileKind::Yaml, "ci.yml", b"on: push\n", false);
        assert_eq!(yaml, Reading::Skip("no word of the prefilter".into()));
        let test = "fn replays_once() { let h = \"Idempotency-Key\"; }\n";
        assert_eq!(
            first_of(&k, FileKind::Rust, "tests/pay.rs", test.as_bytes(), true),
            Reading::Skip("test code (a test file; `--include-tests` reads it)".into())
        );
        let judging = Keywords::new(&[], 1).judging_tests(true);
        assert_eq!(
            first_of(
                &judging,
                FileKind::Rust,
                "tests/pay.rs",
                test.as_bytes(),
                true
            ),
            Reading::Whole
        );
        let generated =
            "/* automatically generated by rust-bindgen */\npub const IDEMPOTENT: u32 = 1;\n";
        assert_eq!(
            rust(&k, generated),
            Reading::Skip("generated code (a generated-file marker at its top)".into())
        );
    }

    #[test]
    fn generated_go_is_skipped_unless_every_file_is_read() {
        let client = "// Code generated by oapi-codegen version v2.4.1 DO NOT EDIT.\npackage client\n\n// WebhookEndpoint is a webhook's endpoint.\ntype WebhookEndpoint struct { URL string }\nfunc (c *Client) CreateWebhook(ctx context.Context, body WebhookEndpoint) error { return c.post(ctx, \"/webhooks\", body) }\n";
        let go = |k: &Keywords| {
            first_of(
                k,
                FileKind::Go,
                "api/client.gen.go",
                client.as_bytes(),
                false,
            )
        };
        assert_eq!(
            go(&Keywords::new(&[], 1)),
            Reading::Skip("generated code (a generated-file marker at its top)".into())
        );
        assert_eq!(go(&Keywords::new(&[], 1).exhaustive(true)), Reading::Whole);
        // The same text, written by hand, is read.
        let hand = client.replacen(
            "// Code generated by oapi-codegen version v2.4.1 DO NOT EDIT.\n",
            "",
            1,
        );
        assert_eq!(
            first_of(
                &Keywords::new(&[], 1),
                FileKind::Go,
                "api/client.go",
                hand.as_bytes(),
                false
            ),
            Reading::Whole
        );
    }

    #[test]
    fn go_and_python_test_files_are_read_only_when_tests_are_judged() {
        let k = Keywords::new(&[], 1);
        let cases = [
            (
                FileKind::Go,
                "internal/pay/webhook_test.go",
                "func TestDedup(t *testing.T) { rdb.SetNX(ctx, \"idem:\"+id, 1, time.Hour) }\n",
            ),
            (
                FileKind::Python,
                "billing/tests/test_webhooks.py",
                "def test_dedup():\n    cache.add(f\"idem:{event.id}\", 1, 3600)\n",
            ),
        ];
        for (kind, path, text) in cases {
            assert_eq!(
                first_of(&k, kind, path, text.as_bytes(), true),
                Reading::Skip("test code (a test file; `--include-tests` reads it)".into()),
                "{path}"
            );
            let judging = Keywords::new(&[], 1).judging_tests(true);
            assert_eq!(
                first_of(&judging, kind, path, text.as_bytes(), true),
                Reading::Whole,
                "{path}"
            );
            let all = Keywords::new(&[], 1).exhaustive(true);
            assert_eq!(
                first_of(&all, kind, path, text.as_bytes(), true),
                Reading::Whole,
                "{path}"
            );
            // The same code outside a test path is read.
            assert_eq!(
                first_of(&k, kind, path, text.as_bytes(), false),
                Reading::Whole,
                "{path}"
            );
        }
        // A TypeScript test that writes a store's key is read.
        let ts = "it('claims', () => prisma.waitpoint.create({ data: { idempotencyKey } }))\n";
        let kind = FileKind::Script(crate::source::Dialect::Ts);
        assert_eq!(
            first_of(&k, kind, "src/pay.test.ts", ts.as_bytes(), true),
            Reading::Whole
        );
    }

    #[test]
    fn a_binary_file_is_refused_whatever_the_run_reads() {
        for k in [
            Keywords::new(&[], 1),
            Keywords::new(&[], 1).exhaustive(true),
        ] {
            let bytes = b"idempotency_key\0\x01\x02";
            assert_eq!(
                first_of(&k, FileKind::Json, "a.json", bytes, false),
                Reading::Refused("binary content (a NUL byte); not parsed".into())
            );
        }
    }

    #[test]
    fn a_rust_file_with_time_constants_alone_has_them_read() {
        let k = Keywords::new(&[], 1);
        let text = "pub const TIMEOUT: Duration = Duration::from_secs(30);\n";
        assert_eq!(rust(&k, text), Reading::ConstantsOnly);
        let yaml = first_of(&k, FileKind::Yaml, "a.yml", text.as_bytes(), false);
        assert!(matches!(yaml, Reading::Skip(_)), "{yaml:?}");
    }

    #[test]
    fn a_file_with_a_word_is_read_whole() {
        let k = Keywords::new(&[], 1);
        let text = "const H: &str = \"Idempotency-Key\";\n";
        assert_eq!(rust(&k, text), Reading::Whole);
        let exhaustive = Keywords::new(&[], 1).exhaustive(true);
        assert_eq!(rust(&exhaustive, "fn main() {}\n"), Reading::Whole);
    }

    #[test]
    fn a_big_rust_file_is_read_around_its_words() {
        let k = Keywords::new(&[], 1);
        let pad = "fn plain() {}\n".repeat(8);
        let text = format!("{pad}const H: &str = \"Idempotency-Key\";\n");
        assert!((101..=1_000).contains(&text.len()));
        let Reading::Around(at) = rust(&k, &text) else {
            panic!("{:?}", rust(&k, &text));
        };
        assert!(at.contains(&text.find("Idempotency").unwrap()), "{at:?}");
        // Past the front end's limit, or holding a suppression comment, or
        // in a run that reads all: whole.
        let huge = format!("{}{text}", "fn plain() {}\n".repeat(80));
        assert_eq!(rust(&k, &huge), Reading::Whole);
        let suppressed = format!("// idemlint: allow x -- ok\n{text}");
        assert_eq!(rust(&k, &suppressed), Reading::Whole);
        let exhaustive = Keywords::new(&[], 1).exhaustive(true);
        assert_eq!(rust(&exhaustive, &text), Reading::Whole);
    }

    #[test]
    fn a_rust_file_with_only_a_retry_crate_is_held() {
        let k = Keywords::new(&[], 1);
        let text = "use backoff::ExponentialBackoff;\nfn run() {}\n";
        assert_eq!(rust(&k, text), Reading::Held);
        let exhaustive = Keywords::new(&[], 1).exhaustive(true);
        assert_eq!(rust(&exhaustive, text), Reading::Whole);
    }

    #[test]
    fn an_sql_file_that_changes_a_table_is_held_for_the_schema() {
        let k = Keywords::new(&[], 1);
        let sql = |t: &str| first_of(&k, FileKind::Sql, "m.sql", t.as_bytes(), false);
        assert_eq!(
            sql("ALTER TABLE orders ADD COLUMN tenant_id TEXT;"),
            Reading::Schema
        );
        assert_eq!(
            sql("INSERT INTO countries VALUES ('NL');"),
            Reading::Skip("no word of the prefilter".into())
        );
    }

    fn reach() -> Reach {
        Reach {
            keys: true,
            crates: ["svc".to_string()].into(),
            names: ["record_key", "charge", "go"].map(String::from).into(),
            paths: ["payments_core", "charge"].map(String::from).into(),
            crate_names: ["svc"].map(String::from).into(),
            methods: [("PspClient".to_string(), "charge".to_string())].into(),
            owned: [("Store".to_string(), "record_key".to_string())].into(),
            judged: ["pay".to_string()].into(),
            tables: vec!["transfer".to_string(), "processed_events".to_string()],
            defined: ["rememberRequest", "PaymentsService"]
                .map(String::from)
                .into(),
            called: ["sendTransfer", "refund", "BankClient", "for", "return"]
                .map(String::from)
                .into(),
        }
    }

    fn file<'t>(text: &'t str, crate_key: &'t str) -> Unread<'t> {
        Unread {
            text,
            crate_key,
            package: "pay",
            judged_anywhere: false,
            script: false,
        }
    }

    #[test]
    fn a_held_script_is_read_whole_when_it_names_a_key_table() {
        let route = "await prisma.$transaction([prisma.transfer.update({ where: { id } })]);";
        let script = |text| Unread {
            script: true,
            ..file(text, "ts:web")
        };
        assert_eq!(after_first_pass(&script(route), &reach()), After::Whole);
        // The same words in a Rust file held for its retries join nothing.
        assert_eq!(after_first_pass(&file(route, "web"), &reach()), After::AsIs);
        // `transferId` names no table; nor does a file that names none.
        let other = "const transferId = body.transferId; await audit.log(transferId);";
        assert_eq!(after_first_pass(&script(other), &reach()), After::AsIs);
        // Where a statement can be read on it: an accessor, an argument,
        // a quoted name, a name SQL puts after its keyword.
        for reads in [
            "await tx\n  .transfer\n  .create({ data })",
            "await db.insert(transfer).values(row)",
            "await db.select().from(schema.transfer)",
            "await sql`SELECT * FROM \"Transfer\" WHERE id = ${id}`",
            "await pool.query('update transfer set status = $1', [s])",
            "await pool.query(`DELETE FROM\n  processed_events`)",
        ] {
            assert_eq!(
                after_first_pass(&script(reads), &reach()),
                After::Whole,
                "{reads}"
            );
        }
        // A type or a variable of that name is no statement on the table.
        for not in [
            "import type { Transfer } from '@prisma/client';\nfunction f(t: Transfer): Array<Transfer> {}",
            "const transfer = await load(id); return transfer;",
            "export type Row = Transfer | null;",
        ] {
            assert_eq!(after_first_pass(&script(not), &reach()), After::AsIs, "{not}");
        }
    }

    #[test]
    fn a_held_script_joins_by_what_it_imports_and_defines() {
        let read = |text: &str| {
            after_first_pass(
                &Unread {
                    script: true,
                    ..file(text, "ts:")
                },
                &reach(),
            )
        };
        // A caller imports a reached function; a callee defines what one calls.
        let caller = "import { sendX, rememberRequest as remember } from '@/lib/ledger';\nexport async function POST() {}";
        assert_eq!(read(caller), After::Whole);
        let required = "const { rememberRequest } = require('./ledger');";
        assert_eq!(read(required), After::Whole);
        let callee = "export async function sendTransfer(iban: string) {\n  return fetch(url);\n}";
        assert_eq!(read(callee), After::Whole);
        let arrow = "export const sendTransfer = async (iban: string) => post(iban);";
        assert_eq!(read(arrow), After::Whole);
        let method =
            "export class Bank {\n  async refund(id: string): Promise<void> {\n    return;\n  }\n}";
        assert_eq!(read(method), After::Whole);
        let long =
            "export class Bank {\n  async refund(\n    id: string,\n  ): Promise<void> {}\n}";
        assert_eq!(read(long), After::Whole);
        let class = "export class BankClient {}";
        assert_eq!(read(class), After::Whole);
        // A statement whose keyword a reached function calls as a method
        // (`Symbol.for`) defines nothing; a method so named does.
        let loop_ =
            "export function all() {\n  for (const x of xs) {\n  }\n  return (\n    x\n  );\n}";
        assert_eq!(read(loop_), After::AsIs);
        let named = "class Registry {\n  for(key: string) {\n    return key;\n  }\n}";
        assert_eq!(read(named), After::Whole);
        // A call at the start of a line defines nothing, nor one given a
        // callback.
        let call = "export async function run() {\n  refund(id);\n  refund(() => {\n  });\n}";
        assert_eq!(read(call), After::AsIs);
        // Calling what the reached functions call, or naming a reached
        // function without importing it, joins nothing.
        let other = "import { z } from 'zod';\nexport async function POST() {\n  await sendTransfer();\n  rememberRequest;\n}";
        assert_eq!(read(other), After::AsIs);
    }

    #[test]
    fn a_script_with_no_word_is_held_not_skipped() {
        let k = Keywords::new(&[], 1);
        let first_of = |path: &str| {
            first(
                &k,
                FileKind::Script(crate::source::Dialect::Ts),
                Path::new(path),
                b"export async function POST() { await db.transfer.update({}); }",
                &|| path.contains(".test."),
                &(1..=2),
            )
        };
        assert_eq!(first_of("app/api/pay/route.ts"), Reading::Held);
        assert_eq!(
            first_of("app/api/pay/route.test.ts"),
            Reading::Skip("test code (a test file; `--include-tests` reads it)".into())
        );
    }

    #[test]
    fn nothing_is_read_whole_when_the_run_holds_no_keys() {
        let r = Reach {
            keys: false,
            ..reach()
        };
        let text = "fn f() { record_key(); let retry_ms = 5; Duration::from_secs(retry_ms); }";
        assert_eq!(after_first_pass(&file(text, "svc"), &r), After::AsIs);
    }

    #[test]
    fn in_a_crate_of_the_keys_a_name_they_call_is_enough() {
        let r = reach();
        let calls = "fn retry_it() { backoff::retry(|| charge()) }";
        assert_eq!(after_first_pass(&file(calls, "svc"), &r), After::Whole);
        let other = "fn retry_it() { backoff::retry(|| ping()) }";
        assert_eq!(after_first_pass(&file(other, "svc"), &r), After::AsIs);
    }

    #[test]
    fn in_another_crate_a_name_needs_a_crossing_too() {
        let r = reach();
        let name_only = "fn charge() { backoff::retry(|| go()) }";
        assert_eq!(after_first_pass(&file(name_only, "lib"), &r), After::AsIs);
        let method = "impl PspClient { fn charge(&self) { backoff::retry(|| go()) } }";
        assert_eq!(after_first_pass(&file(method, "lib"), &r), After::Whole);
        let other_type = "impl Ledger { fn charge(&self) { backoff::retry(|| go()) } }";
        assert_eq!(after_first_pass(&file(other_type, "lib"), &r), After::AsIs);
        let both_named =
            "impl Ledger { fn charge(&self, c: PspClient) { backoff::retry(|| go()) } }";
        assert_eq!(after_first_pass(&file(both_named, "lib"), &r), After::AsIs);
        let no_def = "fn f(c: PspClient) { backoff::retry(|| c.charge()) }";
        assert_eq!(after_first_pass(&file(no_def, "lib"), &r), After::AsIs);
        let calls_owned = "fn f(s: &Store) { backoff::retry(|| s.record_key()) }";
        assert_eq!(
            after_first_pass(&file(calls_owned, "lib"), &r),
            After::Whole
        );
        let caller = "fn run() { backoff::retry(|| svc::go()) }";
        assert_eq!(after_first_pass(&file(caller, "lib"), &r), After::Whole);
    }

    #[test]
    fn a_crate_its_callers_name_is_read_whatever_it_names() {
        let r = reach();
        let text = "pub fn anything() { tokio_retry::Retry::spawn(s, f) }";
        assert_eq!(
            after_first_pass(&file(text, "crates/payments-core"), &r),
            After::Whole
        );
        assert_eq!(
            after_first_pass(&file(text, "crates/ledger"), &r),
            After::AsIs
        );
    }

    #[test]
    fn what_every_file_is_judged_for_is_read_in_a_package_that_holds_keys() {
        let judged = Unread {
            judged_anywhere: true,
            ..file("fn p() {}", "lib")
        };
        assert_eq!(after_first_pass(&judged, &reach()), After::Whole);
        let no_keys = Reach {
            keys: false,
            ..reach()
        };
        assert_eq!(after_first_pass(&judged, &no_keys), After::AsIs);
        let vendored = Unread {
            package: "vendor/redis",
            ..judged
        };
        assert_eq!(after_first_pass(&vendored, &reach()), After::AsIs);
    }

    #[test]
    fn a_method_is_defined_in_the_impl_or_trait_block_of_its_owner() {
        let text = "impl<T: Send> Charge for Db<T> { fn charge(&self) { fn inner() {} } }
            /* impl Fake { fn ghost() {} } */ fn free() {}
            trait Refund { fn refund(&self) -> impl Iterator<Item = u8>; fn after(); }
            impl Ledger { const S: &str = \"impl X { fn no() {} }\"; pub async fn post(&self) {} }";
        let got = methods(&Lexed::new(text));
        let owners = |m: &str| {
            got.iter()
                .filter(|(n, _)| *n == m)
                .flat_map(|(_, o)| o.clone())
                .collect::<Vec<_>>()
        };
        assert!(owners("charge").contains(&"Db") && owners("charge").contains(&"Charge"));
        assert!(owners("inner").contains(&"Db"));
        assert!(owners("refund").contains(&"Refund"));
        assert!(owners("after").contains(&"Refund"));
        assert!(owners("post").contains(&"Ledger"));
        for absent in ["ghost", "free", "no"] {
            assert!(owners(absent).is_empty(), "{absent}");
        }
    }

    #[test]
    fn identifiers_are_whole_words_of_code() {
        let text = "fn charge_all() { x.charges(); 3u8; r#type } // relay\n/* ledger */ s(\"pay\")";
        let lexed = Lexed::new(text);
        let words = idents(&lexed);
        assert!(words.contains("charge_all") && words.contains("charges"));
        assert!(!words.contains("charge") && !words.contains("3u8"));
        assert!(!words.contains("relay") && !words.contains("ledger"));
        assert!(words.contains("pay") && words.contains("s"));
    }

    #[test]
    fn crate_names_are_as_use_paths_write_them() {
        assert_eq!(
            crate_name("crates/payments-client").as_deref(),
            Some("payments_client")
        );
        assert_eq!(crate_name(""), None);
    }
}
