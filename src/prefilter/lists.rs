//! The word lists of the prefilter: `rules/prefilter.toml`, and the words
//! taken from the catalogues (stores, headers, counterparties, effects,
//! Redis libraries).

use serde::Deserialize;

/// The package names of `rules/redis.toml` `[[dedup_library]]`, lowered,
/// each also as PyPI may write it (`python_redis_lock`, `celery.once`).
pub(super) fn dedup_package_words() -> &'static [Vec<u8>] {
    static W: std::sync::OnceLock<Vec<Vec<u8>>> = std::sync::OnceLock::new();
    W.get_or_init(|| {
        let mut out: Vec<Vec<u8>> = Vec::new();
        for p in crate::knowledge::redis()
            .dedup_library
            .iter()
            .flat_map(|l| &l.packages)
        {
            let p = p.to_ascii_lowercase();
            for v in [
                p.clone(),
                p.replace(['_', '.'], "-"),
                p.replace(['-', '.'], "_"),
                p.replace(['-', '_'], "."),
            ] {
                if !out.iter().any(|o| o.as_slice() == v.as_bytes()) {
                    out.push(v.into_bytes());
                }
            }
        }
        out
    })
}

/// Whether a lowered manifest (or any JSON or TOML file, which
/// `package.json` and `pyproject.toml` are) names a library that keeps
/// dedup keys or locks in Redis: the manifest reader's only words.
pub(super) fn names_dedup_library(lower: &[u8]) -> bool {
    dedup_package_words()
        .iter()
        .any(|w| memchr::memmem::find(lower, w).is_some())
}

#[derive(Deserialize)]
pub(super) struct Prefilter {
    pub(super) words: Vec<String>,
    #[serde(default)]
    pub(super) weak: Vec<WeakGroup>,
    #[serde(default)]
    pub(super) rust_constants: Option<ConstTier>,
    #[serde(default)]
    pub(super) rust_generated: Option<Generated>,
    #[serde(default)]
    pub(super) go_generated: Option<Generated>,
    #[serde(default)]
    pub(super) rust_std_methods: StdMethods,
    #[serde(default)]
    pub(super) rust_prose_macros: ProseMacros,
}

/// Macros whose string arguments are messages for people (`info!`,
/// `panic!`): a strong word as a word of such prose admits no Rust file.
#[derive(Deserialize, Default)]
pub(super) struct ProseMacros {
    #[serde(default)]
    pub(super) names: Vec<String>,
}

/// Methods of Rust's standard library whose names hold a strong word
/// (`Vec::dedup`), by how std's own call and definition read.
#[derive(Deserialize, Default, Clone)]
pub(super) struct StdMethods {
    /// Called with no arguments: `v.dedup()`, `fn dedup(&mut self)`.
    #[serde(default)]
    pub(super) no_arguments: Vec<String>,
    /// Called with a closure: `v.dedup_by_key(|e| e.id)`, `fn
    /// dedup_by_key<F, K>(&mut self, key: F) where F: FnMut(&mut T) -> K`.
    #[serde(default)]
    pub(super) closure_argument: Vec<String>,
}

/// Code that a generator wrote, by the line it begins with.
#[derive(Deserialize)]
pub(super) struct Generated {
    pub(super) heads: Vec<String>,
    /// What the marker line ends with (Go's `DO NOT EDIT.`); none: the head
    /// alone marks it.
    #[serde(default)]
    pub(super) tails: Vec<String>,
    /// Words that keep a generated file read (sqlc's `-- name:`).
    #[serde(default)]
    pub(super) keep: Vec<String>,
}

/// Words that admit a file only in some kinds, or only as part of a store
/// or header name, or together with another word (`rules/prefilter.toml`).
#[derive(Deserialize)]
pub(super) struct WeakGroup {
    pub(super) words: Vec<String>,
    /// Kinds (by [`crate::source::FileKind::name`]) parsed in full on one of the words alone.
    #[serde(default)]
    pub(super) parse: Vec<String>,
    /// Elsewhere, admitted when the name around the word is a store or a
    /// header name.
    #[serde(default)]
    pub(super) names: bool,
    /// Elsewhere, admitted when the file also holds one of these.
    #[serde(default)]
    pub(super) with: Vec<String>,
    /// A file of a `parse` kind that holds these words and no other is
    /// parsed only when the rest of the project can use it
    /// ([`super::Admission::Late`]).
    #[serde(default)]
    pub(super) late: bool,
    /// The only kinds in which the group's words count at all (any kind
    /// when empty).
    #[serde(default)]
    pub(super) only: Vec<String>,
}

