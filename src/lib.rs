//! idemlint finds idempotency-key mistakes in payment codebases.
//!
//! The pipeline, top to bottom, in [`check_with`]: walk → read + prefilter
//! (`read`) → front ends in parallel, as the parse scheduler runs them
//! (`schedule`) → project model → rules → suppressions → sort +
//! fingerprint. Rendering and exit codes belong to the caller (`main.rs`).

pub mod audit;
pub mod baseline;
pub mod catalogue;
pub mod cli;
pub mod config;
pub mod diagnostic;
pub(crate) mod duration;
pub(crate) mod facts;
pub mod files;
pub mod fix;
pub(crate) mod frontend;
#[doc(hidden)]
pub mod fuzzing;
pub(crate) mod header_names;
pub mod horizons;
pub mod init;
pub mod inventory;
pub mod inventory_command;
pub mod knowledge;
pub(crate) mod lex;
pub mod model;
pub(crate) mod prefilter;
mod read;
pub mod render;
pub mod rule_id;
pub mod rules;
mod run;
mod schedule;
pub mod size;
pub mod source;
pub(crate) mod store_lines;
mod supervise;
pub(crate) mod suppress;
pub(crate) mod test_code;
pub mod timings;
pub mod walk;

use config::{Config, FailOn};
use diagnostic::{Diagnostic, Severity};
use render::Summary;
pub use run::{
    exhaustive_from_env, load_config, ConfigChoice, Gate, Options, RunError, MAX_FILE_BYTES,
};
use run::{statements, Run, TestRoots};
pub(crate) use run::{GAVE_UP, PARSER_STACK_BYTES};
use source::{FileKind, SourceMap};

pub struct Outcome {
    pub diagnostics: Vec<Diagnostic>,
    /// Findings that suppression comments hid, with their reasons.
    pub suppressed: Vec<suppress::Suppressed>,
    pub sources: SourceMap,
    pub summary: Summary,
    pub config: Config,
    /// The joined project model the rules read (`init` lists its stores).
    pub model: model::ProjectModel,
    /// What was counted in `files_unparsed`, in file order.
    pub unparsed: Vec<render::Unparsed>,
    /// Every file scanned and not parsed, with the reason, by path
    /// (`--verbose`).
    pub not_read: Vec<render::NotRead>,
    /// Files whose front end crashed (a bug): the run is not to be trusted,
    /// so it exits 2 after reporting the rest.
    pub crashed: Vec<String>,
    /// Where the time went (`check --timings`).
    pub timings: timings::Timings,
}

impl Outcome {
    /// Whether the run fails at the given threshold.
    pub fn fails(&self, fail_on: FailOn) -> bool {
        match fail_on.threshold() {
            None => false,
            Some(t) => self.diagnostics.iter().any(|d| d.severity >= t),
        }
    }
}

/// Whether a diagnostic of a rule that spares test code sits in test code:
/// a test path (relative to the checked directory it was found under) or a
/// Rust test module or function.
fn in_test_code(
    d: &Diagnostic,
    model: &model::ProjectModel,
    sources: &SourceMap,
    roots: &TestRoots,
) -> bool {
    let tests = test_code::test_code();
    if !tests.spares(d.rule) {
        return false;
    }
    // Facts are in file-id order; look further only if that ever changes.
    let facts = model
        .files
        .get(d.file)
        .filter(|f| f.file == d.file)
        .or_else(|| model.files.iter().find(|f| f.file == d.file));
    let in_region = facts.is_some_and(|f| {
        f.test_regions
            .iter()
            .any(|r| r.start <= d.span.start && d.span.end <= r.end)
    });
    in_region || tests.is_test_path(&roots.relative(sources.path(d.file)))
}

/// Run a check of the work tree.
pub fn check(opts: &Options) -> Result<Outcome, RunError> {
    check_with(opts, &Gate::default())
}

