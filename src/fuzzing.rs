//! The checks the fuzz targets (`fuzz/`) and the regression replay
//! (`tests/fuzz_regressions.rs`) share: feed bytes through the entry point
//! the pipeline uses for one front end and verify what comes back. Not part
//! of the tool's interface; hidden from the docs.
//!
//! Each check returns `Err(description)` for a broken property; a panic in
//! a front end propagates (libFuzzer and the test harness both catch it).

use crate::source::{FileKind, SourceMap, Span};
use std::path::Path;

/// What a fuzz target feeds its bytes to. The names are the targets' names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    Rust,
    Sql,
    RedisConf,
    Yaml,
    Json,
    Toml,
    Hcl,
    Env,
    Text,
    Prisma,
    /// TypeScript (with JSX, the widest of the three grammars' inputs).
    TypeScript,
    Python,
    Go,
    Suppressions,
    Config,
    Duration,
}

impl Target {
    pub const ALL: [Target; 16] = [
        Target::Rust,
        Target::Sql,
        Target::RedisConf,
        Target::Yaml,
        Target::Json,
        Target::Toml,
        Target::Hcl,
        Target::Env,
        Target::Text,
        Target::Prisma,
        Target::TypeScript,
        Target::Python,
        Target::Go,
        Target::Suppressions,
        Target::Config,
        Target::Duration,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Target::Rust => "rust",
            Target::Sql => "sql",
            Target::RedisConf => "redis_conf",
            Target::Yaml => "yaml",
            Target::Json => "json",
            Target::Toml => "toml",
            Target::Hcl => "hcl",
            Target::Env => "env",
            Target::Text => "text",
            Target::Prisma => "prisma",
            Target::TypeScript => "typescript",
            Target::Python => "python",
            Target::Go => "go",
            Target::Suppressions => "suppressions",
            Target::Config => "config",
            Target::Duration => "duration",
        }
    }

    pub fn from_name(name: &str) -> Option<Target> {
        Target::ALL.into_iter().find(|t| t.name() == name)
    }

    /// The front end a target drives, for the ones that are front ends.
    pub fn kind(self) -> Option<FileKind> {
        Some(match self {
            Target::Rust => FileKind::Rust,
            Target::Sql => FileKind::Sql,
            Target::RedisConf => FileKind::RedisConf,
            Target::Yaml => FileKind::Yaml,
            Target::Json => FileKind::Json,
            Target::Toml => FileKind::Toml,
            Target::Hcl => FileKind::Hcl,
            Target::Env => FileKind::Env,
            Target::Text => FileKind::Text,
            Target::Prisma => FileKind::Prisma,
            Target::TypeScript => FileKind::Script(crate::source::Dialect::Tsx),
            Target::Python => FileKind::Python,
            Target::Go => FileKind::Go,
            Target::Suppressions | Target::Config | Target::Duration => return None,
        })
    }
}

/// Bytes as the pipeline reads them: invalid UTF-8 replaced, a BOM blanked.
pub fn text_of(bytes: &[u8]) -> String {
    let mut text = String::from_utf8_lossy(bytes).into_owned();
    if text.starts_with('\u{feff}') {
        text.replace_range(0..3, "   ");
    }
    text
}

/// Run one target over `bytes` and check its properties.
pub fn check(target: Target, bytes: &[u8]) -> Result<(), String> {
    let text = text_of(bytes);
    // The pipeline parses on threads with a large stack; so does this, so a
    // crash here is one the tool would have.
    let outcome = std::thread::Builder::new()
        .stack_size(crate::PARSER_STACK_BYTES)
        .spawn(move || check_text(target, &text))
        .map_err(|e| format!("cannot start a parser thread: {e}"))?
        .join();
    match outcome {
        Ok(r) => r,
        Err(panic) => std::panic::resume_unwind(panic),
    }
}

