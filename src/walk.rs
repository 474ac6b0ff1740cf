//! Discovery (the `ignore` crate: .gitignore honoured, hidden files skipped,
//! symlinks not followed), classification by path, and the keyword prefilter
//! that decides which files are parsed at all. Not for parsing.

use crate::source::FileKind;
use aho_corasick::AhoCorasick;
use serde::Deserialize;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

/// A file to consider: where it is, how to show it, what kind it is.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Candidate {
    pub display: String,
    pub path: PathBuf,
    pub kind: FileKind,
    /// Named on the command line (always read, whatever its name).
    pub explicit: bool,
}

#[derive(Debug, thiserror::Error)]
pub enum WalkError {
    #[error("{0}: no such file or directory")]
    NotFound(String),
}

/// Extensions of other source languages whose string literals the text
/// front end reads (header names only).
const TEXT_EXTENSIONS: &[&str] = &[
    "js", "mjs", "cjs", "jsx", "ts", "tsx", "py", "go", "java", "rb", "kt", "kts", "cs", "php",
    "scala", "swift", "ex", "exs",
];

/// Classify by path; `None` means the file is not read. `.conf` files are
/// settled by content later ([`refine_kind`]).
pub fn classify(path: &Path) -> Option<FileKind> {
    let name = path.file_name()?.to_str()?.to_ascii_lowercase();
    // `secrets.env.template`, `app.env.example`: dotenv files to copy, not YAML.
    let env_template = [".env.template", ".env.example", ".env.sample"]
        .iter()
        .any(|s| name.ends_with(s));
    if name == ".env" || name.starts_with(".env.") || name.ends_with(".env") || env_template {
        return Some(FileKind::Env);
    }
    if crate::frontend::manifest::LineFormat::of(&name).is_some() {
        return Some(FileKind::Manifest);
    }
    if name == "redis.conf" || name == "valkey.conf" {
        return Some(FileKind::RedisConf);
    }
    if name == "nginx.conf" {
        return Some(FileKind::Text);
    }
    // Lock files are package data, large and full of words like `dedupe`
    // and `webhook`; they hold no idempotency configuration. pnpm's, in
    // YAML, names `@sentry-internal/replay` and `dedupe-*` packages: novu's
    // (2.9 MB) was parsed whole for them. Other managers' lock files
    // (`yarn.lock`, `Cargo.lock`, `poetry.lock`) have no extension read.
    if matches!(
        name.as_str(),
        "package-lock.json" | "npm-shrinkwrap.json" | "pnpm-lock.yaml"
    ) {
        return None;
    }
    let ext = name.rsplit_once('.').map(|(_, e)| e)?;
    Some(match ext {
        "rs" => FileKind::Rust,
        "sql" => FileKind::Sql,
        "yaml" | "yml" => FileKind::Yaml,
        "toml" => FileKind::Toml,
        "json" | "jsonc" | "json5" => FileKind::Json,
        "tf" | "tfvars" | "hcl" => FileKind::Hcl,
        // A template of another file (`trigger.config.ts.template`,
        // `values.yaml.template`, `index.html.template`) is that file's kind,
        // or not read; otherwise CloudFormation's own extension: YAML or
        // JSON, settled by content.
        "template" => {
            let inner = &name[..name.len() - ".template".len()];
            match inner.rsplit_once('.') {
                Some((_, e)) if !e.is_empty() => return classify(Path::new(inner)),
                _ => FileKind::Yaml,
            }
        }
        "conf" => FileKind::Text,
        e if TEXT_EXTENSIONS.contains(&e) => FileKind::Text,
        _ => return None,
    })
}

/// The package names of `rules/redis.toml` `[[dedup_library]]`, lowered,
/// each also as PyPI may write it (`python_redis_lock`, `celery.once`).
fn dedup_package_words() -> &'static [Vec<u8>] {
    static W: std::sync::OnceLock<Vec<Vec<u8>>> = std::sync::OnceLock::new();
    W.get_or_init(|| {
        let mut out: Vec<Vec<u8>> = Vec::new();
        for p in crate::knowledge::redis()
            .dedup_library
            .iter()
            .flat_map(|l| &l.packages)
        {
            let p = p.to_ascii_lowercase();
            for v in [
                p.clone(),
                p.replace(['_', '.'], "-"),
                p.replace(['-', '.'], "_"),
                p.replace(['-', '_'], "."),
            ] {
                if !out.iter().any(|o| o.as_slice() == v.as_bytes()) {
                    out.push(v.into_bytes());
                }
            }
        }
        out
    })
}

/// Whether a lowered manifest (or any JSON or TOML file, which
/// `package.json` and `pyproject.toml` are) names a library that keeps
/// dedup keys or locks in Redis: the manifest reader's only words.
fn names_dedup_library(lower: &[u8]) -> bool {
    dedup_package_words()
        .iter()
        .any(|w| memchr::memmem::find(lower, w).is_some())
}

/// A `.conf` file with Redis directives is a Redis config; nginx and other
/// `.conf` files stay text.
pub fn refine_kind(kind: FileKind, path: &Path, text: &str) -> FileKind {
    if kind == FileKind::Yaml
        && path.extension().and_then(|e| e.to_str()) == Some("template")
        && text.trim_start().starts_with('{')
    {
        return FileKind::Json;
    }
    if kind != FileKind::Text || path.extension().and_then(|e| e.to_str()) != Some("conf") {
        return kind;
    }
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("")
        .to_ascii_lowercase();
    if name.contains("redis") || name.contains("valkey") {
        return FileKind::RedisConf;
    }
    let redis_directive = text.lines().any(|l| {
        let l = l.trim_start();
        l.starts_with("maxmemory") || l.starts_with("appendonly ") || l.starts_with("save ")
    });
    if redis_directive && !text.contains("server {") && !text.contains("http {") {
        FileKind::RedisConf
    } else {
        FileKind::Text
    }
}

#[derive(Deserialize)]
struct Prefilter {
    words: Vec<String>,
    #[serde(default)]
    weak: Vec<WeakGroup>,
    #[serde(default)]
    rust_constants: Option<ConstTier>,
    #[serde(default)]
    rust_generated: Option<Generated>,
    #[serde(default)]
    rust_std_methods: StdMethods,
    #[serde(default)]
    rust_prose_macros: ProseMacros,
}

/// Macros whose string arguments are messages for people (`info!`,
/// `panic!`): a strong word as a word of such prose admits no Rust file.
#[derive(Deserialize, Default)]
struct ProseMacros {
    #[serde(default)]
    names: Vec<String>,
}

/// Methods of Rust's standard library whose names hold a strong word
/// (`Vec::dedup`), by how std's own call and definition read.
#[derive(Deserialize, Default, Clone)]
struct StdMethods {
    /// Called with no arguments: `v.dedup()`, `fn dedup(&mut self)`.
    #[serde(default)]
    no_arguments: Vec<String>,
    /// Called with a closure: `v.dedup_by_key(|e| e.id)`, `fn
    /// dedup_by_key<F, K>(&mut self, key: F) where F: FnMut(&mut T) -> K`.
    #[serde(default)]
    closure_argument: Vec<String>,
}

/// Rust that a generator wrote, by the line it begins with.
#[derive(Deserialize)]
struct Generated {
    heads: Vec<String>,
}

/// Words that admit a file only in some kinds, or only as part of a store
/// or header name, or together with another word (`rules/prefilter.toml`).
#[derive(Deserialize)]
struct WeakGroup {
    words: Vec<String>,
    /// Kinds (by [`FileKind::name`]) parsed in full on one of the words alone.
    #[serde(default)]
    parse: Vec<String>,
    /// Elsewhere, admitted when the name around the word is a store or a
    /// header name.
    #[serde(default)]
    names: bool,
    /// Elsewhere, admitted when the file also holds one of these.
    #[serde(default)]
    with: Vec<String>,
    /// A file of a `parse` kind that holds these words and no other is
    /// parsed only when the rest of the project can use it
    /// ([`Admission::Late`]).
    #[serde(default)]
    late: bool,
}

#[derive(Deserialize)]
struct ConstTier {
    words: Vec<String>,
}

fn builtin() -> Prefilter {
    toml::from_str::<Prefilter>(include_str!("../rules/prefilter.toml")).unwrap_or(Prefilter {
        words: Vec::new(),
        weak: Vec::new(),
        rust_constants: None,
        rust_generated: None,
        rust_std_methods: StdMethods::default(),
        rust_prose_macros: ProseMacros::default(),
    })
}

/// Where [`Words`] falls back to an automaton (Teddy does not build):
/// above this many files a run scans enough bytes that a DFA, slower to
/// build (about 2 ms for the prefilter's words) but faster to search, pays
/// for itself; below it (a pre-commit run on a few staged files) the
/// contiguous NFA, quick to build, wins. Measured 2026-12-01: one 5 KiB
/// file, read+prefilter 3.0 to 3.8 ms with DFAs, 1.3 to 2.6 ms with NFAs;
/// omicron (3,472 files), 174 ms with DFAs, 294 to 701 ms with NFAs.
pub const DFA_FROM_FILES: usize = 64;

/// A searcher for `words`, matched ASCII case-insensitively: the words are
/// lowered here and searched in a lowered copy of the text ([`lowered`]).
/// A case-sensitive leftmost-first search keeps aho-corasick's SIMD
/// (Teddy) searcher, which its case-insensitive and overlapping searches
/// cannot use: measured 2026-12-02 over bitnami/charts (62 MiB), lowering
/// and one such search 14 ms, the case-insensitive overlapping search it
/// replaces 110 ms. Every occurrence of every word is still seen
/// ([`Words::occurrences`]).
///
/// Teddy is asked for by name ([`aho_corasick::packed`]): an automaton
/// picks its own prefilter, and for a few words it picks one that looks for
/// one or two bytes it ranks rare (for `redis`, `valkey`, `keydb`, bytes
/// common in code), stopping at each. Measured 2026-12-05 over the lowered
/// files of a payment switch (76 MB): those three words, 85 ms by the
/// automaton, 6.6 ms by Teddy; the prefilter's 54 words, 19.9 and 19.5 ms;
/// the same occurrences. An automaton remains for what Teddy does not take
/// (over 64 words, a machine without SIMD).
struct Words {
    search: Search,
    /// The lowered words, by pattern index.
    words: Vec<Vec<u8>>,
}

/// How [`Words`] finds the leftmost word from a position.
enum Search {
    /// One Teddy searcher per slice of at most [`TEDDY_WORDS`] words.
    Teddy(Vec<aho_corasick::packed::Searcher>),
    Automaton(AhoCorasick),
}

/// The most words one Teddy searcher is given. Teddy takes up to 64, but
/// over 32 it runs in its fat form (16 buckets, half the bytes a step);
/// and a word list over 64 (the prefilter's listed words with the project's
/// effect words, about 70) would fall back to an automaton. So a long list
/// is cut into slices of at most 32, each searched with slim Teddy, and the
/// leftmost start of all is taken ([`Words::leftmost`]). Measured
/// 2026-12-06 on the hyperswitch fork (63 MiB, `perf`): the prefilter's
/// searches 13% of the run's samples with one DFA, 5.7% in slices; CPU
/// 1.20 -> 1.11 s (docs/performance.md).
const TEDDY_WORDS: usize = 32;

impl Words {
    fn new(words: &[String], dfa: bool) -> Self {
        let mut words: Vec<Vec<u8>> = words
            .iter()
            .map(|w| w.as_bytes().to_ascii_lowercase())
            .filter(|w| !w.is_empty())
            .collect();
        if words.is_empty() {
            words.push(b"idempot".to_vec());
        }
        Self::searched_by(words, dfa, true)
    }

    /// [`Words::new`] for lowered words, with Teddy when `teddy` and it
    /// builds, else with an automaton.
    fn searched_by(words: Vec<Vec<u8>>, dfa: bool, teddy: bool) -> Self {
        let teddy = teddy
            .then(|| {
                let slices = words.len().div_ceil(TEDDY_WORDS).max(1);
                let per = words.len().div_ceil(slices).max(1);
                words
                    .chunks(per)
                    .map(|slice| {
                        aho_corasick::packed::Config::new()
                            .match_kind(aho_corasick::packed::MatchKind::LeftmostFirst)
                            .builder()
                            .extend(slice)
                            .build()
                    })
                    .collect::<Option<Vec<_>>>()
            })
            .flatten();
        let search = match teddy {
            Some(t) => Search::Teddy(t),
            None => Search::Automaton(
                AhoCorasick::builder()
                    .kind(Some(if dfa {
                        aho_corasick::AhoCorasickKind::DFA
                    } else {
                        aho_corasick::AhoCorasickKind::ContiguousNFA
                    }))
                    .match_kind(aho_corasick::MatchKind::LeftmostFirst)
                    .build(&words)
                    .or_else(|_| AhoCorasick::new(["idempot"]))
                    .unwrap_or_else(|_| unreachable!("a one-word automaton always builds")),
            ),
        };
        Words { search, words }
    }

    /// Where the leftmost word at or after `at` starts in a lowered text.
    fn leftmost(&self, lower: &[u8], at: usize) -> Option<usize> {
        self.leftmost_from(lower, at, &mut Vec::new())
    }

    /// [`Words::leftmost`], with what each Teddy slice found last in
    /// `found` (per slice: not yet asked, none left, or where its next word
    /// starts), so that a search from a later position asks again only the
    /// slices whose last find lies before it: every slice's text is still
    /// scanned once.
    fn leftmost_from(
        &self,
        lower: &[u8],
        at: usize,
        found: &mut Vec<Option<Option<usize>>>,
    ) -> Option<usize> {
        match &self.search {
            Search::Teddy(slices) => {
                found.resize(slices.len(), None);
                let mut best: Option<usize> = None;
                for (t, seen) in slices.iter().zip(found.iter_mut()) {
                    let next = match *seen {
                        Some(None) => None,
                        Some(Some(p)) if p >= at => Some(p),
                        _ => {
                            let p = t
                                .find_in(lower, aho_corasick::Span::from(at..lower.len()))
                                .map(|m| m.start());
                            *seen = Some(p);
                            p
                        }
                    };
                    best = match (best, next) {
                        (Some(b), Some(n)) => Some(b.min(n)),
                        (b, n) => b.or(n),
                    };
                }
                best
            }
            Search::Automaton(ac) => ac
                .find(aho_corasick::Input::new(lower).span(at..lower.len()))
                .map(|m| m.start()),
        }
    }

    /// Whether a lowered text holds a word.
    fn is_match(&self, lower: &[u8]) -> bool {
        self.leftmost(lower, 0).is_some()
    }

    /// Every `(start, word index)` at which a word occurs in a lowered
    /// text, overlapping ones included, by start: the leftmost-first search
    /// finds the next start, and every word is tried there.
    fn occurrences<'a>(&'a self, lower: &'a [u8]) -> impl Iterator<Item = (usize, usize)> + 'a {
        let mut at = 0;
        let mut pending: Vec<(usize, usize)> = Vec::new();
        let mut found = Vec::new();
        std::iter::from_fn(move || loop {
            if let Some(o) = pending.pop() {
                return Some(o);
            }
            let start = self.leftmost_from(lower, at, &mut found)?;
            at = start + 1;
            let rest = &lower[start..];
            // Reversed, so that `pop` gives them in pattern order.
            pending.extend(
                self.words
                    .iter()
                    .enumerate()
                    .rev()
                    .filter(|(_, w)| rest.starts_with(w))
                    .map(|(i, _)| (start, i)),
            );
        })
    }

    /// The longest word's length, in bytes.
    fn longest(&self) -> usize {
        self.words.iter().map(Vec::len).max().unwrap_or(0)
    }
}

/// Run `f` on an ASCII-lowered copy of `bytes` (same length, so offsets
/// carry over), in a buffer each thread keeps.
fn lowered<R>(bytes: &[u8], f: impl FnOnce(&[u8]) -> R) -> R {
    thread_local! {
        static BUF: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
    }
    BUF.with(|b| match b.try_borrow_mut() {
        Ok(mut buf) => {
            buf.clear();
            buf.extend(bytes.iter().map(u8::to_ascii_lowercase));
            let r = f(&buf);
            // A large file's copy is not kept for the rest of the run.
            if buf.capacity() > 256 << 10 {
                *buf = Vec::new();
            }
            r
        }
        Err(_) => f(&bytes.to_ascii_lowercase()),
    })
}

/// One weak group, compiled.
struct Weak {
    parse: Vec<String>,
    names: bool,
    with: Option<Words>,
    late: bool,
    /// The group of words taken from the catalogues ([`catalogue_words`]):
    /// an occurrence whose name can be no store and no header name by any
    /// reading is passed over before the file's comments and strings are
    /// looked for (`otherwise` holds `wise`).
    derived: bool,
}

