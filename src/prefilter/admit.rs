//! Whether a file is admitted, occurrence by occurrence: each occurrence of
//! a word is judged where it lies ([`Scan::occurrence`]), and what the
//! occurrences left undecided is settled at the end ([`Scan::finish`]).
//! What a judgement needs of the file (its comments and strings, its test
//! code, the calls around its literals) is found the first time an
//! occurrence asks, and most files never ask.

use super::*;
use crate::lex::rust::{self as lex, CallScan};
use std::cell::{Cell, OnceCell, RefCell};
use std::ops::Range;

type Ranges = Vec<Range<usize>>;

impl Keywords {
    /// The admission of a file of `kind` by its words, `lower` being
    /// `bytes` lowered (`rust`: the file is Rust; `test_path`: whether its
    /// path is test code, asked only when a word would count).
    pub(super) fn admits_lowered(
        &self,
        kind: FileKind,
        rust: bool,
        test_path: &dyn Fn() -> bool,
        path: &Path,
        bytes: &[u8],
        lower: &[u8],
    ) -> Admission {
        let scanned = OnceCell::new();
        let prose_names = OnceCell::new();
        let scan = Scan {
            keywords: self,
            kind,
            rust,
            test_path,
            bytes,
            lower,
            scanned: &scanned,
            tests: OnceCell::new(),
            prose_names: &prose_names,
            prose_scan: RefCell::new(None),
            key_strings: RefCell::new(None),
            calls_concat: Cell::new(None),
            links_from_code: Cell::new(None),
        };
        // Every occurrence of every word (strong words first in `any`, then
        // the weak ones). The catalogue words are looked for once the
        // others have not admitted the file (most files hold none of
        // either), and only in the kinds whose front ends read a table's
        // name.
        let listed = self.any.words.len();
        let derived = reads_table_names(kind)
            .then(|| self.derived.occurrences(lower))
            .into_iter()
            .flatten()
            .map(|(at, p)| (at, listed + p));
        let mut strong_seen = false;
        let mut late = false;
        let mut with_checked = vec![false; self.groups.len()];
        for (start, pattern) in self.any.occurrences(lower).chain(derived) {
            if self.unnamed(pattern, bytes, lower, start) {
                continue;
            }
            match scan.occurrence(start, pattern, &mut with_checked) {
                Seen::Nothing => {}
                Seen::Silenced => strong_seen = true,
                Seen::Late => late = true,
                Seen::Full => return Admission::Full,
            }
        }
        scan.finish(path, strong_seen, late)
    }
}

/// What one occurrence of a word makes of its file.
enum Seen {
    /// Nothing: the next occurrence is looked at.
    Nothing,
    /// A strong word in a Rust file where it does not count (a comment,
    /// test code, a std method, a message's prose, a C declaration): the
    /// file's path may still make it count ([`Scan::finish`]).
    Silenced,
    /// A word of a `late` group in a kind the group parses: another word
    /// may still admit the file in full.
    Late,
    /// The file is parsed in full.
    Full,
}

