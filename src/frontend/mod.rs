//! Front ends: one module per input kind, each turning a file's text into
//! facts with byte spans. A front end never panics and never gives up on a whole
//! file for one bad part: it returns what it could read plus a [`Problem`].
//! Front ends know syntax, not rules; the project model joins their facts.

pub mod conf;
pub mod env;
pub mod hcl;
pub mod json;
mod json_reader;
pub mod key_format;
pub mod manifest;
pub mod redis_conf;
pub mod redis_yaml;
pub mod rust;
pub mod sql;
pub mod template;
pub mod text;
pub mod toml;
pub mod yaml;

#[cfg(test)]
mod prefilter_agrees;

use crate::source::{FileId, FileKind, Span};

/// Deepest nesting a front end will hand to a recursive parser. Deeper input
/// is reported as a [`Problem`] instead of risking the stack.
pub const MAX_NESTING: usize = 256;

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

/// Where a string that may name a header was found, which tells the header
/// rule whether the code reads it, writes it, or only mentions it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StrRole {
    /// An argument of a lookup: `headers().get(..)`, `contains_key(..)`, `req.header(..)` in a read position.
    Read,
    /// An argument of a write: `insert(..)`, `append(..)`, `.header(name, value)` on a builder.
    Write,
    /// A key in a config file (YAML/TOML/JSON/.env).
    ConfKey,
    /// Certainly a header name, direction unknown: `HeaderName::from_static(..)`,
    /// a key or value under a config path that speaks of headers
    /// (`request_headers_to_add`, `headers: - name: ..`).
    HeaderName,
    /// Anything else: a constant's value, a config value, a literal elsewhere.
    Mention,
}

/// A string literal, config key or config value that the header rule inspects.
#[derive(Debug, Clone)]
pub struct StrLit {
    /// The decoded value.
    pub value: String,
    /// Span of the value's text in the file (inside the quotes).
    pub span: Span,
    pub role: StrRole,
}

/// What a retention applies to, as named where it was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StoreRef {
    /// A SQL table (as written, possibly schema-qualified).
    Table(String),
    /// A Redis key prefix (the literal text before the first placeholder).
    RedisPrefix(String),
    /// A config key path (`stripe.webhooks.dedup_ttl_hours`).
    ConfigPath(String),
    /// A Rust constant or binding whose name names a store and a retention
    /// (`STRIPE_DEDUP_TTL_SECS`), when no write tells which store it keeps.
    Constant(String),
}

/// A retention found in a file: how long something keeps idempotency keys.
/// Filled by the SQL, Rust and config extractors; joined in the model.
#[derive(Debug, Clone)]
pub struct RetentionFact {
    /// The duration's text in the file.
    pub span: Span,
    pub duration: crate::duration::Duration,
    pub target: StoreRef,
    /// How it was found, for messages: "DELETE with interval", "Redis SET EX",
    /// "config key `idempotency.ttl`".
    pub via: String,
    /// Names around it (table, prefix, constant, config path, function) for
    /// counterparty attribution.
    pub context: Vec<String>,
}

/// A cleanup that deletes a store's rows some time before their own
/// expiry: `DELETE FROM t WHERE expires_at < now() + interval '1 hour'`,
/// diesel's `t::expires_at.lt(now + IntervalDsl::hours(1))`.
#[derive(Debug, Clone)]
pub struct EarlyPurge {
    /// The lead's text.
    pub span: Span,
    /// How long before its expiry a row is deleted.
    pub lead: crate::duration::Duration,
    pub table: String,
    /// The expiry column compared.
    pub column: String,
}

/// A Redis write of a key, from code (`SET key v EX n NX`, `set_ex`, ...).
#[derive(Debug, Clone)]
pub struct RedisKeyWrite {
    pub span: Span,
    /// The literal prefix of the key (`"idem:stripe:"` from `format!("idem:stripe:{}", id)`).
    pub key_prefix: Option<String>,
    /// The expiry set with the write, if any, and its span.
    pub ttl: Option<(crate::duration::Duration, Span)>,
    /// Written with `NX` (set only if absent): an atomic claim.
    pub nx: bool,
}

/// A Redis key as code builds it, for `unscoped-idempotency-key`:
/// `format!("idem:{}:{}", merchant_id, key)`, `` `idem:${tenantId}:${key}` ``.
/// Only formats whose prefix names a request-key store are kept.
#[derive(Debug, Clone)]
pub struct KeyFormat {
    /// The format string's text in the file (inside the quotes).
    pub span: Span,
    /// The format as written (`idem:{}:{}`).
    pub text: String,
    /// The literal prefix before the first placeholder (`idem:`).
    pub prefix: String,
    /// The literal text between placeholders.
    pub literals: Vec<String>,
    /// For each placeholder, the identifiers it is built from (a Rust
    /// `let` it names adds what that binding was built from); empty when
    /// unknown.
    pub holes: Vec<Vec<String>>,
    /// Identifiers of the code around it (the enclosing Rust function, or
    /// the lines before the literal elsewhere): which caller is at hand.
    pub around: Vec<String>,
}

