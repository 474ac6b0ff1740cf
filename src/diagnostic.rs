//! The diagnostic every rule emits (docs/json-output.md) and its stable fingerprint.
//! Rendering lives in `render/`; rules build diagnostics through the small
//! constructor functions in their own file.

use crate::source::{FileId, SourceMap, Span};
use sha2::{Digest, Sha256};
use std::collections::HashMap;

pub use crate::rule_id::{RuleId, Severity};

/// A secondary span, possibly in another file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Label {
    pub file: FileId,
    pub span: Span,
    pub message: String,
}

/// One replacement of a byte range in one file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Edit {
    pub file: FileId,
    pub span: Span,
    pub replacement: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fix {
    pub message: String,
    pub edits: Vec<Edit>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub rule: RuleId,
    pub severity: Severity,
    pub message: String,
    pub file: FileId,
    pub span: Span,
    /// Short text under the primary span in human output (the message is
    /// already the report's title); `None` underlines the span without text.
    pub primary_label: Option<String>,
    pub labels: Vec<Label>,
    /// The reasoning behind the headline (coverage, the floor, where a
    /// number comes from): `= note:` lines in human output, `notes` in JSON.
    pub notes: Vec<String>,
    pub help: Option<String>,
    pub fix: Option<Fix>,
    /// Filled by [`assign_fingerprints`] once all diagnostics are known.
    pub fingerprint: String,
}

impl Diagnostic {
    pub fn new(
        rule: RuleId,
        severity: Severity,
        file: FileId,
        span: Span,
        message: impl Into<String>,
    ) -> Self {
        Diagnostic {
            rule,
            severity,
            message: message.into(),
            file,
            span,
            primary_label: None,
            labels: Vec::new(),
            notes: Vec::new(),
            help: None,
            fix: None,
            fingerprint: String::new(),
        }
    }

    /// A few words under the primary span in human output
    /// (`Stripe sends `Idempotent-Replayed``).
    pub fn with_primary_label(mut self, text: impl Into<String>) -> Self {
        self.primary_label = Some(text.into());
        self
    }

    pub fn with_label(mut self, file: FileId, span: Span, message: impl Into<String>) -> Self {
        self.labels.push(Label {
            file,
            span,
            message: message.into(),
        });
        self
    }

    /// One line of reasoning, shown as `= note:` under the source.
    pub fn with_note(mut self, note: impl Into<String>) -> Self {
        self.notes.push(note.into());
        self
    }

    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    pub fn with_fix(mut self, message: impl Into<String>, edits: Vec<Edit>) -> Self {
        self.fix = Some(Fix {
            message: message.into(),
            edits,
        });
        self
    }
}

/// Sort key: (path, start, rule), then the rest so the order is total.
pub fn sort(diags: &mut [Diagnostic], sources: &SourceMap) {
    diags.sort_by(|a, b| order(a, b, sources));
}

/// The output order of two diagnostics (see [`sort`]).
pub fn order(a: &Diagnostic, b: &Diagnostic, sources: &SourceMap) -> std::cmp::Ordering {
    (
        sources.path(a.file),
        a.span.start,
        a.rule.as_str(),
        a.span.end,
        &a.message,
    )
        .cmp(&(
            sources.path(b.file),
            b.span.start,
            b.rule.as_str(),
            b.span.end,
            &b.message,
        ))
}

/// SHA-256 of rule + path + the whitespace-normalised source lines under the
/// primary span + the occurrence index of that triple. Stable across edits
/// above the finding; never `DefaultHasher`. Call after [`sort`].
pub fn assign_fingerprints(diags: &mut [Diagnostic], sources: &SourceMap) {
    let mut seen: HashMap<(String, String, String), usize> = HashMap::new();
    for d in diags.iter_mut() {
        let path = sources.path(d.file).to_string();
        let snippet = normalised_snippet(sources, d.file, d.span);
        let key = (d.rule.to_string(), path, snippet);
        let n = seen.entry(key.clone()).or_insert(0);
        let mut h = Sha256::new();
        for part in [key.0.as_str(), key.1.as_str(), key.2.as_str()] {
            h.update(part.as_bytes());
            h.update([0u8]);
        }
        h.update(n.to_string().as_bytes());
        *n += 1;
        let digest = h.finalize();
        d.fingerprint = format!("sha256:{}", crate::source::hex(&digest));
    }
}

fn normalised_snippet(sources: &SourceMap, file: FileId, span: Span) -> String {
    let text = sources.text(file);
    let start = crate::source::clamp_to_char_boundary(text, span.start);
    let end = crate::source::clamp_to_char_boundary(text, span.end.max(start));
    // Widen to whole lines, capped, so a finding keeps its identity when the
    // text around it on the same line changes little.
    let line_start = text[..start].rfind('\n').map(|i| i + 1).unwrap_or(0);
    let line_end = text[end..]
        .find('\n')
        .map(|i| end + i)
        .unwrap_or(text.len());
    let cap = (line_start + 4096).min(line_end);
    let cap = crate::source::clamp_to_char_boundary(text, cap);
    text[line_start..cap.max(line_start)]
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}