/// One file's admission under way.
struct Scan<'s> {
    keywords: &'s Keywords,
    kind: FileKind,
    rust: bool,
    test_path: &'s dyn Fn() -> bool,
    bytes: &'s [u8],
    lower: &'s [u8],
    /// Where words do not count, and a Rust file's string literals, found
    /// at the first occurrence: a Rust file's comments, and a YAML stream's
    /// CRD documents (`description: ... dedup ...`, `maxRetries`
    /// properties) and a YAML or JSON file's description prose, which
    /// document a resource kind and deploy nothing a rule reads. A weak
    /// word in Rust code (not in a string) is judged as an identifier
    /// ([`names_a_store_in_code`]).
    scanned: &'s OnceCell<(Ranges, Ranges)>,
    /// A Rust file's test code, found only when a word would count: most
    /// words outside comments admit nothing, and finding a file's test
    /// items reads all of it. What a word counts for does not depend on
    /// where it lies, so asking last gives what asking first gave. Asked
    /// only once `scanned` is set.
    tests: OnceCell<Ranges>,
    /// The names of `[rust_prose_macros]`, for [`Scan::prose_scan`].
    prose_names: &'s OnceCell<Vec<&'s str>>,
    /// Which literals lie in a message macro's arguments ([`prose_word`]).
    prose_scan: RefCell<Option<CallScan<'s>>>,
    /// Which literals lie in a Redis command's arguments
    /// ([`literal_may_be_a_redis_key`]).
    key_strings: RefCell<Option<CallScan<'s>>>,
    /// Whether the file calls `concat!` ([`literal_may_name_a_table`]).
    calls_concat: Cell<Option<bool>>,
    /// Whether the file has code through which a name can link to Redis
    /// ([`links`]).
    links_from_code: Cell<Option<bool>>,
}

