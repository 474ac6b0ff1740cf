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
    /// The page's full URL, or idemlint's own choice said in words.
    pub source: String,
    #[serde(default)]
    pub quote: Option<String>,
    /// When the source was read.
    #[serde(default)]
    pub read: Option<String>,
    /// `false` for a listed name that is not a header at all (a plural
    /// resource name): its other spellings are not misses of it either.
    #[serde(default = "yes")]
    pub header: bool,
    /// For a provider's own variant one letter from a canonical name
    /// (`Idempotence-Key`): words that mark a file as talking to that
    /// provider. Elsewhere, beside the canonical spelling in the same file,
    /// the variant is a miss of it.
    #[serde(default)]
    pub markers: Vec<String>,
}

fn yes() -> bool {
    true
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
    /// Whether `text` holds, in any case, the name of a header of the
    /// catalogue (a canonical or legitimate name that is a header).
    pub fn header_named_in(&self, text: &str) -> bool {
        self.canonical
            .iter()
            .chain(&self.legitimate)
            .filter(|x| x.header)
            .any(|x| contains_ignore_ascii_case(text, &x.name))
    }

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
pub(crate) fn load<T: for<'de> Deserialize<'de> + Default>(name: &str, text: &str) -> T {
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
    /// Two words that together make a match, each starting a part of the
    /// name, in any order (`processed` + `event`: `processed_stripe_events`).
    #[serde(default)]
    pub pairs: Vec<[String; 2]>,
    /// Names that contain one of these (separators removed) never match:
    /// `session-replay` is a product, not replay protection.
    #[serde(default)]
    pub except: Vec<String>,
}

impl Words {
    /// Whether `name` contains a substring word, has a part word as one of
    /// its `_`/`-`/`:`/`.`/space-separated parts, or has parts starting with
    /// both words of a pair.
    pub fn matches(&self, name: &str) -> bool {
        let n = name.to_ascii_lowercase();
        if !self.except.is_empty() {
            let squashed: String = n.chars().filter(char::is_ascii_alphanumeric).collect();
            if self.except.iter().any(|w| squashed.contains(w.as_str())) {
                return false;
            }
        }
        let parts: Vec<&str> = n.split(['_', '-', ':', '.', ' ', '/']).collect();
        let starts = |w: &str| parts.iter().any(|p| p.starts_with(w));
        self.substrings.iter().any(|w| n.contains(w.as_str()))
            || parts.iter().any(|p| self.parts.iter().any(|w| w == p))
            || self.pairs.iter().any(|[a, b]| starts(a) && starts(b))
    }

    /// Every word it matches by: substrings, parts, and both words of each
    /// pair.
    pub fn every_word(&self) -> impl Iterator<Item = &String> {
        (self.substrings.iter().chain(&self.parts)).chain(self.pairs.iter().flatten())
    }

    /// Whether some name in `text` may match (an identifier, or its
    /// [`snake`] form): false only when no word, nor both of a pair, occurs
    /// in it in any case. A word holding a separator is not looked for and
    /// makes the answer true.
    pub fn may_match_within(&self, text: &str) -> bool {
        let has = |w: &String| {
            !w.bytes().all(|b| b.is_ascii_alphanumeric()) || contains_ignore_ascii_case(text, w)
        };
        self.substrings.iter().chain(&self.parts).any(has)
            || self.pairs.iter().any(|[a, b]| has(a) && has(b))
    }
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KeyColumns {
    pub request_key: Vec<String>,
    pub event_id: Vec<String>,
    /// Column names that make any table a store.
    #[serde(default)]
    pub marks_store: Vec<String>,
}

/// Caller scope columns: an owner word, alone or before an id suffix.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScopeColumns {
    pub parts: Vec<String>,
    pub id_suffix: Vec<String>,
    /// Words that may stand between the owner word and the suffix
    /// (`tenant_record_id`).
    #[serde(default)]
    pub infix: Vec<String>,
}

impl ScopeColumns {
    /// Whether a column named `name` (any case style) with SQL type `ty`
    /// identifies a tenant-like owner.
    pub fn matches(&self, name: &str, ty: &str) -> bool {
        self.matches_with(name, ty, &[])
    }

    /// [`ScopeColumns::matches`] with more owner words (from idemlint.toml).
    pub fn matches_with(&self, name: &str, ty: &str, extra: &[String]) -> bool {
        let ty = ty.to_ascii_uppercase();
        let not_an_id = [
            "BOOL", "TIME", "DATE", "INTERVAL", "JSON", "FLOAT", "DOUBLE", "REAL", "NUMERIC",
            "DECIMAL",
        ];
        if not_an_id.iter().any(|w| ty.contains(w)) {
            return false;
        }
        let words = name_words(name);
        let owner = |w: &String| self.parts.iter().chain(extra).any(|p| p == w);
        let suffix = |w: &String| self.id_suffix.iter().any(|s| s == w);
        let infix = |w: &String| self.infix.iter().any(|s| s == w);
        match words.as_slice() {
            [one] => owner(one),
            [.., before, mid, last] if infix(mid) => suffix(last) && owner(before),
            [.., before, last] => suffix(last) && owner(before),
            [] => false,
        }
    }
}

/// Columns holding an identifier the caller chooses for its own object or
/// Columns code looks a key up by before it creates a row
/// (`rules/stores.toml` `[lookup_key_column]`).
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LookupKeys {
    /// Whole names (snake case).
    pub names: Vec<String>,
    /// Parts of a name (snake case): `invoice_id` of `stripe_invoice_id`.
    pub substrings: Vec<String>,
}

impl LookupKeys {
    /// Whether a column named `name` (any case) holds such a key.
    pub fn matches(&self, name: &str) -> bool {
        let snake = snake(name);
        self.names.contains(&snake) || self.substrings.iter().any(|w| snake.contains(w.as_str()))
    }
}

/// request (`rules/stores.toml` `[caller_key_column]`).
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CallerKeys {
    /// Whole names (snake case).
    pub names: Vec<String>,
    /// First words of a name whose last word is one of `suffixes`
    /// (`external_customer_id`, `client_reference`).
    pub prefixes: Vec<String>,
    pub suffixes: Vec<String>,
    /// Types that hold a chosen text (`VARCHAR`, `TEXT`): a generated
    /// number or UUID is unique across callers by construction.
    pub types: Vec<String>,
    /// Name parts of a table whose rows are endpoints the service serves
    /// (`IncomingWebhook`): their bare `external_id` is an id the service
    /// issued ([`CallerKeys::issued_public_id`]).
    #[serde(default)]
    pub endpoint_tables: Vec<String>,
    /// Whole names of a table whose rows are owners the service hosts
    /// (`Project`, `workspaces`).
    #[serde(default)]
    pub owner_tables: Vec<String>,
}

impl CallerKeys {
    /// Whether a column named `name` of SQL type `ty` holds a caller's
    /// chosen identifier.
    pub fn matches(&self, name: &str, ty: &str) -> bool {
        let ty = ty.to_ascii_uppercase();
        if !self.types.iter().any(|t| ty.starts_with(t.as_str())) {
            return false;
        }
        let words = name_words(name);
        let (Some(first), Some(last)) = (words.first(), words.last()) else {
            return false;
        };
        self.names.contains(&words.join("_"))
            || (words.len() > 1 && self.prefixes.contains(first) && self.suffixes.contains(last))
    }

    /// Whether a column `name` of table `table` is the row's own public id
    /// the service issued rather than a caller's choice: the bare prefix and
    /// an id suffix (`external_id`, `externalRef`; not `external_key` nor
    /// `external_customer_id`) on a table that is an owner itself (named by
    /// `owner_tables` word alone: `Project`, `teams`) or an endpoint the service
    /// serves (`IncomingWebhook`), and no record of runs or events.
    pub fn issued_public_id(&self, name: &str, table: &str) -> bool {
        let words = name_words(name);
        let [first, last] = words.as_slice() else {
            return false;
        };
        if !self.prefixes.contains(first) || last == "key" || !self.suffixes.contains(last) {
            return false;
        }
        let stores = stores();
        if stores.is_carrier_table(table) {
            return false;
        }
        let bare = table.rsplit('.').next().unwrap_or(table).trim_matches('"');
        let t = name_words(bare);
        self.owner_tables.contains(&t.join("_"))
            || t.iter().any(|w| self.endpoint_tables.contains(w))
    }
}

/// Key columns that hold a digest (`request_sha256`, a `bytea` key).
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DigestKeys {
    pub parts: Vec<String>,
    pub types: Vec<String>,
}

impl DigestKeys {
    pub fn matches(&self, name: &str, ty: &str) -> bool {
        let ty = ty.to_ascii_uppercase();
        let base = ty.split(['(', ' ']).next().unwrap_or("");
        self.types.iter().any(|t| t == base)
            || name_words(name)
                .last()
                .is_some_and(|w| self.parts.iter().any(|p| p == w))
    }
}

/// Fields of a provider's event or notification that hold its identity
/// (`rules/stores.toml` `[event_identity]`).
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EventIdentity {
    pub fields: Vec<String>,
    /// A field only one provider's payloads have, and that provider's
    /// match word: `psp_reference` is Adyen's.
    #[serde(default)]
    pub provider_fields: Vec<[String; 2]>,
}

impl EventIdentity {
    /// The provider word of a field only one provider's payloads have.
    pub fn provider_field(&self, field: &str) -> Option<&str> {
        self.provider_fields
            .iter()
            .find(|[f, _]| f == field)
            .map(|[_, p]| p.as_str())
    }
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Stores {
    pub table: Words,
    /// The `table` substrings that are nouns (`webhook_event`): in code
    /// they name a table only where the identifier is one, or writes one
    /// ([`Stores::is_store_name_in_code`]).
    #[serde(default)]
    pub table_noun: TableNouns,
    /// `table` without the `table_noun` substrings, made on first use.
    #[serde(skip)]
    code_table: OnceLock<Words>,
    pub key_column: KeyColumns,
    pub scope_column: ScopeColumns,
    pub digest_key: DigestKeys,
    /// Columns holding an identifier the caller chooses (`external_key`).
    #[serde(default)]
    pub caller_key_column: CallerKeys,
    pub response_column: Words,
    /// Columns code looks a key up by before it creates a row
    /// (check-then-insert): an idempotency key, a provider event's or a
    /// provider object's id (`invoice_id`).
    #[serde(default)]
    pub lookup_key_column: LookupKeys,
    pub carrier_table: Words,
    /// Append-only logs that are answered from when their own unique guard
    /// is over the key (missing-request-fingerprint).
    #[serde(default)]
    pub answer_log_table: Words,
    /// Fields that hold a provider event's identity in code.
    #[serde(default)]
    pub event_identity: EventIdentity,
    /// Key columns that exist only to guard (`idempotency_key`,
    /// `dedup_key`): a unique index over one is a guard whatever the table.
    #[serde(default)]
    pub guard_column: Words,
    pub provider_event_table: Words,
    pub fingerprint_column: Words,
    pub redis_prefix: Words,
    /// Redis key prefixes of client request keys, whose key formats
    /// `unscoped-idempotency-key` judges.
    #[serde(default)]
    pub request_key_prefix: Words,
    /// Store names that hold provider event ids rather than request keys.
    #[serde(default)]
    pub event_table: Words,
    /// Names that make a store only together with a recognised key column.
    #[serde(default)]
    pub weak_table: Words,
    /// Columns that mark a claimed key whose request still runs.
    #[serde(default)]
    pub in_flight_column: Words,
    /// Columns each insert fills anew (`run_id`, a `gen_random_uuid()`
    /// default, a serial).
    #[serde(default)]
    pub per_row_column: PerRowColumns,
    /// Index names that say the index is a unique or duplicate guard.
    #[serde(default)]
    pub guard_index_name: Words,
    /// Columns that keep the caller's request id (`create_request_id`).
    #[serde(default)]
    pub request_carrier_column: Words,
    /// Error codes a database client gives a unique violation (`P2002`):
    /// code that catches one leans on a unique guard.
    #[serde(default)]
    pub unique_violation: UniqueViolation,
    /// The words a model's own method that creates its row starts with
    /// (`cls._create_from_stripe_object(..)`).
    #[serde(default)]
    pub model_create_method: ModelCreateMethod,
}

/// `[model_create_method]` of `rules/stores.toml`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelCreateMethod {
    pub first_words: Vec<String>,
}

/// `[unique_violation]` of `rules/stores.toml`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UniqueViolation {
    pub codes: Vec<String>,
}

