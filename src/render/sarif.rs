//! `--format sarif`: SARIF 2.1.0 (one run), in the subset GitHub code
//! scanning reads: `message.text`, `partialFingerprints` under
//! `primaryLocationLineHash`, paths relative to `%SRCROOT%` (the current
//! directory). Columns count Unicode code points (`columnKind`), 1-based,
//! `endColumn` just past the finding. Suppressed findings are results with
//! `suppressions` (the comment's reason as `justification`); parse errors are
//! results and tool execution notifications.

use super::json::Positions;
use super::Report;
use crate::diagnostic::{Diagnostic, Severity};
use crate::source::{FileId, Span};
use crate::suppress::Suppressed;
use serde_json::{json, Value};

pub const SCHEMA: &str =
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json";
pub const INFORMATION_URI: &str = "https://github.com/idemlint/idemlint";
/// The `partialFingerprints` key GitHub code scanning matches alerts on.
pub const FINGERPRINT_KEY: &str = "primaryLocationLineHash";

fn level(s: Severity) -> &'static str {
    super::level_name(s, "note")
}

fn rules() -> Vec<Value> {
    crate::catalogue::all()
        .iter()
        .map(|m| {
            let docs = m.render_docs();
            json!({
                "id": m.name,
                "shortDescription": {"text": m.summary},
                "fullDescription": {"text": m.docs.what.trim()},
                "help": {"text": docs, "markdown": docs},
                "defaultConfiguration": {"level": level(m.severity())},
            })
        })
        .collect()
}

/// A live object's path (`postgres://host:port/db`, `redis://host:port`)
/// rather than a file's.
fn is_live(path: &str) -> bool {
    ["postgres://", "postgresql://", "redis://", "rediss://"]
        .iter()
        .any(|s| path.starts_with(s))
}

/// The object a line of a live description names: `table public.t (...)`
/// → `public.t`, `index t_key: ...` → `t_key`, `prefix idem:*: ...` →
/// `idem:*`, `oldest row of public.t by ...` → `public.t`; empty for an
/// instance-wide line.
fn live_object(line: &str) -> &str {
    let rest = if let Some(r) = line.strip_prefix("oldest row of ") {
        r
    } else if let Some((word, r)) = line.split_once(' ') {
        if matches!(word, "table" | "index" | "prefix") {
            r
        } else {
            return "";
        }
    } else {
        return "";
    };
    let end = rest.find([' ', '(']).unwrap_or(rest.len());
    rest[..end].trim_end_matches(':')
}

/// Percent-encode a path as a URI reference (RFC 3986 unreserved
/// characters and `/` are kept).
pub fn uri_path(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for b in path.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

struct Ctx<'a> {
    report: &'a Report<'a>,
    pos: Positions<'a>,
}

impl Ctx<'_> {
    fn artifact(&self, file: FileId) -> Value {
        let path = self.report.sources.path(file);
        if is_live(path) {
            // A live object (`idemlint audit`): its redacted URL, absolute.
            json!({"uri": path})
        } else if path.starts_with('/') {
            json!({"uri": format!("file://{}", uri_path(path))})
        } else {
            json!({"uri": uri_path(path), "uriBaseId": "%SRCROOT%"})
        }
    }

    fn region(&mut self, file: FileId, span: Span) -> Value {
        let (s, e) = self.pos.line_cols(file, span);
        json!({
            "startLine": s.line,
            "startColumn": s.column,
            "endLine": e.line,
            "endColumn": e.column,
        })
    }

    fn location(&mut self, file: FileId, span: Span) -> Value {
        let mut loc = json!({"physicalLocation": {
            "artifactLocation": self.artifact(file),
            "region": self.region(file, span),
        }});
        let path = self.report.sources.path(file);
        if is_live(path) {
            let text = self.report.sources.text(file);
            let start = text[..span.start.min(text.len())]
                .rfind('\n')
                .map_or(0, |i| i + 1);
            let line = text[start..].lines().next().unwrap_or("");
            let name = live_object(line);
            let qualified = if name.is_empty() {
                path.to_string()
            } else {
                format!("{path}/{name}")
            };
            loc["logicalLocations"] = json!([{
                "name": if name.is_empty() { path } else { name },
                "fullyQualifiedName": qualified,
                "kind": "resource",
            }]);
        }
        loc
    }

    fn result(&mut self, d: &Diagnostic, suppression: Option<&Suppressed>) -> Value {
        let rule_index = crate::catalogue::all()
            .iter()
            .position(|m| m.id() == Some(d.rule));
        let mut r = json!({
            "ruleId": d.rule,
            "level": level(d.severity),
            // The headline, then its reasoning: a code-scanning alert shows
            // no `= note:` lines of its own.
            "message": {"text": std::iter::once(d.message.as_str())
                .chain(d.notes.iter().map(String::as_str))
                .collect::<Vec<_>>()
                .join("\n\n")},
            "locations": [self.location(d.file, d.span)],
            "partialFingerprints": {FINGERPRINT_KEY: d.fingerprint},
        });
        if let Some(i) = rule_index {
            r["ruleIndex"] = json!(i);
        }
        if !d.labels.is_empty() {
            let related: Vec<Value> = d
                .labels
                .iter()
                .enumerate()
                .map(|(i, l)| {
                    let mut loc = self.location(l.file, l.span);
                    loc["id"] = json!(i);
                    loc["message"] = json!({"text": l.message});
                    loc
                })
                .collect();
            r["relatedLocations"] = json!(related);
        }
        if let Some(f) = &d.fix {
            let mut by_file: Vec<(FileId, Vec<Value>)> = Vec::new();
            for e in &f.edits {
                let rep = json!({
                    "deletedRegion": self.region(e.file, e.span),
                    "insertedContent": {"text": e.replacement},
                });
                match by_file.iter_mut().find(|(file, _)| *file == e.file) {
                    Some((_, reps)) => reps.push(rep),
                    None => by_file.push((e.file, vec![rep])),
                }
            }
            let changes: Vec<Value> = by_file
                .into_iter()
                .map(|(file, replacements)| {
                    json!({"artifactLocation": self.artifact(file), "replacements": replacements})
                })
                .collect();
            r["fixes"] = json!([{"description": {"text": f.message}, "artifactChanges": changes}]);
        }
        if let Some(s) = suppression {
            let mut sup = json!({"kind": "inSource"});
            if let Some(reason) = &s.reason {
                sup["justification"] = json!(reason);
            }
            r["suppressions"] = json!([sup]);
        }
        r
    }
}