impl<'s> Scan<'s> {
    /// Where words do not count, and the string literals ([`Scan::scanned`]).
    fn scanned(&self) -> &'s (Ranges, Ranges) {
        let (kind, bytes, lower) = (self.kind, self.bytes, self.lower);
        self.scanned.get_or_init(|| match kind {
            FileKind::Rust => lex::comments_and_strings(bytes),
            FileKind::Yaml => (
                union(schema_documents(bytes), yaml_prose(bytes, lower)),
                Vec::new(),
            ),
            FileKind::Json => (json_prose(bytes, lower), Vec::new()),
            _ => (Vec::new(), Vec::new()),
        })
    }

    /// Whether `at` lies in a Rust file's test code whose words do not
    /// count ([`Keywords::test_code`]).
    fn in_tests(&self, at: usize) -> bool {
        self.rust
            && self.scanned.get().is_some_and(|(silent, strings)| {
                let tests = self.tests.get_or_init(|| {
                    self.keywords
                        .test_code(self.test_path, self.bytes, silent, strings)
                });
                lex::contains(tests, at)
            })
    }

    /// Whether `at` lies where words count: no comment, prose or test code.
    fn in_code(&self, at: usize) -> bool {
        !(self
            .scanned
            .get()
            .is_some_and(|(silent, _)| lex::contains(silent, at))
            || self.in_tests(at))
    }

    /// The index of the Rust string literal `at` lies in, if any.
    fn string_at(&self, at: usize) -> Option<usize> {
        self.rust
            .then(|| lex::index_at(&self.scanned().1, at))
            .flatten()
    }

    /// What the occurrence of word `pattern` at `start` makes of the file
    /// (`with_checked`: the weak groups whose `with` words were looked for).
    fn occurrence(&self, start: usize, pattern: usize, with_checked: &mut [bool]) -> Seen {
        let (silent, _) = self.scanned();
        let strong = pattern < self.keywords.strong_len;
        if lex::contains(silent, start) {
            return if self.rust && strong {
                Seen::Silenced
            } else {
                Seen::Nothing
            };
        }
        match pattern.checked_sub(self.keywords.strong_len) {
            None => self.strong(start, pattern),
            Some(weak) => self.weak(start, pattern, weak, with_checked),
        }
    }

    /// A strong word outside comments admits its file, unless it lies in
    /// test code, or in Rust names a std method, is a word of a message's
    /// prose or part of a C declaration.
    fn strong(&self, start: usize, pattern: usize) -> Seen {
        let string = self.string_at(start);
        let bytes = self.bytes;
        let std_method = || string.is_none() && self.keywords.std_method_at(bytes, start);
        let prose = || string.is_some_and(|i| self.prose(i, start, pattern));
        let c_declaration = || string.is_none() && c_declaration_at(bytes, start);
        if self.in_tests(start) || (self.rust && (std_method() || prose() || c_declaration())) {
            Seen::Silenced
        } else {
            Seen::Full
        }
    }

    /// Whether word `pattern` at `start`, in Rust string literal `i`, is a
    /// word of prose in a message macro's arguments.
    fn prose(&self, i: usize, start: usize, pattern: usize) -> bool {
        let (silent, strings) = self.scanned();
        let k = self.keywords;
        prose_word(self.bytes, &strings[i], start, k.word(pattern).len())
            && self
                .prose_scan
                .borrow_mut()
                .get_or_insert_with(|| {
                    let names = self
                        .prose_names
                        .get_or_init(|| k.prose_macros.iter().map(String::as_str).collect());
                    CallScan::new(self.bytes, silent, strings, names).macros()
                })
                .in_macro(i)
    }

    /// A weak word (of weak group member `weak`) admits its file in a kind
    /// its group parses; elsewhere where the name around it is a store or
    /// a header name, or, for a group with `with` words, where the name
    /// may link and one of those words lies in code.
    fn weak(&self, start: usize, pattern: usize, weak: usize, with_checked: &mut [bool]) -> Seen {
        let k = self.keywords;
        let Some(&g) = k.weak_group.get(weak) else {
            return Seen::Nothing;
        };
        let group = &k.groups[g];
        if !group.only.is_empty() && !group.only.iter().any(|p| p == self.kind.name()) {
            return Seen::Nothing;
        }
        if group.parse.iter().any(|p| p == self.kind.name()) {
            return if self.in_tests(start) {
                Seen::Nothing
            } else if group.late {
                Seen::Late
            } else {
                Seen::Full
            };
        }
        // In Rust code outside string literals, a weak word is part of an
        // identifier: a type, a function, a binding.
        let string = self.string_at(start);
        let identifier = self.rust && string.is_none();
        let end = start + k.word(pattern).len();
        let name = store_name_at(self.bytes, start, end);
        if group.names && judged_as(&k.judged, name, self.named(name, end, string, identifier)) {
            return if self.in_tests(start) {
                Seen::Nothing
            } else {
                Seen::Full
            };
        }
        // Only a group with `with` words asks whether the name links.
        if let Some(with) = &group.with {
            if !with_checked[g] && self.linkable(name.0, identifier) && !self.in_tests(start) {
                with_checked[g] = true;
                if with.occurrences(self.lower).any(|(w, _)| self.in_code(w)) {
                    return Seen::Full;
                }
            }
        }
        Seen::Nothing
    }

    /// Where a weak word's name (ending at `end`) is, for judging it: an
    /// identifier, a Rust string literal (`string`) by what the front end
    /// can read from it, or any other text.
    fn named(
        &self,
        name: (&[u8], bool),
        end: usize,
        string: Option<usize>,
        identifier: bool,
    ) -> Named {
        let bytes = self.bytes;
        if identifier {
            let after = &bytes[store_name_end(bytes, end)..];
            return Named::Code(!name.0.ends_with(b"::") || group_may_name_a_table(after));
        }
        let Some(i) = string else {
            return Named::Text;
        };
        let (silent, strings) = self.scanned();
        let literal = &strings[i];
        let concat = || {
            let v = self
                .calls_concat
                .get()
                .unwrap_or_else(|| memchr::memmem::find(self.lower, b"concat").is_some());
            self.calls_concat.set(Some(v));
            v
        };
        if literal_may_name_a_table(bytes, self.lower, literal, name.0, concat) {
            return Named::Text;
        }
        let known = &self.keywords.judged;
        let in_key_call = || {
            // Asked only where the answer changes the judgement (it reads
            // the file up to the literal).
            judged_as(known, name, Named::NoTable) != judged_as(known, name, Named::HeaderOnly)
                && self
                    .key_strings
                    .borrow_mut()
                    .get_or_insert_with(|| {
                        CallScan::new(bytes, silent, strings, crate::knowledge::REDIS_KEY_CALLS)
                    })
                    .in_call(i)
        };
        if literal_may_be_a_redis_key(bytes, literal, in_key_call) {
            Named::NoTable
        } else {
            Named::HeaderOnly
        }
    }

    /// Whether a weak word's name may link a Redis instance, for a group
    /// with `with` words: a word next to Redis (a `receipts` Redis
    /// service). In a Rust file, only in a name the Redis model links to an
    /// instance (`rules/redis.toml` link words: a `ReceiptCache` whose
    /// field is a Redis pool, a `receipts-redis` host); a `webhook_url`
    /// beside a Redis client is any service's code. A Rust string gives the
    /// Redis model nothing more: a key prefix that names a store is judged
    /// as a name, and Rust declares an instance only with `CONFIG SET
    /// maxmemory-policy` or a `redis://` URL, both strong words. An
    /// identifier links only through the code [`links`] looks for.
    fn linkable(&self, name: &[u8], identifier: bool) -> bool {
        let links_from_code = || {
            let v = self
                .links_from_code
                .get()
                .unwrap_or_else(|| links(self.bytes));
            self.links_from_code.set(Some(v));
            v
        };
        !self.rust
            || (redis_link_name(&self.keywords.judged, name) && (!identifier || links_from_code()))
    }

    /// The admission of a file no occurrence admitted in full.
    fn finish(&self, path: &Path, strong_seen: bool, late: bool) -> Admission {
        // A Rust module named for a strong word (`src/idempotency/mod.rs`)
        // is that code, whatever its comments say.
        let path = || path.as_os_str().as_encoded_bytes().to_ascii_lowercase();
        if strong_seen && self.keywords.strong.is_match(&path()) {
            Admission::Full
        } else if late {
            // A name in a comment or in test code makes no store a rule
            // judges, as a word there admits nothing.
            // A suppression comment is read only from a file that is parsed:
            // one that holds one is not held back, so an unused one is
            // still reported.
            if memchr::memmem::find(self.bytes, b"idemlint").is_some()
                || may_name_a_store(&self.keywords.judged, self.bytes, &|at| !self.in_code(at))
            {
                Admission::Full
            } else {
                Admission::Late
            }
        } else if self.kind == FileKind::Python && declares_abstract_model(self.lower) {
            // Its fields are those of models in other files, which name
            // only its class: read whole, as those models' tables are.
            Admission::Full
        } else if self.kind == FileKind::Python && finds_then_creates(self.lower) {
            // before the schema: a model's own classmethod may find its
            // row and create it (`cls.objects.filter(..)`, then
            // `cls._create_from_stripe_object(..)`)
            Admission::Full
        } else if (self.kind == FileKind::Sql && changes_a_table(self.lower))
            || (self.kind == FileKind::Prisma
                && memchr::memmem::find(self.lower, b"model").is_some())
            || (self.kind == FileKind::Python
                && (declares_python_schema(self.lower) || models_module(path())))
        {
            // A Prisma model is a table as a migration's `CREATE TABLE` is.
            Admission::Schema
        } else if self.kind == FileKind::Go && declares_ent_schema(self.lower) {
            // An ent schema names its table by its Go type, which no table
            // name of the first pass's stores matches as text: read whole.
            Admission::Full
        } else if self.kind.is_code() && quotes_an_underscored_header(self.lower) {
            Admission::Full
        } else {
            Admission::No
        }
    }
}