/// `[per_row_column]` of `rules/stores.toml`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PerRowColumns {
    pub names: Vec<String>,
    pub defaults: Vec<String>,
    pub types: Vec<String>,
}

impl PerRowColumns {
    /// Whether a column named `name`, of SQL type `ty` with default
    /// `default`, is filled anew by each insert (time columns aside).
    pub fn matches(&self, name: &str, ty: &str, default: Option<&str>) -> bool {
        let ty = ty.to_ascii_uppercase();
        let base = ty.split(['(', ' ']).next().unwrap_or("");
        let default = default.unwrap_or_default().to_ascii_lowercase();
        self.names.iter().any(|n| *n == snake(name))
            || self.types.iter().any(|t| t == base)
            || self.defaults.iter().any(|d| default.contains(d.as_str()))
    }
}

/// `[table_noun]` of `rules/stores.toml`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TableNouns {
    /// The `table` substrings that are nouns.
    #[serde(default)]
    pub substrings: Vec<String>,
    /// Words of a name that writes the table (`insert_webhook_event`).
    #[serde(default)]
    pub verbs: Vec<String>,
}

impl Stores {
    /// Whether a table name (schema qualification ignored) names a store,
    /// as written or in snake case: Prisma's tables keep their model's
    /// camelCase name (`"ProcessedEvent"`, `"WebhookEvent"`).
    pub fn is_store_table(&self, name: &str) -> bool {
        let bare = name.rsplit('.').next().unwrap_or(name).trim_matches('"');
        self.table.matches(bare) || self.table.matches(&snake_of_camel(bare))
    }

    /// Whether one segment of a Rust path, outside any string literal,
    /// names a store. `as_table`: the identifier is written as a table
    /// (diesel's table module, `webhook_events::table`, or a
    /// retention-named constant): then every table convention counts. Else
    /// the nouns (`table_noun`, provider event tables such as
    /// `stripe_events`) count only in a name that writes the table
    /// (`insert_webhook_event`, a word of `table_noun.verbs`):
    /// `IncomingWebhookEvent` and `get_webhook_event_type` name a delivery,
    /// not where deliveries are kept. `weak_table` names never count, as
    /// they need a key column.
    pub fn is_store_name_in_code(&self, segment: &str, as_table: bool) -> bool {
        let words = name_words(segment);
        let snake = words.join("_");
        let names = [segment, snake.as_str()];
        let writes = || words.iter().any(|w| self.table_noun.verbs.contains(w));
        if as_table || writes() {
            return names
                .iter()
                .any(|n| self.is_store_table(n) || self.is_provider_event_table(n));
        }
        let verbs = self.code_table.get_or_init(|| Words {
            substrings: (self.table.substrings.iter())
                .filter(|w| !self.table_noun.substrings.contains(w))
                .cloned()
                .collect(),
            parts: self.table.parts.clone(),
            pairs: self.table.pairs.clone(),
            except: self.table.except.clone(),
        });
        names.iter().any(|n| verbs.matches(n))
    }