#[derive(Deserialize)]
pub(super) struct ConstTier {
    pub(super) words: Vec<String>,
}

pub(super) fn builtin() -> Prefilter {
    toml::from_str::<Prefilter>(include_str!("../../rules/prefilter.toml")).unwrap_or(Prefilter {
        words: Vec::new(),
        weak: Vec::new(),
        rust_constants: None,
        rust_generated: None,
        go_generated: None,
        rust_std_methods: StdMethods::default(),
        rust_prose_macros: ProseMacros::default(),
    })
}

/// The words by which the model recognises a store, a provider's event
/// table or a header that no word of `named` (the strong words and the
/// weak words judged by their names) holds, so that a file that can hold
/// something the model recognises is always read: the match words of the
/// counterparties with inbound deliveries (`stripe_events`,
/// `adyen_notifications`: `rules/stores.toml` `[provider_event_table]`,
/// `rules/counterparties.toml`), the words of the store table and Redis
/// key conventions of `rules/stores.toml` (the first word of each pair:
/// `seen_events`, `handled_webhooks`), the header names of
/// `rules/headers.toml` and the Redis link words of `rules/redis.toml`.
/// They are judged as the names around them, as the weak words of a
/// `names` group are. Lowered, without duplicates.
pub(super) fn catalogue_words(named: &[String]) -> Vec<String> {
    let stores = crate::knowledge::stores();
    let headers = crate::knowledge::headers();
    let counterparties = crate::knowledge::counterparties();
    let link = &crate::knowledge::redis().link_words;
    let conventions = [
        &stores.table,
        &stores.redis_prefix,
        &stores.weak_table,
        link,
    ];
    let words = conventions
        .into_iter()
        .flat_map(|w| {
            w.substrings
                .iter()
                .chain(&w.parts)
                .chain(w.pairs.iter().map(|[a, _]| a))
        })
        .chain(
            counterparties
                .counterparty
                .iter()
                .filter(|c| c.inbound_horizon().is_some())
                .flat_map(|c| &c.r#match),
        )
        .chain(
            headers
                .canonical
                .iter()
                .chain(&headers.legitimate)
                .map(|h| &h.name),
        );
    let named: Vec<String> = named.iter().map(|w| w.to_ascii_lowercase()).collect();
    let mut out: Vec<String> = Vec::new();
    // A header name spelt with `_` for its `-` (`Webhook_Id`,
    // `PayPal_Request_Id`) is a miss the header rule reports: its words are
    // looked for too, and judged by the name around them.
    for w in words.chain(crate::header_names::underscored_names()) {
        let w = w.to_ascii_lowercase();
        if w.len() >= 3 && !named.iter().any(|n| w.contains(n.as_str())) && !out.contains(&w) {
            out.push(w);
        }
    }
    // A word that holds another (`transferwise`, `wise`) is found where the
    // other is: the name around either is the same.
    kept_words(&out).into_iter().cloned().collect()
}

/// The words of `rules/effects.toml` that mark a Rust file as one that may
/// define an effect the project calls through its own client, less those
/// another group already holds and those the catalogue words hold (a
/// provider's name: `stripe_events` must stay the catalogue's to judge).
pub(super) fn effect_words(weak: &[String], derived: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for w in &crate::knowledge::effects().possible_effect.admit_words {
        let w = w.to_ascii_lowercase();
        let catalogued = derived
            .iter()
            .any(|d| d.contains(w.as_str()) || w.contains(d.as_str()));
        if w.len() >= 3 && !catalogued && !weak.contains(&w) && !out.contains(&w) {
            out.push(w);
        }
    }
    out
}

/// The words of `words` that hold no other (`_SECONDS` holds `SECOND`):
/// whether any word occurs is whether any of these does.
pub(super) fn kept_words(words: &[String]) -> Vec<&String> {
    let mut by_length: Vec<&String> = words.iter().collect();
    by_length.sort_by_key(|w| w.len());
    let mut kept: Vec<&String> = Vec::new();
    for w in by_length {
        if !kept.iter().any(|k| w.contains(k.as_str())) {
            kept.push(w);
        }
    }
    kept
}
