//! Test code by its path (`rules/test_code.toml`). In Rust, the
//! `#[cfg(test)]` modules and `#[test]` functions are test code too: the
//! front end finds them (`frontend::rust::test_regions`), and so does the
//! lexer (`lex::rust::test_items`). The retention, header and flow rules
//! do not judge it unless the user asks (`--include-tests`, `tests = true`).

use crate::rule_id::RuleId;
use serde::Deserialize;
use std::sync::OnceLock;

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TestCode {
    pub dirs: Vec<String>,
    pub suffixes: Vec<String>,
    pub infixes: Vec<String>,
    pub prefixes: Vec<String>,
    pub names: Vec<String>,
    pub rules: Vec<String>,
}

pub const TEST_CODE_TOML: &str = include_str!("../rules/test_code.toml");

pub fn test_code() -> &'static TestCode {
    static T: OnceLock<TestCode> = OnceLock::new();
    T.get_or_init(|| crate::knowledge::load("test_code.toml", TEST_CODE_TOML))
}

impl TestCode {
    /// Whether `rel` (relative to the checked directory, `/`-separated)
    /// is test code by its path.
    pub fn is_test_path(&self, rel: &str) -> bool {
        let mut parts: Vec<&str> = rel
            .split('/')
            .filter(|p| !p.is_empty() && *p != ".")
            .collect();
        let Some(name) = parts.pop() else {
            return false;
        };
        parts.iter().any(|d| self.dirs.iter().any(|w| w == d))
            || self.names.iter().any(|n| n == name)
            || self.suffixes.iter().any(|s| name.ends_with(s.as_str()))
            || self.infixes.iter().any(|s| name.contains(s.as_str()))
            || self.prefixes.iter().any(|s| name.starts_with(s.as_str()))
    }

    pub fn spares(&self, rule: RuleId) -> bool {
        self.rules.iter().any(|r| rule == r.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_paths_by_directory_suffix_and_name() {
        let t = test_code();
        for p in [
            "tests/pay.rs",
            "crates/api/tests/webhook.rs",
            "internal/pay/charge_test.go",
            "web/src/pay.test.ts",
            "web/src/__tests__/pay.tsx",
            "app/spec/models/payment_spec.rb",
            "test-timings.json",
            "e2e/checkout.yaml",
            "py/test_webhooks.py",
        ] {
            assert!(t.is_test_path(p), "{p}");
        }
        for p in [
            "src/pay.rs",
            "migrations/001.sql",
            "contest/app.py",
            "src/testament.rs",
            "latest/x.go",
        ] {
            assert!(!t.is_test_path(p), "{p}");
        }
    }
}
