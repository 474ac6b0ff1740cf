//! Output formats. Each renderer takes the finished, sorted diagnostics and
//! the run summary; none decides anything.

pub mod human;
pub mod json;

use serde::Serialize;

#[derive(Debug, Clone, Copy, Default, Serialize, PartialEq, Eq)]
pub struct Summary {
    pub files_scanned: usize,
    pub files_parsed: usize,
    pub diagnostics: usize,
    pub errors: usize,
    pub warnings: usize,
    pub notes: usize,
    pub suppressed: usize,
    /// SQL statements that could not be parsed and touch no store
    /// (reported ones are `parse-error` diagnostics instead).
    pub statements_unparsed: usize,
    /// Files read only in part, or not at all, where the unread part cannot
    /// hold what idemlint checks (a Helm template that does not read as
    /// YAML, valid JSON of a form the reader refuses, such statements):
    /// counted, not reported. `--verbose` lists them.
    pub files_unparsed: usize,
    pub elapsed_ms: u128,
}

/// A part of a file that was not read and not reported, for `--verbose`.
#[derive(Debug, Clone)]
pub struct Unparsed {
    pub file: crate::source::FileId,
    pub span: crate::source::Span,
    pub message: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Human,
    Json,
}
