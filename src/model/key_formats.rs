//! Redis key formats of request-key stores (`idem:{tenant}:{key}`), judged
//! for a caller scope: which placeholder holds the client's key, whether one
//! names the caller, and whether a caller is at hand where the key is built.
//! Not for Redis instances (`redis.rs`) nor table guards (`schema.rs`).

use crate::config::Config;
use crate::facts::keys::KeyFormat;
use crate::facts::keys::OwnerlessKey;
use crate::facts::FileFacts;
use crate::knowledge;
use crate::source::FileId;

/// A key format that holds the client's key with no caller beside it.
#[derive(Debug, Clone)]
pub struct UnscopedFormat {
    pub file: FileId,
    pub format: KeyFormat,
    /// A caller-scope identifier of the code that builds the key
    /// (`merchant_id`): the API knows its caller and leaves it out.
    pub at_hand: Option<String>,
}

/// A key format built where an owner's binding is at hand and unused
/// (`fn lock_key(merchant_id, payment_id)` building `lock_{}` from the
/// payment id alone).
#[derive(Debug, Clone)]
pub struct OwnerlessFormat {
    pub file: FileId,
    pub key: OwnerlessKey,
}

#[derive(Debug, Default)]
pub struct KeyFormatModel {
    pub unscoped: Vec<UnscopedFormat>,
    pub ownerless: Vec<OwnerlessFormat>,
}

impl KeyFormatModel {
    pub fn build(files: &[FileFacts], config: &Config) -> Self {
        let all = files.iter().map(|f| f.file).collect();
        Self::build_with(files, config, &all)
    }

    /// [`KeyFormatModel::build`]; `judged`: the files of the packages
    /// whose held-back files the run reads (`Joins::judged_files`): an
    /// ownerless key in a file the prefilter holds back counts only there
    /// (a run that reads every file whole reads the others too, and must
    /// not find more).
    pub fn build_with(
        files: &[FileFacts],
        config: &Config,
        judged: &std::collections::HashSet<crate::source::FileId>,
    ) -> Self {
        let extra: Vec<String> = config
            .scope_words
            .iter()
            .map(|w| w.to_ascii_lowercase())
            .collect();
        let stores = knowledge::stores();
        let is_scope = |id: &String| stores.scope_column.matches_with(id, "", &extra);
        let mut unscoped = Vec::new();
        let mut ownerless = Vec::new();
        for f in files.iter().filter(|f| !f.test_path) {
            for k in f.code.iter().flat_map(|r| &r.ownerless) {
                let in_test = f
                    .test_regions
                    .iter()
                    .any(|r| r.start <= k.span.start && k.span.end <= r.end);
                if !in_test && (!k.late || judged.contains(&f.file)) {
                    ownerless.push(OwnerlessFormat {
                        file: f.file,
                        key: k.clone(),
                    });
                }
            }
            for k in &f.key_formats {
                let in_test = f
                    .test_regions
                    .iter()
                    .any(|r| r.start <= k.span.start && k.span.end <= r.end);
                if in_test || k.holes.is_empty() {
                    continue;
                }
                // A placeholder that names the caller (`{tenant}`,
                // `req.merchant_id`, a `let` built from `org_id`) scopes it;
                // a digest (`{hash}`) usually covers the caller already.
                let scoped = k.holes.iter().flatten().any(is_scope);
                let digest = k
                    .holes
                    .iter()
                    .flatten()
                    .any(|id| stores.digest_key.matches(id, ""));
                // A provider's prefix (`idem:stripe:`) holds its event ids or
                // the keys we send it: unique across callers, or ours alone.
                let provider = knowledge::counterparties()
                    .counterparty
                    .iter()
                    .any(|c| c.matches(&k.prefix));
                if scoped || digest || provider {
                    continue;
                }
                // Every placeholder must be the client's key by its name
                // (`{idempotency_key}`, `req.idem_key`): one of another
                // meaning (`{}` of `route`, `${endpoint.id}`, `payout.id`)
                // may be the caller, or an id of our own, under another name.
                let is_key = |h: &Vec<String>| h.iter().any(|id| stores.is_request_key_name(id));
                if !k.holes.iter().all(is_key) {
                    continue;
                }
                // Around the key only an owner's identifier counts
                // (`merchant_id`, `tenantId`): a bare `app`, `store` or
                // `env` is a handler's state, a Redis store, `env::var`.
                let at_hand = k
                    .around
                    .iter()
                    .find(|id| knowledge::name_words(id).len() > 1 && is_scope(id))
                    .cloned();
                unscoped.push(UnscopedFormat {
                    file: f.file,
                    format: k.clone(),
                    at_hand,
                });
            }
        }
        KeyFormatModel {
            unscoped,
            ownerless,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::FileKind;

    fn unscoped(kind: FileKind, text: &str) -> Vec<UnscopedFormat> {
        let facts = vec![crate::frontend::parse(0, kind, text)];
        KeyFormatModel::build(&facts, &Config::default()).unscoped
    }

    #[test]
    fn a_key_without_its_caller_is_a_warning_where_the_caller_is_at_hand() {
        let u = unscoped(
            FileKind::Rust,
            "async fn claim(merchant_id: &str, idempotency_key: &str) {\n    let k = format!(\"idem:{}\", idempotency_key);\n}\n",
        );
        assert_eq!(u.len(), 1);
        assert_eq!(u[0].at_hand.as_deref(), Some("merchant_id"));
        let u = unscoped(
            FileKind::Rust,
            "async fn claim(key: &str) {\n    let k = format!(\"idem:{key}\");\n}\n",
        );
        assert_eq!(u.len(), 1);
        assert_eq!(u[0].at_hand, None);
    }

    #[test]
    fn a_caller_segment_a_digest_a_provider_or_an_unknown_segment_is_not_judged() {
        for text in [
            "fn k(tenant: &str, key: &str) -> String { format!(\"idem:{tenant}:{key}\") }\n",
            "fn k(t: &T, key: &str) -> String { format!(\"idem:{}:{}\", t.merchant_id, key) }\n",
            "fn k(request_hash: &str) -> String { format!(\"idem:{}\", request_hash) }\n",
            "fn k(event_id: &str) -> String { format!(\"idem:stripe:{event_id}\") }\n",
            "fn k(route: &str, key: &str) -> String { format!(\"idem:{route}:{key}\") }\n",
            "fn k(key: &str) -> String { format!(\"idem:lock:{key}\") }\n",
            "fn k(key: &str) -> String { format!(\"webhook_dedup:{key}\") }\n",
        ] {
            assert!(unscoped(FileKind::Rust, text).is_empty(), "{text}");
        }
    }

    #[test]
    fn extra_scope_words_come_from_the_config() {
        let facts = vec![crate::frontend::parse(
            0,
            FileKind::Text,
            "function claim(householdId, key) {\n  const k = `idem:${key}`;\n}\n",
        )];
        let cfg = Config {
            scope_words: vec!["household".into()],
            ..Config::default()
        };
        let with = KeyFormatModel::build(&facts, &cfg).unscoped;
        assert_eq!(with[0].at_hand.as_deref(), Some("householdId"));
        let without = KeyFormatModel::build(&facts, &Config::default()).unscoped;
        assert_eq!(without[0].at_hand, None);
    }
}
