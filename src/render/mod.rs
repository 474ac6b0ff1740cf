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
    /// Statements a front end could not parse and that touch no store
    /// (reported ones are `parse-error` diagnostics instead).
    pub statements_unparsed: usize,
    pub elapsed_ms: u128,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Human,
    Json,
}