/// [`check`] on text already decoded, on the current thread.
pub fn check_text(target: Target, text: &str) -> Result<(), String> {
    if let Some(kind) = target.kind() {
        let facts = crate::frontend::parse(0, kind, text);
        spans_in(text, &format!("{facts:?}"), "facts")?;
        if kind == FileKind::Sql {
            let stmts = crate::frontend::sql::split::split(text);
            spans_in(text, &format!("{stmts:?}"), "statement")?;
        }
        if kind == FileKind::Prisma {
            let tokens = crate::frontend::prisma::parse::tokens(text);
            spans_in(text, &format!("{tokens:?}"), "token")?;
        }
        if kind == FileKind::RedisConf {
            let tokens = crate::frontend::redis_conf::tokenize(text);
            spans_in(text, &format!("{tokens:?}"), "token")?;
        }
        if kind == FileKind::Yaml && crate::frontend::template::is_template(text) {
            if let Some(n) = crate::frontend::template::neutralise(text) {
                if n.text.len() != text.len() {
                    return Err(format!(
                        "template neutralised to {} bytes from {}: spans would shift",
                        n.text.len(),
                        text.len()
                    ));
                }
                for h in &n.holes {
                    span_in(text, *h, "template hole")?;
                }
            }
        }
        return Ok(());
    }
    match target {
        Target::Suppressions => {
            for statements in [false, true] {
                let sups = crate::suppress::scan(0, text, statements);
                spans_in(text, &format!("{sups:?}"), "suppression")?;
            }
            Ok(())
        }
        Target::Config => {
            // Either a config or an error that names the file; never a panic.
            match crate::config::Config::parse(text, "fuzz.toml") {
                Ok(_) => Ok(()),
                Err(e) if e.to_string().contains("fuzz.toml") => Ok(()),
                Err(e) => Err(format!("config error does not name the file: {e}")),
            }
        }
        Target::Duration => duration_round_trip(text),
        _ => Ok(()),
    }
}

/// A duration printed and parsed again is the same duration.
pub fn duration_round_trip(text: &str) -> Result<(), String> {
    use crate::duration;
    for unit in [None, Some(1.0), Some(0.001), Some(3600.0), Some(86_400.0)] {
        let Some(d) = duration::parse(text, unit) else {
            continue;
        };
        let printed = d.to_string();
        match duration::parse(&printed, None) {
            Some(again) if again == d => {}
            other => {
                return Err(format!(
                    "{text:?} parsed as {} s, printed {printed:?}, re-parsed as {:?}",
                    d.secs,
                    other.map(|o| o.secs)
                ))
            }
        }
    }
    Ok(())
}

/// A span lies within `text` and both ends fall on char boundaries.
pub fn span_in(text: &str, span: Span, what: &str) -> Result<(), String> {
    if span.start > span.end || span.end > text.len() {
        return Err(format!(
            "{what} span {}..{} outside the input of {} bytes",
            span.start,
            span.end,
            text.len()
        ));
    }
    if !text.is_char_boundary(span.start) || !text.is_char_boundary(span.end) {
        return Err(format!(
            "{what} span {}..{} splits a character",
            span.start, span.end
        ));
    }
    Ok(())
}

/// Every `Span { start: a, end: b }` in a value's `Debug` text checked with
/// [`span_in`]. Reading the spans from `Debug` reaches every field of every
/// fact, including ones added after this was written.
pub fn spans_in(text: &str, debug: &str, what: &str) -> Result<(), String> {
    const OPEN: &str = "Span { start: ";
    let mut rest = debug;
    while let Some(at) = rest.find(OPEN) {
        rest = &rest[at + OPEN.len()..];
        let Some((start, tail)) = rest.split_once(", end: ") else {
            break;
        };
        let Some((end, _)) = tail.split_once(" }") else {
            break;
        };
        let (Ok(start), Ok(end)) = (start.parse::<usize>(), end.parse::<usize>()) else {
            continue;
        };
        span_in(text, Span { start, end }, what)?;
    }
    Ok(())
}

