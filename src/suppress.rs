//! Suppression comments (the README, "Configuration and suppressions"), one
//! grammar in every comment syntax:
//! `idemlint: allow(rule, ...) -- reason` covers its own line and the next
//! statement: the next line that is not blank or a comment and, in SQL and
//! Rust, the lines after it up to the one that ends the statement with `;`;
//! `idemlint: allow-file(rule) -- reason` covers the file. Unused, unknown or
//! reasonless suppressions become `unused-suppression` diagnostics.

use crate::diagnostic::{Diagnostic, RuleId, Severity};
use crate::source::{FileId, LineIndex, SourceMap, Span};
use regex::Regex;
use std::sync::OnceLock;

pub const RULE: RuleId = RuleId::UnusedSuppression;

const NOTHING: &str = "a comment that does not read as a suppression suppresses nothing";

#[derive(Debug, Clone)]
pub struct Suppression {
    pub file: FileId,
    pub span: Span,
    pub rules: Vec<String>,
    pub whole_file: bool,
    /// 0-based lines covered (empty for a whole-file suppression).
    pub lines: Vec<usize>,
    pub reason: Option<String>,
    pub used: Vec<bool>,
    /// A comment meant as a suppression that does not read as one; it
    /// suppresses nothing and is reported.
    pub malformed: Option<Malformed>,
}

/// How a suppression comment fails to read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Malformed {
    /// `idemlint: allow -- reason`, `allow()`: no rule in parentheses.
    NoRule(String),
    /// `idemlint: alow(rule)`: the directive is misspelt.
    Directive(String),
}

/// A comment that starts like a suppression (`// idemlint: word`), to tell
/// a malformed one from prose that mentions idemlint.
fn loose_pattern() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    R.get_or_init(|| {
        Regex::new(r"(?://+|/\*+|--|#+)\s*idemlint:\s*([A-Za-z][A-Za-z_-]*)\s*(\(\s*\))?")
            .unwrap_or_else(|_| unreachable!("the loose suppression pattern is a valid regex"))
    })
}

/// A comment line that tries to be a suppression but does not parse.
fn malformed(line: &str) -> Option<(std::ops::Range<usize>, Malformed)> {
    let c = loose_pattern().captures(line)?;
    let m = c.get(0)?;
    let word = &c[1];
    let lower = word.to_ascii_lowercase();
    let end = line.trim_end().len().max(m.end());
    let kind = if lower == "allow" || lower == "allow-file" {
        Malformed::NoRule(word.to_string())
    } else if ["allow", "allow-file"]
        .iter()
        .any(|d| crate::catalogue::osa_distance(&lower, d) <= 2)
        || lower.starts_with("allow")
        || lower.starts_with("ignore")
        || lower.starts_with("disable")
    {
        Malformed::Directive(word.to_string())
    } else {
        return None;
    };
    Some((m.start()..end, kind))
}

fn pattern() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    R.get_or_init(|| {
        Regex::new(r"(?://+|/\*+|--|#+)\s*idemlint:\s*(allow|allow-file)\s*\(([^)]*)\)(?:\s*--\s*(.*?))?\s*(?:\*/)?\s*$")
            .unwrap_or_else(|_| unreachable!("the suppression pattern is a valid regex"))
    })
}

fn is_comment_only(line: &str) -> bool {
    let t = line.trim_start();
    t.is_empty()
        || t.starts_with("//")
        || t.starts_with("--")
        || t.starts_with('#')
        || t.starts_with("/*")
        || t.starts_with('*')
}

/// Lines a statement may span before a suppression stops following it.
const MAX_STATEMENT_LINES: usize = 500;

/// The 0-based lines of the statement starting at line `first`: up to the
/// first line ending with `;` (before any trailing `--`/`//` comment), never
/// past a blank line.
fn statement_lines(lines: &[&str], first: usize) -> Vec<usize> {
    let mut out = Vec::new();
    for (k, line) in lines
        .iter()
        .enumerate()
        .skip(first)
        .take(MAX_STATEMENT_LINES)
    {
        let code = line.split(" --").next().unwrap_or(line);
        let code = code.split(" //").next().unwrap_or(code).trim_end();
        if k > first && line.trim().is_empty() {
            break;
        }
        out.push(k);
        if code.ends_with(';') {
            break;
        }
    }
    out
}

/// Find every suppression comment in a file; `statements` makes a line
/// suppression follow a multi-line statement (SQL, Rust).
pub fn scan(file: FileId, text: &str, statements: bool) -> Vec<Suppression> {
    if !text.contains("idemlint:") {
        return Vec::new();
    }
    let index = LineIndex::new(text);
    let lines: Vec<&str> = text.split('\n').collect();
    let mut out = Vec::new();
    for (n, line) in lines.iter().enumerate() {
        let line = line.trim_end_matches('\r');
        let Some(c) = pattern().captures(line) else {
            if let Some((range, kind)) = malformed(line) {
                let at = index.line_start(n);
                out.push(Suppression {
                    file,
                    span: Span::new(at + range.start, at + range.end),
                    rules: Vec::new(),
                    whole_file: false,
                    lines: Vec::new(),
                    reason: None,
                    used: Vec::new(),
                    malformed: Some(kind),
                });
            }
            continue;
        };
        let Some(m) = c.get(0) else { continue };
        let start = index.line_start(n) + m.start();
        let whole_file = &c[1] == "allow-file";
        let rules: Vec<String> = c[2]
            .split(',')
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
            .collect();
        let reason = c
            .get(3)
            .map(|r| r.as_str().trim().to_string())
            .filter(|r| !r.is_empty());
        let mut covered = vec![n];
        let code_before = !is_comment_only(&line[..m.start()]);
        if let Some(next) = (n + 1..lines.len()).find(|&k| !is_comment_only(lines[k])) {
            if statements && !code_before {
                covered.extend(statement_lines(&lines, next));
            } else {
                covered.push(next);
            }
        }
        let used = vec![false; rules.len()];
        out.push(Suppression {
            file,
            span: Span::new(start, index.line_start(n) + m.end()),
            rules,
            whole_file,
            lines: if whole_file { Vec::new() } else { covered },
            reason,
            used,
            malformed: None,
        });
    }
    out
}