fn document(run: Value) -> String {
    let doc = json!({"$schema": SCHEMA, "version": "2.1.0", "runs": [run]});
    serde_json::to_string_pretty(&doc).unwrap_or_default()
}

fn driver() -> Value {
    json!({
        "name": "idemlint",
        "version": env!("CARGO_PKG_VERSION"),
        "semanticVersion": env!("CARGO_PKG_VERSION"),
        "informationUri": INFORMATION_URI,
        "rules": rules(),
    })
}

fn srcroot() -> Value {
    let cwd = std::env::current_dir()
        .map(|p| p.to_string_lossy().replace('\\', "/"))
        .unwrap_or_default();
    let dir = format!("file://{}/", uri_path(cwd.trim_end_matches('/')));
    json!({"%SRCROOT%": {"uri": dir}})
}

pub fn render(report: &Report) -> String {
    let mut ctx = Ctx {
        report,
        pos: Positions::new(report.sources),
    };
    let mut results: Vec<Value> = report
        .diagnostics
        .iter()
        .map(|d| ctx.result(d, None))
        .collect();
    results.extend(
        report
            .suppressed
            .iter()
            .map(|s| ctx.result(&s.diagnostic, Some(s))),
    );
    let notifications: Vec<Value> = report
        .diagnostics
        .iter()
        .filter(|d| d.rule == crate::diagnostic::RuleId::ParseError)
        .map(|d| {
            json!({
                "descriptor": {"id": d.rule},
                "level": level(d.severity),
                "message": {"text": d.message},
                "locations": [ctx.location(d.file, d.span)],
            })
        })
        .collect();
    document(json!({
        "tool": {"driver": driver()},
        "originalUriBaseIds": srcroot(),
        "columnKind": "unicodeCodePoints",
        "invocations": [{
            "executionSuccessful": report.summary.files_crashed == 0,
            "toolExecutionNotifications": notifications,
        }],
        "results": results,
    }))
}

/// The document of a run that could not be trusted (it exits 2): no
/// results, `executionSuccessful: false` and the reason, so a CI upload
/// shows a failed analysis rather than a clean one.
pub fn render_failure(message: &str) -> String {
    document(json!({
        "tool": {"driver": driver()},
        "invocations": [{
            "executionSuccessful": false,
            "toolExecutionNotifications": [{"level": "error", "message": {"text": message}}],
        }],
        "results": [],
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_live_line_names_its_object() {
        assert_eq!(
            live_object("table public.payout_dedup (request_id text)"),
            "public.payout_dedup"
        );
        assert_eq!(
            live_object("index payout_key: CREATE UNIQUE INDEX"),
            "payout_key"
        );
        assert_eq!(
            live_object("prefix idem:stripe:*: 50 keys sampled"),
            "idem:stripe:*"
        );
        assert_eq!(
            live_object("oldest row of public.t by created_at: 2 d old"),
            "public.t"
        );
        assert_eq!(live_object("maxmemory-policy allkeys-lru maxmemory 0"), "");
        assert!(is_live("redis://127.0.0.1:6379") && !is_live("src/redis.rs"));
    }

    #[test]
    fn paths_are_percent_encoded() {
        assert_eq!(uri_path("src/a b,c%.rs"), "src/a%20b%2Cc%25.rs");
        assert_eq!(uri_path("é"), "%C3%A9");
    }
}