    /// Whether a table is named for a provider's deliveries
    /// (`stripe_events`): a provider word and a delivery word.
    pub fn is_provider_event_table(&self, name: &str) -> bool {
        let bare = name.rsplit('.').next().unwrap_or(name).trim_matches('"');
        let words = name_words(bare);
        words
            .iter()
            .any(|w| self.provider_event_table.parts.iter().any(|p| p == w))
            && counterparties().inbound_matches(bare, &words)
    }

    /// Whether a table's name says it records runs, events, deliveries or
    /// logs rather than keys (`task_runs`, `TaskEventPartitioned`).
    pub fn is_carrier_table(&self, name: &str) -> bool {
        let bare = name.rsplit('.').next().unwrap_or(name).trim_matches('"');
        self.carrier_table.matches(&snake(bare))
    }

    /// Whether a Redis key prefix names a store: by the store words, or
    /// named for a provider's deliveries as its event tables are
    /// (`stripe:event:`, `adyen:notification:`).
    pub fn is_store_prefix(&self, prefix: &str) -> bool {
        self.redis_prefix.matches(prefix)
            || (prefix.contains(':') && self.is_provider_event_table(&prefix.replace('.', ":")))
    }

    /// Whether a Redis key prefix names a store of client request keys
    /// (`idem:`, `idempotency:`), not a provider's deliveries
    /// (`webhookdedupe:`) nor a claim's lock (`idem:lock:`).
    pub fn is_request_key_prefix(&self, prefix: &str) -> bool {
        self.is_store_prefix(prefix)
            && self.request_key_prefix.matches(prefix)
            && !self.event_table.matches(prefix)
            && !retention_words().is_excluded(prefix)
    }

    /// Whether an identifier names a client's request key
    /// (`idempotency_key`, `idemKey`, `key`, `req.request_id`).
    pub fn is_request_key_name(&self, ident: &str) -> bool {
        let s = snake(ident);
        let names = self
            .key_column
            .request_key
            .iter()
            .chain(&self.key_column.marks_store);
        names
            .clone()
            .any(|n| *n == s || (n.contains('_') && s.ends_with(&format!("_{n}"))))
    }
}

pub const STORES_TOML: &str = include_str!("../rules/stores.toml");

pub fn stores() -> &'static Stores {
    static S: OnceLock<Stores> = OnceLock::new();
    S.get_or_init(|| load("stores.toml", STORES_TOML))
}

/// Words that make a name a retention (`rules/retention.toml`).
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RetentionWords {
    pub retention: Vec<String>,
    pub not_retention: Vec<String>,
    pub outbound: Vec<String>,
    /// Words that, right after a counterparty's match word, name its API
    /// (`stripe_api`, `StripeClient`): a store so named holds keys we send.
    #[serde(default)]
    pub outbound_after_counterparty: Vec<String>,
    /// Store words that, alone in a short duration's name, more often name
    /// a signature's timestamp tolerance (`replay`).
    #[serde(default)]
    pub ambiguous_store_words: Vec<String>,
    #[serde(default)]
    pub tolerance_scale_secs: u64,
    /// Why `tolerance_scale_secs` is what it is.
    #[serde(default)]
    pub tolerance_scale_source: String,
    /// Python calls that read the clock, as the last names of their path
    /// (`["timezone", "now"]`): the base of a delete's age cut-off.
    #[serde(default)]
    pub python_clock: Vec<Vec<String>>,
    #[serde(default)]
    pub python_clock_source: String,
}

impl RetentionWords {
    /// Whether a constant, variable or config key name speaks of how long
    /// keys are kept (and not of a lock, a tolerance or a retry schedule).
    pub fn is_retention_name(&self, name: &str) -> bool {
        // A word that starts with a retention word holds it: most names
        // hold none, and a byte scan is cheaper than splitting them.
        if !self
            .retention
            .iter()
            .any(|l| contains_ignore_ascii_case(name, l))
        {
            return false;
        }
        let words = name_words(name);
        let has = |list: &[String]| {
            words
                .iter()
                .any(|w| list.iter().any(|l| w.starts_with(l.as_str())))
        };
        has(&self.retention) && !has(&self.not_retention)
    }

    /// Whether a name speaks of something that is not a retention (a lock,
    /// a tolerance, a retry schedule), whatever else it says.
    pub fn is_excluded(&self, name: &str) -> bool {
        name_words(name)
            .iter()
            .any(|w| self.not_retention.iter().any(|l| w.starts_with(l.as_str())))
    }

    /// Whether a name is a store's only through an ambiguous word
    /// (`REPLAY_WINDOW_SECS`: `replay` is its only store word).
    pub fn store_only_by_ambiguous_word(&self, name: &str) -> bool {
        let words = name_words(name);
        let ambiguous = |w: &String| {
            self.ambiguous_store_words
                .iter()
                .any(|a| w.starts_with(a.as_str()))
        };
        words.iter().any(ambiguous) && {
            let rest: Vec<&str> = words
                .iter()
                .filter(|w| !ambiguous(w))
                .map(String::as_str)
                .collect();
            !stores().table.matches(&rest.join("_"))
        }
    }

    /// Whether a name says the store holds keys we send (outbound).
    pub fn is_outbound(&self, name: &str) -> bool {
        name_words(name)
            .iter()
            .any(|w| self.outbound.iter().any(|l| w == l))
    }
}

/// `needle` (lowercase ASCII) in `hay`, ignoring ASCII case.
pub fn contains_ignore_ascii_case(hay: &str, needle: &str) -> bool {
    needle.is_empty() || find_ignore_ascii_case(hay, needle).next().is_some()
}

/// The byte offsets where `needle` (not empty) occurs in `hay`, ASCII case
/// ignored.
pub fn find_ignore_ascii_case<'h>(
    hay: &'h str,
    needle: &'h str,
) -> impl Iterator<Item = usize> + 'h {
    let (h, n) = (hay.as_bytes(), needle.as_bytes());
    let (first, rest) = n.split_first().map_or((0, &[][..]), |(f, r)| (*f, r));
    // Candidates are the places of the first byte in either case; most
    // keys and values hold none (this runs on every entry of a config tree).
    let last_start = h.len().checked_sub(n.len()).filter(|_| !n.is_empty());
    memchr::memchr2_iter(first.to_ascii_lowercase(), first.to_ascii_uppercase(), h)
        .take_while(move |&i| last_start.is_some_and(|l| i <= l))
        .filter(move |&i| h[i + 1..i + n.len()].eq_ignore_ascii_case(rest))
}

/// The words of a name, lower-cased: split at `_ - . : /`, spaces and
/// camelCase boundaries (`dedupTtlHours` → `dedup`, `ttl`, `hours`;
/// `IDEM_TTL_SECS` → `idem`, `ttl`, `secs`).
pub fn name_words(name: &str) -> Vec<String> {
    let mut out = Vec::new();
    for chunk in name.split(|c: char| !c.is_ascii_alphanumeric()) {
        let mut word = String::new();
        let mut prev_lower = false;
        for c in chunk.chars() {
            if c.is_ascii_uppercase() && prev_lower && !word.is_empty() {
                out.push(std::mem::take(&mut word));
            }
            prev_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
            word.push(c.to_ascii_lowercase());
        }
        if !word.is_empty() {
            out.push(word);
        }
    }
    out
}