/// Whether code that speaks of headers quotes a header name of
/// `rules/headers.toml` spelt with `_` for its `-`, in lower case
/// (`'webhook_id'`): such a literal is a JSON field or a column anywhere
/// else, but where a front end reads it as a header's name (a key of a
/// `headers` dict or object, an argument of a header setter) the header
/// rule reports it, and every such place says `header` (or Java's
/// `RequestProperty`). Lower-cased.
fn quotes_an_underscored_header(lower: &[u8]) -> bool {
    let says_header = || {
        memchr::memmem::find(lower, b"header").is_some()
            || memchr::memmem::find(lower, b"requestproperty").is_some()
    };
    let quoted = |at: usize, len: usize| {
        let q = at.checked_sub(1).map(|i| lower[i]);
        matches!(q, Some(b'"' | b'\'' | b'`')) && lower.get(at + len) == q.as_ref()
    };
    crate::header_names::underscored_names()
        .iter()
        .any(|n| memchr::memmem::find_iter(lower, n.as_bytes()).any(|at| quoted(at, n.len())))
        && says_header()
}

/// Calls and names with which Python declares or changes a table
/// (`frontend::python::schema`): Alembic's `op.*`, Django's migration
/// operations and models, SQLAlchemy's models and tables. Lower-cased.
const PYTHON_SCHEMA: &[&[u8]] = &[
    b"op.create_table",
    b"op.add_column",
    b"op.create_index",
    b"op.create_unique_constraint",
    b"op.create_primary_key",
    b"op.drop_",
    b"op.execute",
    b"migrations.",
    b"models.model",
    b"__tablename__",
    b"table(",
];

