//! `--format json`, version 1 (docs/json-output.md).

use super::{NotRead, Summary, Unparsed};
use crate::diagnostic::Diagnostic;
use crate::source::{FileId, LineCol, LineIndex, SourceMap, Span};
use serde::Serialize;
use std::collections::HashMap;

#[derive(Serialize)]
struct Output<'a> {
    version: u32,
    tool: Tool,
    diagnostics: Vec<JsonDiagnostic<'a>>,
    summary: &'a Summary,
    #[serde(skip_serializing_if = "Option::is_none")]
    unparsed: Option<Vec<JsonUnparsed<'a>>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    not_read: Option<&'a [NotRead]>,
}

#[derive(Serialize)]
struct JsonUnparsed<'a> {
    path: &'a str,
    span: JsonSpan,
    message: &'a str,
}

#[derive(Serialize)]
struct Tool {
    name: &'static str,
    version: &'static str,
}

#[derive(Serialize)]
pub struct JsonSpan {
    start: LineCol,
    end: LineCol,
    byte_start: usize,
    byte_end: usize,
}

#[derive(Serialize)]
struct JsonLabel<'a> {
    path: &'a str,
    span: JsonSpan,
    message: &'a str,
}

#[derive(Serialize)]
struct JsonEdit<'a> {
    path: &'a str,
    span: JsonSpan,
    replacement: &'a str,
}

#[derive(Serialize)]
struct JsonFix<'a> {
    message: &'a str,
    edits: Vec<JsonEdit<'a>>,
}

#[derive(Serialize)]
struct JsonDiagnostic<'a> {
    rule: &'a str,
    severity: &'a str,
    message: &'a str,
    path: &'a str,
    span: JsonSpan,
    /// What the primary span is, a few words (the parser's own words for a
    /// `parse-error`); `null` when the span speaks for itself.
    label: Option<&'a str>,
    labels: Vec<JsonLabel<'a>>,
    /// The reasoning behind `message`, one sentence each (may be empty).
    notes: &'a [String],
    help: Option<&'a str>,
    fix: Option<JsonFix<'a>>,
    fingerprint: &'a str,
}

/// Line/column conversion with one line index per file.
pub struct Positions<'a> {
    sources: &'a SourceMap,
    indexes: HashMap<FileId, LineIndex>,
}

impl<'a> Positions<'a> {
    pub fn new(sources: &'a SourceMap) -> Self {
        Positions {
            sources,
            indexes: HashMap::new(),
        }
    }

    /// Line and column of byte `offset` of `file`.
    pub fn line_col(&mut self, file: FileId, offset: usize) -> LineCol {
        let source = self.sources.get(file);
        let idx = self
            .indexes
            .entry(file)
            .or_insert_with(|| LineIndex::new(source.text()));
        source.line_col(idx, offset)
    }

    pub fn span(&mut self, file: FileId, span: Span) -> JsonSpan {
        let (start, end) = self.line_cols(file, span);
        JsonSpan {
            start,
            end,
            byte_start: span.start,
            byte_end: span.end,
        }
    }

    /// 1-based line and column (Unicode scalar values) of a span's start
    /// and of the position just past its end.
    pub fn line_cols(&mut self, file: FileId, span: Span) -> (LineCol, LineCol) {
        let source = self.sources.get(file);
        let idx = self
            .indexes
            .entry(file)
            .or_insert_with(|| LineIndex::new(source.text()));
        (
            source.line_col(idx, span.start),
            source.line_col(idx, span.end),
        )
    }
}

pub fn render(diags: &[Diagnostic], sources: &SourceMap, summary: &Summary) -> String {
    render_verbose(diags, sources, summary, None, None)
}

/// [`render`], with the `unparsed` and `not_read` lists after the summary
/// when given (`--verbose`).
pub fn render_verbose<'a>(
    diags: &'a [Diagnostic],
    sources: &'a SourceMap,
    summary: &'a Summary,
    unparsed: Option<&[Unparsed]>,
    not_read: Option<&'a [NotRead]>,
) -> String {
    let mut pos = Positions::new(sources);
    let diagnostics = diags
        .iter()
        .map(|d| JsonDiagnostic {
            rule: d.rule.as_str(),
            severity: d.severity.as_str(),
            message: &d.message,
            path: sources.path(d.file),
            span: pos.span(d.file, d.span),
            label: d.primary_label.as_deref(),
            labels: d
                .labels
                .iter()
                .map(|l| JsonLabel {
                    path: sources.path(l.file),
                    span: pos.span(l.file, l.span),
                    message: &l.message,
                })
                .collect(),
            notes: &d.notes,
            help: d.help.as_deref(),
            fix: d.fix.as_ref().map(|f| JsonFix {
                message: &f.message,
                edits: f
                    .edits
                    .iter()
                    .map(|e| JsonEdit {
                        path: sources.path(e.file),
                        span: pos.span(e.file, e.span),
                        replacement: &e.replacement,
                    })
                    .collect(),
            }),
            fingerprint: &d.fingerprint,
        })
        .collect();
    let out = Output {
        version: 1,
        tool: Tool {
            name: "idemlint",
            version: env!("CARGO_PKG_VERSION"),
        },
        diagnostics,
        summary,
        unparsed: unparsed.map(|list| {
            list.iter()
                .map(|u| JsonUnparsed {
                    path: sources.path(u.file),
                    span: pos.span(u.file, u.span),
                    message: &u.message,
                })
                .collect()
        }),
        not_read,
    };
    serde_json::to_string_pretty(&out).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
}
