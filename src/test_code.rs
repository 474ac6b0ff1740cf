//! Test code: paths (`rules/test_code.toml`) and, in Rust, `#[cfg(test)]`
//! modules and `#[test]` functions. The retention, header and flow rules do
//! not judge it unless the user asks (`--include-tests`, `tests = true`).

use crate::rule_id::RuleId;
use crate::source::Span;
use serde::Deserialize;
use std::sync::OnceLock;
use syn::visit::Visit;

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

/// The byte spans of `#[cfg(test)]` items and `#[test]`-like functions
/// (`#[test]`, `#[tokio::test]`, `#[sqlx::test]`, ...) in a Rust file.
pub fn rust_regions(file: &syn::File) -> Vec<Span> {
    let mut v = Regions::default();
    v.visit_file(file);
    v.0
}

/// The test regions of a file, as [`rust_regions`] finds them, read item
/// by item.
#[derive(Default)]
pub struct Regions(pub Vec<Span>);

fn is_test_attr(a: &syn::Attribute) -> bool {
    let path = a.path();
    if path.segments.last().is_some_and(|s| s.ident == "test") {
        return true;
    }
    if path.is_ident("cfg") {
        let mut test = false;
        let _ = a.parse_nested_meta(|m| {
            test |= m.path.is_ident("test");
            Ok(())
        });
        return test;
    }
    false
}

impl Regions {
    /// A test item is one region; any other item is walked for test items
    /// inside it.
    fn item<T: syn::spanned::Spanned + std::any::Any>(
        &mut self,
        attrs: &[syn::Attribute],
        item: &T,
        walk: impl FnOnce(&mut Self),
    ) {
        if attrs.iter().any(is_test_attr) {
            self.0.push(crate::frontend::rust::span::of(item));
        } else {
            walk(self);
        }
    }
}

impl<'ast> Visit<'ast> for Regions {
    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        self.item(&m.attrs, m, |v| syn::visit::visit_item_mod(v, m));
    }

    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        self.item(&f.attrs, f, |v| syn::visit::visit_item_fn(v, f));
    }

    fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
        self.item(&f.attrs, f, |v| syn::visit::visit_impl_item_fn(v, f));
    }

    fn visit_item_impl(&mut self, i: &'ast syn::ItemImpl) {
        self.item(&i.attrs, i, |v| syn::visit::visit_item_impl(v, i));
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

    #[test]
    fn rust_test_modules_and_functions_are_regions() {
        let src = "pub const TTL: u64 = 86400;\n#[cfg(test)]\nmod tests { const T: u64 = 5; }\n#[tokio::test]\nasync fn replays() {}\n#[cfg(feature = \"x\")]\nmod real {}\n";
        let file = syn::parse_file(src).unwrap();
        let regions = rust_regions(&file);
        let texts: Vec<&str> = regions.iter().map(|s| &src[s.start..s.end]).collect();
        assert_eq!(texts.len(), 2, "{texts:?}");
        assert!(texts[0].starts_with("#[cfg(test)]"));
        assert!(texts[1].contains("async fn replays"));
    }
}