/// [`snake`] of a name with an upper-case letter after a lower-case one
/// (`ProcessedEvent` → `processed_event`); any other name lower-cased, its
/// separators kept (`processed-events`), as [`Words::matches`] splits them.
pub fn snake_of_camel(name: &str) -> String {
    let camel = name
        .as_bytes()
        .windows(2)
        .any(|w| (w[0].is_ascii_lowercase() || w[0].is_ascii_digit()) && w[1].is_ascii_uppercase());
    if camel {
        snake(name)
    } else {
        name.to_ascii_lowercase()
    }
}

/// A name in snake case (`idempotencyKey` → `idempotency_key`, `userId` →
/// `user_id`), so the column words of `rules/stores.toml` match ORM-written
/// camelCase columns (Prisma's default) as they match hand-written ones.
pub fn snake(name: &str) -> String {
    name_words(name).join("_")
}

pub const RETENTION_TOML: &str = include_str!("../rules/retention.toml");

pub fn retention_words() -> &'static RetentionWords {
    static R: OnceLock<RetentionWords> = OnceLock::new();
    R.get_or_init(|| load("retention.toml", RETENTION_TOML))
}

/// Whether a window is a replay the counterparty sends us (inbound) or how
/// long it keeps the keys we send it (outbound).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    Inbound,
    Outbound,
}

impl Direction {
    pub fn as_str(self) -> &'static str {
        match self {
            Direction::Inbound => "inbound",
            Direction::Outbound => "outbound",
        }
    }
}

/// One published window of a counterparty.
#[derive(Debug, Clone, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct Window {
    /// automatic-retries | test-retries | manual-resend | event-retention |
    /// key-retention | message-retention
    pub covers: String,
    /// What the page says, in a few words.
    pub what: String,
    /// As written in the catalogue (`3d`, `27h 36m`).
    pub duration: String,
    pub direction: Direction,
    /// The page's full URL (free text for a config entry).
    pub source: String,
    /// A few words of the page that state the window, where it has them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quote: Option<String>,
    /// When the source was read, and the page's own date where it shows one.
    pub read: String,
    /// What a reviewer needs to weigh the number: copies that disagree, a
    /// total derived from a published schedule.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// For an outbound window: the URL path prefixes it covers
    /// (`/v2/checkout/orders`); empty covers any path of the counterparty's
    /// hosts that no other window claims.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub paths: Vec<String>,
}

impl Window {
    pub fn length(&self) -> Option<crate::duration::Duration> {
        crate::duration::parse(&self.duration, None)
    }
}

#[derive(Debug, Clone, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct Counterparty {
    pub id: String,
    /// The name a message uses (`Stripe`).
    pub name: String,
    /// Words that attribute a store to it (see `rules/counterparties.toml`).
    pub r#match: Vec<String>,
    #[serde(default)]
    pub window: Vec<Window>,
    /// API hosts (or host suffixes, `adyen.com`) that requests to it go to:
    /// how an outbound request is attributed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hosts: Vec<String>,
}

impl Counterparty {
    /// The longest inbound window: how long the same event may arrive again.
    /// `None` for a counterparty with outbound windows only.
    pub fn inbound_horizon(&self) -> Option<(&Window, crate::duration::Duration)> {
        self.window
            .iter()
            .filter(|w| w.direction == Direction::Inbound)
            .filter_map(|w| w.length().map(|d| (w, d)))
            .max_by_key(|(_, d)| *d)
    }

    /// The outbound window that covers a request to `path` (`/v1/payouts`):
    /// the window whose path prefix matches, else the one with no paths.
    pub fn outbound_window(
        &self,
        path: Option<&str>,
    ) -> Option<(&Window, crate::duration::Duration)> {
        let outbound = || {
            self.window
                .iter()
                .filter(|w| w.direction == Direction::Outbound)
        };
        let by_path = path
            .and_then(|p| outbound().find(|w| w.paths.iter().any(|q| p.starts_with(q.as_str()))));
        let w = by_path.or_else(|| outbound().find(|w| w.paths.is_empty()))?;
        Some((w, w.length()?))
    }

    /// Whether a URL's host is one of its API hosts (`checkout-test.adyen.com`
    /// is under `adyen.com`).
    pub fn serves_host(&self, host: &str) -> bool {
        let host = host.to_ascii_lowercase();
        self.hosts
            .iter()
            .any(|h| host == *h || host.ends_with(&format!(".{h}")))
    }

    /// How long it keeps the keys this service sends it, the longest
    /// outbound key retention it publishes.
    pub fn outbound_key_retention(&self) -> Option<(&Window, crate::duration::Duration)> {
        self.window
            .iter()
            .filter(|w| w.direction == Direction::Outbound && w.covers == "key-retention")
            .filter_map(|w| w.length().map(|d| (w, d)))
            .max_by_key(|(_, d)| *d)
    }

    /// Whether one of its match words appears in `name`: a word of five
    /// characters or more anywhere, a shorter one as a whole name word.
    pub fn matches(&self, name: &str) -> bool {
        self.matches_split(&name.to_ascii_lowercase(), &name_words(name))
    }

    /// [`Counterparty::matches`] of a name lowered (`lower`) and split
    /// into its [`name_words`].
    fn matches_split(&self, lower: &str, words: &[String]) -> bool {
        self.r#match.iter().any(|m| {
            if m.len() >= 5 {
                contains_ignore_ascii_case(lower, m)
            } else {
                words.iter().any(|w| w.eq_ignore_ascii_case(m))
            }
        })
    }
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Counterparties {
    pub margin: String,
    pub margin_source: String,
    pub default_horizon: String,
    pub default_horizon_source: String,
    pub counterparty: Vec<Counterparty>,
    /// Signals in the code that writes a store (signature headers, event
    /// types) that name its counterparty.
    #[serde(default)]
    pub signal: Vec<Signal>,
    #[serde(default)]
    pub handler_paths: HandlerPaths,
    /// Whether each counterparty has an inbound horizon, made on first use.
    #[serde(skip)]
    inbound: OnceLock<Vec<bool>>,
}

impl Counterparties {
    /// Whether a counterparty with an inbound horizon matches `name`
    /// ([`Counterparty::matches`]), its [`name_words`] given.
    pub fn inbound_matches(&self, name: &str, words: &[String]) -> bool {
        let inbound = self.inbound.get_or_init(|| {
            self.counterparty
                .iter()
                .map(|c| c.inbound_horizon().is_some())
                .collect()
        });
        let lower = name.to_ascii_lowercase();
        self.counterparty
            .iter()
            .zip(inbound)
            .any(|(c, &inbound)| inbound && c.matches_split(&lower, words))
    }
}

/// A signal of `rules/counterparties.toml`: text in a store's writer that
/// names its counterparty.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Signal {
    pub counterparty: String,
    /// `signature` (a whole token, any case) or `event_prefix` (a string
    /// literal that starts with it).
    pub kind: String,
    pub text: String,
    /// What the writer does, for a label: "verifies `Stripe-Signature`".
    pub says: String,
    pub source: String,
    #[serde(default)]
    pub quote: Option<String>,
    pub read: String,
    #[serde(default)]
    pub note: Option<String>,
}

/// Path words that make a path naming a counterparty its handler.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HandlerPaths {
    pub words: Vec<String>,
    pub source: String,
}

pub const COUNTERPARTIES_TOML: &str = include_str!("../rules/counterparties.toml");

