//! Human output in rustc's shape (annotate-snippets, the renderer rustc
//! itself uses): `error[rule]: headline`, ` --> path:line:col`, the source
//! with short labels, `= note:` and `= help:` lines; then a one-line summary.

use super::Summary;
use crate::diagnostic::{Diagnostic, Severity};
use crate::source::{FileId, LineIndex, SourceMap, Span};
use annotate_snippets::{
    Annotation, AnnotationKind, Group, Level, Message, Origin, Renderer, Snippet,
};
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
        not_read: None,
    };
    let opts = Options {
        color,
        width: Some(DEFAULT_WIDTH),
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
    /// The width to lay the report out for; `None`: [`width`].
    pub width: Option<usize>,
}

pub fn render_with(
    report: &super::Report,
    opts: &Options,
    w: &mut dyn Write,
) -> std::io::Result<()> {
    let sources = report.sources;
    let width = opts.width.unwrap_or_else(width);
    if opts.statistics {
        write!(w, "{}", statistics(report, opts.show_suppressed))?;
    } else {
        for d in by_severity(report.diagnostics) {
            render_one(d, sources, opts.color, width, w)?;
        }
        if opts.show_suppressed {
            for s in report.suppressed {
                let mut d = s.diagnostic.clone();
                d.message = format!(
                    "suppressed: {} (reason: {})",
                    d.message,
                    s.reason.as_deref().unwrap_or("none given")
                );
                render_one(&d, sources, opts.color, width, w)?;
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
    if let Some(list) = report.not_read {
        for n in list {
            writeln!(
                w,
                "{}",
                wrap(&format!("not parsed: {}: {}", n.path, n.reason), width)
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
    writeln!(w, "{}", wrap(&line, width))
}

/// Errors first, then warnings, then notes, each in the order the run
/// found them (file by file): a person reads the top of the report, and
/// the top is what must be fixed (docs/output-formats.md).
fn by_severity(diags: &[Diagnostic]) -> Vec<&Diagnostic> {
    let mut out: Vec<&Diagnostic> = diags.iter().collect();
    out.sort_by_key(|d| std::cmp::Reverse(d.severity));
    out
}

/// One line per rule with findings, most first (as `ruff --statistics`):
/// the count, the rule, its severities and how many have a fix.
fn statistics(report: &super::Report, with_suppressed: bool) -> String {
    use std::collections::BTreeMap;
    let mut rows: BTreeMap<&str, (usize, usize, usize, Vec<&'static str>)> = BTreeMap::new();
    for d in report.diagnostics {
        let row = rows.entry(d.rule.as_str()).or_default();
        row.0 += 1;
        row.1 += usize::from(d.fix.is_some());
        if !row.3.contains(&d.severity.as_str()) {
            row.3.push(d.severity.as_str());
        }
    }
    if with_suppressed {
        for s in report.suppressed {
            rows.entry(s.diagnostic.rule.as_str()).or_default().2 += 1;
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
    width: usize,
    w: &mut dyn Write,
) -> std::io::Result<()> {
    let level = level(d.severity);
    let title = level.primary_title(d.message.as_str()).id(d.rule.as_str());
    let mut group = if snippet_fits(d, sources) {
        Group::with_title(title).elements(snippets(d, sources))
    } else {
        let text = sources.text(d.file);
        let pos = sources
            .get(d.file)
            .line_col(&LineIndex::new(text), d.span.start);
        Group::with_title(title)
            .element(
                Origin::path(sources.path(d.file))
                    .line(pos.line)
                    .char_column(pos.column.saturating_sub(1)),
            )
            .element(Level::NOTE.message("the line is too long to show"))
    };
    group = group.elements(footer(d, width));
    let renderer = if color {
        Renderer::styled()
    } else {
        Renderer::plain()
    }
    .term_width(width);
    writeln!(w, "{}\n", renderer.render(&[group]))
}

fn level(s: Severity) -> Level<'static> {
    match s {
        Severity::Error => Level::ERROR,
        Severity::Warning => Level::WARNING,
        Severity::Note => Level::NOTE,
    }
}

/// One snippet per file, the primary span's file first: every label sits
/// under the header of its own file, and the line numbers are the file's.
/// Every label is drawn with its underline; a source line wider than the
/// terminal is cut around its spans by the renderer, as rustc does.
fn snippets<'a>(d: &'a Diagnostic, sources: &'a SourceMap) -> Vec<Snippet<'a, Annotation<'a>>> {
    let mut files: Vec<FileId> = vec![d.file];
    for l in &d.labels {
        if !files.contains(&l.file) {
            files.push(l.file);
        }
    }
    files
        .into_iter()
        .map(|file| {
            let mut spans: Vec<(Span, Option<&str>, bool)> = Vec::new();
            if file == d.file {
                spans.push((d.span, d.primary_label.as_deref(), true));
            }
            spans.extend(
                d.labels
                    .iter()
                    .filter(|l| l.file == file)
                    .map(|l| (l.span, Some(l.message.as_str()), false)),
            );
            excerpt(sources, file, &spans)
        })
        .collect()
}

/// The lines of `file` that `spans` touch (and those between, which the
/// renderer folds), with the spans made relative to them.
fn excerpt<'a>(
    sources: &'a SourceMap,
    file: FileId,
    spans: &[(Span, Option<&'a str>, bool)],
) -> Snippet<'a, Annotation<'a>> {
    let text = sources.text(file);
    let ranges: Vec<std::ops::Range<usize>> = spans
        .iter()
        .map(|(s, _, _)| clamp(text, s.start..s.end))
        .collect();
    let first = ranges.iter().map(|r| r.start).min().unwrap_or(0);
    let last = ranges.iter().map(|r| r.end).max().unwrap_or(0);
    let start = text[..first].rfind('\n').map_or(0, |i| i + 1);
    let end = text[last..].find('\n').map_or(text.len(), |i| last + i);
    let line = 1 + memchr::memchr_iter(b'\n', &text.as_bytes()[..start]).count();
    let mut snippet = Snippet::source(&text[start..end])
        .path(sources.path(file))
        .line_start(line)
        .fold(true);
    for ((_, label, primary), r) in spans.iter().zip(ranges) {
        let kind = if *primary {
            AnnotationKind::Primary
        } else {
            AnnotationKind::Context
        };
        let mut a = kind.span(r.start - start..r.end - start);
        if let Some(label) = label {
            a = a.label(*label);
        }
        snippet = snippet.annotation(a);
    }
    snippet
}

/// `= note:` lines for the reasoning, `= help:` for the fix, whether
/// `--fix` applies it, and where the full explanation is (once: not when a
/// help line already says it).
fn footer(d: &Diagnostic, width: usize) -> Vec<Message<'_>> {
    let room = text_width(width);
    let mut out: Vec<Message<'_>> = d
        .notes
        .iter()
        .map(|n| Level::NOTE.message(wrap(n, room)))
        .collect();
    if let Some(h) = &d.help {
        out.push(Level::HELP.message(wrap(h, room)));
    }
    if let Some(f) = &d.fix {
        out.push(Level::HELP.message(wrap(&format!("fixable with `--fix`: {}", f.message), room)));
    }
    let explain = format!("idemlint explain {}", d.rule);
    let said = d.notes.iter().chain(&d.help).any(|t| t.contains(&explain));
    if !said {
        out.push(Level::HELP.message(wrap(
            &format!("for the full explanation, run `{explain}`"),
            room,
        )));
    }
    out
}

/// The width a report is laid out for: `COLUMNS` when it is set (shells
/// set it for a terminal; clamped to 40..=400), else 100. Notes and help
/// wrap to it; longer source lines are cut around their spans, as rustc
/// does; a URL or a backtick-quoted span is never broken.
pub fn width() -> usize {
    std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.trim().parse::<usize>().ok())
        .map_or(DEFAULT_WIDTH, |c| c.clamp(40, 400))
}

/// The width when `COLUMNS` is not set.
pub const DEFAULT_WIDTH: usize = 100;

/// The room a `= note:` or `= help:` line has for its text: the width less
/// the gutter and the `= help: ` lead.
fn text_width(width: usize) -> usize {
    width.saturating_sub(16).max(20)
}

/// `text` broken at spaces into lines of at most `room` characters;
/// the renderer indents the lines after the first under the first. A
/// backtick-quoted span or a URL is never broken (the `CREATE UNIQUE INDEX …` a help
/// line asks you to write must stay copyable): a span longer than the width
/// gets a line of its own. Line breaks already in `text` are kept.
fn wrap(text: &str, room: usize) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    for (i, paragraph) in text.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let mut line = 0;
        for unit in unbreakable_units(paragraph) {
            let n = unit.chars().count();
            if line > 0 && line + 1 + n > room {
                out.push('\n');
                line = 0;
            } else if line > 0 {
                out.push(' ');
                line += 1;
            }
            out.push_str(unit);
            line += n;
        }
    }
    out
}

/// The words of `text` (split at spaces), with the words of each
/// backtick-quoted span kept together as one unit. A backtick that is never
/// closed quotes nothing: its words stay separate.
fn unbreakable_units(text: &str) -> Vec<&str> {
    let mut units = Vec::new();
    let mut start: Option<usize> = None;
    let mut offset = 0;
    for word in text.split(' ') {
        let end = offset + word.len();
        let opens_or_closes = word.matches('`').count() % 2 == 1;
        match (start, opens_or_closes) {
            (None, false) => units.push(word),
            (None, true) => start = Some(offset),
            (Some(s), true) => {
                units.push(&text[s..end]);
                start = None;
            }
            (Some(_), false) => {}
        }
        offset = end + 1;
    }
    if let Some(s) = start {
        units.extend(text[s..].split(' '));
    }
    units
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
    // "0 suppressed" says nothing: the count is shown when there are some.
    let suppressed = if s.suppressed > 0 {
        format!(", {} suppressed", s.suppressed)
    } else {
        String::new()
    };
    if s.diagnostics == 0 {
        format!(
            "idemlint: {}, no findings ({} scanned, {} parsed{suppressed}) in {} ms",
            plural(s.stores, "store"),
            plural(s.files_scanned, "file"),
            s.files_parsed,
            s.elapsed_ms
        )
    } else {
        format!(
            "idemlint: {}, {} ({}, {}, {}) in {} ({} parsed){suppressed}, {} ms",
            plural(s.stores, "store"),
            plural(s.diagnostics, "finding"),
            plural(s.errors, "error"),
            plural(s.warnings, "warning"),
            plural(s.notes, "note"),
            plural(s.files_scanned, "file"),
            s.files_parsed,
            s.elapsed_ms
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrapping_never_breaks_inside_a_backtick_span() {
        let sql = "`CREATE UNIQUE INDEX CONCURRENTLY processed_stripe_events_event_id_key ON processed_stripe_events (event_id)`";
        let text = format!(
            "add the unique guard the replays need before the next deploy reaches production: {sql} then drop the old index"
        );
        let wrapped = wrap(&text, 104);
        assert!(wrapped.lines().count() > 1, "{wrapped}");
        assert!(
            wrapped.lines().any(|l| l.contains(sql)),
            "the statement is split:\n{wrapped}"
        );
        for line in wrapped.lines() {
            assert_eq!(line.matches('`').count() % 2, 0, "{line}");
        }
        assert_eq!(wrapped.replace('\n', " "), text);
    }

    #[test]
    fn wrapping_keeps_lines_within_the_width_outside_code() {
        let text = "word ".repeat(60);
        for line in wrap(text.trim_end(), 104).lines() {
            assert!(line.chars().count() <= 104, "{line}");
        }
        let short = "keep keys at least 35d: write `interval '35 days'`";
        assert_eq!(wrap(short, 104), short);
    }

    #[test]
    fn a_code_span_longer_than_the_width_gets_its_own_line() {
        let long = format!("`{}`", "x ".repeat(70).trim_end());
        let wrapped = wrap(&format!("write {long} and rerun"), 104);
        assert_eq!(
            wrapped.lines().collect::<Vec<_>>(),
            vec!["write", long.as_str(), "and rerun"]
        );
    }

    #[test]
    fn an_unclosed_backtick_quotes_nothing() {
        let text = format!("a ` {}", "word ".repeat(40).trim_end());
        for line in wrap(&text, 104).lines() {
            assert!(line.chars().count() <= 104, "{line}");
        }
        assert_eq!(wrap("one\ntwo `a b`", 104), "one\ntwo `a b`");
    }
}
