//! The rule catalogue: each rule's default severity and docs, read from
//! `rules/<rule>.toml` compiled into the binary. `rules`, `explain`, the README
//! table and SARIF descriptions all come from here. No rule logic lives here.

use crate::diagnostic::Severity;
use serde::Deserialize;
use std::sync::OnceLock;

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RuleDocs {
    pub what: String,
    pub why: String,
    pub example: String,
    pub use_instead: String,
    pub references: Vec<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RuleMeta {
    pub name: String,
    pub default_severity: String,
    /// How the severity varies, in a few words (the README and `rules` show it).
    pub severity_note: String,
    pub summary: String,
    pub docs: RuleDocs,
}

impl RuleMeta {
    pub fn severity(&self) -> Severity {
        Severity::parse(&self.default_severity).unwrap_or(Severity::Warning)
    }

    /// Whether the binary has an implementation for this rule.
    pub fn is_built(&self) -> bool {
        crate::rules::is_built(&self.name)
    }

    /// `built` or `planned`.
    pub fn status(&self) -> &'static str {
        if self.is_built() {
            "built"
        } else {
            "planned"
        }
    }

    /// `explain --format json`: the fields of `rules --format json` plus the
    /// docs under their headings' names.
    pub fn to_json(&self) -> serde_json::Value {
        let d = &self.docs;
        serde_json::json!({
            "name": self.name,
            "default_severity": self.default_severity,
            "severity_note": self.severity_note,
            "status": self.status(),
            "summary": self.summary,
            "docs": {
                "what_it_does": d.what.trim(),
                "why_is_this_bad": d.why.trim(),
                "example": d.example.trim(),
                "use_instead": d.use_instead.trim(),
                "references": d.references,
            },
        })
    }

    /// The docs as `explain` prints them, with fixed headings.
    pub fn render_docs(&self) -> String {
        let d = &self.docs;
        let mut out = format!(
            "# {}\n\nDefault severity: {} ({}){}\n\n",
            self.name,
            self.default_severity,
            self.severity_note,
            if self.is_built() {
                ""
            } else {
                "\nStatus: planned (not run yet)"
            }
        );
        out.push_str(&format!("## What it does\n\n{}\n\n", d.what.trim()));
        out.push_str(&format!("## Why is this bad?\n\n{}\n\n", d.why.trim()));
        out.push_str(&format!("## Example\n\n```\n{}\n```\n\n", d.example.trim()));
        out.push_str(&format!(
            "## Use instead\n\n```\n{}\n```\n\n",
            d.use_instead.trim()
        ));
        out.push_str("## References\n\n");
        for r in &d.references {
            out.push_str(&format!("- {r}\n"));
        }
        out
    }
}

macro_rules! rule_files {
    ($($name:literal),* $(,)?) => {
        &[$(($name, include_str!(concat!("../rules/", $name, ".toml")))),*]
    };
}

/// Every rule of DESIGN §4, in the order `idemlint rules` lists them.
const RULE_FILES: &[(&str, &str)] = rule_files![
    "ttl-below-replay-horizon",
    "key-recorded-after-effect",
    "missing-unique-key-constraint",
    "unique-guard-split-by-partition",
    "check-then-insert",
    "evicting-key-store",
    "misspelled-idempotency-header",
    "fresh-key-per-retry",
    "retry-outlives-key-retention",
    "unscoped-idempotency-key",
    "missing-request-fingerprint",
    "delete-based-expiry",
    "parse-error",
    "unused-suppression",
];

/// The parsed catalogue. A malformed rule file is a build defect caught by the
/// meta-tests, so it is reported there rather than at run time.
pub fn all() -> &'static [RuleMeta] {
    static CATALOGUE: OnceLock<Vec<RuleMeta>> = OnceLock::new();
    CATALOGUE.get_or_init(|| {
        RULE_FILES
            .iter()
            .filter_map(|(name, text)| match toml::from_str::<RuleMeta>(text) {
                Ok(meta) => Some(meta),
                Err(e) => {
                    eprintln!("idemlint: internal: rules/{name}.toml: {e}");
                    None
                }
            })
            .collect()
    })
}

/// Raw catalogue files, for the meta-tests.
pub fn raw_files() -> &'static [(&'static str, &'static str)] {
    RULE_FILES
}

pub fn get(name: &str) -> Option<&'static RuleMeta> {
    all().iter().find(|m| m.name == name)
}

pub fn names() -> Vec<&'static str> {
    all().iter().map(|m| m.name.as_str()).collect()
}

/// Optimal string alignment distance (Damerau-Levenshtein without repeated
/// edits of one substring), on bytes: rule and header names are ASCII.
pub fn osa_distance(a: &str, b: &str) -> usize {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut v = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                v = v.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = v;
        }
    }
    d[a.len()][b.len()]
}

/// The rule name nearest to a misspelt one (`ttl-below-replay-horzon`), for
/// "did you mean": within a third of its length in edits, or one that
/// starts or ends with it (`fingerprint` → `missing-request-fingerprint`).
pub fn closest(name: &str) -> Option<&'static str> {
    let name = name.trim().to_ascii_lowercase();
    if name.is_empty() {
        return None;
    }
    let names = names();
    let by_edit = names
        .iter()
        .map(|n| (osa_distance(&name, n), *n))
        .filter(|(d, n)| *d > 0 && *d <= (n.len() / 3).max(2))
        .min_by_key(|(d, _)| *d)
        .map(|(_, n)| n);
    by_edit.or_else(|| {
        let mut parts = names
            .iter()
            .filter(|n| name.len() >= 4 && (n.ends_with(&name) || n.starts_with(&name)));
        match (parts.next(), parts.next()) {
            (Some(only), None) => Some(*only),
            _ => None,
        }
    })
}

/// " (did you mean `x`?)" for an unknown rule name, or nothing.
pub fn did_you_mean(name: &str) -> String {
    closest(name).map_or_else(String::new, |n| format!("; did you mean `{n}`?"))
}

/// The default severity of a rule (warning if the catalogue lacks it).
pub fn default_severity(name: &str) -> Severity {
    get(name)
        .map(RuleMeta::severity)
        .unwrap_or(Severity::Warning)
}

/// The README's rules table, generated so a test can keep the two in sync.
pub fn markdown_table() -> String {
    let mut out = String::from("| rule | default | status | flags |\n|---|---|---|---|\n");
    for m in all() {
        out.push_str(&format!(
            "| `{}` | {} ({}) | {} | {} |\n",
            m.name,
            m.default_severity,
            m.severity_note,
            if m.is_built() { "built" } else { "planned" },
            m.summary
        ));
    }
    out
}