/// What the prefilter makes of a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Admission {
    /// No word that can matter here.
    No,
    /// Parsed in full.
    Full,
    /// Its only words are those of a `late` group (a retry crate's, in
    /// Rust), and it names no store by any convention and holds no
    /// suppression comment: parsed only when the files admitted in full
    /// hold something it can matter to (`model::Joins::uses_late_files`).
    Late,
    /// An SQL file with no word of the prefilter that changes the shape of
    /// a table ([`changes_a_table`]): a migration that adds a scope column
    /// to a table that carries keys, or renames it, names no store and holds
    /// no word, yet the schema model needs it. Parsed when it names a table
    /// that the schema of the files parsed holds as a store or a key carrier
    /// (to a fixed point: what it adds may name more), else not read.
    Schema,
}

/// The keyword prefilter of one run: the words of `rules/prefilter.toml`
/// plus the names the config declares (`[[store]] table = "payment_requests"`
/// makes a migration that only names that table worth parsing), which are
/// strong words.
pub struct Keywords {
    /// Every word of `rules/prefilter.toml` and the config, strong and
    /// weak: whether a file can matter at all.
    any: Words,
    /// The words taken from the catalogues ([`catalogue_words`]), searched
    /// apart (each searcher stays within Teddy's 64 words) and only in a
    /// file the others do not admit: pattern `any.words.len() + i` is word
    /// `i` of these.
    derived: Words,
    /// The strong words alone, for a path.
    strong: Words,
    /// How many of `any`'s patterns, the first ones, are strong words.
    strong_len: usize,
    /// The weak words, `any`'s patterns after the strong ones: weak word
    /// `i` belongs to group `weak_group[i]`.
    weak_group: Vec<usize>,
    groups: Vec<Weak>,
    /// Whether words in Rust test code count: only when the run judges
    /// test code ([`Keywords::judging_tests`]).
    test_words: bool,
    std_methods: StdMethods,
    /// `[rust_prose_macros]`: the macros of [`prose_word`].
    prose_macros: Vec<String>,
    /// Every file is read whole ([`Keywords::exhaustive`]).
    all: bool,
}

impl Keywords {
    /// The prefilter for a run over about `files` files (which automaton
    /// kind is faster overall, [`DFA_FROM_FILES`]).
    pub fn new(extra: &[String], files: usize) -> Self {
        let dfa = files >= DFA_FROM_FILES;
        let p = builtin();
        let mut strong = p.words;
        strong.extend(
            extra
                .iter()
                .map(|w| w.trim().to_string())
                .filter(|w| w.len() >= 3),
        );
        let mut weak = Vec::new();
        let mut weak_group = Vec::new();
        let mut groups = Vec::new();
        let mut named: Vec<String> = strong.clone();
        for (i, g) in p.weak.into_iter().enumerate() {
            weak_group.extend(std::iter::repeat_n(i, g.words.len()));
            if g.names {
                named.extend(g.words.iter().cloned());
            }
            weak.extend(g.words);
            groups.push(Weak {
                parse: g.parse,
                names: g.names,
                with: (!g.with.is_empty()).then(|| Words::new(&g.with, dfa)),
                late: g.late,
                derived: false,
            });
        }
        // The words of the project's own effects (`rules/effects.toml`): a
        // Rust wrapper around a request, a provider SDK or a publisher is
        // the effect wherever it is called, so it is read once the run holds
        // a store (the flow rules read it from the same catalogue).
        let derived = catalogue_words(&named);
        let effect_words = effect_words(&weak, &derived);
        weak_group.extend(std::iter::repeat_n(groups.len(), effect_words.len()));
        weak.extend(effect_words);
        groups.push(Weak {
            parse: vec!["rust".to_string()],
            names: false,
            with: None,
            late: true,
            derived: false,
        });
        let all: Vec<String> = strong.iter().chain(&weak).cloned().collect();
        weak_group.extend(std::iter::repeat_n(groups.len(), derived.len()));
        groups.push(Weak {
            parse: Vec::new(),
            names: true,
            with: None,
            late: false,
            derived: true,
        });
        Keywords {
            any: Words::new(&all, dfa),
            derived: Words::new(&derived, dfa),
            strong: Words::new(&strong, dfa),
            strong_len: strong.len(),
            weak_group,
            groups,
            test_words: false,
            std_methods: p.rust_std_methods,
            prose_macros: p.rust_prose_macros.names,
            all: false,
        }
    }

    /// The reading of the exhaustive mode (`check --exhaustive`,
    /// `IDEMLINT_EXHAUSTIVE=1`) when `all`: every file is read whole,
    /// whatever its words ([`Keywords::reads_all`]). What counts as test
    /// code does not change: that is a judgement, not a reading.
    pub fn exhaustive(mut self, all: bool) -> Self {
        self.all = all;
        self
    }

    /// Whether every file is to be read whole: the prefilter admits all,
    /// none is read for its constants alone, around its words, or late.
    pub fn reads_all(&self) -> bool {
        self.all
    }

    /// The prefilter of a run that judges test code with every rule
    /// (`--include-tests`): words in Rust test code count too.
    pub fn judging_tests(mut self, judged: bool) -> Self {
        self.test_words = judged;
        self
    }

    /// Whether words in test code count ([`Keywords::judging_tests`]).
    pub fn judges_tests(&self) -> bool {
        self.test_words
    }

    /// Whether a file's bytes contain a word that can matter, strong or
    /// weak, in any kind of file.
    pub fn matches(&self, bytes: &[u8]) -> bool {
        lowered(bytes, |lower| self.any.is_match(lower))
    }

    /// Whether a file of `kind` is parsed: [`Keywords::admission`] is not
    /// [`Admission::No`].
    pub fn admits(&self, kind: FileKind, path: &Path, bytes: &[u8]) -> bool {
        matches!(
            self.admission(kind, path, bytes),
            Admission::Full | Admission::Late
        )
    }

    /// Whether a file of `kind` is parsed in full: it holds a strong word,
    /// or a weak word where that word carries meaning. `.conf` files, which
    /// may turn out to be Redis configs ([`refine_kind`]), count as Redis
    /// configs here. A Rust file's words count only outside its comments
    /// (no Rust rule reads comments): `/// This call is idempotent` alone
    /// admits nothing, unless the file's path holds a strong word too.
    /// A file whose only words are a `late` group's is [`Admission::Late`],
    /// unless it may name a store itself or holds a suppression comment.
    pub fn admission(&self, kind: FileKind, path: &Path, bytes: &[u8]) -> Admission {
        self.admission_in(kind, path, bytes, &|| false)
    }

    /// [`Keywords::admission`] of a file that is test code by its path
    /// (`test_path`, `rules/test_code.toml`, asked only when a Rust file's
    /// word lies outside its comments) or not. Unless the run judges
    /// test code, a Rust file's words in test code do not count, as words
    /// in its comments do not: those of a file at a test path, and those of
    /// its `#[cfg(test)]` modules and `#[test]` functions
    /// ([`crate::frontend::rust::comments::test_items`]). No rule judges
    /// what they hold then, and what compiles only for tests serves tests.
    /// A file that holds `idemlint` (a suppression comment) keeps them.
    pub fn admission_in(
        &self,
        kind: FileKind,
        path: &Path,
        bytes: &[u8],
        test_path: &dyn Fn() -> bool,
    ) -> Admission {
        let conf =
            kind == FileKind::Text && path.extension().and_then(|e| e.to_str()) == Some("conf");
        let rust = kind == FileKind::Rust;
        let kind = if conf { FileKind::RedisConf } else { kind };
        let admission = lowered(bytes, |lower| {
            // A dependency manifest is read when it names a library that
            // keeps dedup keys or locks in Redis (`rules/redis.toml`);
            // nothing else in a `Gemfile` or `go.mod` counts.
            let manifest = matches!(kind, FileKind::Manifest | FileKind::Json | FileKind::Toml);
            if manifest && names_dedup_library(lower) {
                Admission::Full
            } else if kind == FileKind::Manifest {
                Admission::No
            } else {
                self.admits_lowered(kind, rust, test_path, path, bytes, lower)
            }
        });
        // A migration that cannot run (a parenthesis never closed in a
        // `CREATE TABLE`) is a parse error whatever it names.
        if matches!(admission, Admission::No | Admission::Schema)
            && kind == FileKind::Sql
            && std::str::from_utf8(bytes)
                .is_ok_and(crate::frontend::sql::has_broken_table_statement)
        {
            return Admission::Full;
        }
        admission
    }

    /// Where a Rust file may hold something a rule reads, for reading it
    /// around its words ([`crate::frontend::rust::parse_around`]): every
    /// word of the prefilter, strong or weak, outside comments (in test
    /// code too); every name that may name a store ([`may_name_a_store`]);
    /// every `cache` in code (the cache reader's word); every string
    /// literal the header model keeps ([`crate::frontend::header_relevant`]).
    /// Ascending. `None` where the file is to be read whole: its bytes are
    /// not UTF-8 (the text is read with replacements, which move offsets),
    /// or it holds a suppression comment, which may name any line.
    pub fn anchors(&self, bytes: &[u8]) -> Option<Vec<usize>> {
        use crate::frontend::rust::comments;
        if memchr::memmem::find(bytes, b"idemlint").is_some() {
            return None;
        }
        let text = std::str::from_utf8(bytes).ok()?;
        let (silent, strings) = comments::comments_and_strings(bytes);
        let in_comment = |at: usize| comments::contains(&silent, at);
        let listed = self.any.words.len();
        let mut out: Vec<usize> = lowered(bytes, |lower| {
            self.any
                .occurrences(lower)
                .map(|(at, _)| at)
                .chain(
                    self.derived
                        .occurrences(lower)
                        .filter(|&(at, p)| !self.unnamed(listed + p, bytes, lower, at))
                        .map(|(at, _)| at),
                )
                .chain(memchr::memmem::find_iter(lower, b"cache"))
                .filter(|&at| !in_comment(at))
                .collect()
        });
        if store_names(bytes, &in_comment, &mut |at| {
            out.push(at);
            ControlFlow::Continue(())
        }) {
            return None;
        }
        out.extend(
            strings
                .iter()
                .filter(|r| literal_value(text, r).is_some_and(crate::frontend::header_relevant))
                .map(|r| r.start),
        );
        out.sort_unstable();
        out.dedup();
        Some(out)
    }

    fn admits_lowered(
        &self,
        kind: FileKind,
        rust: bool,
        test_path: &dyn Fn() -> bool,
        path: &Path,
        bytes: &[u8],
        lower: &[u8],
    ) -> Admission {
        // Every occurrence of every word (strong words first in `any`, then
        // the weak ones). Where words do not count is found at the first
        // occurrence, and most files have none: a Rust file's comments, and
        // a YAML stream's CRD documents (`description: ... dedup ...`,
        // `maxRetries` properties), which document a resource kind and
        // deploy nothing a rule reads. A Rust file's string literals are
        // found by the same scan: a weak word in code (not in a string) is
        // judged as an identifier ([`names_a_store_in_code`]).
        type Ranges = Vec<std::ops::Range<usize>>;
        let scanned: std::cell::OnceCell<(Ranges, Ranges)> = std::cell::OnceCell::new();
        let tests = std::cell::OnceCell::new();
        let mut strong_seen = false;
        let mut with_checked = vec![false; self.groups.len()];
        let mut late = false;
        let mut links_from_code = None;
        let mut key_strings = None;
        let mut calls_concat = None;
        let prose_names = std::cell::OnceCell::new();
        let mut prose_scan = None;
        // Test code is found only when a word would count: most words
        // outside comments admit nothing, and finding a file's test items
        // reads all of it. What a word counts for does not depend on where
        // it lies, so asking last gives what asking first gave. Both are
        // asked once `scanned` is set.
        let in_tests = |at: usize| {
            rust && scanned.get().is_some_and(|(silent, strings)| {
                let tests = tests.get_or_init(|| self.test_code(test_path, bytes, silent, strings));
                crate::frontend::rust::comments::contains(tests, at)
            })
        };
        let in_code = |at: usize| {
            !(scanned
                .get()
                .is_some_and(|(silent, _)| crate::frontend::rust::comments::contains(silent, at))
                || in_tests(at))
        };
        // The catalogue words are looked for once the others have not
        // admitted the file (most files hold none of either), and only in
        // the kinds whose front ends read a table's name.
        let listed = self.any.words.len();
        let derived = reads_table_names(kind)
            .then(|| self.derived.occurrences(lower))
            .into_iter()
            .flatten()
            .map(|(at, p)| (at, listed + p));
        for (start, pattern) in self.any.occurrences(lower).chain(derived) {
            if self.unnamed(pattern, bytes, lower, start) {
                continue;
            }
            let (silent, strings) = scanned.get_or_init(|| match kind {
                FileKind::Rust => crate::frontend::rust::comments::comments_and_strings(bytes),
                FileKind::Yaml => (
                    union(schema_documents(bytes), yaml_prose(bytes, lower)),
                    Vec::new(),
                ),
                FileKind::Json => (json_prose(bytes, lower), Vec::new()),
                _ => (Vec::new(), Vec::new()),
            });
            let strong = pattern < self.strong_len;
            if crate::frontend::rust::comments::contains(silent, start) {
                strong_seen |= rust && strong;
                continue;
            }
            let Some(weak) = pattern.checked_sub(self.strong_len) else {
                let string = rust
                    .then(|| crate::frontend::rust::comments::index_at(strings, start))
                    .flatten();
                let std_method = || string.is_none() && self.std_method_at(bytes, start);
                let mut prose = || {
                    string.is_some_and(|i| {
                        prose_word(bytes, &strings[i], start, self.word(pattern).len())
                            && prose_scan
                                .get_or_insert_with(|| {
                                    crate::frontend::rust::comments::CallScan::new(
                                        bytes,
                                        silent,
                                        strings,
                                        prose_names.get_or_init(|| {
                                            self.prose_macros
                                                .iter()
                                                .map(String::as_str)
                                                .collect::<Vec<_>>()
                                        }),
                                    )
                                    .macros()
                                })
                                .in_macro(i)
                    })
                };
                let c_declaration = || string.is_none() && c_declaration_at(bytes, start);
                if in_tests(start) || (rust && (std_method() || prose() || c_declaration())) {
                    strong_seen = true;
                    continue;
                }
                return Admission::Full;
            };
            let Some(g) = self.weak_group.get(weak) else {
                continue;
            };
            let group = &self.groups[*g];
            if group.parse.iter().any(|k| k == kind.name()) {
                if in_tests(start) {
                    continue;
                }
                if group.late {
                    // Another word may still admit the file in full.
                    late = true;
                    continue;
                }
                return Admission::Full;
            }
            // In Rust code outside string literals, a weak word is part of
            // an identifier: a type, a function, a binding.
            let string = rust
                .then(|| crate::frontend::rust::comments::index_at(strings, start))
                .flatten();
            let identifier = rust && string.is_none();
            let end = start + self.word(pattern).len();
            let name = store_name_at(bytes, start, end);
            if group.names {
                let how = if identifier {
                    let after = &bytes[store_name_end(bytes, end)..];
                    Named::Code(!name.0.ends_with(b"::") || group_may_name_a_table(after))
                } else if let Some(i) = string {
                    let literal = &strings[i];
                    let concat = || {
                        *calls_concat
                            .get_or_insert_with(|| memchr::memmem::find(lower, b"concat").is_some())
                    };
                    if literal_may_name_a_table(bytes, lower, literal, name.0, concat) {
                        Named::Text
                    } else if literal_may_be_a_redis_key(bytes, literal, || {
                        // Asked only where the answer changes the judgement
                        // (it reads the file up to the literal).
                        judged_as(name, Named::NoTable) != judged_as(name, Named::HeaderOnly)
                            && key_strings
                                .get_or_insert_with(|| {
                                    crate::frontend::rust::comments::CallScan::new(
                                        bytes,
                                        silent,
                                        strings,
                                        crate::frontend::rust::REDIS_KEY_CALLS,
                                    )
                                })
                                .in_call(i)
                    }) {
                        Named::NoTable
                    } else {
                        Named::HeaderOnly
                    }
                } else {
                    Named::Text
                };
                let store = judged_as(name, how);
                if store {
                    if in_tests(start) {
                        continue;
                    }
                    return Admission::Full;
                }
            }
            // A word next to Redis (a `receipts` Redis service). In a Rust
            // file, only in a name the Redis model links to an instance
            // (`rules/redis.toml` link words: a `ReceiptCache` whose field
            // is a Redis pool, a `receipts-redis` host); a `webhook_url`
            // beside a Redis client is any service's code. A Rust string
            // gives the Redis model nothing more: a key prefix that names a
            // store is judged as a name above (a literal's first name is a
            // prefix), and Rust declares an instance only with `CONFIG SET
            // maxmemory-policy` or a `redis://` URL, both strong words. An
            // identifier links only through the code [`links`] looks for.
            let mut linkable = || {
                !rust
                    || (redis_link_name(name.0)
                        && (!identifier || *links_from_code.get_or_insert_with(|| links(bytes))))
            };
            // Only a group with `with` words asks whether the name links.
            if let Some(with) = &group.with {
                if !with_checked[*g] && linkable() && !in_tests(start) {
                    with_checked[*g] = true;
                    if with.occurrences(lower).any(|(w, _)| in_code(w)) {
                        return Admission::Full;
                    }
                }
            }
        }
        // A Rust module named for a strong word (`src/idempotency/mod.rs`)
        // is that code, whatever its comments say.
        if strong_seen
            && self
                .strong
                .is_match(&path.as_os_str().as_encoded_bytes().to_ascii_lowercase())
        {
            Admission::Full
        } else if late {
            // A name in a comment or in test code makes no store a rule
            // judges, as a word there admits nothing.
            // A suppression comment is read only from a file that is parsed:
            // one that holds one is not held back, so an unused one is
            // still reported.
            if memchr::memmem::find(bytes, b"idemlint").is_some()
                || may_name_a_store(bytes, &|at| !in_code(at))
            {
                Admission::Full
            } else {
                Admission::Late
            }
        } else if kind == FileKind::Sql && changes_a_table(lower) {
            Admission::Schema
        } else {
            Admission::No
        }
    }