/// A table named by SQL inside code (a string literal of Rust or another
/// language): which code writes or reads a store.
#[derive(Debug, Clone)]
pub struct TableUse {
    /// The table's bare name, lower-cased, without quotes or schema.
    pub table: String,
    /// The statement's verb and table (`INSERT INTO processed_deliveries`).
    pub span: Span,
    pub writes: bool,
}

/// The arbiter an `INSERT INTO t … ON CONFLICT (a, b)` names: PostgreSQL
/// (and SQLite) accept it only when a unique guard of `t` is over exactly
/// those columns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConflictTarget {
    /// The table's bare name, lower-cased, without quotes or schema.
    pub table: String,
    /// The target's columns, normalised as the schema names them (unquoted
    /// lower-cased, quoted as written).
    pub columns: Vec<String>,
    /// `ON CONFLICT (…)`.
    pub span: Span,
}

/// Everything one front end found in one file.
#[derive(Debug, Default)]
pub struct FileFacts {
    pub file: FileId,
    pub problems: Vec<Problem>,
    /// String literals and config keys/values (header candidates).
    pub strings: Vec<StrLit>,
    /// The flattened tree of a YAML/TOML/JSON/.env file.
    pub conf: Option<conf::ConfDoc>,
    /// Hints about the file as a whole, from the Rust and text front ends.
    pub hints: FileHints,
    /// Rust-only facts (constants, identifier uses).
    pub rust: Option<rust::RustFacts>,
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
    /// SQL-only facts: the file's schema events in statement order.
    pub sql: Option<sql::SqlFacts>,
    /// Redis instances and `maxmemory-policy` settings declared in the file.
    pub redis: redis_conf::RedisFacts,
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
    pub dedup_deps: Vec<manifest::DedupDep>,
}

pub use crate::header_names::header_relevant;

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
        if let Some(r) = &mut self.rust {
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

/// Parse one file with the front end for its kind.
pub fn parse(file: FileId, kind: FileKind, text: &str) -> FileFacts {
    let mut facts = FileFacts {
        file,
        ..FileFacts::default()
    };
    match kind {
        FileKind::Rust => {
            rust::parse(text, &mut facts);
            facts.table_uses = text::table_uses(text);
        }
        FileKind::Yaml => {
            yaml::parse(text, &mut facts);
            redis_yaml::extract(text, &mut facts);
        }
        FileKind::Json => {
            json::parse(text, &mut facts);
            if let Some(doc) = &facts.conf {
                facts.dedup_deps = manifest::from_package_json(doc);
            }
        }
        FileKind::RedisConf => {
            redis_conf::parse(text, &mut facts);
            text::parse(text, &mut facts);
        }
        FileKind::Hcl => {
            hcl::parse(text, &mut facts);
            text::parse(text, &mut facts);
        }
        FileKind::Toml => {
            toml::parse(text, &mut facts);
            if let Some(doc) = &facts.conf {
                facts.dedup_deps = manifest::from_pyproject(doc, text);
            }
        }
        FileKind::Manifest => facts.dedup_deps = manifest::from_lines(text),
        FileKind::Env => env::parse(text, &mut facts),
        FileKind::Sql => sql::parse(text, &mut facts),
        FileKind::Text => {
            text::parse(text, &mut facts);
            facts.table_uses = text::table_uses(text);
            facts.conflict_targets = text::conflict_targets(text);
            facts.key_formats = key_format::in_text(text);
        }
    }
    mark_admitted(kind, text, &mut facts);
    facts
}

/// Whether the built-in prefilter admits the text of a file that holds
/// schema, its path not asked (see [`sql::SqlFacts::admitted`]).
fn mark_admitted(kind: FileKind, text: &str, facts: &mut FileFacts) {
    if let Some(sql) = facts.sql.as_mut().filter(|s| !s.events.is_empty()) {
        sql.admitted = if kind == FileKind::Rust {
            crate::prefilter::rust_admission(text.as_bytes()) == crate::prefilter::Admission::Full
        } else {
            crate::prefilter::admits_text(kind, text.as_bytes())
        };
    }
}

/// [`parse`] of a Rust file read only around `anchors`
/// ([`rust::parse_around`]).
pub fn parse_rust_around(file: FileId, text: &str, anchors: &[usize]) -> FileFacts {
    let mut facts = FileFacts {
        file,
        ..FileFacts::default()
    };
    rust::parse_around(text, &mut facts, anchors);
    facts.table_uses = text::table_uses(text);
    mark_admitted(FileKind::Rust, text, &mut facts);
    facts
}

/// The problem to report instead of running a recursive parser on `text`,
/// when its brackets nest deeper than [`MAX_NESTING`].
pub fn too_deep(text: &str) -> Option<Problem> {
    let depth = max_bracket_depth(text);
    (depth > MAX_NESTING).then(|| {
        Problem::new(
            Span::new(0, 0),
            format!("brackets nested {depth} deep (over {MAX_NESTING}); not parsed"),
        )
    })
}

/// Deepest bracket nesting in `text`, ignoring nothing: an upper bound that is
/// cheap to compute before a recursive parser runs.
pub fn max_bracket_depth(text: &str) -> usize {
    let mut depth: usize = 0;
    let mut max = 0;
    for b in text.bytes() {
        match b {
            b'(' | b'[' | b'{' => {
                depth += 1;
                max = max.max(depth);
            }
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    max
}
