//! Facts: what the front ends find in a file, as plain data named by what it
//! is in the domain (a statement that writes a table, a command that sets a
//! key with an expiry, a call that sends a request), not by the syntax it
//! was read from. Every front end lowers its input into these types; the
//! model joins them and the rules read the model, and neither looks back at
//! a front end. One module a domain.
//!
//! The types carry constructors and a few small pure helpers over their own
//! data (folding a constant expression, writing a key path as text), where
//! a front end and the model both need them; nothing here reads text.

pub mod config;
pub mod flow;
pub mod headers;
pub mod keys;
pub mod redis;
pub mod retention;
pub mod retry;
pub mod rows;
pub mod store;
pub mod tokens;

use crate::source::{FileId, Span};
use headers::{StrLit, StrRole};
use keys::KeyFormat;
use redis::RedisKeyWrite;
use retention::{EarlyPurge, RetentionFact};
use store::{ConflictTarget, TableUse};

/// Something a front end could not read. It becomes a `parse-error`
/// diagnostic when `reported`; otherwise it only counts in the summary
/// (an unparseable SQL statement that touches no store, for instance).
#[derive(Debug, Clone)]
pub struct Problem {
    pub span: Span,
    pub message: String,
    pub reported: bool,
    /// The parser's own words, whole, for the label under the span
    /// (`Expected: column name or constraint definition, found: ,`).
    pub detail: Option<String>,
}

impl Problem {
    /// A file or statement invalid in its own language: the headline names
    /// the language, the label carries the parser's words whole.
    pub fn invalid(span: Span, language: &str, detail: impl Into<String>) -> Self {
        Problem {
            detail: Some(detail.into()),
            ..Problem::new(span, format!("invalid {language}"))
        }
    }

    pub fn new(span: Span, message: impl Into<String>) -> Self {
        Problem {
            span,
            message: message.into(),
            reported: true,
            detail: None,
        }
    }
}

/// Everything one front end found in one file.
#[derive(Debug, Default)]
pub struct FileFacts {
    pub file: FileId,
    pub problems: Vec<Problem>,
    /// String literals and config keys/values (header candidates).
    pub strings: Vec<StrLit>,
    /// The flattened tree of a YAML/TOML/JSON/.env file.
    pub conf: Option<config::ConfDoc>,
    /// Hints about the file as a whole, from the Rust and text front ends.
    pub hints: FileHints,
    /// Rust-only facts (constants, identifier uses).
    pub code: Option<CodeFacts>,
    /// Retentions that apply to idempotency stores.
    pub retention: Vec<RetentionFact>,
    /// Cleanups that delete a store's rows before their own expiry.
    pub early_purges: Vec<EarlyPurge>,
    /// Redis key writes from code.
    pub redis_writes: Vec<RedisKeyWrite>,
    /// Redis key prefixes the file's code builds from an idempotency
    /// header or a provider event's identity (`rust::key_source`), with
    /// what they are built from: stores whatever their name.
    pub derived_prefixes: Vec<(String, String)>,
    /// Redis key formats of request-key stores built in code.
    pub key_formats: Vec<KeyFormat>,
    /// Tables that SQL in the file's string literals writes or reads.
    pub table_uses: Vec<TableUse>,
    /// `INSERT … ON CONFLICT (cols)` targets in the SQL of a text file's
    /// string literals (Go, TypeScript, Python, …).
    pub conflict_targets: Vec<ConflictTarget>,
    /// Find-or-create calls in code (Django's `get_or_create`).
    pub find_or_create: Vec<store::FindOrCreate>,
    /// SQL-only facts: the file's schema events in statement order.
    pub sql: Option<store::SqlFacts>,
    /// Redis instances and `maxmemory-policy` settings declared in the file.
    pub redis: redis::RedisFacts,
    /// Test code inside the file (`#[cfg(test)]` modules, `#[test]`
    /// functions), which the retention, header and flow rules do not judge.
    pub test_regions: Vec<Span>,
    /// The whole file is test code by its path (relative to the directory it
    /// was found under): set by the pipeline, not by a front end.
    pub test_path: bool,
    /// Go template actions read as placeholder values (a Helm template's
    /// `name: {{ include … }}`): nothing is named or set by their text.
    pub holes: Vec<Span>,
    /// Set for a file whose text is let go after its parse (a constants-only
    /// Rust file): its lines that call something named for idempotency,
    /// with their byte offsets (`store_lines::store_code_lines`), all that
    /// the model reads of such a text.
    pub store_code_lines: Option<Vec<(usize, String)>>,
    /// Dependencies on libraries that keep dedup keys or locks in Redis,
    /// from a manifest (`Gemfile`, `package.json`, `pyproject.toml`, …).
    pub dedup_deps: Vec<redis::DedupDep>,
}

