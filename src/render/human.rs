//! Human output: ariadne reports with source snippets, then a one-line summary.

use super::Summary;
use crate::diagnostic::{Diagnostic, Severity};
use crate::source::{LineIndex, SourceMap};
use ariadne::{Color, Config, IndexType, Label, Report, ReportKind};
use std::io::Write;

pub fn render(
    diags: &[Diagnostic],
    sources: &SourceMap,
    summary: &Summary,
    color: bool,
    w: &mut dyn Write,
) -> std::io::Result<()> {
    let report = super::Report {
        diagnostics: diags,
        suppressed: &[],
        sources,
        summary,
        unparsed: None,
    };
    let opts = Options {
        color,
        ..Options::default()
    };
    render_with(&report, &opts, w)
}

/// What `--quiet`, `--statistics` and `--show-suppressed` change.
#[derive(Debug, Clone, Copy, Default)]
pub struct Options {
    pub color: bool,
    /// Findings only, no summary line.
    pub quiet: bool,
    /// A count per rule instead of the reports.
    pub statistics: bool,
    /// Suppressed findings too, marked with their reasons.
    pub show_suppressed: bool,
}

pub fn render_with(
    report: &super::Report,
    opts: &Options,
    w: &mut dyn Write,
) -> std::io::Result<()> {
    let sources = report.sources;
    if opts.statistics {
        write!(w, "{}", statistics(report, opts.show_suppressed))?;
    } else {
        for d in report.diagnostics {
            render_one(d, sources, opts.color, w)?;
        }
        if opts.show_suppressed {
            for s in report.suppressed {
                let mut d = s.diagnostic.clone();
                d.message = format!(
                    "suppressed: {} (reason: {})",
                    d.message,
                    s.reason.as_deref().unwrap_or("none given")
                );
                render_one(&d, sources, opts.color, w)?;
            }
        }
    }
    if let Some(list) = report.unparsed {
        let mut pos = super::json::Positions::new(sources);
        for u in list {
            let at = pos.line_col(u.file, u.span.start);
            writeln!(
                w,
                "not read in full: {}:{}:{}: {}",
                sources.path(u.file),
                at.line,
                at.column,
                u.message
            )?;
        }
    }
    if opts.quiet {
        return Ok(());
    }
    let mut line = summary_line(report.summary);
    if report.unparsed.is_none() && report.summary.files_unparsed > 0 {
        line.push_str("; --verbose lists them");
    }
    writeln!(w, "{line}")
}