/// Run a check with the files, report scope and baseline of a gate: the
/// pipeline, top to bottom. Each step is a call; how the files are read
/// and parsed (held back, read again, the schema) is the scheduler's
/// (`schedule`), not the pipeline's.
pub fn check_with(opts: &Options, gate: &Gate) -> Result<Outcome, RunError> {
    let started = std::time::Instant::now();
    let mut timings = timings::Timings::start();
    let run = Run::new(opts, gate)?;
    // discover → read (+ prefilter)
    let read = read::discover_and_read(&run, &mut timings)?;
    let mut sources = read.sources();
    // parse, as the scheduler runs the front ends
    let mut parsed = schedule::parse(&run, read.kept, &mut sources, &mut timings)?;
    let not_read = not_read(read.not_read, std::mem::take(&mut parsed.not_read));
    let unparsed = unparsed(&parsed.facts);
    // parse errors become diagnostics before the model takes the facts
    let mut diagnostics = rules::apply_levels(parse_errors(&parsed), &sources, &run.config);
    // model
    let facts = std::mem::take(&mut parsed.facts);
    let model = run.model(facts, parsed.joins.take(), &sources);
    timings.phase("model");
    // rules
    let ctx = rules::Context {
        model: &model,
        sources: &sources,
        config: &run.config,
    };
    diagnostics.extend(run.pool.install(|| rules::run(&ctx)));
    timings.phase("rules");
    // suppress; test code is left out after the suppressions have seen
    // it, so a suppression in a test is not reported as unused
    let early = std::mem::take(&mut parsed.early_suppressions);
    let mut suppressed = suppress(&run, &mut diagnostics, early, &sources);
    if !run.judges_tests {
        diagnostics.retain(|d| !in_test_code(d, &model, &sources, &run.roots));
    }
    order(&mut diagnostics, &mut suppressed, &sources);
    let baselined = gate_scope(gate, &mut diagnostics, &mut suppressed, &sources)?;
    timings.phase("suppress+sort");
    let summary = Summary {
        files_scanned: read.files_scanned,
        files_parsed: parsed.files_parsed,
        suppressed: suppressed.len(),
        stores: model.store_count(),
        baselined,
        elapsed_ms: started.elapsed().as_millis(),
        ..tally(&diagnostics, &unparsed, &parsed.given_up, &sources)
    };
    Ok(Outcome {
        crashed: crashed(&parsed.given_up, &sources),
        diagnostics,
        suppressed,
        sources,
        summary,
        config: run.config,
        model,
        unparsed,
        not_read,
        timings,
    })
}

/// Every file scanned and not parsed, and why (`--verbose`), by path:
/// those the read let go and those kept and not parsed.
fn not_read(mut read: Vec<render::NotRead>, parsed: Vec<render::NotRead>) -> Vec<render::NotRead> {
    read.extend(parsed);
    read.sort_by(|a, b| a.path.cmp(&b.path));
    read
}

/// What the front ends did not read and did not report, in file order.
fn unparsed(facts: &[facts::FileFacts]) -> Vec<render::Unparsed> {
    facts
        .iter()
        .flat_map(|f| {
            f.problems
                .iter()
                .filter(|p| !p.reported)
                .map(|p| render::Unparsed {
                    file: f.file,
                    span: p.span,
                    message: p.message.clone(),
                })
        })
        .collect()
}

/// The `parse-error` diagnostics of the problems the front ends report;
/// the last problem of a file given up on says why.
fn parse_errors(parsed: &schedule::Parsed) -> Vec<Diagnostic> {
    parsed
        .facts
        .iter()
        .flat_map(|f| {
            let whole = parsed
                .given_up
                .iter()
                .find(|(id, _)| *id == f.file)
                .copied();
            let unread = parsed.unread[f.file];
            let last = f.problems.len().saturating_sub(1);
            f.problems
                .iter()
                .enumerate()
                .filter(|(_, p)| p.reported)
                .map(move |(n, p)| {
                    let (severity, note) = match whole {
                        // Not parsed at all (binary, too big, unreadable).
                        _ if unread => (
                            Severity::Warning,
                            "nothing in this file was read; what it holds is unchecked",
                        ),
                        Some((_, crashed)) if n == last => (
                            if crashed {
                                Severity::Error
                            } else {
                                Severity::Warning
                            },
                            "nothing in this file was checked; the other files were",
                        ),
                        _ => (
                            Severity::Warning,
                            "what it holds is unchecked; the rest of the file was read",
                        ),
                    };
                    let d = Diagnostic::new(
                        diagnostic::RuleId::ParseError,
                        severity,
                        f.file,
                        p.span,
                        p.message.clone(),
                    )
                    .with_note(note);
                    match &p.detail {
                        Some(detail) => d.with_primary_label(detail.clone()),
                        None => d,
                    }
                })
        })
        .collect()
}