    /// Word `pattern`, lowered: of `any`, or after them of `derived`.
    fn word(&self, pattern: usize) -> &[u8] {
        let listed = self.any.words.len();
        match pattern.checked_sub(listed) {
            Some(i) => &self.derived.words[i],
            None => &self.any.words[pattern],
        }
    }

    /// Whether the occurrence of word `pattern` at `start` is one of the
    /// words taken from the catalogues whose name ([`store_name_at`]) can
    /// be no store and no header name, read as text or as code: such an
    /// occurrence admits nothing, whatever lies around it. Nor does one
    /// where a word of `rules/prefilter.toml` starts too (`idem` in
    /// `idempotent`): that word's judgement stands, with its exceptions
    /// (a C declaration, a message's prose, test code).
    fn unnamed(&self, pattern: usize, bytes: &[u8], lower: &[u8], start: usize) -> bool {
        let Some(g) = pattern
            .checked_sub(self.strong_len)
            .and_then(|w| self.weak_group.get(w))
        else {
            return false;
        };
        if !self.groups[*g].derived {
            return false;
        }
        let end = start + self.word(pattern).len();
        let name = store_name_at(bytes, start, end);
        if !(judged_as(name, Named::Text) || judged_as(name, Named::Code(true))) {
            return true;
        }
        let rest = &lower[start..];
        self.any.words.iter().any(|w| rest.starts_with(w))
    }

    /// Whether the word at `start` of Rust code names a method of the
    /// standard library (`[rust_std_methods]` of `rules/prefilter.toml`) as
    /// std's own call or definition of it reads: `.dedup()`,
    /// `.dedup_by_key(|e| e.id)`, `fn dedup(&mut self)`, `fn dedup_by<F>(&mut
    /// self, same: F) where F: FnMut(..)`. Such a method removes equal
    /// neighbours from a collection; it keeps no key. Anything else (a
    /// store's `dedup(&key)`, a comment between the tokens) is not.
    fn std_method_at(&self, bytes: &[u8], start: usize) -> bool {
        use crate::frontend::rust::comments::{ident_byte, ident_len};
        let len = ident_len(&bytes[start..]);
        if len == 0 || ident_byte(start.checked_sub(1).map(|p| bytes[p])) {
            return false;
        }
        let name = &bytes[start..start + len];
        let is = |names: &[String]| names.iter().any(|n| n.as_bytes() == name);
        let (bare, closure) = (
            is(&self.std_methods.no_arguments),
            is(&self.std_methods.closure_argument),
        );
        if !(bare || closure) {
            return false;
        }
        let after = |at: usize| {
            let mut at = at;
            while bytes.get(at).is_some_and(u8::is_ascii_whitespace) {
                at += 1;
            }
            at
        };
        // What follows, token by token, past whitespace.
        let follows = |mut at: usize, tokens: &[&[u8]]| {
            for t in tokens {
                at = after(at);
                if !bytes[at.min(bytes.len())..].starts_with(t) {
                    return None;
                }
                at += t.len();
            }
            Some(at)
        };
        let mut before = start;
        while before > 0 && bytes[before - 1].is_ascii_whitespace() {
            before -= 1;
        }
        let end = start + len;
        if before > 0 && bytes[before - 1] == b'.' {
            let Some(open) = follows(end, &[b"("]) else {
                return false;
            };
            return if bare {
                follows(open, &[b")"]).is_some()
            } else {
                follows(open, &[b"|"]).is_some() || follows(open, &[b"move", b"|"]).is_some()
            };
        }
        let defines = bytes[..before].ends_with(b"fn")
            && before < start
            && !ident_byte(before.checked_sub(3).map(|p| bytes[p]));
        if !defines {
            return false;
        }
        if bare {
            return follows(end, &[b"(", b"&", b"mut", b"self", b")"]).is_some();
        }
        // `<F..>(&mut self, f: F) where F: FnMut(..)`, up to the body.
        let Some(generics) = follows(end, &[b"<"]) else {
            return false;
        };
        let head = &bytes[generics..bytes.len().min(generics + STD_SIGNATURE_BYTES)];
        let head = &head[..memchr::memchr2(b'{', b';', head).unwrap_or(head.len())];
        memchr::memmem::find(head, b"&mut self").is_some()
            && memchr::memmem::find(head, b"FnMut(").is_some()
    }

    /// Where a Rust file's test code is, when its words do not count: the
    /// whole file at a test path, else its test items.
    fn test_code(
        &self,
        test_path: &dyn Fn() -> bool,
        bytes: &[u8],
        comments: &[std::ops::Range<usize>],
        strings: &[std::ops::Range<usize>],
    ) -> Vec<std::ops::Range<usize>> {
        if self.test_words || memchr::memmem::find(bytes, b"idemlint").is_some() {
            Vec::new()
        } else if test_path() {
            std::iter::once(0..bytes.len()).collect()
        } else {
            crate::frontend::rust::comments::test_items(bytes, comments, strings)
        }
    }

    /// The same search over a file read in chunks, for files too large to
    /// hold; an unreadable file counts as a match so that it is reported.
    pub fn stream_matches(&self, path: &Path) -> bool {
        use std::io::Read;
        let Ok(mut file) = std::fs::File::open(path) else {
            return true;
        };
        // Chunks that overlap by a word's length less one, so that no word
        // is cut in two.
        let keep = self.any.longest().saturating_sub(1);
        let mut buf = vec![0u8; (1 << 20) + keep];
        let mut held = 0;
        loop {
            let n = match file.read(&mut buf[held..]) {
                Ok(0) => return false,
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                // A read error mid-file counts as a match too.
                Err(_) => return true,
            };
            let filled = held + n;
            buf[held..filled].make_ascii_lowercase();
            if self.any.is_match(&buf[..filled]) {
                return true;
            }
            held = keep.min(filled);
            buf.copy_within(filled - held..filled, 0);
        }
    }
}

/// The byte ranges of the documents of a YAML stream that define a
/// Kubernetes CustomResourceDefinition (top-level `apiVersion:
/// apiextensions.k8s.io/...` and `kind: CustomResourceDefinition`). Such a
/// document is an OpenAPI schema of a resource kind: its words are field
/// names and prose, and it deploys nothing a rule reads (no Redis, no
/// setting, no header). Documents are split at `---` and `...` lines, as a
/// YAML parser splits them; a Helm template's `{{ }}` lines change nothing.
fn schema_documents(bytes: &[u8]) -> Vec<std::ops::Range<usize>> {
    if memchr::memmem::find(bytes, b"CustomResourceDefinition").is_none() {
        return Vec::new();
    }
    let mut out = Vec::new();
    let (mut start, mut kind, mut api) = (0, false, false);
    let mut at = 0;
    let mut close = |start: usize, end: usize, kind: bool, api: bool| {
        if kind && api && start < end {
            out.push(start..end);
        }
    };
    for line in bytes.split_inclusive(|&b| b == b'\n') {
        let marker = |m: &[u8]| {
            line.strip_prefix(m)
                .is_some_and(|r| r.first().is_none_or(|b| b.is_ascii_whitespace()))
        };
        if marker(b"---") || marker(b"...") {
            close(start, at, kind, api);
            (start, kind, api) = (at + line.len(), false, false);
        } else if let Some(v) = top_level_value(line, b"kind:") {
            kind |= v == b"CustomResourceDefinition";
        } else if let Some(v) = top_level_value(line, b"apiVersion:") {
            api |= v.starts_with(b"apiextensions.k8s.io/");
        }
        at += line.len();
    }
    close(start, at, kind, api);
    out
}

/// The string values of a JSON document's `"description"` keys that are
/// prose: the documentation of an OpenAPI or JSON Schema document, a
/// Postman collection's notes. A word in them counts as a word in a comment
/// does (the hyperswitch fork's v2 OpenAPI spec, 1 MiB, says `idempotency`
/// only there). What the readers take from a value:
/// - a header name or a Redis key prefix, from a string without whitespace
///   ([`crate::frontend::header_shaped`], `model::redis`'s prefix
///   literals), so a value counts as prose only with whitespace between
///   its words;
/// - a Redis host, from a value with `://` or under a key that speaks of
///   Redis and a host (a host with spaces matches no instance), so a value
///   with `://` is not prose;
/// - a `maxmemory-policy` flag or directive, from any scalar
///   (`redis_yaml`), so a value that says `maxmemory` is not prose.
///
/// Settings are read by their keys, which stay outside these ranges. A
/// file that holds `idemlint` (a suppression in JSON with comments) has
/// none, so that it is still parsed. A key is a `"description"` after `{`
/// or `,` and before `:`; an escaped one, inside another string, is not.
/// `lower` is `bytes` lowered.
fn json_prose(bytes: &[u8], lower: &[u8]) -> Vec<std::ops::Range<usize>> {
    const KEY: &[u8] = b"\"description\"";
    let skip_ws = |mut i: usize| {
        while bytes.get(i).is_some_and(u8::is_ascii_whitespace) {
            i += 1;
        }
        i
    };
    prose_values(bytes, lower, KEY, |at| {
        let key = bytes[..at]
            .iter()
            .rposition(|b| !b.is_ascii_whitespace())
            .is_some_and(|i| matches!(bytes[i], b'{' | b','));
        let colon = skip_ws(at + KEY.len());
        if !key || bytes.get(colon) != Some(&b':') {
            return None;
        }
        let open = skip_ws(colon + 1);
        if bytes.get(open) != Some(&b'"') {
            return None;
        }
        let end = crate::frontend::rust::comments::string_end(bytes, open + 1);
        Some((open..end, open + 1..end.saturating_sub(1).max(open + 1)))
    })
}

/// The scalar values of a YAML document's `description:` keys that are
/// prose (an OpenAPI spec's or a JSON Schema's documentation): the same
/// judgement as [`json_prose`], on a plain, quoted or block (`|`, `>`)
/// scalar that starts on the key's line and runs on over the lines
/// indented deeper than the key. A `description:` with nothing after it
/// (a schema property named `description`, whose mapping follows), a flow
/// collection, an anchor, an alias, a tag or a template (`{{ }}`) is not
/// prose; nor is a quoted key or one inside a flow mapping. `lower` is
/// `bytes` lowered.
fn yaml_prose(bytes: &[u8], lower: &[u8]) -> Vec<std::ops::Range<usize>> {
    const KEY: &[u8] = b"description:";
    let indent = |line: &[u8]| line.iter().take_while(|&&b| b == b' ').count();
    let line_end =
        |from: usize| memchr::memchr(b'\n', &bytes[from..]).map_or(bytes.len(), |i| from + i);
    prose_values(bytes, lower, KEY, |at| {
        let line_start = bytes[..at]
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1);
        let before = bytes[line_start..at].trim_ascii_start();
        if !(before.is_empty() || before == b"- ") {
            return None;
        }
        let column = at - line_start;
        let value = at + KEY.len();
        let first_end = line_end(value);
        let first = bytes[value..first_end].trim_ascii();
        if !bytes.get(value).is_some_and(|&b| b == b' ' || b == b'\t')
            || first.is_empty()
            || matches!(first[0], b'{' | b'[' | b'&' | b'*' | b'!' | b'#')
        {
            return None;
        }
        // The lines after it that are blank or indented deeper than the key.
        let mut end = first_end;
        while end < bytes.len() {
            let next = end + 1;
            let next_end = line_end(next);
            let line = &bytes[next..next_end];
            if !(line.trim_ascii().is_empty() || indent(line) > column) {
                break;
            }
            end = next_end;
        }
        // A block scalar's words start on the line after its indicator.
        let words = match first[0] {
            b'|' | b'>' => first_end.min(end)..end,
            _ => value..end,
        };
        Some((value..end, words))
    })
}

/// The value ranges `value_at` reads after each occurrence of `key` (the
/// scan goes on after a value's end), kept where the value's words (the
/// second range) are prose: words with whitespace between them, and no
/// `://` (a host may be read from a URL), no `maxmemory` (a policy flag or
/// directive is read from any scalar) and no `{{` (a template), searched in
/// `lower`, the text lowered. A file that holds `idemlint` (a suppression
/// comment, read only from a parsed file) has none.
fn prose_values(
    bytes: &[u8],
    lower: &[u8],
    key: &[u8],
    value_at: impl Fn(usize) -> Option<(std::ops::Range<usize>, std::ops::Range<usize>)>,
) -> Vec<std::ops::Range<usize>> {
    let mut out = Vec::new();
    if memchr::memmem::find(bytes, b"idemlint").is_some() {
        return out;
    }
    let mut from = 0;
    for at in memchr::memmem::find_iter(bytes, key) {
        if at < from {
            continue;
        }
        let Some((range, words)) = value_at(at) else {
            continue;
        };
        from = range.end;
        let words = lower[words].trim_ascii();
        let holds = |w: &[u8]| memchr::memmem::find(words, w).is_some();
        if words.iter().any(u8::is_ascii_whitespace)
            && !holds(b"://")
            && !holds(b"maxmemory")
            && !holds(b"{{")
        {
            out.push(range);
        }
    }
    out
}

/// Two lists of ascending ranges as one, ascending and disjoint.
fn union(
    a: Vec<std::ops::Range<usize>>,
    b: Vec<std::ops::Range<usize>>,
) -> Vec<std::ops::Range<usize>> {
    if b.is_empty() {
        return a;
    }
    let mut all = a;
    all.extend(b);
    all.sort_by_key(|r| r.start);
    let mut out: Vec<std::ops::Range<usize>> = Vec::with_capacity(all.len());
    for r in all {
        match out.last_mut() {
            Some(last) if r.start <= last.end => last.end = last.end.max(r.end),
            _ => out.push(r),
        }
    }
    out
}

/// The value of a top-level `key:` line, unquoted, without a trailing
/// comment or spaces.
fn top_level_value<'a>(line: &'a [u8], key: &[u8]) -> Option<&'a [u8]> {
    let v = line.strip_prefix(key)?;
    let v = match memchr::memmem::find(v, b" #") {
        Some(i) => &v[..i],
        None => v,
    };
    let v = v.trim_ascii();
    let v = v
        .strip_prefix(b"\"")
        .and_then(|v| v.strip_suffix(b"\""))
        .or_else(|| v.strip_prefix(b"'").and_then(|v| v.strip_suffix(b"'")))
        .unwrap_or(v);
    Some(v)
}

/// Whether the word `bytes[start..start + len]`, inside the Rust string
/// literal `literal`, is a word of prose: the literal holds a space, and
/// the name around the word ([`name_part`] bytes) is letters alone (`call
/// was idempotent`, `(replayed)`). A name with a separator or a digit
/// (`idem:{}`, `Idempotency-Key`, `dedup_v2`) is not; nor is a word with a
/// space in it (`drop index`), nor a lone word (`"idempotent"`).
fn prose_word(bytes: &[u8], literal: &std::ops::Range<usize>, start: usize, len: usize) -> bool {
    let text = &bytes[literal.clone()];
    let start = start - literal.start;
    let end = (start + len).min(text.len());
    let from = text[..start]
        .iter()
        .rposition(|b| !name_part(b))
        .map_or(0, |p| p + 1);
    let to = text[end..]
        .iter()
        .position(|b| !name_part(b))
        .map_or(text.len(), |p| end + p);
    memchr::memchr(b' ', text).is_some() && text[from..to].iter().all(u8::is_ascii_alphabetic)
}

