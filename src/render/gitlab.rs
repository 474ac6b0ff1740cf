//! `--format gitlab`: GitLab Code Quality JSON (a CodeClimate subset): one
//! issue per finding with `description`, `check_name`, `fingerprint`,
//! `severity` (error → `major`, warning → `minor`, note → `info`) and
//! `location.path` / `location.lines.begin`.

use super::json::Positions;
use super::Report;
use crate::diagnostic::Severity;
use serde_json::{json, Value};

pub fn severity(s: Severity) -> &'static str {
    match s {
        Severity::Error => "major",
        Severity::Warning => "minor",
        Severity::Note => "info",
    }
}

pub fn render(report: &Report) -> String {
    let mut pos = Positions::new(report.sources);
    let issues: Vec<Value> = report
        .diagnostics
        .iter()
        .map(|d| {
            let (s, _) = pos.line_cols(d.file, d.span);
            json!({
                "description": d.message,
                "check_name": d.rule,
                "fingerprint": d.fingerprint,
                "severity": severity(d.severity),
                "location": {"path": report.sources.path(d.file), "lines": {"begin": s.line}},
            })
        })
        .collect();
    serde_json::to_string_pretty(&issues).unwrap_or_default()
}
