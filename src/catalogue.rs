//! The rule catalogue: each rule's default severity and docs, read from
//! `rules/<rule>.toml` compiled into the binary. `rules`, `explain`, the README
//! table and SARIF descriptions all come from here. No rule logic lives here:
//! which rules exist, and whether they run, is declared in `rule_id.rs`.

use crate::rule_id::{RuleId, Severity};
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

    /// The declared rule these docs are for.
    pub fn id(&self) -> Option<RuleId> {
        RuleId::parse(&self.name)
    }

    /// Whether the binary has an implementation for this rule.
    pub fn is_built(&self) -> bool {
        self.id().is_some_and(RuleId::is_built)
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

/// Every declared rule's file, in the order `idemlint rules` lists them.
fn rule_files() -> &'static [(&'static str, &'static str)] {
    static FILES: OnceLock<Vec<(&'static str, &'static str)>> = OnceLock::new();
    FILES.get_or_init(|| {
        RuleId::ALL
            .iter()
            .map(|r| (r.as_str(), r.docs_file()))
            .collect()
    })
}

/// The parsed catalogue. A malformed rule file is a build defect caught by the
/// meta-tests, so it is reported there rather than at run time.
pub fn all() -> &'static [RuleMeta] {
    static CATALOGUE: OnceLock<Vec<RuleMeta>> = OnceLock::new();
    CATALOGUE.get_or_init(|| {
        rule_files()
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
    rule_files()
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
    let w = b.len() + 1;
    // Three rows of the table (two back, one back, this one) in one
    // buffer; each row moves back one slot before the next is filled.
    let mut rows = vec![0usize; 3 * w];
    for (j, cell) in rows[2 * w..].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        rows.copy_within(w..3 * w, 0);
        let (back, cur) = rows.split_at_mut(2 * w);
        let (two, one) = back.split_at(w);
        cur[0] = i;
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut v = (one[j] + 1).min(cur[j - 1] + 1).min(one[j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                v = v.min(two[j - 2] + 1);
            }
            cur[j] = v;
        }
    }
    rows[2 * w + b.len()]
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
        let mut parts = names.iter().filter(|n| {
            name.len() >= 4
                && (n.ends_with(&name) || n.starts_with(&name) || words_within(&name, n))
        });
        match (parts.next(), parts.next()) {
            (Some(only), None) => Some(*only),
            _ => None,
        }
    })
}

/// Whether every hyphen-separated word of `name` is a word of `rule`, in
/// order (`misspelled-header` in `misspelled-idempotency-header`).
fn words_within(name: &str, rule: &str) -> bool {
    let mut words = rule.split('-');
    name.split('-')
        .all(|w| !w.is_empty() && words.any(|r| r == w))
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

/// The README's rules table, generated so a test can keep the two in sync:
/// built rules, then planned ones apart, each with its default severity and
/// [`short_summary`]. How the severity varies and the full docs are in
/// `idemlint explain RULE`.
pub fn markdown_table() -> String {
    let table = |rules: Vec<&RuleMeta>| {
        let mut out = String::from("| rule | default | flags |\n|---|---|---|\n");
        for m in rules {
            out.push_str(&format!(
                "| `{}` | {} | {} |\n",
                m.name,
                m.default_severity,
                short_summary(&m.summary)
            ));
        }
        out
    };
    let (built, planned): (Vec<&RuleMeta>, Vec<&RuleMeta>) =
        all().iter().partition(|m| m.is_built());
    let mut out = table(built);
    if !planned.is_empty() {
        out.push_str("\nPlanned (documented, not run yet):\n\n");
        out.push_str(&table(planned));
    }
    out
}

/// A summary in one short line: without its parenthesised asides and
/// whatever follows its first `: ` (the reason, which `explain` gives).
/// Backtick-quoted code is never cut.
pub fn short_summary(summary: &str) -> String {
    let mut out = String::with_capacity(summary.len());
    let mut depth = 0usize;
    let mut code = false;
    let mut chars = summary.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '`' if depth == 0 => {
                code = !code;
                out.push(c);
            }
            '(' if !code => depth += 1,
            ')' if !code && depth > 0 => depth -= 1,
            ':' if !code && depth == 0 && chars.peek() == Some(&' ') => break,
            _ if depth == 0 => out.push(c),
            _ => {}
        }
    }
    // `loop (a, b) that` leaves two spaces; `key (…), with` a space before `,`.
    let mut out = out.split_whitespace().collect::<Vec<_>>().join(" ");
    for p in [",", ":", ";"] {
        out = out.replace(&format!(" {p}"), p);
    }
    out.trim_end_matches([',', ' ']).to_string()
}

#[cfg(test)]
mod tests {
    #[test]
    fn osa_distance_counts_edits_and_adjacent_swaps() {
        for (a, b, d) in [
            ("kitten", "sitting", 3),
            ("ab", "ba", 1),
            ("", "abc", 3),
            ("abc", "", 3),
            ("", "", 0),
            // OSA edits no substring twice: 3, where unrestricted
            // Damerau-Levenshtein says 2.
            ("ca", "abc", 3),
            ("idempotency-key", "idempotnecy-key", 1),
            ("idempotency-key", "idempotency-key", 0),
            ("x-idempotency-key", "idempotency-key", 2),
        ] {
            assert_eq!(osa_distance(a, b), d, "{a:?} {b:?}");
            assert_eq!(osa_distance(b, a), d, "{b:?} {a:?}");
        }
    }

    use super::*;

    #[test]
    fn a_short_summary_drops_asides_and_the_reason_but_keeps_code() {
        assert_eq!(
            short_summary("a new key (UUID, timestamp, random) generated inside a retry loop"),
            "a new key generated inside a retry loop"
        );
        assert_eq!(
            short_summary("a key written after the effect (or on its success path), with no claim"),
            "a key written after the effect, with no claim"
        );
        assert_eq!(
            short_summary(
                "resends for longer than the key lives (Stripe: 24 h): past that, a new request"
            ),
            "resends for longer than the key lives"
        );
        assert_eq!(
            short_summary("expiry by `DELETE (x): y` on a table: space is not returned"),
            "expiry by `DELETE (x): y` on a table"
        );
    }

    #[test]
    fn every_rule_has_a_short_summary_of_a_few_words() {
        for m in all() {
            let s = short_summary(&m.summary);
            let words = s.split_whitespace().count();
            assert!((5..=25).contains(&words), "{}: {s:?}", m.name);
        }
    }
}