/// A diagnostic that a comment suppressed, with the comment's reason (SARIF
/// `suppressions`, `--show-suppressed`).
#[derive(Debug, Clone)]
pub struct Suppressed {
    pub diagnostic: Diagnostic,
    pub reason: Option<String>,
}

/// Take out the diagnostics that suppressions cover; return them with their
/// reasons, and the `unused-suppression` diagnostics for the suppressions
/// that covered nothing.
pub fn apply(
    diags: &mut Vec<Diagnostic>,
    sups: &mut [Suppression],
    sources: &SourceMap,
    reason_required: bool,
) -> (Vec<Suppressed>, Vec<Diagnostic>) {
    if sups.is_empty() {
        // Nothing to match, nothing unused (and the rule catalogue, which
        // takes a few milliseconds to read, is not needed).
        return (Vec::new(), Vec::new());
    }
    let known = crate::catalogue::names();
    let mut indexes: std::collections::HashMap<FileId, LineIndex> =
        std::collections::HashMap::new();
    let mut suppressed = Vec::new();
    for d in std::mem::take(diags) {
        let line = indexes
            .entry(d.file)
            .or_insert_with(|| LineIndex::new(sources.text(d.file)))
            .line_of(d.span.start);
        let mut reason: Option<Option<String>> = None;
        for s in sups.iter_mut().filter(|s| s.file == d.file) {
            if reason_required && s.reason.is_none() {
                continue;
            }
            if !s.whole_file && !s.lines.contains(&line) {
                continue;
            }
            for (i, r) in s.rules.iter().enumerate() {
                if d.rule == r.as_str() {
                    s.used[i] = true;
                    reason.get_or_insert_with(|| s.reason.clone());
                }
            }
        }
        match reason {
            Some(reason) => suppressed.push(Suppressed {
                diagnostic: d,
                reason,
            }),
            None => diags.push(d),
        }
    }
    let mut out = Vec::new();
    for s in sups.iter() {
        let report = |message: String, label: &str, help: String| {
            Diagnostic::new(RULE, Severity::Warning, s.file, s.span, message)
                .with_primary_label(label)
                .with_help(help)
        };
        match &s.malformed {
            Some(Malformed::NoRule(word)) => out.push(report(
                "suppression names no rule".to_string(),
                "no rule in parentheses",
                format!("name the rule: `idemlint: {word}(rule-name) -- reason` (`idemlint rules` lists them)"),
            ).with_note(NOTHING)),
            Some(Malformed::Directive(word)) => out.push(report(
                format!("`{word}` is not a suppression directive"),
                "not `allow` or `allow-file`",
                "write `idemlint: allow(rule-name) -- reason`, or `allow-file(...)` for the whole file".to_string(),
            ).with_note(NOTHING)),
            None => {}
        }
        for (i, r) in s.rules.iter().enumerate() {
            let d = if !known.contains(&r.as_str()) {
                report(
                    format!("suppression names an unknown rule `{r}`"),
                    "unknown rule",
                    match crate::catalogue::closest(r) {
                        Some(n) => format!("did you mean `{n}`?"),
                        None => "use a name that `idemlint rules` lists".to_string(),
                    },
                )
                .with_note("a suppression of an unknown rule suppresses nothing")
            } else if reason_required && s.reason.is_none() {
                report(
                    format!("suppression of `{r}` gives no reason"),
                    "no reason after `--`",
                    format!("say why after `--`: `idemlint: allow({r}) -- why it is safe here`"),
                )
                .with_note("a reason is required, so the comment suppresses nothing")
            } else if !s.used[i] {
                report(
                    format!("suppression of `{r}` suppresses nothing"),
                    "nothing to suppress here",
                    format!("remove the comment: no `{r}` finding is on this line or the statement after it"),
                )
            } else {
                continue;
            };
            out.push(d);
        }
    }
    (suppressed, out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grammar_in_every_comment_syntax() {
        let text = "// idemlint: allow(a) -- because\nx\n-- idemlint: allow(b, c) -- r\n\ny\n# idemlint: allow-file(d) -- r\n/* idemlint: allow(e) */\n";
        let s = scan(0, text, false);
        assert_eq!(s.len(), 4);
        assert_eq!(s[0].rules, vec!["a"]);
        assert_eq!(s[0].lines, vec![0, 1]);
        assert_eq!(s[1].rules, vec!["b", "c"]);
        assert_eq!(s[1].lines, vec![2, 4]);
        assert!(s[2].whole_file);
        assert_eq!(s[3].reason, None);
    }

    #[test]
    fn a_line_suppression_covers_a_whole_multi_line_statement() {
        let text = "-- idemlint: allow(a) -- why\nCREATE TABLE t (\n  k text,\n  v text -- c;\n);\nCREATE TABLE u (k text);\n";
        let s = scan(0, text, true);
        assert_eq!(s[0].lines, vec![0, 1, 2, 3, 4]);
    }
}