/// One line per rule with findings, most first (as `ruff --statistics`):
/// the count, the rule, its severities and how many have a fix.
fn statistics(report: &super::Report, with_suppressed: bool) -> String {
    use std::collections::BTreeMap;
    let mut rows: BTreeMap<&str, (usize, usize, usize, Vec<&'static str>)> = BTreeMap::new();
    for d in report.diagnostics {
        let row = rows.entry(d.rule).or_default();
        row.0 += 1;
        row.1 += usize::from(d.fix.is_some());
        if !row.3.contains(&d.severity.as_str()) {
            row.3.push(d.severity.as_str());
        }
    }
    if with_suppressed {
        for s in report.suppressed {
            rows.entry(s.diagnostic.rule).or_default().2 += 1;
        }
    }
    let mut rows: Vec<_> = rows.into_iter().collect();
    for r in &mut rows {
        // error, warning, note
        r.1 .3
            .sort_by_key(|s| Severity::parse(s).map(std::cmp::Reverse));
    }
    rows.sort_by(|a, b| (b.1 .0, a.0).cmp(&(a.1 .0, b.0)));
    let width = rows
        .iter()
        .map(|r| r.1 .0.to_string().len())
        .max()
        .unwrap_or(1);
    let mut out = String::new();
    for (rule, (n, fixable, suppressed, severities)) in rows {
        let mut line = format!("{n:>width$}  {rule}  {}", severities.join(", "));
        if fixable > 0 {
            line.push_str(&format!("  ({fixable} fixable)"));
        }
        if suppressed > 0 {
            line.push_str(&format!("  ({suppressed} suppressed)"));
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

fn render_one(
    d: &Diagnostic,
    sources: &SourceMap,
    color: bool,
    w: &mut dyn Write,
) -> std::io::Result<()> {
    // Only the files this report shows: a cache of every file per report
    // would copy the whole tree once per diagnostic.
    let mut ids: Vec<usize> = std::iter::once(d.file)
        .chain(d.labels.iter().map(|l| l.file))
        .collect();
    ids.sort_unstable();
    ids.dedup();
    let cache: Vec<(String, String)> = ids
        .into_iter()
        .map(|id| (sources.path(id).to_string(), sources.text(id).to_string()))
        .collect();
    let path = sources.path(d.file).to_string();
    let (kind, colour) = match d.severity {
        Severity::Error => (ReportKind::Error, Color::Red),
        Severity::Warning => (ReportKind::Warning, Color::Yellow),
        Severity::Note => (ReportKind::Custom("note", Color::Cyan), Color::Cyan),
    };
    let text = sources.text(d.file);
    let pos = sources
        .get(d.file)
        .line_col(&LineIndex::new(text), d.span.start);
    if !snippet_fits(d, sources) {
        return render_plain(d, &path, pos, w);
    }
    let range = clamp(text, d.span.start..d.span.end);
    let mut report = Report::build(kind, (path.clone(), range.clone()))
        .with_config(
            Config::default()
                .with_color(color)
                .with_index_type(IndexType::Byte),
        )
        .with_code(d.rule)
        .with_message(format!(
            "{} [{}:{}:{}]",
            d.message, path, pos.line, pos.column
        ))
        .with_label({
            // ariadne draws no underline for a label without text: without a
            // short label of its own, a finding shows the first clause of
            // its message under the span.
            let text = d.primary_label.clone().unwrap_or_else(|| {
                d.message
                    .split(": ")
                    .next()
                    .unwrap_or(&d.message)
                    .to_string()
            });
            Label::new((path.clone(), range))
                .with_color(colour)
                .with_message(text)
        });
    for l in &d.labels {
        let lt = sources.text(l.file);
        report = report.with_label(
            Label::new((
                sources.path(l.file).to_string(),
                clamp(lt, l.span.start..l.span.end),
            ))
            .with_message(&l.message)
            .with_color(Color::Blue),
        );
    }
    if let Some(h) = &d.help {
        report = report.with_help(h);
    }
    if let Some(f) = &d.fix {
        report = report.with_note(format!("fix: {}", f.message));
    }
    let cache = ariadne::sources(cache);
    if color {
        return report.finish().write(cache, &mut *w);
    }
    // NOTE: ariadne colours a custom report kind (our `note`) even with
    // colour off, so plain output is rendered to a buffer and stripped.
    let mut buf = Vec::new();
    report.finish().write(cache, &mut buf)?;
    w.write_all(strip_ansi(&String::from_utf8_lossy(&buf)).as_bytes())
}

/// `text` without ANSI SGR sequences (`ESC [ ... m`).
fn strip_ansi(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' && chars.peek() == Some(&'[') {
            for d in chars.by_ref() {
                if d.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Lines longer than this (minified bundles, one-line dumps) are not shown:
/// the report would be the line.
const MAX_SNIPPET_LINE: usize = 400;

fn snippet_fits(d: &Diagnostic, sources: &SourceMap) -> bool {
    std::iter::once((d.file, d.span))
        .chain(d.labels.iter().map(|l| (l.file, l.span)))
        .all(|(file, span)| {
            let text = sources.text(file);
            let start = crate::source::clamp_to_char_boundary(text, span.start);
            let end = crate::source::clamp_to_char_boundary(text, span.end.max(start));
            let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
            let line_end = text[end..].find('\n').map_or(text.len(), |i| end + i);
            line_end - line_start <= MAX_SNIPPET_LINE * 4
                && text[line_start..line_end].chars().count() <= MAX_SNIPPET_LINE
        })
}

/// The report without source lines, for spans on very long lines.
fn render_plain(
    d: &Diagnostic,
    path: &str,
    pos: crate::source::LineCol,
    w: &mut dyn Write,
) -> std::io::Result<()> {
    let kind = match d.severity {
        Severity::Error => "Error",
        Severity::Warning => "Warning",
        Severity::Note => "note",
    };
    writeln!(
        w,
        "[{}] {kind}: {} [{}:{}:{}]",
        d.rule, d.message, path, pos.line, pos.column
    )?;
    writeln!(w, "   (line too long to show)")?;
    if let Some(h) = &d.help {
        writeln!(w, "   Help: {h}")?;
    }
    if let Some(f) = &d.fix {
        writeln!(w, "   Note: fix: {}", f.message)?;
    }
    Ok(())
}

fn clamp(text: &str, r: std::ops::Range<usize>) -> std::ops::Range<usize> {
    let s = crate::source::clamp_to_char_boundary(text, r.start);
    let e = crate::source::clamp_to_char_boundary(text, r.end.max(s));
    s..e
}

pub fn summary_line(s: &Summary) -> String {
    let mut line = counts_line(s);
    if s.baselined > 0 {
        line = format!("{line}; {} hidden by the baseline", s.baselined);
    }
    if s.files_unparsed > 0 {
        line.push_str(&format!(
            "; {} not read in full, none where the unread part can hold what idemlint checks",
            plural(s.files_unparsed, "file")
        ));
    }
    if s.statements_unparsed > 0 {
        line.push_str(&format!(
            " ({} not parsed, none of them touching an idempotency store)",
            plural(s.statements_unparsed, "statement")
        ));
    }
    line
}

fn plural(n: usize, w: &str) -> String {
    if n == 1 {
        format!("{n} {w}")
    } else {
        format!("{n} {w}s")
    }
}

fn counts_line(s: &Summary) -> String {
    if s.diagnostics == 0 {
        format!(
            "idemlint: no findings ({} scanned, {} parsed, {} suppressed) in {} ms",
            plural(s.files_scanned, "file"),
            s.files_parsed,
            s.suppressed,
            s.elapsed_ms
        )
    } else {
        format!(
            "idemlint: {} ({}, {}, {}) in {} scanned, {} parsed, {} suppressed, {} ms",
            plural(s.diagnostics, "finding"),
            plural(s.errors, "error"),
            plural(s.warnings, "warning"),
            plural(s.notes, "note"),
            plural(s.files_scanned, "file"),
            s.files_parsed,
            s.suppressed,
            s.elapsed_ms
        )
    }
}