/// Whether the word at `start` of Rust code (outside strings and comments)
/// is part of a C declaration: Rust names its types in UpperCamelCase and
/// C in lower case with `_` (`ff_replay`, `c_uint`, `size_t`), so a type
/// named C's way is a binding's mirror of C, not Rust's own
/// (https://rust-lang.github.io/api-guidelines/naming.html, "Types |
/// UpperCamelCase", read 2026-12-05). The word is C's where its name is
/// such a type where it is declared (`struct ff_replay`, `union`, `type`),
/// such a type that the file declares (`replay: ff_replay`), or the name of
/// a field, constant or static declared with such a type (`pub replay:
/// ff_replay,`, `pub const CONNECT_DATA_IDEMPOTENT: c_uint = 0x2;`). A
/// binding's or a struct literal's field (`Event { dedup: dedup_key }`),
/// a parameter, and anything typed in UpperCamelCase or as a primitive
/// (`pub const IDEMPOTENCY_TTL_SECS: u64`) are not.
fn c_declaration_at(bytes: &[u8], start: usize) -> bool {
    use crate::frontend::rust::comments::{c_cased, c_typed, ident_byte};
    let s = bytes[..start]
        .iter()
        .rposition(|&b| !ident_byte(Some(b)))
        .map_or(0, |p| p + 1);
    let e = start + crate::frontend::rust::comments::ident_len(&bytes[start..]);
    let name = &bytes[s..e];
    let before = bytes[..s].trim_ascii_end();
    let keyword = previous_word(bytes, s);
    if c_cased(name) && matches!(keyword, b"struct" | b"union" | b"type") {
        return true;
    }
    let declared = match keyword {
        b"pub" | b"const" | b"static" => true,
        b"mut" => previous_word(bytes, before.len() - keyword.len()) == b"static",
        _ => before.ends_with(b")") && visibility_before(bytes, s),
    };
    if declared && c_typed(&bytes[e..]) {
        return true;
    }
    c_cased(name) && declares_c_type(bytes, name)
}

/// The identifier that ends where only whitespace lies before `at`;
/// empty when something else does.
fn previous_word(bytes: &[u8], at: usize) -> &[u8] {
    use crate::frontend::rust::comments::ident_byte;
    let end = bytes[..at].trim_ascii_end().len();
    let from = bytes[..end]
        .iter()
        .rposition(|&b| !ident_byte(Some(b)))
        .map_or(0, |p| p + 1);
    &bytes[from..end]
}

/// Whether a restricted visibility (`pub(crate)`, `pub(in a::b)`) ends
/// right before `at`.
fn visibility_before(bytes: &[u8], at: usize) -> bool {
    let head = bytes[..at].trim_ascii_end();
    let Some(open) = memchr::memrchr(b'(', head) else {
        return false;
    };
    !head[open..].contains(&b'\n') && previous_word(bytes, open) == b"pub"
}

/// Whether the file declares `name` as a type (`struct name`, `union name`,
/// `type name`).
fn declares_c_type(bytes: &[u8], name: &[u8]) -> bool {
    use crate::frontend::rust::comments::ident_byte;
    memchr::memmem::find_iter(bytes, name).any(|at| {
        !ident_byte(bytes.get(at + name.len()).copied())
            && !ident_byte(at.checked_sub(1).map(|p| bytes[p]))
            && matches!(previous_word(bytes, at), b"struct" | b"union" | b"type")
    })
}

/// The name around `bytes[start..end]` (letters, digits, `_`, `-`, `:`),
/// and whether it starts a literal or follows a placeholder.
fn store_name_at(bytes: &[u8], start: usize, end: usize) -> (&[u8], bool) {
    let from = bytes[..start]
        .iter()
        .rposition(|b| !name_part(b))
        .map_or(0, |i| i + 1);
    let to = store_name_end(bytes, end);
    // A Redis key prefix is a string's text (`"processed:adyen:{id}"`,
    // `` `processed:${id}` ``), not a path (`Status::Reprocessed`) nor a
    // variable (`members_processed`): its name has a lone `:` or starts a
    // literal or follows a placeholder.
    let literal = from
        .checked_sub(1)
        .is_some_and(|i| matches!(bytes[i], b'"' | b'\'' | b'`' | b'}'));
    (&bytes[from..to], literal)
}

/// Whether a weak word's name, found as `how`, names a store ([`judged`]).
fn judged_as(name: (&[u8], bool), how: Named) -> bool {
    judged(name, how, || match how {
        Named::Code(open) => names_a_store_in_code(name.0, open),
        Named::NoTable => names_a_store(name, false),
        // Neither a table nor a key prefix: no literal start.
        Named::HeaderOnly => names_a_store((name.0, false), false),
        Named::Text => names_a_store(name, true),
        Named::Link => {
            let words = &crate::knowledge::redis().link_words;
            path_segments(name.0)
                .iter()
                .any(|seg| !seg.is_empty() && words.matches(&crate::knowledge::snake(seg)))
        }
        Named::Token => std::str::from_utf8(name.0).is_ok_and(|token| {
            let stores = crate::knowledge::stores();
            let snake = crate::knowledge::snake(token);
            [token, snake.as_str()].iter().any(|n| {
                stores.is_store_table(n)
                    || stores.is_provider_event_table(n)
                    || stores.redis_prefix.matches(n)
            })
        }),
    })
}

/// The judgement of a weak word's name, made once a thread: the same names
/// recur through a file (`webhook_url` in every handler) and across the
/// files of a tree (`IncomingWebhookEvent` across a payment switch's
/// connectors).
/// A judgement depends on the name and the catalogues alone. The memory is
/// bounded: past [`JUDGED_MAX`] names a thread starts again.
fn judged((name, literal): (&[u8], bool), how: Named, judge: impl FnOnce() -> bool) -> bool {
    // One slot a way of judging: `how` and whether the name starts a
    // literal.
    let slot = usize::from(literal)
        + 2 * match how {
            Named::Code(false) => 0,
            Named::Code(true) => 1,
            Named::NoTable => 2,
            Named::Text => 3,
            Named::HeaderOnly => 4,
            Named::Token => 5,
            Named::Link => 6,
        };
    if let Some(known) = JUDGED.with_borrow(|j| j.get(name).and_then(|s| s[slot])) {
        return known;
    }
    let store = judge();
    JUDGED.with_borrow_mut(|j| {
        if j.len() >= JUDGED_MAX && !j.contains_key(name) {
            j.clear();
        }
        j.entry(Box::from(name)).or_default()[slot] = Some(store);
    });
    store
}

type Judged = std::collections::HashMap<Box<[u8]>, [Option<bool>; 14]>;

thread_local! {
    static JUDGED: std::cell::RefCell<Judged> = std::cell::RefCell::default();
}

/// Let go of this thread's judgements ([`judged`]): the read threads live
/// on through the parse, and the names of a polyglot tree (medusa: its
/// JavaScript) are a few MiB that its peak cannot spare.
pub fn forget_judgements() {
    JUDGED.set(Judged::default());
}

/// How many names a thread keeps the judgement of ([`judged`]): about
/// 5 MiB at most.
const JUDGED_MAX: usize = 50_000;

/// Where a weak word's name is, for judging it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Named {
    /// Rust code outside string literals: an identifier; whether what
    /// follows a name that ends in `::` may be a table's module
    /// ([`group_may_name_a_table`]).
    Code(bool),
    /// A Rust string literal the front end cannot read a table from
    /// ([`literal_may_name_a_table`]): it can still be a Redis key prefix
    /// or a header name.
    NoTable,
    /// A Rust string literal that can be neither a table nor part of a
    /// Redis key ([`literal_may_be_a_redis_key`]): only a header name.
    HeaderOnly,
    /// Any other text.
    Text,
    /// A name in Rust that may link a Redis instance ([`redis_link_name`]).
    Link,
    /// A whole identifier or word of a held file that holds a piece of a
    /// store word ([`may_name_a_store`]): a table, a provider's event
    /// table or a Redis key prefix, as itself or in snake case.
    Token,
}

/// Whether a Rust string literal (its range `r`) may give the front end a
/// table: only SQL text does (`rust::sql_strings`: a literal, a raw
/// string, `concat!` of literals or a `const` handed to a query call,
/// read by `sql::dml` and the schema reader), and every statement they
/// read a table from holds one of [`SQL_WORDS`] in the same literal. So a
/// literal without one (`"incoming_webhook_events"` as a map key or a
/// route, `"Processed"` as an enum's text) is never a table, nor is one
/// that is a CamelCase name and nothing else (`"AdyenIncomingWebhook"`,
/// `"airwallexWebhookData"`: letters and digits, both cases), the type a
/// body is parsed into (`parse_struct("StripeWebhookEvent")`), a serde
/// tag, an error's subject; a table in a query builder is a path. Both can
/// still be a Redis key prefix or a header name. In a file that calls
/// `concat!` (`calls_concat`, asked only when needed), where a statement
/// may be split over literals, or a literal with a `\x`/`\u` escape
/// (which can spell any letter), every literal may.
fn literal_may_name_a_table(
    bytes: &[u8],
    lower: &[u8],
    r: &std::ops::Range<usize>,
    name: &[u8],
    calls_concat: impl FnOnce() -> bool,
) -> bool {
    let whole = bytes
        .get(r.start..r.end)
        .and_then(|s| s.strip_prefix(b"\""))
        .and_then(|s| s.strip_suffix(b"\""));
    let type_name = whole == Some(name)
        && name.iter().all(u8::is_ascii_alphanumeric)
        && name.iter().any(u8::is_ascii_uppercase)
        && name.iter().any(u8::is_ascii_lowercase);
    if type_name {
        return false;
    }
    let text = &lower[r.start..r.end];
    let holds = |w: &[u8]| memchr::memmem::find(text, w).is_some();
    SQL_WORDS.iter().any(|w| holds(w)) || holds(b"\\x") || holds(b"\\u") || calls_concat()
}

/// Whether a Rust string literal (its range `r`; one the front end reads
/// no table from) may still be read as part of a Redis key: the key
/// readers (`rust::flow`, `rust::retention`) take a key from the first
/// argument of a Redis command's method (`conn.get("…")`,
/// `cmd("SET").arg("…")`), from a `format!`/`concat!` there or bound to a
/// name, or from a binding's value; and the model reads a prefix from any
/// literal holding a `:` (`"processed:{}"`). So a literal without `:` or an
/// escape (which could spell one) that lies in no bracket of those calls
/// ([`crate::frontend::rust::REDIS_KEY_CALLS`]) and is no binding's value
/// (`field_name: "incoming_webhook_event_type"`, a route
/// `web::resource("outgoing_webhook_event_logs")`, a match arm's text) can
/// only be a header name. `in_key_call` says whether it lies in such a
/// call or follows `=`
/// ([`crate::frontend::rust::comments::strings_in_calls`]).
fn literal_may_be_a_redis_key(
    bytes: &[u8],
    r: &std::ops::Range<usize>,
    in_key_call: impl FnOnce() -> bool,
) -> bool {
    memchr::memchr2(b':', b'\\', &bytes[r.clone()]).is_some() || in_key_call()
}

/// The words of a statement [`literal_may_name_a_table`] looks for,
/// lowercase: `sql::dml` reads a table after `INSERT`, `REPLACE`,
/// `UPDATE`, `DELETE FROM`, `FROM` or `JOIN`, and the schema reader only
/// in text that starts with `CREATE`, `ALTER` or `DROP`. Searched as
/// substrings, so an identifier holding one (`created_at`) keeps a literal
/// a possible table: a wider net, never a narrower one.
const SQL_WORDS: &[&[u8]] = &[
    b"insert", b"replace", b"update", b"delete", b"from", b"join", b"create", b"alter", b"drop",
];

/// Whether a Rust file has code through which a name linked to Redis
/// (`rules/redis.toml` link words: `ReceiptStore`) can reach the Redis
/// model: a type named `…cache…` (the cache walk runs only in a file that
/// holds the word, [`crate::frontend::rust::cache`]), or a line that calls
/// a link-named identifier (`model::redis::store_code_lines`, the only
/// lines through which code reads a generic Redis setting). Without
/// either, a `Receipt` enum variant beside a `RedisKv` one links nothing.
/// Text that is not UTF-8 is let through.
fn links(bytes: &[u8]) -> bool {
    let Ok(text) = std::str::from_utf8(bytes) else {
        return true;
    };
    crate::knowledge::contains_ignore_ascii_case(text, "cache")
        || !crate::model::redis::store_code_lines(text).is_empty()
}

/// Whether the name [`store_name_at`] found is an idempotency store of
/// `rules/stores.toml` or a header name of `rules/headers.toml`:
/// `processed_webhook_events`, `ProcessedEvent`, `webhook:event:`,
/// `stripe_webhooks`, `webhook-id`; not `webhook_url` nor `WebhookConfig`.
/// A table only when `tables` (not for a [`Named::NoTable`] literal,
/// which can still be a Redis key prefix or a header name).
fn names_a_store((name, literal): (&[u8], bool), tables: bool) -> bool {
    let Ok(name) = std::str::from_utf8(name) else {
        return false;
    };
    let name = name.trim_matches(|c| c == ':' || c == '-');
    let stores = crate::knowledge::stores();
    let prefix =
        (literal || (name.contains(':') && !name.contains("::"))) && stores.is_store_prefix(name);
    prefix
        || (tables && {
            let snake = crate::knowledge::snake(name);
            [name, snake.as_str()].iter().any(|n| {
                stores.is_store_table(n)
                    || stores.is_provider_event_table(n)
                    || stores.weak_table.matches(n)
            })
        })
        || names_a_header(name)
}

/// Whether `name` is a header name of `rules/headers.toml`, whatever its
/// separators when it holds a `-` (`PayPal_Request-Id` is a miss the
/// header rule reports) or when it is a constant naming the header
/// (`PAYPAL_REQUEST_ID`, `IDEMPOTENCY_KEY`), but not a `webhookId`
/// variable.
fn names_a_header(name: &str) -> bool {
    let squashed = |s: &str| {
        s.bytes()
            .filter(u8::is_ascii_alphanumeric)
            .map(|b| b.to_ascii_lowercase())
            .collect::<Vec<u8>>()
    };
    let hyphened = (name.contains('-') || is_constant_name(name)).then(|| squashed(name));
    let headers = crate::knowledge::headers();
    headers
        .canonical
        .iter()
        .chain(&headers.legitimate)
        .any(|h| {
            h.name.eq_ignore_ascii_case(name)
                || hyphened.as_ref().is_some_and(|n| *n == squashed(&h.name))
        })
}

/// A Rust constant's name: words in capitals joined by `_` (`PAYPAL_REQUEST_ID`).
fn is_constant_name(name: &str) -> bool {
    name.contains('_') && !name.bytes().any(|b| b.is_ascii_lowercase())
}

/// Whether a Rust path outside any string literal (`webhook_events::table`,
/// `mark_event_processed`, `api_models::webhooks::IncomingWebhookEvent`)
/// names a store. Each segment is judged alone, so that words of different
/// segments do not make a pair (`EventReportStatus::Processed`). A segment
/// is written as a table when it is a retention name (`WEBHOOK_EVENTS_TTL`)
/// or a snake-case module the way diesel's table modules are used, the
/// only way the Rust front end reads a table from a path
/// (`rust::sql_strings::dsl_table`): followed by `table` or `dsl`
/// (`webhook_events::table`, `webhook_events::dsl::webhook_events`), or
/// left open at the name's end with `open` set (`webhook_events::{table,
/// dsl}`). A module followed by a type or a function
/// (`api_models::webhook_events::EventListItemResponse`) is not.
/// `knowledge::Stores::is_store_name_in_code` says which conventions count
/// where.
fn names_a_store_in_code(name: &[u8], open: bool) -> bool {
    let stores = crate::knowledge::stores();
    let retention = crate::knowledge::retention_words();
    let segments = path_segments(name);
    let last = segments.len().saturating_sub(1);
    segments.iter().enumerate().any(|(i, seg)| {
        if seg.is_empty() {
            return false;
        }
        let snake_case = !seg.bytes().any(|b| b.is_ascii_uppercase());
        // `a::b::` splits into `a`, `b` and an empty last segment.
        let module = snake_case
            && match segments.get(i + 1).copied() {
                Some("table" | "dsl") => true,
                Some("") => open && i + 1 == last,
                _ => false,
            };
        let as_table = module || retention.is_retention_name(seg);
        stores.is_store_name_in_code(seg, as_table)
            || (is_constant_name(seg) && names_a_header(seg))
    })
}

/// Whether a Rust file's code or strings (outside what is `silent`: its
/// comments, and its test code unless the run judges it) may name a
/// store by a convention the model reads, the way the model reads it: a
/// table (`seen_events`, `SeenEvents`), a provider's event table
/// (`stripe_events`), a Redis key prefix or key expression
/// (`processed_key`). Some of those names hold no prefilter word, so a file
/// held back for its retries ([`Admission::Late`]) that holds one is parsed
/// in full: a held file must not be able to make a store. A convention word
/// holding a separator (`idem:`) is looked for in the whole text.
fn may_name_a_store(bytes: &[u8], silent: &dyn Fn(usize) -> bool) -> bool {
    store_names(bytes, silent, &mut |_| ControlFlow::Break(()))
}

