//! Suppression comments (DESIGN §6), one grammar in every comment syntax:
//! `idemlint: allow(rule, ...) -- reason` covers its own line and the next
//! statement: the next line that is not blank or a comment and, in SQL and
//! Rust, the lines after it up to the one that ends the statement with `;`;
//! `idemlint: allow-file(rule) -- reason` covers the file. Unused, unknown or
//! reasonless suppressions become `unused-suppression` diagnostics.

use crate::diagnostic::{Diagnostic, Severity};
use crate::source::{FileId, LineIndex, SourceMap, Span};
use regex::Regex;
use std::sync::OnceLock;

pub const RULE: &str = "unused-suppression";

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
                if r == d.rule {
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
        for (i, r) in s.rules.iter().enumerate() {
            let message = if !known.contains(&r.as_str()) {
                format!("suppression names an unknown rule `{r}`")
            } else if reason_required && s.reason.is_none() {
                format!("suppression of `{r}` gives no reason after `--`, so it suppresses nothing")
            } else if !s.used[i] {
                format!("suppression of `{r}` suppresses nothing")
            } else {
                continue;
            };
            out.push(
                Diagnostic::new(RULE, Severity::Warning, s.file, s.span, message).with_help(
                    "remove the comment, or fix the rule name; a reason goes after `--`",
                ),
            );
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