pub fn counterparties() -> &'static Counterparties {
    static C: OnceLock<Counterparties> = OnceLock::new();
    C.get_or_init(|| load("counterparties.toml", COUNTERPARTIES_TOML))
}

/// The calls through whose arguments a string literal can become part of a
/// Redis key, by name: the commands `flow` and `retention` read
/// (`conn.get(k)`, `set_ex`, `expire`, …, and a command chain's `arg`),
/// and the macros whose first literal gives a key's prefix (`format!`,
/// `concat!`). A binding's value (`let k = "…"`) can be one too. The
/// prefilter judges a literal elsewhere, holding no `:`, as no key
/// (`prefilter::names::literal_may_be_a_redis_key`); a test of the Rust
/// front end holds this list to the readers.
pub const REDIS_KEY_CALLS: &[&str] = &[
    "get",
    "exists",
    "set",
    "set_ex",
    "pset_ex",
    "set_nx",
    "set_options",
    "del",
    "unlink",
    "expire",
    "pexpire",
    "arg",
    "cmd",
    "format",
    "concat",
];

#[cfg(test)]
mod tests {
    use super::*;

    /// A counterparty matches a name as it did when each call lowered its
    /// words again, and `inbound_matches` is any counterparty with an
    /// inbound horizon that matches.
    #[test]
    fn counterparty_matching_is_unchanged_by_splitting_once() {
        let c = counterparties();
        let before = |p: &Counterparty, name: &str| {
            let lower = name.to_ascii_lowercase();
            let words = name_words(name);
            p.r#match.iter().any(|m| {
                let m = m.to_ascii_lowercase();
                if m.len() >= 5 {
                    lower.contains(&m)
                } else {
                    words.contains(&m)
                }
            })
        };
        let mut names: Vec<String> = ["events", "x", "StripeWebhookEvents", "stripe_events"]
            .map(String::from)
            .to_vec();
        for p in &c.counterparty {
            for m in &p.r#match {
                names.push(format!("{m}_events"));
                names.push(format!("Processed{}Events", m.to_ascii_uppercase()));
                names.push(format!("{m}x"));
            }
        }
        let mut matched = 0;
        for name in &names {
            for p in &c.counterparty {
                assert_eq!(p.matches(name), before(p, name), "{} on {name}", p.id);
            }
            let inbound = c
                .counterparty
                .iter()
                .any(|p| p.inbound_horizon().is_some() && before(p, name));
            assert_eq!(
                c.inbound_matches(name, &name_words(name)),
                inbound,
                "{name}"
            );
            matched += usize::from(inbound);
        }
        assert!(matched > 10, "{matched}");
    }

    /// `may_match_within` is never false where a name in the text matches.
    #[test]
    fn a_text_that_may_hold_a_matching_name_is_never_ruled_out() {
        let w = Words {
            substrings: vec!["dedup".into()],
            parts: vec!["idem".into()],
            pairs: vec![["processed".into(), "event".into()]],
            except: Vec::new(),
        };
        for (text, name) in [
            ("let s = WebhookDedupStore::new();", "WebhookDedupStore"),
            ("IdemStore::open(x)", "IdemStore"),
            ("t = ProcessedStripeEvents::new()", "ProcessedStripeEvents"),
        ] {
            assert!(w.matches(&snake(name)), "{name}");
            assert!(w.may_match_within(text), "{text}");
        }
        assert!(!w.may_match_within("pub const DAY: u64 = 86_400; // processed"));
        let with_separator = Words {
            substrings: vec!["idem_".into()],
            ..Words::default()
        };
        assert!(with_separator.may_match_within("nothing here"));
    }

    #[test]
    fn contains_ignores_ascii_case_only() {
        assert!(contains_ignore_ascii_case("REDIS_URL", "redis"));
        assert!(contains_ignore_ascii_case("my-Redis", "redis"));
        assert!(contains_ignore_ascii_case("x", ""));
        assert!(contains_ignore_ascii_case("rredis", "redis"));
        assert!(!contains_ignore_ascii_case("redi", "redis"));
        assert!(!contains_ignore_ascii_case("cache", "redis"));
        assert!(!contains_ignore_ascii_case("rédis", "redis"));
    }

    #[test]
    fn camel_case_columns_read_as_snake_case_words() {
        assert_eq!(snake("idempotencyKey"), "idempotency_key");
        assert_eq!(snake("userId"), "user_id");
        assert_eq!(snake("idempotency_key"), "idempotency_key");
        assert!(stores().scope_column.matches("merchantId", "TEXT"));
        assert!(stores().scope_column.matches("wallet_id", "UUID"));
        assert!(stores().scope_column.matches("ledgerId", "BIGINT"));
        let extra = vec!["household".to_string()];
        assert!(!stores().scope_column.matches("household_id", "BIGINT"));
        assert!(stores()
            .scope_column
            .matches_with("household_id", "BIGINT", &extra));
        assert!(stores().scope_column.matches("tenant_record_id", "BIGINT"));
        assert!(stores().scope_column.matches("namespace_id", "BINARY(16)"));
        assert!(!stores().scope_column.matches("target_record_id", "BIGINT"));
    }

    #[test]
    fn caller_keys_are_chosen_text_identifiers() {
        let k = &stores().caller_key_column;
        assert!(k.matches("external_key", "VARCHAR(255)"));
        assert!(k.matches("externalCustomerId", "TEXT"));
        assert!(k.matches("uid", "CHARACTER VARYING"));
        assert!(!k.matches("uid", "UUID"));
        assert!(!k.matches("external", "TEXT"));
        assert!(!k.matches("email", "TEXT"));
    }

    #[test]
    fn an_owner_or_endpoint_table_issues_its_bare_external_id() {
        let k = &stores().caller_key_column;
        assert!(k.issued_public_id("externalRef", "Project"));
        assert!(k.issued_public_id("external_id", "public.organizations"));
        assert!(!k.issued_public_id("external_id", "tenant_customers"));
        assert!(k.issued_public_id("externalId", "IncomingWebhook"));
        assert!(!k.issued_public_id("external_id", "customers"));
        assert!(!k.issued_public_id("external_key", "projects"));
        assert!(!k.issued_public_id("external_customer_id", "Project"));
        assert!(!k.issued_public_id("external_id", "webhook_events"));
    }
    use crate::duration::DAY;

    #[test]
    fn retry_defaults_load_and_every_value_reads_as_a_duration_or_a_number() {
        let r = retry();
        assert!(r.default.len() >= 15, "{}", r.default.len());
        for d in &r.default {
            let dur = crate::duration::parse(&d.value, None)
                .filter(|_| d.value.ends_with(|c: char| c.is_ascii_alphabetic()));
            assert!(
                dur.is_some() || d.value.parse::<f64>().is_ok(),
                "{} {}: {}",
                d.krate,
                d.setting,
                d.value
            );
            // Rust crates cite docs.rs; npm packages their repository's
            // readme; a hosted queue (QStash) its own documentation.
            assert!(
                d.source.starts_with("https://docs.rs/")
                    || d.source.starts_with("https://github.com/")
                    || d.source.starts_with("https://upstash.com/docs/"),
                "{}",
                d.source
            );
        }
        assert_eq!(
            r.default_of("backoff", "max_elapsed_time")
                .map(|d| d.value.as_str()),
            Some("15m")
        );
        let v2 = r
            .unpublished
            .iter()
            .find(|u| u.id == "stripe-api-v2")
            .unwrap();
        assert!(!v2.retries_repeat);
        assert_eq!(r.sdk[0].counterparty, "stripe-api-v1");
    }

    #[test]
    fn outbound_windows_are_found_by_host_and_path() {
        let c = counterparties();
        let paypal = c
            .counterparty
            .iter()
            .find(|c| c.id == "paypal-api")
            .unwrap();
        assert!(paypal.serves_host("api-m.sandbox.paypal.com"));
        let (w, d) = paypal
            .outbound_window(Some("/v2/checkout/orders/ABC/capture"))
            .unwrap();
        assert_eq!(d.secs, 6 * 3600, "{}", w.what);
        assert_eq!(
            paypal
                .outbound_window(Some("/v2/payments/authorizations/1"))
                .unwrap()
                .1
                .secs,
            45 * DAY
        );
        let adyen = c.counterparty.iter().find(|c| c.id == "adyen-api").unwrap();
        assert!(adyen.serves_host("checkout-test.adyen.com"));
        assert!(!adyen.serves_host("notadyen.com"));
        assert_eq!(adyen.outbound_window(None).unwrap().1.secs, 31 * DAY);
    }

    #[test]
    fn every_counterparty_has_a_window_and_every_window_a_source_and_duration() {
        let c = counterparties();
        assert!(c.counterparty.len() >= 22, "{}", c.counterparty.len());
        assert!(crate::duration::parse(&c.margin, None).is_some());
        assert!(crate::duration::parse(&c.default_horizon, None).is_some());
        assert!(!c.margin_source.trim().is_empty());
        assert!(!c.default_horizon_source.trim().is_empty());
        for cp in &c.counterparty {
            assert!(!cp.window.is_empty(), "{} has no window", cp.id);
            assert!(!cp.r#match.is_empty(), "{} has no match word", cp.id);
            for w in &cp.window {
                assert!(
                    !w.source.trim().is_empty(),
                    "{}: window without source",
                    cp.id
                );
                assert!(
                    !w.read.trim().is_empty(),
                    "{}: window without date read",
                    cp.id
                );
                assert!(
                    w.length().is_some(),
                    "{}: bad duration {}",
                    cp.id,
                    w.duration
                );
            }
        }
    }

    #[test]
    fn every_counterparty_of_the_reference_table_is_listed() {
        let ids: Vec<&str> = counterparties()
            .counterparty
            .iter()
            .map(|c| c.id.as_str())
            .collect();
        for id in [
            "stripe-webhooks",
            "stripe-api-v1",
            "adyen-webhooks",
            "adyen-api",
            "paypal-webhooks",
            "paypal-api",
            "square-webhooks",
            "braintree-webhooks",
            "checkout-api",
            "shopify-webhooks",
            "github-webhooks",
            "plaid-webhooks",
            "razorpay-webhooks",
            "paddle-webhooks",
            "svix-webhooks",
            "standard-webhooks",
            "aws-sqs",
            "aws-sns",
            "aws-eventbridge",
            "gcp-pubsub",
            "kafka",
        ] {
            assert!(ids.contains(&id), "{id} missing");
        }
    }

    #[test]
    fn counterparties_added_from_the_reference_are_listed_with_their_windows() {
        let c = counterparties();
        for (id, direction, duration) in [
            ("checkout-webhooks", Direction::Inbound, "90d"),
            ("recurly-webhooks", Direction::Inbound, "72h 52m"),
            ("dwolla-webhooks", Direction::Inbound, "72h"),
            ("dwolla-api", Direction::Outbound, "24h"),
            ("modern-treasury-api", Direction::Outbound, "24h"),
            ("increase-webhooks", Direction::Inbound, "30d"),
            ("klarna-api", Direction::Outbound, "24h"),
            ("xendit-webhooks", Direction::Inbound, "24h"),
            ("coinbase-commerce-webhooks", Direction::Inbound, "3d"),
            ("airwallex-webhooks", Direction::Inbound, "3d"),
            ("wise-webhooks", Direction::Inbound, "15d"),
            ("chargebee-webhooks", Direction::Inbound, "3d"),
            ("nmi-webhooks", Direction::Inbound, "3d"),
            ("twilio-webhooks", Direction::Inbound, "15s"),
            ("check-api", Direction::Outbound, "24h"),
            ("truelayer-payments-v3", Direction::Outbound, "30d"),
            ("zuora-api", Direction::Outbound, "24h"),
            ("epay-api", Direction::Outbound, "24h"),
            ("yuno-api", Direction::Outbound, "24h"),
            ("pagarme-api", Direction::Outbound, "24h"),
            ("qonto-api", Direction::Outbound, "30m"),
            ("plaid-transfer", Direction::Outbound, "7d"),
        ] {
            let cp = c
                .counterparty
                .iter()
                .find(|c| c.id == id)
                .unwrap_or_else(|| panic!("{id} missing"));
            assert!(
                cp.window
                    .iter()
                    .any(|w| w.direction == direction && w.duration == duration),
                "{id}: no {} window of {duration}",
                direction.as_str()
            );
        }
    }

    #[test]
    fn match_words_of_generic_names_do_not_claim_unrelated_stores() {
        let c = counterparties();
        for name in [
            "check_results",
            "health_check_dedup",
            "increase_retry_count",
            "otherwise_dedup",
            "nmi_handler",
            "epayment_keys",
        ] {
            let claimed: Vec<&str> = c
                .counterparty
                .iter()
                .filter(|cp| cp.matches(name))
                .map(|cp| cp.id.as_str())
                .collect();
            assert!(claimed.is_empty(), "{name} claimed by {claimed:?}");
        }
    }

    #[test]
    fn figures_no_published_page_states_are_not_listed() {
        let c = counterparties();
        let id = |id: &str| c.counterparty.iter().find(|c| c.id == id);
        // Stripe API v2's 30 d, Stripe's Dashboard 15 d and test-mode
        // retries, PayPal's "25 retries over 3 d", Adyen's 7 d.
        assert!(id("stripe-api-v2").is_none());
        let stripe = id("stripe-webhooks").unwrap();
        assert!(stripe
            .window
            .iter()
            .all(|w| w.duration != "15d" && w.covers != "test-retries"));
        let paypal = id("paypal-webhooks").unwrap();
        assert!(paypal.window.iter().all(|w| w.duration != "3d"));
        let adyen = id("adyen-api").unwrap();
        assert!(adyen.window.iter().all(|w| w.duration == "31d"));
    }

    #[test]
    fn stripe_inbound_horizon_is_the_30_day_resend_not_the_24h_key_retention() {
        let c = counterparties();
        let stripe = c
            .counterparty
            .iter()
            .find(|c| c.id == "stripe-webhooks")
            .unwrap();
        let (w, d) = stripe.inbound_horizon().unwrap();
        assert_eq!(d.secs, 30 * DAY);
        assert!(w.source.contains("process-undelivered-events"));
        let v1 = c
            .counterparty
            .iter()
            .find(|c| c.id == "stripe-api-v1")
            .unwrap();
        assert!(v1.inbound_horizon().is_none());
    }

    #[test]
    fn short_match_words_match_whole_name_words_only() {
        let c = counterparties();
        let sqs = c.counterparty.iter().find(|c| c.id == "aws-sqs").unwrap();
        assert!(sqs.matches("orders_sqs_dedup"));
        assert!(!sqs.matches("requests_dedup"));
        let stripe = c
            .counterparty
            .iter()
            .find(|c| c.id == "stripe-webhooks")
            .unwrap();
        assert!(stripe.matches("processedStripeEvents"));
    }

    #[test]
    fn retention_names_exclude_locks_and_tolerances() {
        let r = retention_words();
        assert!(r.is_retention_name("dedup_ttl_hours"));
        assert!(r.is_retention_name("IDEMPOTENCY_TTL_SECONDS"));
        assert!(r.is_retention_name("dedupTtlHours"));
        assert!(r.is_retention_name("window"));
        assert!(!r.is_retention_name("lock_ttl"));
        assert!(!r.is_retention_name("IDEMPOTENCY_IN_FLIGHT_TTL"));
        assert!(!r.is_retention_name("settlement_days"));
        assert!(!r.is_retention_name("tolerance"));
        assert!(!r.is_retention_name("SIGNATURE_REPLAY_WINDOW_SECS"));
        assert!(r.is_retention_name("replay_protection.window"));
    }
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EvictionPolicy {
    pub name: String,
    /// `none`, `allkeys` or `volatile`.
    pub class: String,
    /// What the policy evicts first, for messages.
    pub first: String,
    pub source: String,
    #[serde(default)]
    pub quote: Option<String>,
    pub read: String,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ManagedDefault {
    /// A `Provider::id()`.
    pub id: String,
    pub name: String,
    pub default_policy: String,
    pub source: String,
    #[serde(default)]
    pub quote: Option<String>,
    pub read: String,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Redis {
    pub link_words: Words,
    /// Settings that select a cache abstraction's backend.
    #[serde(default)]
    pub cache_backend: CacheBackend,
    /// Servers run from an image that keep idempotency entries in a cache
    /// whose backend their settings select.
    #[serde(default)]
    pub server_cache: Vec<ServerCache>,
    /// Libraries that keep dedup keys or locks in Redis.
    #[serde(default)]
    pub dedup_library: Vec<DedupLibrary>,
    pub policy: Vec<EvictionPolicy>,
    pub provider: Vec<ManagedDefault>,
    /// The names an application's own Redis connection setting goes by.
    #[serde(default)]
    pub app_setting: AppSetting,
}

/// The names an application's own Redis connection setting goes by
/// (`REDIS_URL`, `IDEMPOTENCY_REDIS_HOST`), lower-cased.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AppSetting {
    /// A setting whose lower-cased name holds one of these names a Redis
    /// host; each is a strong word of `rules/prefilter.toml`.
    pub host_parts: Vec<String>,
    /// The whole names of an app's one Redis setting, which a library that
    /// names no setting of its own is taken to read.
    pub names: Vec<String>,
    pub source: String,
    pub quote: String,
    pub read: String,
}

impl AppSetting {
    /// Whether a setting's name (any case) names a Redis host.
    pub fn names_a_host(&self, key: &str) -> bool {
        let key = key.to_ascii_lowercase();
        self.host_parts.iter().any(|w| key.contains(w.as_str()))
    }

    /// Whether a lower-cased setting name is an app's one Redis setting.
    pub fn is_generic(&self, name: &str) -> bool {
        self.names.iter().any(|n| n == name)
    }
}

/// A library that keeps dedup keys or locks in Redis (`activejob-uniqueness`,
/// `redlock`), read from the project's dependency manifests.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DedupLibrary {
    /// As shown in messages.
    pub name: String,
    /// `rubygems`, `npm`, `pypi` or `go`: which manifests name it.
    pub ecosystem: String,
    /// The package names that are this library, as the manifests write them.
    pub packages: Vec<String>,
    /// What it keeps, for the message (`unique-job locks`).
    pub keeps: String,
    /// `dedup` (unique-job locks, dedup ids) or `lock` (general
    /// distributed locks: a warning at most).
    pub class: String,
    /// The environment variable it reads for its Redis by default.
    #[serde(default)]
    pub setting: Option<String>,
    pub source: String,
    pub quote: String,
    pub read: String,
}

impl DedupLibrary {
    /// A general distributed lock rather than a dedup key kept over time.
    pub fn is_lock(&self) -> bool {
        self.class == "lock"
    }
}

/// A server that keeps its idempotency entries in its cache
/// (`SVIX_CACHE_TYPE=redis` with `SVIX_REDIS_DSN`).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ServerCache {
    /// As shown in labels (`Svix server`).
    pub name: String,
    /// The environment variable that selects the cache's backend.
    pub select: String,
    /// The variables that give the Redis it uses, the first set wins.
    pub dsn: Vec<String>,
    pub source: String,
    pub quote: String,
    pub read: String,
}