/// Where [`may_name_a_store`] finds a name that may name a store: `found`
/// is given the start of each (a convention word holding a separator
/// wherever it lies, silent or not), until it breaks. Whether it broke,
/// or the text is not UTF-8 (then nothing is looked for).
fn store_names(
    bytes: &[u8],
    silent: &dyn Fn(usize) -> bool,
    found: &mut dyn FnMut(usize) -> ControlFlow<()>,
) -> bool {
    let Ok(text) = std::str::from_utf8(bytes) else {
        return true;
    };
    let stores = crate::knowledge::stores();
    let words = store_words(stores);
    let word_byte = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    // `idem:`, `webhook:event`: across identifiers.
    for w in words.iter().filter(|w| !w.bytes().all(word_byte)) {
        for at in crate::knowledge::find_ignore_ascii_case(text, w) {
            if found(at).is_break() {
                return true;
            }
        }
    }
    // A name can match only if it holds a letters-and-digits piece of a
    // word (`webhook_event`: `webhook`, `event`): each name that does, from
    // one search for every piece, once.
    static PIECES: OnceLock<Option<AhoCorasick>> = OnceLock::new();
    let Some(pieces) = PIECES.get_or_init(|| {
        let pieces = words
            .iter()
            .flat_map(|w| w.split(|c: char| !c.is_ascii_alphanumeric()))
            .filter(|p| !p.is_empty());
        AhoCorasick::builder()
            .ascii_case_insensitive(true)
            .build(pieces)
            .ok()
    }) else {
        return true;
    };
    let mut seen = 0;
    for m in pieces.find_iter(bytes) {
        if m.start() < seen {
            continue;
        }
        // Pieces are letters and digits: the match lies in one name.
        let start = bytes[..m.start()]
            .iter()
            .rposition(|b| !word_byte(*b))
            .map_or(0, |i| i + 1);
        let end = bytes[m.end()..]
            .iter()
            .position(|b| !word_byte(*b))
            .map_or(bytes.len(), |i| m.end() + i);
        seen = end;
        // Bytes of a word are ASCII: `start..end` is on char boundaries.
        let token = &text[start..end];
        if silent(start) {
            continue;
        }
        // The same identifiers recur through a file and a crate: each is
        // judged once a thread.
        if judged_as((token.as_bytes(), false), Named::Token) && found(start).is_break() {
            return true;
        }
    }
    false
}

/// What a Rust string literal's range (from its opening quote, or the
/// `r#`/`b` before it, past its closing quote and `#`s) holds between its
/// quotes, escapes as written.
fn literal_value<'t>(text: &'t str, r: &std::ops::Range<usize>) -> Option<&'t str> {
    let s = text.get(r.clone())?;
    let s = s
        .trim_start_matches(['b', 'c', 'r', '#'])
        .trim_end_matches('#');
    s.strip_prefix('"')?.strip_suffix('"')
}

/// The words of the store conventions [`may_name_a_store`] looks for: of
/// tables, Redis key prefixes and provider event tables.
fn store_words(stores: &crate::knowledge::Stores) -> Vec<&String> {
    [
        &stores.table,
        &stores.redis_prefix,
        &stores.provider_event_table,
    ]
    .into_iter()
    .flat_map(|w| {
        w.substrings
            .iter()
            .chain(&w.parts)
            .chain(w.pairs.iter().flatten())
    })
    .collect()
}

/// A byte of a name [`store_name_at`] finds.
fn name_part(b: &u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b':')
}

/// Where the name around a word ending at `end` ends.
fn store_name_end(bytes: &[u8], end: usize) -> usize {
    bytes[end..]
        .iter()
        .position(|b| !name_part(b))
        .map_or(bytes.len(), |i| end + i)
}

/// Whether what follows a path's `::` may name a table's module: anything
/// but a `{ .. }` group without `table` or `dsl` in it (`use
/// api_models::webhook_events::{EventListItemResponse, ..}`), nested
/// groups included. A group that is not closed may.
fn group_may_name_a_table(after: &[u8]) -> bool {
    let rest = after.trim_ascii_start();
    if !rest.starts_with(b"{") {
        return true;
    }
    let mut depth = 0usize;
    let Some(close) = rest.iter().position(|b| {
        match b {
            b'{' => depth += 1,
            b'}' => depth -= 1,
            _ => {}
        }
        depth == 0
    }) else {
        return true;
    };
    rest[..close]
        .split(|b| !(b.is_ascii_alphanumeric() || *b == b'_'))
        .any(|w| w == b"table" || w == b"dsl")
}

/// Whether a segment of a Rust path is named with a word the Redis model
/// links a Redis instance by (`ReceiptCache`, `receipts_redis`).
fn redis_link_name(name: &[u8]) -> bool {
    // Asked of most weak words in Rust, and the same names recur (a
    // payment switch's `IncomingWebhookEvent`): judged once a thread.
    judged_as((name, false), Named::Link)
}

/// The `::` segments of a name [`store_name_at`] found in Rust code, stray
/// `:` and `-` trimmed (`inbox_url:` of a field); none when it is not UTF-8.
fn path_segments(name: &[u8]) -> Vec<&str> {
    std::str::from_utf8(name).map_or_else(
        |_| Vec::new(),
        |name| {
            name.split("::")
                .map(|s| s.trim_matches(|c| c == ':' || c == '-'))
                .collect()
        },
    )
}

/// Whether the front end of `kind` reads the name of a table (SQL; SQL
/// text and table modules in Rust; SQL and ORM calls in the sources of
/// other languages, `text::table_uses`), the names the catalogue words
/// ([`catalogue_words`]) stand in. Configuration kinds name a store only
/// by the words of `rules/prefilter.toml` (a header name, a Redis link
/// word, a declared store), all of them listed.
fn reads_table_names(kind: FileKind) -> bool {
    matches!(kind, FileKind::Sql | FileKind::Rust | FileKind::Text)
}

/// The words by which the model recognises a store, a provider's event
/// table or a header that no word of `named` (the strong words and the
/// weak words judged by their names) holds, so that a file that can hold
/// something the model recognises is always read: the match words of the
/// counterparties with inbound deliveries (`stripe_events`,
/// `adyen_notifications`: `rules/stores.toml` `[provider_event_table]`,
/// `rules/counterparties.toml`), the words of the store table and Redis
/// key conventions of `rules/stores.toml` (the first word of each pair:
/// `seen_events`, `handled_webhooks`), the header names of
/// `rules/headers.toml` and the Redis link words of `rules/redis.toml`.
/// They are judged as the names around them, as the weak words of a
/// `names` group are. Lowered, without duplicates.
/// The words of `rules/effects.toml` that mark a Rust file as one that may
/// define an effect the project calls through its own client, less those
/// another group already holds and those the catalogue words hold (a
/// provider's name: `stripe_events` must stay the catalogue's to judge).
fn effect_words(weak: &[String], derived: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for w in &crate::knowledge::effects().possible_effect.admit_words {
        let w = w.to_ascii_lowercase();
        let catalogued = derived
            .iter()
            .any(|d| d.contains(w.as_str()) || w.contains(d.as_str()));
        if w.len() >= 3 && !catalogued && !weak.contains(&w) && !out.contains(&w) {
            out.push(w);
        }
    }
    out
}

fn catalogue_words(named: &[String]) -> Vec<String> {
    let stores = crate::knowledge::stores();
    let headers = crate::knowledge::headers();
    let counterparties = crate::knowledge::counterparties();
    let link = &crate::knowledge::redis().link_words;
    let conventions = [
        &stores.table,
        &stores.redis_prefix,
        &stores.weak_table,
        link,
    ];
    let words = conventions
        .into_iter()
        .flat_map(|w| {
            w.substrings
                .iter()
                .chain(&w.parts)
                .chain(w.pairs.iter().map(|[a, _]| a))
        })
        .chain(
            counterparties
                .counterparty
                .iter()
                .filter(|c| c.inbound_horizon().is_some())
                .flat_map(|c| &c.r#match),
        )
        .chain(
            headers
                .canonical
                .iter()
                .chain(&headers.legitimate)
                .map(|h| &h.name),
        );
    let named: Vec<String> = named.iter().map(|w| w.to_ascii_lowercase()).collect();
    let mut out: Vec<String> = Vec::new();
    for w in words {
        let w = w.to_ascii_lowercase();
        if w.len() >= 3 && !named.iter().any(|n| w.contains(n.as_str())) && !out.contains(&w) {
            out.push(w);
        }
    }
    // A word that holds another (`transferwise`, `wise`) is found where the
    // other is: the name around either is the same.
    kept_words(&out).into_iter().cloned().collect()
}

/// Whether a lowered SQL text may change the shape of a table: it holds
/// `table` (`CREATE TABLE`, `ALTER TABLE`), `index` (a unique index is a
/// guard) or `rename`.
fn changes_a_table(lower: &[u8]) -> bool {
    memchr::memmem::find(lower, b"table").is_some()
        || memchr::memmem::find(lower, b"index").is_some()
        || memchr::memmem::find(lower, b"rename").is_some()
}

/// Whether a lowered SQL text names `table` (lowered, bare of its schema):
/// an occurrence not inside a longer name (`"TaskRun"`, `taskrun`, not
/// `taskrunattempt`).
pub fn names_table(lower: &[u8], table: &str) -> bool {
    let t = table.as_bytes();
    if t.is_empty() {
        return false;
    }
    let part = |b: Option<&u8>| b.is_some_and(|&c| c.is_ascii_alphanumeric() || c == b'_');
    memchr::memmem::find_iter(lower, t)
        .any(|at| !part(at.checked_sub(1).map(|p| &lower[p])) && !part(lower.get(at + t.len())))
}

/// The built-in prefilter, without the names a config declares.
fn builtin_keywords() -> &'static Keywords {
    static M: OnceLock<Keywords> = OnceLock::new();
    M.get_or_init(|| Keywords::new(&[], DFA_FROM_FILES))
}

/// Whether a file's bytes contain a built-in word that can matter.
pub fn prefilter(bytes: &[u8]) -> bool {
    builtin_keywords().matches(bytes)
}

/// Whether the built-in prefilter admits a text of `kind` that is not
/// Rust (no path is asked): for a front end that could read none of a
/// file, whether what it did not read can hold what a rule checks, as
/// the prefilter judges it. A file the prefilter would not let through
/// hides nothing, whichever way the run reads.
pub fn admits_text(kind: FileKind, bytes: &[u8]) -> bool {
    builtin_keywords().admits(kind, Path::new(""), bytes)
}

/// How the built-in prefilter admits a Rust text, its path not asked: the
/// same in a run that reads every file whole, so a recogniser that reads
/// only what it admits finds the same in both.
pub fn rust_admission(bytes: &[u8]) -> Admission {
    builtin_keywords().admission(FileKind::Rust, Path::new(""), bytes)
}

/// How far into a Rust file the head of a generator is looked for.
const GENERATED_HEAD_BYTES: usize = 256;

/// Whether a Rust file is a generator's output that no rule reads: its
/// first bytes hold one of the `[rust_generated]` heads of
/// `rules/prefilter.toml` (`/* automatically generated by rust-bindgen */`:
/// C declarations). Such a file is not read at all, neither in full nor for
/// its constants.
pub fn generated_rust(bytes: &[u8]) -> bool {
    static H: OnceLock<Vec<String>> = OnceLock::new();
    let heads = H.get_or_init(|| builtin().rust_generated.map_or_else(Vec::new, |g| g.heads));
    let head = &bytes[..bytes.len().min(GENERATED_HEAD_BYTES)];
    heads
        .iter()
        .any(|h| memchr::memmem::find(head, h.as_bytes()).is_some())
}

/// The second tier for Rust files that fail [`prefilter`]: whether the file
/// may define time constants (`const` or `static`, and a time word of
/// `[rust_constants]` in `rules/prefilter.toml`). Such a file has only its
/// constant items parsed.
pub fn rust_constants_prefilter(bytes: &[u8]) -> bool {
    static M: OnceLock<Option<AhoCorasick>> = OnceLock::new();
    // The time words first, in one search (aho-corasick's SIMD prefilter
    // over the dozen words that hold no other), then `const` and `static`,
    // each found at once in most files. Measured 2026-12-05 over the Rust
    // files of omicron (2,075) and of a payment switch (2,040): 2.4 and
    // 3.4 ms, against 6.6 and 7.1 ms with the items looked for first and a
    // memmem search a word; the same 217 and 56 files.
    let m = M.get_or_init(|| {
        let words = builtin().rust_constants?.words;
        AhoCorasick::builder()
            .match_kind(aho_corasick::MatchKind::LeftmostFirst)
            .build(kept_words(&words))
            .ok()
    });
    m.as_ref().is_some_and(|m| m.is_match(bytes))
        && (memchr::memmem::find(bytes, b"const ").is_some()
            || memchr::memmem::find(bytes, b"static ").is_some())
}

/// The words of `words` that hold no other (`_SECONDS` holds `SECOND`):
/// whether any word occurs is whether any of these does.
fn kept_words(words: &[String]) -> Vec<&String> {
    let mut by_length: Vec<&String> = words.iter().collect();
    by_length.sort_by_key(|w| w.len());
    let mut kept: Vec<&String> = Vec::new();
    for w in by_length {
        if !kept.iter().any(|k| w.contains(k.as_str())) {
            kept.push(w);
        }
    }
    kept
}

/// How far past a std method's name its signature is read, at most.
const STD_SIGNATURE_BYTES: usize = 512;

/// Show `path` relative to the current directory where it lies below it,
/// with `/` separators and no leading `./`.
pub fn display_path(path: &Path, cwd: &Path) -> String {
    let shown = path.strip_prefix(cwd).unwrap_or(path);
    let s = shown.to_string_lossy().replace('\\', "/");
    let s = s.strip_prefix("./").unwrap_or(&s).to_string();
    if s.is_empty() {
        ".".to_string()
    } else {
        s
    }
}

/// Walk the given paths. Explicit files are always included (with a kind
/// guessed from the name, text when unknown); directories are walked with
/// .gitignore honoured, hidden entries skipped (except `.env` files) and
/// symlinks not followed. `exclude` globs match display paths.
pub fn discover(
    paths: &[PathBuf],
    cwd: &Path,
    exclude: &[String],
) -> Result<Vec<Candidate>, WalkError> {
    let found: Mutex<Vec<Candidate>> = Mutex::new(Vec::new());
    discover_each(paths, cwd, exclude, &|c| lock(&found).push(c))?;
    let mut found = found.into_inner().unwrap_or_else(|e| e.into_inner());
    found.sort();
    found.dedup_by(|a, b| a.display == b.display);
    Ok(found)
}

/// The walk of [`discover`], each file handed to `each` as it is found, from
/// the walker's threads, in no order; a file under two of `paths` is handed
/// twice. A run reads the files while the walk goes on.
pub fn discover_each(
    paths: &[PathBuf],
    cwd: &Path,
    exclude: &[String],
    each: &(dyn Fn(Candidate) + Sync),
) -> Result<(), WalkError> {
    let excluded = exclude_set(exclude);
    for root in paths {
        let meta = std::fs::symlink_metadata(root)
            .map_err(|_| WalkError::NotFound(root.display().to_string()))?;
        let is_dir = if meta.file_type().is_symlink() {
            std::fs::metadata(root).map(|m| m.is_dir()).unwrap_or(false)
        } else {
            meta.is_dir()
        };
        if !is_dir {
            if meta.file_type().is_symlink() && std::fs::metadata(root).is_err() {
                return Err(WalkError::NotFound(root.display().to_string()));
            }
            let kind = classify(root).unwrap_or(FileKind::Text);
            each(Candidate {
                display: display_path(root, cwd),
                path: root.clone(),
                kind,
                explicit: true,
            });
            continue;
        }
        let walker = ignore::WalkBuilder::new(root)
            .hidden(false)
            .follow_links(false)
            .require_git(false)
            .git_ignore(true)
            .git_exclude(true)
            .ignore(true)
            .parents(true)
            // The root itself is always entered.
            .filter_entry(|e| {
                e.depth() == 0 || !is_skipped_hidden(&e.file_name().to_string_lossy())
            })
            .build_parallel();
        walker.run(|| {
            let excluded = &excluded;
            Box::new(move |entry| {
                let Ok(entry) = entry else {
                    return ignore::WalkState::Continue;
                };
                let Some(ft) = entry.file_type() else {
                    return ignore::WalkState::Continue;
                };
                if !ft.is_file() {
                    return ignore::WalkState::Continue;
                }
                let path = entry.path();
                let Some(kind) = classify(path) else {
                    return ignore::WalkState::Continue;
                };
                let display = display_path(path, cwd);
                if excluded.is_match(&display) {
                    return ignore::WalkState::Continue;
                }
                each(Candidate {
                    display,
                    path: path.to_path_buf(),
                    kind,
                    explicit: false,
                });
                ignore::WalkState::Continue
            })
        });
    }
    Ok(())
}

/// About how many files a run over `paths` reads, as far as the choice of
/// automaton goes ([`DFA_FROM_FILES`]) when it must be made before the walk:
/// a directory counts as many, a file as one (and one more for standard
/// input).
pub fn files_expected(paths: &[PathBuf]) -> usize {
    paths
        .iter()
        .map(|p| if p.is_dir() { DFA_FROM_FILES } else { 1 })
        .sum::<usize>()
        + 1
}

