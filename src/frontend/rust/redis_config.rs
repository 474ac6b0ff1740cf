//! `CONFIG SET maxmemory-policy X` issued from Rust code: the string literals
//! of the file in source order (method-chain arguments such as
//! `redis::cmd("CONFIG").arg("SET").arg("maxmemory-policy").arg("allkeys-lru")`,
//! arrays, a whole command in one literal), read as one stream of words.
//! Not for key writes (that is the Redis key extractor's job).

use crate::facts::redis::{InstanceDecl, InstanceKind, PolicySetting, Surface};
use crate::facts::FileFacts;
use crate::source::Span;
use syn::visit::{self, Visit};

/// Whether a string literal of `text` can hold the word
/// `maxmemory-policy`: the word itself in any case, an escape that can
/// write one of its letters (`\x6d`, `\u{6d}`), or a backslash that ends a
/// line inside a literal and so joins its parts (`"maxmemory-\` and
/// `policy"` on the next line). Other escapes write none of its letters.
pub fn may_set_policy(text: &str) -> bool {
    crate::knowledge::contains_ignore_ascii_case(text, "maxmemory-policy")
        || text.contains("\\x")
        || text.contains("\\u")
        || text.contains("\\\n")
        || text.contains("\\\r\n")
}

impl Literals {
    /// What the literals read set: `CONFIG SET maxmemory-policy <value>`
    /// across the file's literals, in order.
    pub(super) fn apply(self, facts: &mut FileFacts) {
        // Words of every literal, with their spans in the file.
        let mut words: Vec<(String, Span)> = Vec::new();
        for (value, span, exact) in &self.lits {
            for (off, w) in split(value) {
                let s = if *exact {
                    Span::new(span.start + off, span.start + off + w.len())
                } else {
                    *span
                };
                words.push((w.to_string(), s));
            }
        }
        let mut found = Vec::new();
        for win in words.windows(4) {
            if win[0].0.eq_ignore_ascii_case("config")
                && win[1].0.eq_ignore_ascii_case("set")
                && win[2].0.eq_ignore_ascii_case("maxmemory-policy")
            {
                found.push((win[3].0.clone(), win[3].1));
            }
        }
        if found.is_empty() {
            return;
        }
        let redis = &mut facts.redis;
        let idx = redis.instances.len();
        redis
            .instances
            .push(InstanceDecl::new(InstanceKind::Code, "", found[0].1));
        for (value, span) in found {
            redis.settings.push(PolicySetting {
                value,
                span,
                surface: Surface::Code,
                instance: Some(idx),
            });
        }
    }
}

fn split(s: &str) -> impl Iterator<Item = (usize, &str)> {
    s.split(' ')
        .scan(0usize, |pos, w| {
            let at = *pos;
            *pos += w.len() + 1;
            Some((at, w))
        })
        .filter(|(_, w)| !w.is_empty())
}

#[derive(Default)]
pub(super) struct Literals {
    /// Value, span inside the quotes, and whether offsets in the value are
    /// offsets in the file (no escapes, not raw).
    lits: Vec<(String, Span, bool)>,
}

impl Literals {
    fn push(&mut self, lit: &syn::LitStr) {
        let value = lit.value();
        let full = super::byte_span(lit.span());
        let exact = full.len() == value.len() + 2;
        let span = if exact {
            Span::new(full.start + 1, full.end - 1)
        } else {
            full
        };
        self.lits.push((value, span, exact));
    }
}

/// `#[cfg(test)]` and `#[test]`: a test may set an evicting policy on
/// purpose (to check that the handler fails closed).
pub(super) fn is_test(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path().segments.last().is_some_and(|s| s.ident == "test")
            || (a.path().is_ident("cfg") && a.parse_args::<syn::Ident>().is_ok_and(|i| i == "test"))
    })
}

