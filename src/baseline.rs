//! Baselines: the findings a repository already has, recorded so that a gate
//! reports only new ones. Entries match on the fingerprint (rule + path +
//! the finding's whitespace-normalised lines + occurrence index), so lines
//! inserted above a finding or whitespace changes on its line keep it
//! hidden; a renamed file's findings are new.

use crate::diagnostic::Diagnostic;
use crate::source::SourceMap;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;
use std::path::Path;

pub const VERSION: u32 = 1;

#[derive(Debug, thiserror::Error)]
pub enum BaselineError {
    #[error("{path}: cannot read the baseline: {source}")]
    Read {
        path: String,
        source: std::io::Error,
    },
    #[error("{path}: not an idemlint baseline: {message}")]
    Invalid { path: String, message: String },
    #[error("{path}: cannot write the baseline: {source}")]
    Write {
        path: String,
        source: std::io::Error,
    },
}

/// One recorded finding. The rule, path and message are for the reader of
/// a diff; only the fingerprint decides a match.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Entry {
    pub path: String,
    pub rule: String,
    pub fingerprint: String,
    pub message: String,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Baseline {
    pub version: u32,
    pub findings: Vec<Entry>,
}

impl Baseline {
    /// The baseline of a run's findings, sorted by path, rule, fingerprint.
    pub fn of(diags: &[Diagnostic], sources: &SourceMap) -> Baseline {
        let mut findings: Vec<Entry> = diags
            .iter()
            .map(|d| Entry {
                path: sources.path(d.file).to_string(),
                rule: d.rule.to_string(),
                fingerprint: d.fingerprint.clone(),
                message: d.message.clone(),
            })
            .collect();
        findings.sort();
        findings.dedup_by(|a, b| a.fingerprint == b.fingerprint);
        Baseline {
            version: VERSION,
            findings,
        }
    }

    pub fn parse(text: &str, path: &str) -> Result<Baseline, BaselineError> {
        let b: Baseline = serde_json::from_str(text).map_err(|e| BaselineError::Invalid {
            path: path.to_string(),
            message: e.to_string(),
        })?;
        if b.version != VERSION {
            return Err(BaselineError::Invalid {
                path: path.to_string(),
                message: format!("version {} (this idemlint reads {VERSION})", b.version),
            });
        }
        Ok(b)
    }

    pub fn load(path: &Path) -> Result<Baseline, BaselineError> {
        let shown = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|source| BaselineError::Read {
            path: shown.clone(),
            source,
        })?;
        Baseline::parse(&text, &shown)
    }

    /// Stable, diff-friendly JSON: one entry per finding, sorted, with a
    /// final newline.
    pub fn to_json(&self) -> String {
        let mut s = serde_json::to_string_pretty(self).unwrap_or_default();
        s.push('\n');
        s
    }

    pub fn save(&self, path: &Path) -> Result<(), BaselineError> {
        crate::fix::write_atomically(path, self.to_json().as_bytes()).map_err(|source| {
            BaselineError::Write {
                path: path.display().to_string(),
                source,
            }
        })
    }

    fn fingerprints(&self) -> BTreeSet<&str> {
        self.findings
            .iter()
            .map(|e| e.fingerprint.as_str())
            .collect()
    }

    /// Drop the diagnostics the baseline records; return how many.
    pub fn hide(&self, diags: &mut Vec<Diagnostic>) -> usize {
        let known = self.fingerprints();
        let before = diags.len();
        diags.retain(|d| !known.contains(d.fingerprint.as_str()));
        before - diags.len()
    }

    /// The entries that no current finding matches (fixed, moved to another
    /// file, or changed on their line).
    pub fn stale(&self, diags: &[Diagnostic]) -> Vec<Entry> {
        let current: BTreeSet<&str> = diags.iter().map(|d| d.fingerprint.as_str()).collect();
        self.findings
            .iter()
            .filter(|e| !current.contains(e.fingerprint.as_str()))
            .cloned()
            .collect()
    }

    /// The baseline without the given entries.
    pub fn without(&self, stale: &[Entry]) -> Baseline {
        Baseline {
            version: VERSION,
            findings: self
                .findings
                .iter()
                .filter(|e| !stale.contains(e))
                .cloned()
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_malformed_or_future_baseline_is_refused_with_its_path() {
        let e = Baseline::parse("{\"version\": 1}", "b.json").unwrap_err();
        assert!(
            e.to_string()
                .starts_with("b.json: not an idemlint baseline"),
            "{e}"
        );
        let e = Baseline::parse("{\"version\": 2, \"findings\": []}", "b.json").unwrap_err();
        assert!(e.to_string().contains("version 2"), "{e}");
        assert!(Baseline::parse("{\"version\": 1, \"findings\": []}", "b.json").is_ok());
    }
}
