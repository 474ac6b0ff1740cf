//! Front ends: one module per input kind, each lowering a file's text into
//! the facts of `crate::facts` ([`FileFacts`]), with byte spans. A front end never panics and never gives up on a whole
//! file for one bad part: it returns what it could read plus a [`Problem`].
//! Front ends know syntax, not rules; the project model joins their facts.

use crate::facts::{FileFacts, Problem};

pub mod conf;
pub mod env;
pub mod go;
pub mod hcl;
pub mod json;
mod json_reader;
pub mod key_format;
pub mod key_writes;
pub mod manifest;
pub mod prisma;
pub mod python;
pub mod redis_conf;
pub mod redis_yaml;
pub mod rust;
pub mod sql;
pub mod template;
pub mod text;
pub mod toml;
pub mod ts;
pub mod yaml;

#[cfg(test)]
mod prefilter_agrees;

use crate::source::{FileId, FileKind, Span};

/// Deepest nesting a front end will hand to a recursive parser. Deeper input
/// is reported as a [`Problem`] instead of risking the stack.
pub const MAX_NESTING: usize = 256;

pub use crate::header_names::header_relevant;

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
        FileKind::Script(dialect) => ts::parse(text, dialect, &mut facts),
        FileKind::Prisma => prisma::parse(text, &mut facts),
        FileKind::Python => python::parse(text, &mut facts),
        FileKind::Go => go::parse(text, &mut facts),
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
/// schema, its path not asked (see
/// [`crate::facts::store::SqlFacts::admitted`]).
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