impl<'ast> Visit<'ast> for Literals {
    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        if !is_test(&m.attrs) {
            visit::visit_item_mod(self, m);
        }
    }

    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        if !is_test(&f.attrs) {
            visit::visit_item_fn(self, f);
        }
    }

    /// fred's `client.config_set("maxmemory-policy", "volatile-lru")` is
    /// the command `CONFIG SET` with its arguments: the words the method
    /// stands for go into the stream before them.
    fn visit_expr_method_call(&mut self, call: &'ast syn::ExprMethodCall) {
        if call.method == "config_set" && call.args.len() == 2 {
            let at = super::byte_span(call.method.span());
            self.lits.push(("CONFIG SET".to_string(), at, false));
        }
        visit::visit_expr_method_call(self, call);
    }

    fn visit_lit_str(&mut self, lit: &'ast syn::LitStr) {
        self.push(lit);
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        let mut stack: Vec<proc_macro2::TokenTree> = mac.tokens.clone().into_iter().collect();
        stack.reverse();
        while let Some(tt) = stack.pop() {
            match tt {
                proc_macro2::TokenTree::Group(g) => {
                    let mut inner: Vec<_> = g.stream().into_iter().collect();
                    inner.reverse();
                    stack.extend(inner);
                }
                proc_macro2::TokenTree::Literal(l) => {
                    if let Ok(syn::Lit::Str(s)) =
                        syn::parse2::<syn::Lit>(proc_macro2::TokenTree::Literal(l).into())
                    {
                        self.push(&s);
                    }
                }
                _ => {}
            }
        }
        visit::visit_macro(self, mac);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(text: &str) -> Vec<(String, String)> {
        let mut f = FileFacts::default();
        super::super::parse(text, &mut f);
        f.redis
            .settings
            .iter()
            .map(|s| (s.value.clone(), text[s.span.start..s.span.end].to_string()))
            .collect()
    }

    #[test]
    fn config_set_chain_in_redis_cmd() {
        let text = r#"fn f(c: &mut redis::Connection) { let _: () = redis::cmd("CONFIG").arg("SET").arg("maxmemory-policy").arg("allkeys-lru").query(c).unwrap(); }"#;
        assert_eq!(
            found(text),
            vec![("allkeys-lru".to_string(), "allkeys-lru".to_string())]
        );
    }

    #[test]
    fn config_set_in_one_literal_and_in_an_array() {
        let text = r#"
const SETUP: &str = "CONFIG SET maxmemory-policy volatile-lru";
fn g() { run(&["config", "set", "maxmemory-policy", "noeviction"]); }
"#;
        assert_eq!(
            found(text),
            vec![
                ("volatile-lru".to_string(), "volatile-lru".to_string()),
                ("noeviction".to_string(), "noeviction".to_string())
            ]
        );
    }

    #[test]
    fn tests_that_set_an_evicting_policy_on_purpose_are_skipped() {
        let text = r#"
#[cfg(test)]
mod tests {
    #[test]
    fn fails_closed_when_keys_are_evicted() { redis::cmd("CONFIG").arg("SET").arg("maxmemory-policy").arg("allkeys-lru"); }
}
#[tokio::test]
async fn t() { redis::cmd("CONFIG").arg("SET").arg("maxmemory-policy").arg("allkeys-lru"); }
"#;
        assert!(found(text).is_empty());
    }

    #[test]
    fn fred_config_set_is_a_setting() {
        let text = r#"async fn f(pool: &RedisPool) { pool.config_set::<(), _, _>("maxmemory-policy", "volatile-lru").await.ok(); }"#;
        assert_eq!(
            found(text),
            vec![("volatile-lru".to_string(), "volatile-lru".to_string())]
        );
    }

    #[test]
    fn config_get_is_not_a_setting() {
        let text = r#"fn f() { redis::cmd("CONFIG").arg("GET").arg("maxmemory-policy"); }"#;
        assert!(found(text).is_empty());
    }
}