/// A setting that selects a cache's backend (`cache_type = "redis"`).
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CacheBackend {
    pub keys: Vec<String>,
    pub redis_values: Vec<String>,
}

impl CacheBackend {
    /// Whether a setting's name selects a cache's backend (`SVIX_CACHE_TYPE`,
    /// `cache.backend`): `None` when it does not, else whether its value
    /// selects Redis.
    pub fn selects(&self, key: &str, value: &str) -> Option<bool> {
        let words = name_words(key);
        let last = words.last()?;
        if !words.iter().any(|w| w == "cache") || !self.keys.iter().any(|k| k == last) {
            return None;
        }
        let v = value.trim().to_ascii_lowercase();
        Some(self.redis_values.contains(&v))
    }
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

/// A retry or job-queue crate's setting when the code leaves it unset.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RetryDefault {
    #[serde(rename = "crate")]
    pub krate: String,
    pub setting: String,
    pub value: String,
    pub source: String,
    pub quote: String,
    pub read: String,
}

/// A provider SDK's idempotency option (async-stripe's
/// `RequestStrategy::Idempotent(key)`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SdkKey {
    pub id: String,
    pub path: Vec<String>,
    pub counterparty: String,
    pub header: String,
    /// A strategy that retries with one key the SDK makes: its argument is
    /// the number of attempts, its delays the `[[default]]`s of this crate.
    #[serde(default)]
    pub retry: Option<String>,
    pub source: String,
    pub quote: String,
    pub read: String,
}