impl FileFacts {
    /// The key prefix of a Redis write when it names a store: by its name
    /// (`rules/stores.toml`), or because the file builds it from an
    /// idempotency header or a provider event's identity.
    pub fn store_prefix<'w>(&self, w: &'w RedisKeyWrite) -> Option<&'w str> {
        let p = w.key_prefix.as_deref()?;
        (crate::knowledge::stores().is_store_prefix(p)
            || self.derived_prefixes.iter().any(|(d, _)| d == p))
        .then_some(p)
    }

    /// Give back what the vectors every kept file holds to the end of the
    /// run grew beyond their length (a quarter of their capacity, on
    /// average, after doubling).
    pub fn shrink_to_fit(&mut self) {
        self.strings.shrink_to_fit();
        self.table_uses.shrink_to_fit();
        self.retention.shrink_to_fit();
        if let Some(r) = &mut self.code {
            r.flow.functions.shrink_to_fit();
            r.flow.uses.shrink_to_fit();
            r.flow.structs.shrink_to_fit();
            for f in &mut r.flow.functions {
                f.params.shrink_to_fit();
                f.module.shrink_to_fit();
            }
            r.retention.defs.shrink_to_fit();
            r.retention.pending.shrink_to_fit();
            r.str_consts.shrink_to_fit();
            r.ident_args.shrink_to_fit();
        }
    }

    /// Free the flattened tree of a YAML/JSON/TOML file and the string
    /// literals once the header, retention and Redis models, their only
    /// readers, are built; `conf` stays `Some` for a config file.
    pub fn release_extracted(&mut self) {
        if let Some(doc) = &mut self.conf {
            doc.entries = Vec::new();
        }
        self.strings = Vec::new();
    }
}

#[derive(Debug, Default, Clone)]
pub struct FileHints {
    /// The file talks to Stripe's API (a `stripe` crate path, `api.stripe.com`,
    /// `Stripe-Signature`): a header it reads is read from Stripe's replies.
    pub talks_to_stripe: bool,
    /// nginx `underscores_in_headers on;` in this file: the span of `on`.
    pub nginx_passes_underscores: Option<Span>,
    /// Header names an nginx directive sets on the request it forwards
    /// upstream (`proxy_set_header Idempotency_Key ...`): the names' spans.
    /// `underscores_in_headers` does not apply to them (it concerns headers
    /// from clients); what the upstream reads decides.
    pub forwarded_headers: Vec<Span>,
}

/// Facts specific to Rust files, beyond the shared string literals.
#[derive(Debug, Default, Clone)]
pub struct CodeFacts {
    /// `const`/`static` items whose value is a string literal.
    pub str_consts: Vec<StringConst>,
    /// Identifiers passed where a header name is read or written
    /// (`headers().get(REPLAYED)`), resolved against constants in the model.
    pub ident_args: Vec<(String, StrRole)>,
    /// Duration constants and retentions (`retention`).
    pub retention: retention::RetentionFacts,
    /// Steps per function, uses and struct fields (`flow`).
    pub flow: flow::FlowFacts,
    /// Retries, their policies and the keyed requests they resend.
    pub retry: retry::RetryFacts,
    /// Caches with a Redis backend, and the caches idempotency code uses.
    pub cache: store::CacheFacts,
    /// Redis keys and SQL values built from an idempotency header or a
    /// provider event's identity (`key_source`).
    pub derived: keys::Derived,
    /// Durations read in another unit than their names say (`units`).
    pub unit_slips: Vec<retention::UnitSlip>,
    /// A caller's identity at hand and left out of an idempotency key
    /// (`scope`).
    pub dropped_callers: Vec<keys::DroppedCaller>,
    /// Key formats built where an owner's binding is at hand and unused
    /// (`owner_keys`).
    pub ownerless: Vec<keys::OwnerlessKey>,
    /// Used-token records and validation leeways (`jti`).
    pub tokens: tokens::TokenFacts,
    /// Rows as ORM structs map them and query chains read them (`rows`).
    pub rows: rows::RowFacts,
    /// Workflow handlers called with an idempotency key (`restate`).
    pub handler_keys: Vec<retention::HandlerKey>,
}

#[derive(Debug, Clone)]
pub struct StringConst {
    pub name: String,
    /// Index into `FileFacts::strings` of the literal.
    pub string: usize,
}