/// Apply the suppression comments (unless `--no-suppressions`): the
/// findings they hide leave `diagnostics` and are returned; those that
/// hide nothing become findings. `early`: the comments of the files whose
/// text was let go, which their parse worker scanned.
fn suppress(
    run: &Run,
    diagnostics: &mut Vec<Diagnostic>,
    early: Vec<Option<Vec<suppress::Suppression>>>,
    sources: &SourceMap,
) -> Vec<suppress::Suppressed> {
    if run.opts.no_suppressions {
        return Vec::new();
    }
    let mut sups: Vec<suppress::Suppression> = sources
        .files
        .iter()
        .zip(early)
        .enumerate()
        .flat_map(|(id, (f, early))| {
            early.unwrap_or_else(|| suppress::scan(id, f.text(), statements(f.kind)))
        })
        .collect();
    let (hidden, unused) = suppress::apply(
        diagnostics,
        &mut sups,
        sources,
        run.config.reason_required(),
    );
    diagnostics.extend(rules::apply_levels(unused, sources, &run.config));
    hidden
}

/// Sort the findings, drop repeats, and give each its fingerprint; the
/// suppressed ones too.
fn order(
    diagnostics: &mut Vec<Diagnostic>,
    suppressed: &mut [suppress::Suppressed],
    sources: &SourceMap,
) {
    diagnostic::sort(diagnostics, sources);
    diagnostics.dedup_by(|a, b| {
        a.rule == b.rule && a.file == b.file && a.span == b.span && a.message == b.message
    });
    diagnostic::assign_fingerprints(diagnostics, sources);
    suppressed.sort_by(|a, b| diagnostic::order(&a.diagnostic, &b.diagnostic, sources));
    let mut hidden: Vec<Diagnostic> = suppressed.iter().map(|s| s.diagnostic.clone()).collect();
    diagnostic::assign_fingerprints(&mut hidden, sources);
    for (s, d) in suppressed.iter_mut().zip(hidden) {
        s.diagnostic.fingerprint = d.fingerprint;
    }
}

/// A gate reports only the files it selects, and what no baseline
/// records: how many findings the baseline hid.
fn gate_scope(
    gate: &Gate,
    diagnostics: &mut Vec<Diagnostic>,
    suppressed: &mut Vec<suppress::Suppressed>,
    sources: &SourceMap,
) -> Result<usize, RunError> {
    gate.files.settle()?;
    diagnostics.retain(|d| gate.files.reports(sources.path(d.file)));
    suppressed.retain(|s| gate.files.reports(sources.path(s.diagnostic.file)));
    Ok(gate.baseline.as_ref().map_or(0, |b| b.hide(diagnostics)))
}

/// The summary's counts of findings, of files read in part and of files
/// given up on (the rest is the caller's).
fn tally(
    diagnostics: &[Diagnostic],
    unparsed: &[render::Unparsed],
    given_up: &[(usize, bool)],
    sources: &SourceMap,
) -> Summary {
    let count = |s: Severity| diagnostics.iter().filter(|d| d.severity == s).count();
    let mut unparsed_files: Vec<usize> = unparsed.iter().map(|u| u.file).collect();
    unparsed_files.dedup();
    Summary {
        diagnostics: diagnostics.len(),
        errors: count(Severity::Error),
        warnings: count(Severity::Warning),
        notes: count(Severity::Note),
        statements_unparsed: unparsed
            .iter()
            .filter(|u| sources.files[u.file].kind == FileKind::Sql)
            .count(),
        files_unparsed: unparsed_files.len(),
        files_crashed: given_up.iter().filter(|(_, crashed)| *crashed).count(),
        ..Summary::default()
    }
}

/// The files whose front end crashed, by path.
fn crashed(given_up: &[(usize, bool)], sources: &SourceMap) -> Vec<String> {
    given_up
        .iter()
        .filter(|(_, crashed)| *crashed)
        .map(|(id, _)| sources.path(*id).to_string())
        .collect()
}