/// Whether a lower-cased Go text may declare an ent schema
/// (`frontend::go::ent`): it imports ent's schema builders and embeds
/// `ent.Schema`.
fn declares_ent_schema(lower: &[u8]) -> bool {
    memchr::memmem::find(lower, b"entgo.io/ent/schema/").is_some()
        && memchr::memmem::find(lower, b"ent.schema").is_some()
}

/// A read by equality and an insert in Python (`frontend::python::lookup`):
/// SQLAlchemy's `.where(M.a == x)` (or Django's `.exists()`) and a
/// `create(..)` or `add(..)`. The file may hold no store word: the
/// evidence that the lookup is a key is its table's unique guard, which
/// the schema pass reads from the model the call names. Measured
/// 2026-12-07 (Python files holding both, tests left out): polar 88 of
/// 1389 Python files.
const PYTHON_LOOKUPS: &[&[u8]] = &[b".where(", b".exists()"];
/// The inserts: `.create(..)`, `.add(..)`, Django's `.save()`, and a
/// method named for a create (`self.create_order(..)`,
/// `cls._create_from_stripe_object(..)`: `[model_create_method]` of
/// `rules/stores.toml`).
const PYTHON_INSERTS: &[&[u8]] = &[b".create", b"._create", b".add(", b".save("];

/// A Django abstract model's `Meta` (`abstract = True`), lower-cased.
fn declares_abstract_model(lower: &[u8]) -> bool {
    [b"abstract = true".as_slice(), b"abstract=true"]
        .iter()
        .any(|w| memchr::memmem::find(lower, w).is_some())
        && memchr::memmem::find(lower, b"models.").is_some()
}

/// Whether a lower-cased path is a Django app's models module
/// (`models.py`, or a file of `models/`), where a class that only names an
/// abstract base (`class Order(AbstractOrder): pass`) is a model.
fn models_module(path: Vec<u8>) -> bool {
    let mut parts = path.rsplit(|b| *b == b'/' || *b == b'\\');
    let file = parts.next().unwrap_or_default();
    file == b"models.py" || parts.next() == Some(b"models".as_slice())
}

/// Whether a lower-cased Python text may find a row and then insert it.
fn finds_then_creates(lower: &[u8]) -> bool {
    let has = |ws: &[&[u8]]| ws.iter().any(|w| memchr::memmem::find(lower, w).is_some());
    has(PYTHON_LOOKUPS) && has(PYTHON_INSERTS)
}

/// Whether a lower-cased Python text may declare or change a table: held
/// for the schema as an SQL migration is.
fn declares_python_schema(lower: &[u8]) -> bool {
    PYTHON_SCHEMA
        .iter()
        .any(|w| memchr::memmem::find(lower, w).is_some())
}