/// The `exclude` globs of the config as one matcher (invalid globs were
/// refused when the config was read).
pub fn exclude_set(exclude: &[String]) -> globset::GlobSet {
    let mut b = globset::GlobSetBuilder::new();
    for g in exclude {
        if let Ok(g) = globset::Glob::new(g) {
            b.add(g);
        }
    }
    b.build().unwrap_or_else(|_| globset::GlobSet::empty())
}

/// Hidden entries are skipped, except `.env` files.
pub fn is_skipped_hidden(name: &str) -> bool {
    name.starts_with('.') && name != ".env" && !name.starts_with(".env.")
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A big Rust file is read around: the words of the prefilter outside
    /// comments (in test code too), names that may name a store although
    /// they hold no word (`seen_events`), `cache`, and header names the
    /// header rule judges (`Idemptoency-Key`); a file holding a suppression
    /// comment, or bytes that are not UTF-8, is read whole.
    #[test]
    fn a_rust_file_is_anchored_where_a_rule_may_read_it() {
        let k = Keywords::new(&[], 1);
        let text = "// idempotent, says the comment\nfn a() { let s = \"seen_events\"; }\nfn b(c: &Cache) {}\nfn c(r: R) { r.header(\"Idemptoency-Key\", k); }\nfn d() { dedup_once(); }\nfn e() { plain(); }\n#[test]\nfn t() { replay(); }\n";
        let at = |w: &str| text.find(w).unwrap();
        let anchors = k.anchors(text.as_bytes()).unwrap();
        for w in ["seen_events", "Cache", "\"Idemptoency", "dedup", "replay"] {
            assert!(anchors.contains(&at(w)), "{w}: {anchors:?}");
        }
        let between = |from: &str, to: &str| {
            let (a, b) = (at(from), at(to));
            anchors.iter().any(|&x| a <= x && x < b)
        };
        assert!(!between("// ", "fn a"), "{anchors:?}");
        assert!(!between("fn e", "#[test]"), "{anchors:?}");
        assert_eq!(k.anchors(b"// idemlint: allow(x) -- ok\nfn a() {}\n"), None);
        assert_eq!(k.anchors(b"fn dedup() { let _ = \"\xff\"; }\n"), None);
    }

    #[test]
    fn classification_by_name() {
        let k = |p: &str| classify(Path::new(p));
        assert_eq!(k("src/a.rs"), Some(FileKind::Rust));
        assert_eq!(k("migrations/1_init.up.sql"), Some(FileKind::Sql));
        assert_eq!(k("deploy/redis.conf"), Some(FileKind::RedisConf));
        assert_eq!(k("values.yaml"), Some(FileKind::Yaml));
        assert_eq!(k(".env.production"), Some(FileKind::Env));
        assert_eq!(k("dev/secrets.env.template"), Some(FileKind::Env));
        assert_eq!(k(".vscode/settings.jsonc"), Some(FileKind::Json));
        assert_eq!(k("main.tf"), Some(FileKind::Hcl));
        assert_eq!(k("cfn/redis.template"), Some(FileKind::Yaml));
        assert_eq!(
            k("templates/trigger.config.ts.template"),
            Some(FileKind::Text)
        );
        assert_eq!(k("deploy/values.yaml.template"), Some(FileKind::Yaml));
        assert_eq!(k("web/index.html.template"), None);
        let p = Path::new("cfn/redis.template");
        assert_eq!(
            refine_kind(FileKind::Yaml, p, " {\"Resources\": {}}"),
            FileKind::Json
        );
        assert_eq!(
            refine_kind(FileKind::Yaml, p, "Resources: {}"),
            FileKind::Yaml
        );
        assert_eq!(k("client.ts"), Some(FileKind::Text));
        assert_eq!(k("logo.png"), None);
        assert_eq!(k("web/package-lock.json"), None);
        assert_eq!(k("clients/pnpm-lock.yaml"), None);
        assert_eq!(k("clients/pnpm-workspace.yaml"), Some(FileKind::Yaml));
        assert_eq!(k("Cargo.lock"), None);
    }

    #[test]
    fn prefilter_is_case_insensitive() {
        assert!(prefilter(b"let k = IDEMPOTENCY_KEY;"));
        assert!(!prefilter(b"fn main() {}"));
    }

    #[test]
    fn words_in_rust_test_code_count_only_when_tests_are_judged() {
        let default = Keywords::new(&[], 1);
        let judging = Keywords::new(&[], 1).judging_tests(true);
        let rs = Path::new("src/pay.rs");
        let test_module = "fn pay() {}\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn replays_are_idempotent() { let h = \"Idempotency-Key\"; }\n}\n";
        let test_fn = "fn pay() {}\n#[tokio::test]\nasync fn dedup_works() {}\n";
        for text in [test_module, test_fn] {
            assert_eq!(
                default.admission_in(FileKind::Rust, rs, text.as_bytes(), &|| false),
                Admission::No,
                "{text}"
            );
            assert_eq!(
                judging.admission_in(FileKind::Rust, rs, text.as_bytes(), &|| false),
                Admission::Full,
                "{text}"
            );
        }
        // A word in the code the rules judge; a suppression comment.
        let live = format!("fn pay() {{ let k = \"idem:{{}}\"; }}\n{test_module}");
        let suppressed = format!(
            "// idemlint: allow misspelled-idempotency-header -- checks the typo\n{test_module}"
        );
        for text in [live.as_str(), suppressed.as_str()] {
            assert_eq!(
                default.admission_in(FileKind::Rust, rs, text.as_bytes(), &|| false),
                Admission::Full,
                "{text}"
            );
        }
        // A file at a test path is test code whole.
        let whole = b"async fn charge_is_idempotent() { let k = idempotency_key(); }";
        let at = Path::new("tests/charge.rs");
        assert_eq!(
            default.admission_in(FileKind::Rust, at, whole, &|| true),
            Admission::No
        );
        assert_eq!(
            judging.admission_in(FileKind::Rust, at, whole, &|| true),
            Admission::Full
        );
        assert_eq!(
            default.admission_in(FileKind::Rust, rs, whole, &|| false),
            Admission::Full
        );
        // Other kinds keep their words.
        assert_eq!(
            default.admission_in(
                FileKind::Sql,
                Path::new("tests/k.sql"),
                b"create table idempotency_keys (k text);",
                &|| true
            ),
            Admission::Full
        );
    }

    /// Each Rust text at `path` is admitted as `no` says (`No`), and each
    /// of `full` in full.
    fn rust_admissions(path: &str, no: &[&str], full: &[&str]) {
        let k = Keywords::new(&[], 1);
        let rs = Path::new(path);
        let admission = |text: &str| k.admission_in(FileKind::Rust, rs, text.as_bytes(), &|| false);
        for (texts, want) in [(no, Admission::No), (full, Admission::Full)] {
            for text in texts {
                assert_eq!(admission(text), want, "{text}");
            }
        }
    }

    #[test]
    fn std_dedup_methods_are_no_word() {
        rust_admissions(
            "src/list.rs",
            &[
            "fn f(v: &mut Vec<u32>) { v.sort(); v.dedup(); }",
            "fn f(v: &mut Vec<Row>) { v.dedup_by_key(|r| r.id); }",
            "fn f(v: &mut Vec<Row>) {\n    v\n        .dedup_by(move |a, b| a.id == b.id);\n}",
            "impl<T: PartialEq> List<T> {\n    pub fn dedup(&mut self) { self.dedup_by(|a, b| a == b) }\n}",
            "impl<T> List<T> {\n    pub fn dedup_by<F>(&mut self, same: F)\n    where\n        F: FnMut(&mut T, &mut T) -> bool,\n    {\n    }\n}",
            ],
            &[
            // A store's method, a binding, a comment between the tokens,
            // the words in a string, a method of another name.
            "fn f(store: &Store, key: &str) { store.dedup(key); }",
            "fn f() { let deduped = rows.len(); }",
            "fn f(v: &mut Vec<u32>) { v.dedup(/* by id */); }",
            "fn f() { let q = \"v.dedup()\"; }",
            "fn f(s: &Seen) { s.dedup_events(); }",
            "impl Store {\n    pub fn dedup(&mut self, key: &str) -> bool { true }\n}",
            ],
        );
    }

    #[test]
    fn prose_in_message_macros_is_no_word() {
        rust_admissions(
            "src/attach.rs",
            &[
            "fn f(log: &Logger) { info!(log, \"call was idempotent\"); }",
            "fn f() { tracing::warn!(\"Idempotency is not supported (yet)\"); }",
            "fn f() -> Result<()> { bail!(\"event {} already replayed\", id) }",
            "fn f(v: &[u8]) { debug_assert!(v.is_sorted(), \"keys are sorted and deduplicated\"); }",
            ],
            &[
            // A key, a header, a table, a lone word, a word in another
            // macro or call, a word in code, a literal after a stray close.
            "fn f(id: &str) { info!(\"claimed idem:{}\", id); }",
            "fn f() { warn!(\"missing Idempotency-Key header\"); }",
            "fn f() { info!(\"insert into dedup_keys failed\"); }",
            "fn f() { info!(\"idempotent\"); }",
            "fn f(id: &str) { let k = format!(\"idempotent charge {}\", id); }",
            "fn f() { q.query(\"select from replay log\"); }",
            "fn f(idempotent: bool) { info!(\"call was idempotent\"); }",
            "fn f() {} } fn g() { info!(\"call was idempotent\"); }",
            ],
        );
        // A module named for the word is that code, whatever its messages.
        rust_admissions(
            "src/idempotency/mod.rs",
            &[],
            &["fn f() { info!(\"call was idempotent\"); }"],
        );
    }

    #[test]
    fn c_declarations_are_no_word() {
        rust_admissions(
            "src/unix/mod.rs",
            &[
            "pub const CONNECT_DATA_IDEMPOTENT: c_uint = 0x2;",
            "pub(crate) static mut REPLAY_MODE: ::core::ffi::c_int = 0;",
            "s! {\n    pub struct ff_replay {\n        pub length: __u16,\n    }\n    pub struct ff_effect {\n        pub replay: ff_replay,\n    }\n}",
            "pub union dedup_u { pub a: u32 }\nextern \"C\" { fn f(p: *mut dedup_u); }",
            "pub struct t { pub replay: *mut crate::ev_t }",
            ],
            &[
            // Types and constants named Rust's way, a primitive type, a
            // struct literal's field, a parameter, a C type used but not
            // declared here, a binding.
            "pub const IDEMPOTENCY_TTL_SECS: u64 = 86_400;",
            "pub struct Replay { pub at: u64 }",
            "pub struct Request { pub idempotency_key: String }",
            "pub struct Window { pub dedup_ttl: Duration }",
            "fn f(dedup_key: &str) { let e = Event { dedup: dedup_key }; }",
            "fn f(replay: ff_replay) {}",
            "fn f(r: ff_replay) {}",
            "fn f() { let replay_t = 1; }",
            "fn f() { let mut replay: ff_replay = g(); }",
            "pub struct t { pub x: *mut crate::replay_t }",
            "pub static IDEM_PREFIX: &str = \"x\";",
            ],
        );
    }

    #[test]
    fn a_conditional_set_admits_its_file() {
        let k = Keywords::new(&[], 1);
        let rs = Path::new("src/claims.rs");
        for w in crate::frontend::rust::flow::CONDITIONAL_SET_NAMES {
            let code = format!("impl C {{ fn claim_{w}(&self) {{}} }}\n");
            assert_eq!(
                k.admission_in(FileKind::Rust, rs, code.as_bytes(), &|| false),
                Admission::Full,
                "{w}"
            );
        }
    }

    #[test]
    fn a_unit_slip_admits_its_file_late() {
        let k = Keywords::new(&[], 1);
        let rs = Path::new("src/options.rs");
        let admission = |text: &str| k.admission_in(FileKind::Rust, rs, text.as_bytes(), &|| false);
        for w in crate::frontend::rust::units::WORDS {
            let code = format!("fn f(o: O) -> D {{ o.x{w}.map(D::from) }}\n");
            assert_eq!(admission(&code), Admission::Late, "{w}");
        }
    }

    #[test]
    fn a_token_record_or_a_leeway_admits_its_file() {
        let k = Keywords::new(&[], 1);
        let rs = Path::new("src/claims.rs");
        for w in crate::frontend::rust::jti::WORDS {
            let code = format!("fn f(v: &mut V) {{ v.x_{w} = 1; }}\n");
            assert_ne!(
                k.admission_in(FileKind::Rust, rs, code.as_bytes(), &|| false),
                Admission::No,
                "{w}"
            );
        }
    }

    #[test]
    fn store_names_in_test_code_do_not_keep_a_retry_file() {
        let k = Keywords::new(&[], 1);
        let rs = Path::new("src/client.rs");
        let admission = |text: &str| k.admission_in(FileKind::Rust, rs, text.as_bytes(), &|| false);
        let code = "use backoff::ExponentialBackoff;\nfn run() {}\n";
        assert_eq!(admission(code), Admission::Late);
        let in_test = format!(
            "{code}#[cfg(test)]\nmod tests {{\n    #[test]\n    fn f() {{ let t = \"processed_events\"; }}\n}}\n"
        );
        assert_eq!(admission(&in_test), Admission::Late);
        let live = format!("{code}fn g() {{ let t = \"processed_events\"; }}\n");
        assert_eq!(admission(&live), Admission::Full);
    }

    #[test]
    fn generated_rust_is_known_by_its_head() {
        assert!(generated_rust(b"/* automatically generated by rust-bindgen 0.72.1 */\n\npub const XFRM_REPLAY_UPDATE: u32 = 1;\n"));
        let late = format!(
            "{}// automatically generated by rust-bindgen\n",
            "fn f() {}\n".repeat(40)
        );
        assert!(!generated_rust(late.as_bytes()));
        assert!(!generated_rust(
            b"pub const REPLAY_WINDOW_SECS: u64 = 86_400;\n"
        ));
    }

    /// One source of knowledge: every name by which the model recognises a
    /// store or a header (`rules/stores.toml`, `rules/counterparties.toml`,
    /// `rules/headers.toml`, `rules/redis.toml`) admits a file that holds
    /// it and no word of `rules/prefilter.toml`.
    #[test]
    fn every_name_the_catalogues_recognise_admits_its_file() {
        let k = Keywords::new(&[], 1);
        let stores = crate::knowledge::stores();
        let sql = |table: &str| format!("CREATE TABLE {table} (\n    id TEXT NOT NULL\n);\n");
        let mut missed = Vec::new();
        let mut check = |kind, path: &str, text: String| {
            if !k.admits(kind, Path::new(path), text.as_bytes()) {
                missed.push(text);
            }
        };
        for c in &crate::knowledge::counterparties().counterparty {
            if c.inbound_horizon().is_none() {
                continue;
            }
            for m in &c.r#match {
                for part in &stores.provider_event_table.parts {
                    let table = format!("{}_{part}", m.replace('-', "_"));
                    if stores.is_provider_event_table(&table) {
                        check(FileKind::Sql, "m.sql", sql(&table));
                        let rust = format!(
                            "fn f(p: &Pool) {{ query(\"INSERT INTO {table} (id) VALUES ($1)\"); }}"
                        );
                        check(FileKind::Rust, "src/a.rs", rust);
                    }
                }
            }
        }
        for [a, b] in &stores.table.pairs {
            check(FileKind::Sql, "m.sql", sql(&format!("{a}_{b}s")));
        }
        for w in stores.table.substrings.iter().chain(&stores.table.parts) {
            check(FileKind::Sql, "m.sql", sql(&format!("{w}_rows")));
        }
        let headers = crate::knowledge::headers();
        for h in headers.canonical.iter().chain(&headers.legitimate) {
            check(
                FileKind::Yaml,
                "a.yaml",
                format!("header: \"{}\"\n", h.name),
            );
        }
        assert!(missed.is_empty(), "not admitted: {missed:#?}");
        // A name that holds such a word and is no store admits nothing.
        assert!(!k.admits(
            FileKind::Sql,
            Path::new("m.sql"),
            sql("stripe_customers").as_bytes()
        ));
        assert!(!k.admits(
            FileKind::Rust,
            Path::new("src/a.rs"),
            b"fn f() { let otherwise = seen_count; } // received"
        ));
    }

    #[test]
    fn weak_words_admit_only_where_they_carry_meaning() {
        let k = Keywords::new(&[], 1);
        let rs = Path::new("src/a.rs");
        let admits =
            |kind, path: &str, text: &str| k.admits(kind, Path::new(path), text.as_bytes());
        // A strong word admits every kind.
        assert!(admits(FileKind::Rust, "a.rs", "let k = idempotency_key;"));
        // In Rust, a word only a comment holds admits nothing; in a string
        // it does, and other kinds keep their comments.
        assert!(!admits(
            FileKind::Rust,
            "a.rs",
            "/// Safe to call twice: idempotent.\nfn f() {} /* dedup */ // backoff"
        ));
        assert!(admits(
            FileKind::Rust,
            "a.rs",
            "// x\nlet h = \"Idempotency-Key\";"
        ));
        assert!(admits(
            FileKind::Rust,
            "a.rs",
            "// x\nuse backoff::ExponentialBackoff;"
        ));
        assert!(!admits(
            FileKind::Rust,
            "a.rs",
            "// webhook redis\nfn f() {}"
        ));
        assert!(admits(
            FileKind::Rust,
            "src/idempotency/mod.rs",
            "//! The idempotency claim.\npub fn begin() {}"
        ));
        assert!(admits(FileKind::Sql, "m.sql", "-- idempotent\nSELECT 1;"));
        // `webhook` in SQL is a store word; in Rust only inside a store name.
        assert!(admits(
            FileKind::Sql,
            "m.sql",
            "CREATE TABLE webhooks (id int);"
        ));
        assert!(!admits(
            FileKind::Rust,
            "a.rs",
            "struct WebhookConfig { url: String }"
        ));
        assert!(admits(
            FileKind::Rust,
            "a.rs",
            "sqlx::query(\"INSERT INTO webhook_events (id) VALUES ($1)\")"
        ));
        assert!(admits(FileKind::Rust, "a.rs", "struct ProcessedEvent;"));
        assert!(admits(
            FileKind::Rust,
            "a.rs",
            "let k = format!(\"processed:adyen:{id}\");"
        ));
        assert!(!admits(
            FileKind::Rust,
            "a.rs",
            "let n = members_processed + 1;"
        ));
        assert!(!admits(FileKind::Rust, "a.rs", "Status::Reprocessed => {}"));
        assert!(admits(
            FileKind::Text,
            "a.ts",
            "const k = `webhook:event:${id}`;"
        ));
        assert!(admits(
            FileKind::Text,
            "a.ts",
            "headers['webhook-id'] = id;"
        ));
        // ... or when the file also talks about Redis.
        assert!(admits(
            FileKind::Yaml,
            "v.yaml",
            "receipts:\n  image: redis:7\n"
        ));
        assert!(!admits(
            FileKind::Yaml,
            "v.yaml",
            "admissionWebhooks:\n  enabled: true\n"
        ));
        // Pod eviction is not Redis eviction; a `.conf` may be a Redis config.
        assert!(!admits(FileKind::Yaml, "v.yaml", "evictionHard: 100Mi\n"));
        assert!(admits(FileKind::Text, "cache.conf", "# eviction\n"));
        // Retry crates matter to the Rust front end only.
        assert!(admits(
            FileKind::Rust,
            "a.rs",
            "use backoff::ExponentialBackoff;"
        ));
        assert!(!admits(FileKind::Yaml, "v.yaml", "backoffLimit: 6\n"));
        // A word in a comment does not hide the same word in code after it.
        assert!(admits(
            FileKind::Rust,
            "a.rs",
            "// idempotent\nlet idempotency_key = k;"
        ));
        assert!(admits(
            FileKind::Rust,
            "a.rs",
            "// uses backoff\nuse backoff::ExponentialBackoff;"
        ));
        // Names the config declares are strong.
        let k = Keywords::new(&["payment_requests".to_string()], DFA_FROM_FILES);
        assert!(k.admits(FileKind::Rust, rs, b"INSERT INTO payment_requests"));
    }

    #[test]
    fn a_weak_word_in_rust_code_is_judged_as_an_identifier() {
        let k = Keywords::new(&[], 1);
        let rs = |text: &str| k.admits(FileKind::Rust, Path::new("src/a.rs"), text.as_bytes());
        // A delivery, its type and its handler are not where deliveries are
        // kept: a table convention that is a noun does not make them stores.
        assert!(!rs("match e { IncomingWebhookEvent::RefundSuccess => {} }"));
        assert!(!rs(
            "fn get_webhook_event_type(&self) -> Result<Kind> { todo!() }"
        ));
        assert!(!rs("let t = api::webhooks::IncomingWebhookEvent::from(s);"));
        assert!(!rs("fn status(s: AdyenWebhookStatus) {}"));
        assert!(!rs("let c = svix::webhooks::Webhook::new(secret);"));
        // An inbox is a store only with a key column, which code has not.
        assert!(!rs("let inbox_url = person.inbox_url.clone();"));
        assert!(!rs("struct SharedInboxActivities;"));
        // Words of different segments do not make a pair.
        assert!(!rs("if s == EventReportStatus::Processed { n += 1; }"));
        // An identifier written as a table: a diesel table module, a
        // retention-named constant.
        assert!(rs("insert_into(webhook_events::table).values(&row)"));
        assert!(rs("use schema::webhook_events::{self, dsl};"));
        assert!(rs("webhook_events::dsl::webhook_events.find(id)"));
        assert!(rs("use schema::webhook_events::{columns::{id}, table};"));
        assert!(rs("use crate::schema::webhook_events::*;"));
        assert!(rs("use crate::schema::webhook_events::{"));
        assert!(rs("pub const WEBHOOK_EVENTS_TTL: u64 = 86_400;"));
        // A module of that name followed by a type or a function is not
        // diesel's table module.
        assert!(!rs(
            "let r = api_models::webhook_events::EventListItemResponse::from(e);"
        ));
        assert!(!rs(
            ".route(routes::webhook_events::list_delivery_attempts)"
        ));
        assert!(!rs(
            "use api_models::webhook_events::{EventListItemResponse, EventListConstraints};"
        ));
        // A name that writes the table is store code.
        assert!(rs("db.insert_webhook_event(&event).await?;"));
        assert!(rs("self.record_webhook_receipt(id)"));
        assert!(!rs(
            "if is_refund_webhook_event(&e) { lookup_webhook_event(id) }"
        ));
        // The verbs of handling count in any identifier.
        assert!(rs("db.mark_event_processed(&event.id).await?;"));
        assert!(rs("struct ProcessedEvent;"));
        assert!(rs("let seen = StripeEventsProcessed::load();"));
        // In a string, every convention counts as before, a table's only
        // in text that may be SQL (`literal_may_name_a_table`).
        assert!(rs(
            "sqlx::query(\"SELECT 1 FROM webhook_events WHERE id = $1\")"
        ));
        assert!(rs("let q = \"INSERT INTO inbox (id) VALUES ($1)\";"));
        assert!(!rs("let t = \"inbox\"; // a map key"));
        assert!(rs("let k = format!(\"webhook:event:{id}\");"));
        // Beside a Redis word, a weak word admits a Rust file in a name
        // the Redis model links by (a Redis link word), in a string or an
        // identifier, not in any name.
        assert!(!rs(
            "let webhook_url = cfg.url; let c = redis::Client::open(u)?;"
        ));
        assert!(rs(
            "let h = env::var(\"RECEIPTS_HOST\"); let c = redis::Client::open(h)?;"
        ));
        assert!(rs("let c = redis::Client::open(\"receipts-redis\")?;"));
        assert!(!rs(
            "let h = env::var(\"WEBHOOK_HOST\"); let c = redis::Client::open(h)?;"
        ));
        assert!(!rs("let c = redis::Client::open(\"webhook-redis\")?;"));
        assert!(!rs(
            "log::info!(\"webhook sent\"); let c = redis::Client::open(u)?;"
        ));
        assert!(rs(
            "struct ReceiptCache { pool: redis::aio::ConnectionManager }"
        ));
        // An identifier links only through a type named for a cache or a
        // line that calls a link-named identifier (`links`): an enum
        // variant `Receipt` beside a `RedisKv` one links nothing.
        assert!(!rs("pub enum Kind { RedisKv, Receipt, Invoice }"));
        assert!(rs(
            "pub enum Kind { RedisKv, Receipt }\nfn f() { let s = ReceiptStore::new(url); }"
        ));
        // The call that links need not be the weak word's: `IdemStore`
        // holds a link word (`idem`) that no prefilter word spells.
        assert!(rs(
            "pub enum Kind { RedisKv, Receipt }\nfn f() { let s = IdemStore::connect(&url); }"
        ));
        assert!(rs(
            "pub enum Kind { RedisKv, Receipt }\ntype C = Cache<Kind>;"
        ));
        assert!(!rs(
            "let n = processed_count + 1; let c = redis::Client::open(u)?;"
        ));
    }

    /// What the Rust front end reads from `text`.
    fn rust_facts(text: &str) -> crate::frontend::FileFacts {
        let mut f = crate::frontend::FileFacts::default();
        crate::frontend::rust::parse(text, &mut f);
        f
    }

    /// The flow events of every function of a file's facts.
    fn flow_events(
        f: &crate::frontend::FileFacts,
    ) -> impl Iterator<Item = &crate::frontend::rust::flow::EventKind> {
        f.rust
            .iter()
            .flat_map(|r| &r.flow.functions)
            .flat_map(|func| &func.events)
            .map(|e| &e.kind)
    }

    /// A Rust string literal names a table only in text that may be SQL:
    /// the front end reads a table from no other. `stripe_webhooks` is a
    /// provider event table and no Redis key prefix, so only the table
    /// convention can admit it. Where the front end does read a table from
    /// a literal, the file is admitted (the front end is the oracle).
    #[test]
    fn a_rust_string_names_a_table_only_where_it_may_be_sql() {
        let k = Keywords::new(&[], 1);
        let rs = |text: &str| k.admits(FileKind::Rust, Path::new("src/db.rs"), text.as_bytes());
        let tables = |text: &str| {
            let f = rust_facts(text);
            flow_events(&f)
                .filter_map(|e| match e {
                    crate::frontend::rust::flow::EventKind::Sql { dml, .. } => {
                        Some(dml.table.clone())
                    }
                    _ => None,
                })
                .chain(
                    f.sql
                        .iter()
                        .flat_map(|s| &s.events)
                        .map(|e| format!("{:?}", e.kind)),
                )
                .collect::<Vec<_>>()
        };
        // Read as SQL, and admitted.
        for text in [
            "async fn f(p: &PgPool) { sqlx::query(\"INSERT INTO stripe_webhooks (id) VALUES ($1)\").execute(p).await; }",
            "async fn f(p: &PgPool) { sqlx::query(\"select 1 from stripe_webhooks\").fetch_one(p).await; }",
            "async fn f(p: &PgPool) { sqlx::query(\"UPDATE stripe_webhooks SET x = 1\").execute(p).await; }",
            "async fn f(p: &PgPool) { sqlx::query(\"DELETE FROM stripe_webhooks\").execute(p).await; }",
            "async fn f(c: &Client) { c.execute(r#\"\n  SELECT id\n  FROM stripe_webhooks\n\"#, &[]).await; }",
            "async fn f(p: &PgPool) { sqlx::query(concat!(\"INSERT INTO \", \"stripe_webhooks\", \" (id) VALUES ($1)\")).execute(p).await; }",
            "async fn f(p: &PgPool) { sqlx::query(\"\\x49NSERT INTO stripe_webhooks (id) VALUES ($1)\").execute(p).await; }",
            "async fn f(p: &PgPool) { sqlx::query(\"CREATE TABLE stripe_webhooks (id text primary key)\").execute(p).await; }",
        ] {
            assert!(!tables(text).is_empty(), "the front end reads a table: {text}");
            assert!(rs(text), "{text}");
        }
        // No statement in the literal: a map key, a serde name, a route.
        for text in [
            "fn f(m: &Map) -> u64 { m.get(\"stripe_webhooks\").copied().unwrap_or(0) }",
            "#[serde(rename = \"stripe_webhooks\")]\nstruct S { n: u64 }",
            "fn r(cfg: &mut Cfg) { cfg.service(web::resource(\"stripe_webhooks\")); }",
            // the statement is in another literal
            "fn f() { let q = \"SELECT 1\"; let t = \"stripe_webhooks\"; }",
        ] {
            assert!(tables(text).is_empty(), "{text}");
            assert!(!rs(text), "{text}");
        }
    }

    /// A Rust string literal that names a Redis key prefix (`processed`,
    /// `webhook_event`) admits a file only where the front end can read it
    /// as part of a key; the front end is the oracle for the places it does.
    #[test]
    fn a_rust_string_is_a_redis_key_only_where_a_key_is_read() {
        let k = Keywords::new(&[], 1);
        let rs = |text: &str| k.admits(FileKind::Rust, Path::new("src/store.rs"), text.as_bytes());
        let keys = |text: &str| {
            let f = rust_facts(text);
            flow_events(&f)
                .filter(|e| matches!(e, crate::frontend::rust::flow::EventKind::Redis { .. }))
                .count()
                + f.redis_writes.len()
        };
        let c = "async fn f(c: &mut redis::aio::MultiplexedConnection, m: &Map, id: &str)";
        for body in [
            "let _: () = c.set_ex(\"processed_events\", 1, 60).await;",
            "let n: bool = c.exists(\"processed_events\").await;",
            "let n: Option<u8> = m.get(\"webhook_events\").copied();",
            "let _: () = redis::cmd(\"SET\").arg(\"processed_events\").arg(1).query_async(c).await;",
            "let _: () = c.set_ex(format!(\"processed_events_{id}\"), 1, 60).await;",
            "let k = \"processed_events\"; let _: () = c.set_ex(k, 1, 60).await;",
            "let _: () = c.get::<_, ()>(\"processed_events\").await;",
        ] {
            let text = format!("{c} {{ {body} }}\n");
            assert!(keys(&text) > 0, "the front end reads a key: {text}");
            assert!(rs(&text), "{text}");
        }
        for text in [
            "fn f() -> Result<(), E> { Err(E::Invalid { field_name: \"incoming_webhook_event_type\" }) }",
            "fn r(cfg: &mut Cfg) { cfg.service(web::resource(\"outgoing_webhook_event_logs\")); }",
            "fn s(x: Status) -> &'static str { match x { Status::Processed => \"processed\", _ => \"other\" } }",
            "fn t() -> String { Ok(\"outgoing_webhook_events_audit\".to_string()) }",
            // a char literal `(` does not open a call
            "fn u(c: char) -> bool { c == '(' && check(\"processed\") }",
        ] {
            assert_eq!(keys(text), 0, "{text}");
            assert!(!rs(text), "{text}");
        }
        // A `:` makes any literal a possible key prefix; so does a binding.
        assert!(rs("fn f() { log(\"processed:{}\"); }"));
        assert!(rs("static K: &str = \"processed_events\";"));
        // Past a close that matches no open, every literal may be a key.
        assert!(rs("fn f() { ) } log(\"processed_events\"); }"));
    }

    #[test]
    fn request_id_admits_a_file_only_as_the_catalogue_header() {
        let k = Keywords::new(&[], 1);
        for (kind, path, text, admitted) in [
            // PayPal's idempotency header, in any case, or with an
            // underscore that the header rule reports.
            (
                FileKind::Rust,
                "src/paypal.rs",
                "req.header(\"PayPal-Request-Id\", key)",
                true,
            ),
            (
                FileKind::Json,
                "c.json",
                "{\"key\": \"paypal-request-ID\"}",
                true,
            ),
            (FileKind::Text, "a.ts", "h['PayPal_Request-Id'] = k;", true),
            // A tracing header is none of the catalogue's.
            (
                FileKind::Json,
                "postman.json",
                "[{\"key\": \"X-Request-Id\"}]",
                false,
            ),
            (
                FileKind::Rust,
                "src/trace.rs",
                "RequestIdentifier::new(\"x-request-id\")",
                false,
            ),
            // Separators are ignored only in a name that holds a `-`: a
            // `webhookId` variable is not the `webhook-id` header.
            (FileKind::Text, "a.ts", "const webhookId = body.id;", false),
            (FileKind::Text, "a.ts", "headers['Webhook-ID'] = id;", true),
        ] {
            let got = k.admits(kind, Path::new(path), text.as_bytes());
            assert_eq!(got, admitted, "{path}: {text}");
        }
    }

    #[test]
    fn sql_that_changes_a_table_waits_for_the_schema() {
        let k = Keywords::new(&[], 1);
        let sql = |t: &str| k.admission(FileKind::Sql, Path::new("m.sql"), t.as_bytes());
        assert_eq!(
            sql("ALTER TABLE \"ExportTask\" ADD COLUMN \"workspaceId\" TEXT;"),
            Admission::Schema
        );
        assert_eq!(
            sql("CREATE INDEX orders_at ON orders (created_at);"),
            Admission::Schema
        );
        assert_eq!(sql("INSERT INTO countries VALUES ('NL');"), Admission::No);
        assert_eq!(
            sql("ALTER TABLE idempotency_keys ADD COLUMN user_id TEXT;"),
            Admission::Full
        );
        assert!(!k.admits(
            FileKind::Sql,
            Path::new("m.sql"),
            b"ALTER TABLE a ADD b INT;"
        ));
        let lower = b"alter table \"exporttask\" add column x; -- exporttasks";
        assert!(names_table(lower, "exporttask"));
        assert!(!names_table(
            b"alter table exporttasks add x;",
            "exporttask"
        ));
        assert!(!names_table(
            b"alter table my_exporttask add x;",
            "exporttask"
        ));
        assert!(!names_table(lower, ""));
    }

    #[test]
    fn every_occurrence_counts_overlapping_ones_too() {
        // `retry_backoff` is a configuration word, and the `backoff` inside
        // it a Rust retry word: the leftmost-first search finds the first,
        // and the second must still admit the Rust file.
        let k = Keywords::new(&[], 1);
        assert!(k.admits(
            FileKind::Rust,
            Path::new("a.rs"),
            b"let d = cfg.retry_backoff;"
        ));
        let w = Words::new(
            &["ab".to_string(), "abc".to_string(), "bc".to_string()],
            false,
        );
        let all: Vec<(usize, usize)> = w.occurrences(b"xabcab").collect();
        assert_eq!(all, [(1, 0), (1, 1), (2, 2), (4, 0)]);
        // Case is folded in the text, not only in the words.
        let w = Words::new(&["MaxMemory".to_string()], true);
        assert!(w.is_match(b"maxmemory-policy"));
    }

    /// Every start of every word, by start then word: what
    /// [`Words::occurrences`] must give, however it searches.
    fn every_start(words: &[&[u8]], text: &[u8]) -> Vec<(usize, usize)> {
        (0..text.len())
            .flat_map(|at| {
                words
                    .iter()
                    .enumerate()
                    .filter(move |(_, w)| text[at..].starts_with(w))
                    .map(move |(i, _)| (at, i))
            })
            .collect()
    }

    #[test]
    fn teddy_and_the_automata_find_the_same_occurrences() {
        // A `with` group's few words (for which an automaton looks for
        // bytes it ranks rare), words inside words, a word that overlaps
        // itself, and texts shorter and longer than Teddy's minimum.
        let sets: [&[&[u8]]; 3] = [
            &[b"redis", b"valkey", b"keydb"],
            &[b"ab", b"abc", b"bc", b"retry_backoff", b"backoff"],
            &[b"elasticache", b"e", b"memorystore"],
        ];
        let mut long = Vec::new();
        for i in 0..300u32 {
            long.extend_from_slice(b"let k = cfg.retry_backoff; valkeydb redis ");
            long.extend_from_slice(format!("x{i}elasticachelasticache ab").as_bytes());
        }
        let texts: [&[u8]; 5] = [b"", b"r", b"xabcab", b"redisvalkeykeydb", &long];
        // Over 32 words: Teddy in slices, the leftmost of all taken.
        let many: Vec<Vec<u8>> = (0..70u32)
            .map(|i| format!("w{i}k").into_bytes())
            .chain([b"redis".to_vec(), b"abc".to_vec(), b"ab".to_vec()])
            .collect();
        let many: Vec<&[u8]> = many.iter().map(Vec::as_slice).collect();
        let mut long_many = long.clone();
        for i in (0..70u32).rev() {
            long_many.extend_from_slice(format!(" w{i}k w{}k redis", i / 2).as_bytes());
        }
        let sets: Vec<&[&[u8]]> = sets.into_iter().chain([&many[..]]).collect();
        for set in sets {
            let owned: Vec<Vec<u8>> = set.iter().map(|w| w.to_vec()).collect();
            for text in texts.iter().copied().chain([&long_many[..]]) {
                let want = every_start(set, text);
                for (dfa, teddy) in [(true, true), (true, false), (false, false)] {
                    let w = Words::searched_by(owned.clone(), dfa, teddy);
                    let got: Vec<(usize, usize)> = w.occurrences(text).collect();
                    assert_eq!(got, want, "dfa {dfa} teddy {teddy}");
                    assert_eq!(w.is_match(text), !want.is_empty());
                }
            }
        }
    }

    #[test]
    fn words_in_a_crd_schema_admit_nothing() {
        let k = Keywords::new(&[], DFA_FROM_FILES);
        let y = |t: &str| k.admits(FileKind::Yaml, Path::new("crds.yaml"), t.as_bytes());
        let crd = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\n\
                   spec:\n  versions:\n  - schema:\n      openAPIV3Schema:\n        \
                   properties:\n          dedupWindow:\n            type: string\n";
        assert!(!y(crd));
        assert!(!y(&format!(
            "{{{{- if .Values.crds }}}}\n---\n{crd}{{{{- end }}}}\n"
        )));
        // Another document of the stream still counts, before or after it.
        let redis =
            "apiVersion: v1\nkind: ConfigMap\ndata:\n  redis.conf: maxmemory-policy allkeys-lru\n";
        assert!(y(&format!("{crd}---\n{redis}")));
        assert!(y(&format!("{redis}...\n---\n{crd}")));
        // A resource of a custom kind is not its definition; `kind:` must be
        // top-level and the API group the CRDs' own.
        assert!(y(
            "apiVersion: example.com/v1\nkind: Dedup\nspec:\n  window: 1h\n"
        ));
        assert!(y(
            "apiVersion: v1\nkind: CustomResourceDefinition\nmetadata:\n  name: dedup\n"
        ));
        assert!(y(&crd.replace("\nkind:", "\n  kind:")));
        assert_eq!(
            schema_documents(format!("a: 1\n---\n{crd}").as_bytes()),
            vec![std::ops::Range {
                start: 9,
                end: 9 + crd.len()
            }]
        );
    }

    #[test]
    fn words_in_json_description_prose_admit_nothing() {
        let k = Keywords::new(&[], DFA_FROM_FILES);
        let j = |t: &str| k.admits(FileKind::Json, Path::new("openapi.json"), t.as_bytes());
        let prose = r#"{"paths": {"/payments": {"post": {"description": "Creates a payment. A retried request with the same id is idempotent."}}},
  "components": {"schemas": {"Payment": {"properties": {"payment_id": {"type": "string", "description": "Ensures idempotency\nfor \"retries\"."}}}}}}"#;
        assert!(!j(prose));
        assert_eq!(
            json_prose(prose.as_bytes(), &prose.to_ascii_lowercase().into_bytes()).len(),
            2
        );
        // The header a parameter names still counts, and so do a key, a
        // single-token description (a header name is one), a value outside
        // a description, a description that is an object, and a
        // `Description` (keys are case-sensitive).
        for admitted in [
            prose.replace(
                r#""type": "string","#,
                r#""name": "Idempotency-Key", "in": "header","#,
            ),
            prose.replace("payment_id", "idempotency_key"),
            r#"{"description": " Idempotency-Key "}"#.to_string(),
            r#"{"example": "{\"description\": \"is idempotent here\"}"}"#.to_string(),
            r#"{"description": {"idempotency_ttl": "a day or two"}}"#.to_string(),
            r#"{"Description": "is idempotent"}"#.to_string(),
            r#"["description", "is idempotent"]"#.to_string(),
        ] {
            assert!(j(&admitted), "{admitted}");
        }
        // Prose that a reader takes something from keeps its words: a Redis
        // URL (a host), a `maxmemory-policy` flag (a policy from any
        // scalar), and any text of a file with a suppression comment.
        for read in [
            r#"{"description": "dedup keys live at redis://idem-redis:6379 for a day"}"#,
            r#"{"description": "run it with --maxmemory-policy noeviction"}"#,
            "{\"description\": \"dedup keys, see below\"} // idemlint: ignore",
        ] {
            assert!(j(read), "{read}");
        }
        // The readers, on prose this judges silent: no string a header or a
        // Redis prefix is read from (both take no whitespace), no Redis
        // policy, and no retention (settings are read by key).
        let text = r#"{"description": "Idempotency-Key idem:stripe: idempotency_ttl 86400", "components": {"redis": {"host": {"description": "the dedup Redis host, idem-redis"}}}}"#;
        assert_eq!(
            json_prose(text.as_bytes(), &text.to_ascii_lowercase().into_bytes()).len(),
            2
        );
        nothing_is_read_from_prose(FileKind::Json, text);
    }

    /// What the front end of `kind` makes of a text whose words stand in
    /// description prose: no string that holds a space (the header, Redis
    /// prefix and event readers take one token), no Redis instance or
    /// policy, and no retention.
    fn nothing_is_read_from_prose(kind: FileKind, text: &str) {
        let f = crate::frontend::parse(0, kind, text);
        assert!(f.strings.iter().all(|s| !s.value.contains(' ')));
        assert!(f.redis.settings.is_empty() && f.redis.instances.is_empty());
        assert!(f.retention.is_empty());
    }

    #[test]
    fn words_in_yaml_description_prose_admit_nothing() {
        let k = Keywords::new(&[], DFA_FROM_FILES);
        let y = |t: &str| k.admits(FileKind::Yaml, Path::new("openapi.yaml"), t.as_bytes());
        let spec = "openapi: 3.1.0\npaths:\n  /payments:\n    post:\n      description: |\n        Creates a payment. Retrying with the same id\n\n        is idempotent.\n      parameters:\n        - description: The key that makes a retry idempotent.\n          in: query\n";
        assert!(!y(spec));
        assert_eq!(
            yaml_prose(spec.as_bytes(), &spec.to_ascii_lowercase().into_bytes()).len(),
            2
        );
        for admitted in [
            // A header parameter's name, a property named for the key, a
            // property named `description` (its mapping follows), a single
            // token, a template, and a word after the scalar's end.
            spec.replace("in: query", "in: header\n          name: Idempotency-Key"),
            spec.replace("parameters:", "idempotency_key:"),
            "properties:\n  description:\n    type: string\n    x-idempotent: true\n".to_string(),
            "description: Idempotency-Key\n".to_string(),
            "description: {{ .Values.idempotency }} here\n".to_string(),
            "a:\n  description: plain words\n  idempotency_ttl: 1d\n".to_string(),
            "x_description: is idempotent\n".to_string(),
        ] {
            assert!(y(&admitted), "{admitted}");
        }
        for read in [
            "description: dedup keys live at redis://idem-redis:6379\n",
            "description: >\n  run with --maxmemory-policy noeviction for dedup\n",
            "# idemlint: ignore\ndescription: dedup keys, see below\n",
        ] {
            assert!(y(read), "{read}");
        }
        // Within a CRD's schema as well: both kinds of ranges together.
        let crd = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nspec:\n  description: Enables deduplication.\n";
        assert!(!y(&format!(
            "{crd}---\nkind: Job\nspec:\n  description: replays the queue\n"
        )));
        // The readers, on prose this judges silent, as for JSON.
        let text = "components:\n  redis:\n    host:\n      description: the dedup Redis host, idem-redis\n    x:\n      description: >-\n        Idempotency-Key idem:stripe: idempotency_ttl 86400\n";
        assert_eq!(
            yaml_prose(text.as_bytes(), &text.to_ascii_lowercase().into_bytes()).len(),
            2
        );
        nothing_is_read_from_prose(FileKind::Yaml, text);
    }

    /// The constants tier searches only the words that hold no other; it
    /// must say what a search for every word says, on idemlint's own
    /// sources and on texts built from the words' pieces.
    #[test]
    fn the_constants_search_equals_a_search_for_every_word() {
        let words = builtin().rust_constants.expect("[rust_constants]").words;
        let every = |b: &[u8]| {
            let item = memchr::memmem::find(b, b"const ").is_some()
                || memchr::memmem::find(b, b"static ").is_some();
            item && words
                .iter()
                .any(|w| memchr::memmem::find(b, w.as_bytes()).is_some())
        };
        let mut texts: Vec<Vec<u8>> = Vec::new();
        for entry in ignore::Walk::new(concat!(env!("CARGO_MANIFEST_DIR"), "/src")).flatten() {
            if entry.path().extension().is_some_and(|e| e == "rs") {
                texts.push(std::fs::read(entry.path()).unwrap());
            }
        }
        let pieces: Vec<String> = words
            .iter()
            .flat_map(|w| [w.clone(), w[..w.len() - 1].to_string(), w[1..].to_string()])
            .chain(["const ".into(), "static ".into(), " ".into(), "_".into()])
            .collect();
        let mut seed = 7u64;
        for _ in 0..20_000 {
            let mut t = Vec::new();
            for _ in 0..4 {
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                t.extend_from_slice(pieces[(seed >> 33) as usize % pieces.len()].as_bytes());
            }
            texts.push(t);
        }
        let mut matched = 0;
        for t in &texts {
            assert_eq!(
                rust_constants_prefilter(t),
                every(t),
                "{}",
                String::from_utf8_lossy(t)
            );
            matched += usize::from(every(t));
        }
        assert!(matched > 100 && matched < texts.len(), "{matched}");
    }

    #[test]
    fn a_large_file_is_searched_across_its_chunks() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("big.json");
        let k = Keywords::new(&[], DFA_FROM_FILES);
        // A word cut by the 1 MiB chunk boundary is still found, in either
        // case; a file without one is not.
        let mut bytes = vec![b' '; (1 << 20) - 3];
        bytes.extend_from_slice(b"IDEMPOTENCY");
        bytes.extend(std::iter::repeat_n(b' ', 1 << 20));
        std::fs::write(&path, &bytes).unwrap();
        assert!(k.stream_matches(&path));
        std::fs::write(&path, vec![b'x'; 3 << 20]).unwrap();
        assert!(!k.stream_matches(&path));
        assert!(k.stream_matches(&dir.path().join("missing")));
    }

    #[test]
    fn constants_module_passes_the_second_tier_only() {
        let consts = b"pub const DAY: u64 = 86_400;\n";
        assert!(!prefilter(consts));
        assert!(rust_constants_prefilter(consts));
        assert!(!rust_constants_prefilter(b"fn main() { let day = 1; }"));
    }

    /// A Rust string that is one CamelCase name is a type's name: it can
    /// be a Redis key or a header, never a table. The same name inside a
    /// longer literal, or in another kind of file, is judged as before.
    #[test]
    fn a_type_name_in_a_rust_string_names_no_table() {
        let k = Keywords::new(&[], 1);
        let rs = |text: &str| k.admits(FileKind::Rust, Path::new("src/adyen.rs"), text.as_bytes());
        for ty in [
            "AdyenIncomingWebhook",
            "airwallexWebhookData",
            "StripeWebhookEvent",
        ] {
            assert!(
                !rs(&format!("let w: W = body.parse_struct(\"{ty}\")?;")),
                "{ty}"
            );
            assert!(
                rs(&format!(
                    "sqlx::query(\"SELECT 1 FROM {ty} WHERE id = $1\");"
                )),
                "{ty}"
            );
            let ts = k.admits(
                FileKind::Text,
                Path::new("a.ts"),
                format!("x = \"{ty}\";").as_bytes(),
            );
            assert!(ts, "{ty}");
        }
        // Judged once per name and place: the type name first does not hide
        // the table after it.
        assert!(rs(
            "parse(\"StripeWebhookEvent\"); query(\"DELETE FROM StripeWebhookEvent\");"
        ));
        // Snake case, separators and raw strings are not type names
        // (this one is a Redis key prefix).
        assert!(rs("let t = \"stripe_webhook_events\";"));
        assert!(rs("let t = r#\"DELETE FROM StripeWebhookEvent\"#;"));
        // A header name keeps its meaning.
        assert!(rs("b.header(\"Webhook-Id\", id)"));
    }

    #[test]
    fn a_retry_crate_alone_holds_a_rust_file_back() {
        let k = Keywords::new(&[], 1);
        let rs =
            |text: &str| k.admission(FileKind::Rust, Path::new("src/jobs.rs"), text.as_bytes());
        let retry = "use backoff::ExponentialBackoff;\nfn policy() -> ExponentialBackoff { ExponentialBackoff::default() }\n";
        assert_eq!(rs(retry), Admission::Late);
        // Another word admits it in full, before or after the retry's.
        assert_eq!(
            rs(&format!("{retry}const H: &str = \"Idempotency-Key\";\n")),
            Admission::Full
        );
        assert_eq!(rs(&format!("fn replay() {{}}\n{retry}")), Admission::Full);
        // In a comment, or in another kind, the word is nothing.
        assert_eq!(rs("// retried with backoff\nfn main() {}\n"), Admission::No);
        let yaml = k.admission(FileKind::Yaml, Path::new("values.yaml"), b"backoff: 10s\n");
        assert_eq!(yaml, Admission::No);
        assert!(k.admits(FileKind::Rust, Path::new("src/jobs.rs"), retry.as_bytes()));
        // A name that makes a store by a convention that is no prefilter
        // word: such a file can make a store, so it is parsed in full.
        for store in [
            "sqlx::query(\"INSERT INTO seen_events (id) VALUES ($1)\")",
            "struct HandledWebhooks;",
            "sqlx::query(\"SELECT 1 FROM stripe_events WHERE id = $1\")",
            "conn.set_nx(&processed_key, 1)",
        ] {
            assert_eq!(
                rs(&format!("{retry}fn f() {{ {store}; }}\n")),
                Admission::Full,
                "{store}"
            );
        }
        // The same words apart, or in a comment, are nothing.
        let apart = "fn f(seen: bool, event: Event) {} // processed_key, the webhook_event table\n";
        assert_eq!(rs(&format!("{retry}{apart}")), Admission::Late);
    }
}
