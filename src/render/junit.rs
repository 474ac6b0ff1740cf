//! `--format junit`: JUnit XML for CI test reports. One test suite per rule
//! that runs, one failing test case per finding, and one passing case for a
//! rule with no finding. Text is escaped for XML 1.0; characters XML cannot
//! hold at all (most control characters) become U+FFFD.

use super::json::Positions;
use super::Report;
use crate::diagnostic::{Diagnostic, RuleId};

/// Escape text for an XML attribute value or element content.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            // Kept through attribute-value normalisation as references.
            '\n' => out.push_str("&#10;"),
            '\r' => out.push_str("&#13;"),
            '\t' => out.push_str("&#9;"),
            c if (c as u32) < 0x20 || c == '\u{fffe}' || c == '\u{ffff}' => out.push('\u{fffd}'),
            c => out.push(c),
        }
    }
    out
}

pub fn render(report: &Report) -> String {
    let mut pos = Positions::new(report.sources);
    let rules = RuleId::ALL.iter().copied().filter(|r| r.is_built());
    let mut suites = String::new();
    let (mut tests, mut failures) = (0, 0);
    for rule in rules {
        let found: Vec<&Diagnostic> = report
            .diagnostics
            .iter()
            .filter(|d| d.rule == rule)
            .collect();
        let n = found.len().max(1);
        tests += n;
        failures += found.len();
        suites.push_str(&format!(
            "  <testsuite name=\"{}\" tests=\"{n}\" failures=\"{}\" errors=\"0\" skipped=\"0\">\n",
            escape(rule.as_str()),
            found.len()
        ));
        if found.is_empty() {
            suites.push_str(&format!(
                "    <testcase name=\"no findings\" classname=\"idemlint.{}\"/>\n",
                escape(rule.as_str())
            ));
        }
        for d in found {
            let path = report.sources.path(d.file);
            let (s, _) = pos.line_cols(d.file, d.span);
            let mut body = format!("{path}:{}:{}: {}", s.line, s.column, d.message);
            if let Some(h) = &d.help {
                body.push_str("\nhelp: ");
                body.push_str(h);
            }
            suites.push_str(&format!(
                "    <testcase name=\"{}:{}:{}\" classname=\"idemlint.{}\" file=\"{}\" line=\"{}\">\n      <failure type=\"{}\" message=\"{}\">{}</failure>\n    </testcase>\n",
                escape(path),
                s.line,
                s.column,
                escape(rule.as_str()),
                escape(path),
                s.line,
                d.severity.as_str(),
                escape(&d.message),
                escape(&body)
            ));
        }
        suites.push_str("  </testsuite>\n");
    }
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"idemlint\" tests=\"{tests}\" failures=\"{failures}\" errors=\"0\">\n{suites}</testsuites>\n"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_quotes_newlines_and_control_characters_are_escaped() {
        assert_eq!(
            escape("<a href=\"x\">&'\n\u{1}"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&apos;&#10;\u{fffd}"
        );
    }
}