/// An outbound API that publishes no key retention the catalogue can cite.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UnpublishedApi {
    pub id: String,
    pub name: String,
    pub hosts: Vec<String>,
    pub paths: Vec<String>,
    /// `false` where the provider states a retry never repeats a successful
    /// operation.
    pub retries_repeat: bool,
    pub source: String,
    pub quote: String,
    pub read: String,
    #[serde(default)]
    pub note: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RetryKnowledge {
    pub default: Vec<RetryDefault>,
    pub sdk: Vec<SdkKey>,
    pub unpublished: Vec<UnpublishedApi>,
    #[serde(default)]
    pub request_builders: RequestBuilders,
    #[serde(default)]
    pub redelivered: Redelivered,
    #[serde(default)]
    pub rekey: Rekey,
}

/// Response statuses after which a new key is the right answer (the server
/// rejected the old key: reused with another payload), and the retry hooks
/// that run once per retry of a client that resends the same request.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rekey {
    pub statuses: Vec<u64>,
    /// (callee, option): `axiosRetry(client, { onRetry })`.
    pub hooks: Vec<[String; 2]>,
    pub source: Vec<String>,
}

/// Entry points that a sender runs again when a run fails (a QStash
/// delivery, a Stripe webhook, a cron route): a key made fresh in one is
/// new on the rerun (fresh-key-per-retry's redelivered form).
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Redelivered {
    /// Path parts of route files a scheduler calls (`/api/cron/`).
    pub paths: Vec<String>,
    /// Calls that verify a redelivered request's signature, by the last
    /// name of the callee, and who redelivers it.
    pub calls: Vec<RedeliveryCall>,
    /// Option names of provider calls that carry a dedup key other than
    /// `idempotencyKey` (Stripe meter events' `identifier`), with the
    /// method path that ends the call.
    pub key_fields: Vec<KeyField>,
    pub source: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RedeliveryCall {
    pub name: String,
    pub who: String,
    pub source: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KeyField {
    pub field: String,
    pub call: Vec<String>,
    pub what: String,
    pub source: String,
}

/// Functions that build a request from the operation's data each time it
/// is sent (fresh-key-per-retry's builder form).
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RequestBuilders {
    /// Method names of request-builder traits (`build_headers`).
    pub methods: Vec<String>,
    /// Conversion traits whose `from`/`try_from` build a request.
    pub conversions: Vec<String>,
    pub source: Vec<String>,
}

impl RetryKnowledge {
    /// A crate's default for a setting, as written (`15m`, `3`, `2`).
    pub fn default_of(&self, krate: &str, setting: &str) -> Option<&RetryDefault> {
        self.default
            .iter()
            .find(|d| d.krate == krate && d.setting == setting)
    }
}

pub const RETRY_TOML: &str = include_str!("../rules/retry.toml");

pub fn retry() -> &'static RetryKnowledge {
    static R: OnceLock<RetryKnowledge> = OnceLock::new();
    R.get_or_init(|| load("retry.toml", RETRY_TOML))
}

/// A call pattern of `rules/effects.toml` (or `[[effect]]` in idemlint.toml):
/// every field given must match.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CallPattern {
    #[serde(default)]
    pub id: String,
    /// payment | http | message | inner-handler | (a project's own word)
    #[serde(default)]
    pub kind: Option<String>,
    /// The called path ends with these segments.
    #[serde(default)]
    pub path: Vec<String>,
    #[serde(default)]
    pub method: Option<String>,
    /// The receiver's last name is one of these.
    #[serde(default)]
    pub receiver: Vec<String>,
    /// A method or path segment earlier in the chain is one of these.
    #[serde(default)]
    pub chain_any: Vec<String>,
    /// A path segment inside the arguments is one of these.
    #[serde(default)]
    pub arg_any: Vec<String>,
    /// The language whose calls it matches (`rust`, `typescript`): a
    /// library's call shape in one says nothing of a call in another
    /// (axios's `post` is a request; reqwest's `post` only builds one).
    /// Unset: any.
    #[serde(default)]
    pub language: Option<String>,
    #[serde(default)]
    pub reason: Option<String>,
    #[serde(default)]
    pub source: Option<String>,
}

