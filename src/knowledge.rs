//! Knowledge as data: the catalogues under `rules/` (header names, and with
//! later issues stores, counterparties, effects), compiled in and parsed once.
//! Logic that uses them lives with the rules and front ends.

use serde::Deserialize;
use std::sync::OnceLock;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HeaderName {
    pub name: String,
    pub who: String,
    #[serde(default)]
    pub direction: Option<String>,
    pub source: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StripeMarkers {
    pub markers: Vec<String>,
    pub source: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Headers {
    pub canonical: Vec<HeaderName>,
    pub legitimate: Vec<HeaderName>,
    pub stripe: StripeMarkers,
}

impl Headers {
    /// Whether `text` shows signs of talking to Stripe's API.
    pub fn talks_to_stripe(&self, text: &str) -> bool {
        self.stripe
            .markers
            .iter()
            .any(|m| text.contains(m.as_str()))
    }
}

pub const HEADERS_TOML: &str = include_str!("../rules/headers.toml");

/// A catalogue that fails to parse is a build defect caught by the
/// meta-tests; at run time it degrades to an empty catalogue with a message.
fn load<T: for<'de> Deserialize<'de> + Default>(name: &str, text: &str) -> T {
    match toml::from_str(text) {
        Ok(v) => v,
        Err(e) => {
            eprintln!("idemlint: internal: rules/{name}: {e}");
            T::default()
        }
    }
}

impl Default for Headers {
    fn default() -> Self {
        Headers {
            canonical: Vec::new(),
            legitimate: Vec::new(),
            stripe: StripeMarkers {
                markers: Vec::new(),
                source: String::new(),
            },
        }
    }
}

pub fn headers() -> &'static Headers {
    static H: OnceLock<Headers> = OnceLock::new();
    H.get_or_init(|| load("headers.toml", HEADERS_TOML))
}

/// A list of words matched against lower-cased names.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Words {
    #[serde(default)]
    pub substrings: Vec<String>,
    #[serde(default)]
    pub parts: Vec<String>,
}

impl Words {
    /// Whether `name` contains a substring word or has a part word as one of
    /// its `_`/`-`/`:`/`.`/space-separated parts.
    pub fn matches(&self, name: &str) -> bool {
        let n = name.to_ascii_lowercase();
        self.substrings.iter().any(|w| n.contains(w.as_str()))
            || n.split(['_', '-', ':', '.', ' ', '/'])
                .any(|p| self.parts.iter().any(|w| w == p))
    }
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KeyColumns {
    pub request_key: Vec<String>,
    pub event_id: Vec<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Stores {
    pub table: Words,
    pub key_column: KeyColumns,
    pub scope_column: Words,
    pub fingerprint_column: Words,
    pub redis_prefix: Words,
}

impl Stores {
    /// Whether a table name (schema qualification ignored) names a store.
    pub fn is_store_table(&self, name: &str) -> bool {
        let bare = name.rsplit('.').next().unwrap_or(name).trim_matches('"');
        self.table.matches(bare)
    }

    /// Whether a Redis key prefix names a store.
    pub fn is_store_prefix(&self, prefix: &str) -> bool {
        self.redis_prefix.matches(prefix)
    }
}

pub const STORES_TOML: &str = include_str!("../rules/stores.toml");

pub fn stores() -> &'static Stores {
    static S: OnceLock<Stores> = OnceLock::new();
    S.get_or_init(|| load("stores.toml", STORES_TOML))
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EvictionPolicy {
    pub name: String,
    /// `none`, `allkeys` or `volatile`.
    pub class: String,
    /// What the policy evicts first, for messages.
    pub first: String,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ManagedDefault {
    /// A `Provider::id()`.
    pub id: String,
    pub name: String,
    pub default_policy: String,
    pub source: String,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Redis {
    pub link_words: Words,
    pub policy: Vec<EvictionPolicy>,
    pub provider: Vec<ManagedDefault>,
}

impl Redis {
    /// The catalogue entry of a policy as written (`AllKeysLRU`, `allkeys_lru`
    /// and `allkeys-lru` are one policy: Azure spells them without hyphens).
    pub fn policy(&self, written: &str) -> Option<&EvictionPolicy> {
        let squash = |s: &str| -> String {
            s.chars()
                .filter(|c| c.is_ascii_alphanumeric())
                .map(|c| c.to_ascii_lowercase())
                .collect()
        };
        let w = squash(written);
        self.policy.iter().find(|p| squash(&p.name) == w)
    }

    pub fn provider(&self, id: &str) -> Option<&ManagedDefault> {
        self.provider.iter().find(|p| p.id == id)
    }
}

pub const REDIS_TOML: &str = include_str!("../rules/redis.toml");

pub fn redis() -> &'static Redis {
    static R: OnceLock<Redis> = OnceLock::new();
    R.get_or_init(|| load("redis.toml", REDIS_TOML))
}