/// Every diagnostic of a run points into the text of the file it names,
/// with its labels and fix edits.
pub fn diagnostics_in(outcome: &crate::Outcome) -> Result<(), String> {
    let sources: &SourceMap = &outcome.sources;
    for d in outcome
        .diagnostics
        .iter()
        .chain(outcome.suppressed.iter().map(|s| &s.diagnostic))
    {
        let at = |file: usize, span: Span, what: &str| -> Result<(), String> {
            let f = sources.files.get(file).ok_or_else(|| {
                format!("{} names file {file}, which the run does not hold", d.rule)
            })?;
            span_in(f.text(), span, &format!("{} {what} in {}", d.rule, f.path))
        };
        at(d.file, d.span, "primary")?;
        for l in &d.labels {
            at(l.file, l.span, "label")?;
        }
        for e in d.fix.iter().flat_map(|f| &f.edits) {
            at(e.file, e.span, "fix edit")?;
        }
    }
    Ok(())
}

/// Check the directory `root` in isolation (no config discovered).
pub fn check_dir(root: &Path) -> Result<crate::Outcome, crate::RunError> {
    check_dir_within(root, None)
}

/// [`check_dir`] with a fixed per-file time bound (`--parse-timeout`).
pub fn check_dir_within(
    root: &Path,
    parse_timeout: Option<std::time::Duration>,
) -> Result<crate::Outcome, crate::RunError> {
    crate::check(&crate::Options {
        paths: vec![root.to_path_buf()],
        stdin: None,
        config: crate::ConfigChoice::Isolated,
        no_suppressions: false,
        include_tests: false,
        parse_timeout,
    })
}

/// A front end that panicked is caught by the pipeline (the run exits 2),
/// and one that ran past its time bound is given up on; here both are
/// failures.
fn crashed(outcome: &crate::Outcome) -> Result<(), String> {
    if let Some(d) = outcome.diagnostics.iter().find(|d| {
        d.rule == crate::diagnostic::RuleId::ParseError && d.message.starts_with(crate::GAVE_UP)
    }) {
        return Err(format!("{}: {}", outcome.sources.path(d.file), d.message));
    }
    match outcome.diagnostics.iter().find(|d| {
        d.rule == crate::diagnostic::RuleId::ParseError
            && d.severity == crate::diagnostic::Severity::Error
    }) {
        Some(d) if !outcome.crashed.is_empty() => Err(format!(
            "a front end panicked on {}: {}",
            outcome.sources.path(d.file),
            d.message
        )),
        _ if !outcome.crashed.is_empty() => Err(format!(
            "a front end panicked on {}",
            outcome.crashed.join(", ")
        )),
        _ => Ok(()),
    }
}

/// Check `root`, verify every span, then apply `--fix` twice: the second
/// application must change nothing the first left behind. Writes to `root`.
pub fn check_and_fix_dir(root: &Path) -> Result<crate::Outcome, String> {
    let first = check_dir(root).map_err(|e| format!("run failed: {e}"))?;
    crashed(&first)?;
    diagnostics_in(&first)?;
    let plan = crate::fix::plan(&first.diagnostics, &first.sources);
    if plan.files.is_empty() {
        return Ok(first);
    }
    plan.apply().map_err(|e| format!("fix failed: {e}"))?;
    let second = check_dir(root).map_err(|e| format!("run after --fix failed: {e}"))?;
    crashed(&second)?;
    diagnostics_in(&second)?;
    let again = crate::fix::plan(&second.diagnostics, &second.sources);
    for (path, change) in &again.files {
        if let Some(before) = plan.files.get(path) {
            if before.after == change.before && change.before != change.after {
                return Err(format!(
                    "--fix applied twice differs from once in {path}:\n{}",
                    again.diff()
                ));
            }
        }
    }
    Ok(first)
}