/// What a call looks like to a [`CallPattern`].
#[derive(Debug, Clone, Copy)]
pub struct CallShape<'a> {
    pub path: &'a [Name],
    pub method: Option<&'a str>,
    pub receiver_last: Option<&'a str>,
    pub chain: &'a [Name],
    pub args: &'a [Name],
    /// A call of TypeScript or JavaScript (else of Rust).
    pub script: bool,
}

/// A name read from code (a path segment, a method, a binding). Most are
/// short enough to be held inline, without an allocation of their own: a
/// large crate has about three of them in each of tens of thousands of calls.
pub type Name = compact_str::CompactString;

impl<'a> CallShape<'a> {
    /// A plain call of `path` (`Uuid::new_v4()`, `backoff::retry(..)`).
    pub fn path(path: &'a [Name]) -> Self {
        CallShape {
            path,
            method: None,
            receiver_last: None,
            chain: &[],
            args: &[],
            script: false,
        }
    }

    /// The same call, made in TypeScript or JavaScript.
    pub fn in_script(self) -> Self {
        CallShape {
            script: true,
            ..self
        }
    }

    /// A method call of `name` on a receiver nothing is known of.
    pub fn method(name: &'a str) -> Self {
        CallShape {
            path: &[],
            method: Some(name),
            receiver_last: None,
            chain: &[],
            args: &[],
            script: false,
        }
    }

    /// Whether any pattern of `list` matches.
    pub fn any_of(self, list: &[CallPattern]) -> bool {
        list.iter().any(|p| p.matches(self))
    }
}

impl CallPattern {
    pub fn matches(&self, c: CallShape<'_>) -> bool {
        let any = |want: &[String], have: &[Name]| {
            want.is_empty() || want.iter().any(|w| have.iter().any(|h| h == w))
        };
        let ends_with = |have: &[Name], want: &[String]| {
            have.len() >= want.len()
                && have[have.len() - want.len()..]
                    .iter()
                    .zip(want)
                    .all(|(h, w)| h == w)
        };
        let language = match self.language.as_deref() {
            None => true,
            Some("typescript") => c.script,
            Some(_) => !c.script,
        };
        language
            && (!self.path.is_empty() || self.method.is_some())
            && (self.path.is_empty() || ends_with(c.path, &self.path))
            && self.method.as_deref().is_none_or(|m| c.method == Some(m))
            && (self.receiver.is_empty()
                || c.receiver_last
                    .is_some_and(|r| self.receiver.iter().any(|w| w == r)))
            && any(&self.chain_any, c.chain)
            && any(&self.arg_any, c.args)
    }
}

/// `rules/effects.toml`: effects, fresh-key makers and retry wrappers.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Effects {
    pub effect: Vec<CallPattern>,
    pub fresh_key: Vec<CallPattern>,
    pub retry: Vec<CallPattern>,
    #[serde(default)]
    pub possible_effect: PossibleEffect,
}

/// `[possible_effect]` of `rules/effects.toml`: which awaited calls the flow
/// model cannot resolve are never taken for a possible effect.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PossibleEffect {
    /// Method names that read, wait, convert or keep state, never effects.
    #[serde(default)]
    pub not_methods: Vec<String>,
    /// Method name prefixes of the same (`get_`, `fetch_`, `claim`).
    #[serde(default)]
    pub not_prefixes: Vec<String>,
    /// Words of a receiver's name or type that make it a store connection,
    /// lock or channel (`redis`, `pool`, `tx`).
    #[serde(default)]
    pub not_receivers: Vec<String>,
    /// Words of a Rust file that may define an effect the project calls
    /// through its own client (an HTTP client, a provider SDK, a message
    /// publisher): such a file is worth parsing when the run holds a store.
    #[serde(default)]
    pub admit_words: Vec<String>,
    #[serde(default)]
    pub source: Option<String>,
}

impl PossibleEffect {
    /// Whether an unresolved awaited call of `method` on a receiver whose
    /// name and type are `recv` may be an effect.
    pub fn may_be_effect(&self, method: &str, recv: &[&str]) -> bool {
        let m = method.to_ascii_lowercase();
        !self.not_methods.contains(&m)
            && !self.not_prefixes.iter().any(|p| m.starts_with(p.as_str()))
            && !recv.iter().any(|r| {
                let r = r.to_ascii_lowercase();
                self.not_receivers.iter().any(|w| {
                    r.split(|c: char| !c.is_ascii_alphanumeric())
                        .any(|part| part == w)
                        || (w.len() >= 5 && r.contains(w.as_str()))
                })
            })
    }
}

pub const EFFECTS_TOML: &str = include_str!("../rules/effects.toml");

pub fn effects() -> &'static Effects {
    static E: OnceLock<Effects> = OnceLock::new();
    E.get_or_init(|| load("effects.toml", EFFECTS_TOML))
}

/// The file names of package manifests (`rules/packages.toml`): the
/// directory of one is a package (`source::Packages`).
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PackageManifests {
    pub manifests: Vec<String>,
}

pub const PACKAGES_TOML: &str = include_str!("../rules/packages.toml");

pub fn package_manifests() -> &'static PackageManifests {
    static P: OnceLock<PackageManifests> = OnceLock::new();
    P.get_or_init(|| load("packages.toml", PACKAGES_TOML))
}

impl PackageManifests {
    /// Whether a file name (the last part of a path) is a manifest's.
    pub fn is_manifest(&self, name: &str) -> bool {
        self.manifests.iter().any(|m| m == name)
    }
}
