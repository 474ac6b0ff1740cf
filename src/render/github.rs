//! `--format github`: GitHub Actions workflow commands, one annotation per
//! finding (`::error file=…,line=…,col=…,endLine=…,endColumn=…,title=<rule>::…`).
//! Columns count Unicode characters; `endColumn` is the finding's last
//! character. Values are escaped as the runner unescapes them: `%`, `\r` and
//! `\n` everywhere, and `:` and `,` in properties too.

use super::json::Positions;
use super::Report;

/// Escape the message part of a workflow command.
pub fn escape_data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Escape a property value of a workflow command.
pub fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

pub fn render(report: &Report) -> String {
    let mut pos = Positions::new(report.sources);
    let mut out = String::new();
    for d in report.diagnostics {
        let (s, e) = pos.line_cols(d.file, d.span);
        let end_column = if e.line == s.line {
            e.column.saturating_sub(1).max(s.column)
        } else {
            e.column.max(1)
        };
        let mut message = d.message.clone();
        if let Some(h) = &d.help {
            message.push_str("\n\nhelp: ");
            message.push_str(h);
        }
        out.push_str(&format!(
            "::{} file={},line={},col={},endLine={},endColumn={},title={}::{}\n",
            super::level_name(d.severity, "notice"),
            escape_property(report.sources.path(d.file)),
            s.line,
            s.column,
            e.line,
            end_column,
            escape_property(d.rule.as_str()),
            escape_data(&message)
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn properties_escape_colon_and_comma_and_data_does_not() {
        assert_eq!(escape_property("a,b:c%\r\n"), "a%2Cb%3Ac%25%0D%0A");
        assert_eq!(escape_data("a,b:c%\n"), "a,b:c%25%0A");
    }
}
