//! Output formats. Each renderer takes the finished, sorted diagnostics and
//! the run summary; none decides anything.

pub mod github;
pub mod gitlab;
pub mod human;
pub mod json;
pub mod junit;
pub mod sarif;

use crate::diagnostic::{Diagnostic, Severity};
use crate::prefilter::reading::Reading;
use crate::source::SourceMap;
use crate::suppress::Suppressed;
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
    /// Idempotency stores idemlint recognised: tables, Redis key prefixes
    /// and instances, config keys and constants that set a retention. Zero
    /// means silence is no clean bill of health: nothing was recognised.
    pub stores: usize,
    /// Findings hidden because the baseline records them (not in JSON v1).
    #[serde(skip)]
    pub baselined: usize,
    /// Statements a front end could not parse and that touch no store
    /// (reported ones are `parse-error` diagnostics instead).
    pub statements_unparsed: usize,
    /// Files read only in part, or not at all, where the unread part cannot
    /// hold what idemlint checks (a Helm template that does not read as
    /// YAML, valid JSON of a form the reader refuses, such statements):
    /// counted, not reported. `--verbose` lists them.
    pub files_unparsed: usize,
    /// Files whose front end crashed: the run exits 2 (not in JSON v1,
    /// whose consumers see the exit code; SARIF says the run failed).
    #[serde(skip)]
    pub files_crashed: usize,
    pub elapsed_ms: u128,
}

/// A part of a file that was not read and not reported, for `--verbose`.
#[derive(Debug, Clone)]
pub struct Unparsed {
    pub file: crate::source::FileId,
    pub span: crate::source::Span,
    pub message: String,
}

/// A file scanned and not parsed, with the reason, for `--verbose`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct NotRead {
    pub path: String,
    pub reason: String,
}

impl NotRead {
    pub fn new(path: &str, reason: String) -> Self {
        NotRead {
            path: path.to_string(),
            reason,
        }
    }

    /// Why a file kept for the run was not parsed (in full), if it was not,
    /// from how it is read ([`Reading`]): a problem that stopped it
    /// (binary, too big, unreadable), its constants read only, or held back
    /// (for its retries or the schema) and not read after the first pass
    /// (`read_after`).
    pub fn of_loaded(
        path: &str,
        kind: crate::source::FileKind,
        reading: &Reading,
        read_after: bool,
    ) -> Option<Self> {
        let reason = match reading {
            Reading::Refused(why) => why.trim_end_matches("; not parsed").to_string(),
            Reading::ConstantsOnly => {
                "read for its constants only: no other word of the prefilter".to_string()
            }
            Reading::Held if !read_after && kind == crate::source::FileKind::Rust => {
                "held back: only a retry library's words, and no parsed file needed it".to_string()
            }
            Reading::Held if !read_after => format!(
                "no word of the prefilter, and no parsed file needed it{}",
                crate::prefilter::reading::outside(kind)
            ),
            // As a file the prefilter lets go: no table it names is a store
            // or a key carrier.
            Reading::Schema if !read_after => format!(
                "no word of the prefilter{}",
                crate::prefilter::reading::outside(kind)
            ),
            _ => return None,
        };
        Some(NotRead::new(path, reason))
    }
}

/// The format of `rules` and `horizons`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Human,
    Json,
}

/// The formats of `check`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutputFormat {
    Human,
    Json,
    Sarif,
    Github,
    Gitlab,
    Junit,
}

impl OutputFormat {
    pub const ALL: &'static [(&'static str, OutputFormat)] = &[
        ("human", OutputFormat::Human),
        ("json", OutputFormat::Json),
        ("sarif", OutputFormat::Sarif),
        ("github", OutputFormat::Github),
        ("gitlab", OutputFormat::Gitlab),
        ("junit", OutputFormat::Junit),
    ];

    pub fn parse(name: &str) -> Option<OutputFormat> {
        Self::ALL.iter().find(|(n, _)| *n == name).map(|(_, f)| *f)
    }
}

/// What every renderer reads: a finished run.
#[derive(Clone, Copy)]
pub struct Report<'a> {
    pub diagnostics: &'a [Diagnostic],
    /// Findings suppression comments hid, with their reasons.
    pub suppressed: &'a [Suppressed],
    pub sources: &'a SourceMap,
    pub summary: &'a Summary,
    /// The parts not read in full, listed with `--verbose`.
    pub unparsed: Option<&'a [Unparsed]>,
    /// The files scanned and not parsed, listed with `--verbose`.
    pub not_read: Option<&'a [NotRead]>,
}

/// Write a report in one format.
pub fn write(
    format: OutputFormat,
    report: &Report,
    human: &human::Options,
    w: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    match format {
        OutputFormat::Human => human::render_with(report, human, w),
        OutputFormat::Json => writeln!(
            w,
            "{}",
            json::render_verbose(
                report.diagnostics,
                report.sources,
                report.summary,
                report.unparsed,
                report.not_read
            )
        ),
        OutputFormat::Sarif => writeln!(w, "{}", sarif::render(report)),
        OutputFormat::Github => w.write_all(github::render(report).as_bytes()),
        OutputFormat::Gitlab => writeln!(w, "{}", gitlab::render(report)),
        OutputFormat::Junit => w.write_all(junit::render(report).as_bytes()),
    }
}

/// A severity's name in formats that call a note a notice or info.
pub(crate) fn level_name(s: Severity, note: &'static str) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Note => note,
    }
}
