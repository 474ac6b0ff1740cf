//! The name judgements: whether the name around a weak word (an identifier,
//! a string literal, a path) may name a store, a header or a Redis link, as
//! the model would read it. Each judgement is made once a thread, and kept
//! by the run's prefilter ([`Judgements`]).

use super::*;
use aho_corasick::AhoCorasick;
use std::ops::ControlFlow;
use std::sync::OnceLock;

/// The name around `bytes[start..end]` (letters, digits, `_`, `-`, `:`),
/// and whether it starts a literal or follows a placeholder.
pub(super) fn store_name_at(bytes: &[u8], start: usize, end: usize) -> (&[u8], bool) {
    let from = bytes[..start]
        .iter()
        .rposition(|b| !name_part(b))
        .map_or(0, |i| i + 1);
    let to = store_name_end(bytes, end);
    // A Redis key prefix is a string's text (`"processed:adyen:{id}"`,
    // `` `processed:${id}` ``), not a path (`Status::Reprocessed`) nor a
    // variable (`members_processed`): its name has a lone `:` or starts a
    // literal or follows a placeholder.
    let literal = from
        .checked_sub(1)
        .is_some_and(|i| matches!(bytes[i], b'"' | b'\'' | b'`' | b'}'));
    (&bytes[from..to], literal)
}

/// Whether a weak word's name, found as `how`, names a store ([`judged`]).
pub(super) fn judged_as(known: &Judgements, name: (&[u8], bool), how: Named) -> bool {
    judged(known, name, how, || match how {
        Named::Code(open) => names_a_store_in_code(name.0, open),
        Named::NoTable => names_a_store(name, false),
        // Neither a table nor a key prefix: no literal start.
        Named::HeaderOnly => names_a_store((name.0, false), false),
        Named::Text => names_a_store(name, true),
        Named::Link => {
            let words = &crate::knowledge::redis().link_words;
            path_segments(name.0)
                .iter()
                .any(|seg| !seg.is_empty() && words.matches(&crate::knowledge::snake(seg)))
        }
        Named::Token => std::str::from_utf8(name.0).is_ok_and(|token| {
            let stores = crate::knowledge::stores();
            let snake = crate::knowledge::snake(token);
            [token, snake.as_str()].iter().any(|n| {
                stores.is_store_table(n)
                    || stores.is_provider_event_table(n)
                    || stores.redis_prefix.matches(n)
            })
        }),
    })
}

/// The judgement of a weak word's name, made once a thread and kept in
/// `known`: the same names recur through a file (`webhook_url` in every
/// handler) and across the files of a tree (`IncomingWebhookEvent` across
/// a payment switch's connectors).
/// A judgement depends on the name and the catalogues alone. The memory is
/// bounded: past [`JUDGED_MAX`] names a thread starts again.
pub(super) fn judged(
    known: &Judgements,
    (name, literal): (&[u8], bool),
    how: Named,
    judge: impl FnOnce() -> bool,
) -> bool {
    // One slot a way of judging: `how` and whether the name starts a
    // literal.
    let slot = usize::from(literal)
        + 2 * match how {
            Named::Code(false) => 0,
            Named::Code(true) => 1,
            Named::NoTable => 2,
            Named::Text => 3,
            Named::HeaderOnly => 4,
            Named::Token => 5,
            Named::Link => 6,
        };
    let mine = known.0.get_or_default();
    if let Some(known) = mine.borrow().get(name).and_then(|s| s[slot]) {
        return known;
    }
    let store = judge();
    let mut j = mine.borrow_mut();
    if j.len() >= JUDGED_MAX && !j.contains_key(name) {
        j.clear();
    }
    j.entry(Box::from(name)).or_default()[slot] = Some(store);
    store
}

pub(super) type Judged = std::collections::HashMap<Box<[u8]>, [Option<bool>; 14]>;

/// The name judgements of one prefilter ([`judged`]), each thread's apart
/// (no lock between the read threads), let go with the prefilter: the
/// read threads live on through the parse, and the names of a polyglot
/// tree (medusa: its JavaScript) are a few MiB that its peak cannot spare.
#[derive(Default)]
pub(super) struct Judgements(thread_local::ThreadLocal<std::cell::RefCell<Judged>>);

/// How many names a thread keeps the judgement of ([`judged`]): about
/// 5 MiB at most.
pub(super) const JUDGED_MAX: usize = 50_000;

/// Where a weak word's name is, for judging it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Named {
    /// Rust code outside string literals: an identifier; whether what
    /// follows a name that ends in `::` may be a table's module
    /// ([`group_may_name_a_table`]).
    Code(bool),
    /// A Rust string literal the front end cannot read a table from
    /// ([`literal_may_name_a_table`]): it can still be a Redis key prefix
    /// or a header name.
    NoTable,
    /// A Rust string literal that can be neither a table nor part of a
    /// Redis key ([`literal_may_be_a_redis_key`]): only a header name.
    HeaderOnly,
    /// Any other text.
    Text,
    /// A name in Rust that may link a Redis instance ([`redis_link_name`]).
    Link,
    /// A whole identifier or word of a held file that holds a piece of a
    /// store word ([`may_name_a_store`]): a table, a provider's event
    /// table or a Redis key prefix, as itself or in snake case.
    Token,
}

/// Whether a Rust string literal (its range `r`) may give the front end a
/// table: only SQL text does (`rust::sql_strings`: a literal, a raw
/// string, `concat!` of literals or a `const` handed to a query call,
/// read by `sql::dml` and the schema reader), and every statement they
/// read a table from holds one of [`SQL_WORDS`] in the same literal. So a
/// literal without one (`"incoming_webhook_events"` as a map key or a
/// route, `"Processed"` as an enum's text) is never a table, nor is one
/// that is a CamelCase name and nothing else (`"AdyenIncomingWebhook"`,
/// `"airwallexWebhookData"`: letters and digits, both cases), the type a
/// body is parsed into (`parse_struct("StripeWebhookEvent")`), a serde
/// tag, an error's subject; a table in a query builder is a path. Both can
/// still be a Redis key prefix or a header name. In a file that calls
/// `concat!` (`calls_concat`, asked only when needed), where a statement
/// may be split over literals, or a literal with a `\x`/`\u` escape
/// (which can spell any letter), every literal may.
pub(super) fn literal_may_name_a_table(
    bytes: &[u8],
    lower: &[u8],
    r: &std::ops::Range<usize>,
    name: &[u8],
    calls_concat: impl FnOnce() -> bool,
) -> bool {
    let whole = bytes
        .get(r.start..r.end)
        .and_then(|s| s.strip_prefix(b"\""))
        .and_then(|s| s.strip_suffix(b"\""));
    let type_name = whole == Some(name)
        && name.iter().all(u8::is_ascii_alphanumeric)
        && name.iter().any(u8::is_ascii_uppercase)
        && name.iter().any(u8::is_ascii_lowercase);
    if type_name {
        return false;
    }
    let text = &lower[r.start..r.end];
    let holds = |w: &[u8]| memchr::memmem::find(text, w).is_some();
    SQL_WORDS.iter().any(|w| holds(w)) || holds(b"\\x") || holds(b"\\u") || calls_concat()
}

/// Whether a Rust string literal (its range `r`; one the front end reads
/// no table from) may still be read as part of a Redis key: the key
/// readers (`rust::flow`, `rust::retention`) take a key from the first
/// argument of a Redis command's method (`conn.get("…")`,
/// `cmd("SET").arg("…")`), from a `format!`/`concat!` there or bound to a
/// name, or from a binding's value; and the model reads a prefix from any
/// literal holding a `:` (`"processed:{}"`). So a literal without `:` or an
/// escape (which could spell one) that lies in no bracket of those calls
/// ([`crate::knowledge::REDIS_KEY_CALLS`]) and is no binding's value
/// (`field_name: "incoming_webhook_event_type"`, a route
/// `web::resource("outgoing_webhook_event_logs")`, a match arm's text) can
/// only be a header name. `in_key_call` says whether it lies in such a
/// call or follows `=`
/// ([`crate::lex::rust::strings_in_calls`]).
pub(super) fn literal_may_be_a_redis_key(
    bytes: &[u8],
    r: &std::ops::Range<usize>,
    in_key_call: impl FnOnce() -> bool,
) -> bool {
    memchr::memchr2(b':', b'\\', &bytes[r.clone()]).is_some() || in_key_call()
}

/// The words of a statement [`literal_may_name_a_table`] looks for,
/// lowercase: `sql::dml` reads a table after `INSERT`, `REPLACE`,
/// `UPDATE`, `DELETE FROM`, `FROM` or `JOIN`, and the schema reader only
/// in text that starts with `CREATE`, `ALTER` or `DROP`. Searched as
/// substrings, so an identifier holding one (`created_at`) keeps a literal
/// a possible table: a wider net, never a narrower one.
pub(super) const SQL_WORDS: &[&[u8]] = &[
    b"insert", b"replace", b"update", b"delete", b"from", b"join", b"create", b"alter", b"drop",
];

/// Whether a Rust file has code through which a name linked to Redis
/// (`rules/redis.toml` link words: `ReceiptStore`) can reach the Redis
/// model: a type named `…cache…` (the cache walk runs only in a file that
/// holds the word, `frontend::rust::cache`), or a line that calls
/// a link-named identifier (`store_lines::store_code_lines`, the only
/// lines through which code reads a generic Redis setting). Without
/// either, a `Receipt` enum variant beside a `RedisKv` one links nothing.
/// Text that is not UTF-8 is let through.
pub(super) fn links(bytes: &[u8]) -> bool {
    let Ok(text) = std::str::from_utf8(bytes) else {
        return true;
    };
    crate::knowledge::contains_ignore_ascii_case(text, "cache")
        || !crate::store_lines::store_code_lines(text).is_empty()
}

/// Whether the name [`store_name_at`] found is an idempotency store of
/// `rules/stores.toml` or a header name of `rules/headers.toml`:
/// `processed_webhook_events`, `ProcessedEvent`, `webhook:event:`,
/// `stripe_webhooks`, `webhook-id`; not `webhook_url` nor `WebhookConfig`.
/// A table only when `tables` (not for a [`Named::NoTable`] literal,
/// which can still be a Redis key prefix or a header name).
pub(super) fn names_a_store((name, literal): (&[u8], bool), tables: bool) -> bool {
    let Ok(name) = std::str::from_utf8(name) else {
        return false;
    };
    let name = name.trim_matches(|c| c == ':' || c == '-');
    let stores = crate::knowledge::stores();
    let prefix =
        (literal || (name.contains(':') && !name.contains("::"))) && stores.is_store_prefix(name);
    prefix
        || (tables && {
            let snake = crate::knowledge::snake(name);
            [name, snake.as_str()].iter().any(|n| {
                stores.is_store_table(n)
                    || stores.is_provider_event_table(n)
                    || stores.weak_table.matches(n)
            })
        })
        || names_a_header(name)
}

/// Whether `name` is a header name of `rules/headers.toml`, whatever its
/// separators when it holds a `-` (`PayPal_Request-Id` is a miss the
/// header rule reports) or when it is a constant naming the header
/// (`PAYPAL_REQUEST_ID`, `IDEMPOTENCY_KEY`), but not a `webhookId`
/// variable.
pub(super) fn names_a_header(name: &str) -> bool {
    let squashed = |s: &str| {
        s.bytes()
            .filter(u8::is_ascii_alphanumeric)
            .map(|b| b.to_ascii_lowercase())
            .collect::<Vec<u8>>()
    };
    let hyphened =
        (name.contains('-') || is_constant_name(name) || crate::header_names::header_cased(name))
            .then(|| squashed(name));
    let headers = crate::knowledge::headers();
    headers
        .canonical
        .iter()
        .chain(&headers.legitimate)
        .any(|h| {
            h.name.eq_ignore_ascii_case(name)
                || hyphened.as_ref().is_some_and(|n| *n == squashed(&h.name))
        })
}

/// A Rust constant's name: words in capitals joined by `_` (`PAYPAL_REQUEST_ID`).
pub(super) fn is_constant_name(name: &str) -> bool {
    name.contains('_') && !name.bytes().any(|b| b.is_ascii_lowercase())
}

/// Whether a Rust path outside any string literal (`webhook_events::table`,
/// `mark_event_processed`, `api_models::webhooks::IncomingWebhookEvent`)
/// names a store. Each segment is judged alone, so that words of different
/// segments do not make a pair (`EventReportStatus::Processed`). A segment
/// is written as a table when it is a retention name (`WEBHOOK_EVENTS_TTL`)
/// or a snake-case module the way diesel's table modules are used, the
/// only way the Rust front end reads a table from a path
/// (`rust::sql_strings::dsl_table`): followed by `table` or `dsl`
/// (`webhook_events::table`, `webhook_events::dsl::webhook_events`), or
/// left open at the name's end with `open` set (`webhook_events::{table,
/// dsl}`). A module followed by a type or a function
/// (`api_models::webhook_events::EventListItemResponse`) is not.
/// `knowledge::Stores::is_store_name_in_code` says which conventions count
/// where.
pub(super) fn names_a_store_in_code(name: &[u8], open: bool) -> bool {
    let stores = crate::knowledge::stores();
    let retention = crate::knowledge::retention_words();
    let segments = path_segments(name);
    let last = segments.len().saturating_sub(1);
    segments.iter().enumerate().any(|(i, seg)| {
        if seg.is_empty() {
            return false;
        }
        let snake_case = !seg.bytes().any(|b| b.is_ascii_uppercase());
        // `a::b::` splits into `a`, `b` and an empty last segment.
        let module = snake_case
            && match segments.get(i + 1).copied() {
                Some("table" | "dsl") => true,
                Some("") => open && i + 1 == last,
                _ => false,
            };
        let as_table = module || retention.is_retention_name(seg);
        stores.is_store_name_in_code(seg, as_table)
            || (is_constant_name(seg) && names_a_header(seg))
    })
}

/// Whether a Rust file's code or strings (outside what is `silent`: its
/// comments, and its test code unless the run judges it) may name a
/// store by a convention the model reads, the way the model reads it: a
/// table (`seen_events`, `SeenEvents`), a provider's event table
/// (`stripe_events`), a Redis key prefix or key expression
/// (`processed_key`). Some of those names hold no prefilter word, so a file
/// held back for its retries ([`Admission::Late`]) that holds one is parsed
/// in full: a held file must not be able to make a store. A convention word
/// holding a separator (`idem:`) is looked for in the whole text.
pub(super) fn may_name_a_store(
    known: &Judgements,
    bytes: &[u8],
    silent: &dyn Fn(usize) -> bool,
) -> bool {
    store_names(known, bytes, silent, &mut |_| ControlFlow::Break(()))
}

/// Where [`may_name_a_store`] finds a name that may name a store: `found`
/// is given the start of each (a convention word holding a separator
/// wherever it lies, silent or not), until it breaks. Whether it broke,
/// or the text is not UTF-8 (then nothing is looked for).
pub(super) fn store_names(
    known: &Judgements,
    bytes: &[u8],
    silent: &dyn Fn(usize) -> bool,
    found: &mut dyn FnMut(usize) -> ControlFlow<()>,
) -> bool {
    let Ok(text) = std::str::from_utf8(bytes) else {
        return true;
    };
    let stores = crate::knowledge::stores();
    let words = store_words(stores);
    let word_byte = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    // `idem:`, `webhook:event`: across identifiers.
    for w in words.iter().filter(|w| !w.bytes().all(word_byte)) {
        for at in crate::knowledge::find_ignore_ascii_case(text, w) {
            if found(at).is_break() {
                return true;
            }
        }
    }
    // A name can match only if it holds a letters-and-digits piece of a
    // word (`webhook_event`: `webhook`, `event`): each name that does, from
    // one search for every piece, once.
    static PIECES: OnceLock<Option<AhoCorasick>> = OnceLock::new();
    let Some(pieces) = PIECES.get_or_init(|| {
        let pieces = words
            .iter()
            .flat_map(|w| w.split(|c: char| !c.is_ascii_alphanumeric()))
            .filter(|p| !p.is_empty());
        AhoCorasick::builder()
            .ascii_case_insensitive(true)
            .build(pieces)
            .ok()
    }) else {
        return true;
    };
    let mut seen = 0;
    for m in pieces.find_iter(bytes) {
        if m.start() < seen {
            continue;
        }
        // Pieces are letters and digits: the match lies in one name.
        let start = bytes[..m.start()]
            .iter()
            .rposition(|b| !word_byte(*b))
            .map_or(0, |i| i + 1);
        let end = bytes[m.end()..]
            .iter()
            .position(|b| !word_byte(*b))
            .map_or(bytes.len(), |i| m.end() + i);
        seen = end;
        // Bytes of a word are ASCII: `start..end` is on char boundaries.
        let token = &text[start..end];
        if silent(start) {
            continue;
        }
        // The same identifiers recur through a file and a crate: each is
        // judged once a thread.
        if judged_as(known, (token.as_bytes(), false), Named::Token) && found(start).is_break() {
            return true;
        }
    }
    false
}

/// What a Rust string literal's range (from its opening quote, or the
/// `r#`/`b` before it, past its closing quote and `#`s) holds between its
/// quotes, escapes as written.
pub(super) fn literal_value<'t>(text: &'t str, r: &std::ops::Range<usize>) -> Option<&'t str> {
    let s = text.get(r.clone())?;
    let s = s
        .trim_start_matches(['b', 'c', 'r', '#'])
        .trim_end_matches('#');
    s.strip_prefix('"')?.strip_suffix('"')
}

/// The words of the store conventions [`may_name_a_store`] looks for: of
/// tables, Redis key prefixes and provider event tables.
pub(super) fn store_words(stores: &crate::knowledge::Stores) -> Vec<&String> {
    [
        &stores.table,
        &stores.redis_prefix,
        &stores.provider_event_table,
    ]
    .into_iter()
    .flat_map(|w| {
        w.substrings
            .iter()
            .chain(&w.parts)
            .chain(w.pairs.iter().flatten())
    })
    .collect()
}

/// A byte of a name [`store_name_at`] finds.
pub(super) fn name_part(b: &u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b':')
}

/// Where the name around a word ending at `end` ends.
pub(super) fn store_name_end(bytes: &[u8], end: usize) -> usize {
    bytes[end..]
        .iter()
        .position(|b| !name_part(b))
        .map_or(bytes.len(), |i| end + i)
}

/// Whether what follows a path's `::` may name a table's module: anything
/// but a `{ .. }` group without `table` or `dsl` in it (`use
/// api_models::webhook_events::{EventListItemResponse, ..}`), nested
/// groups included. A group that is not closed may.
pub(super) fn group_may_name_a_table(after: &[u8]) -> bool {
    let rest = after.trim_ascii_start();
    if !rest.starts_with(b"{") {
        return true;
    }
    let mut depth = 0usize;
    let Some(close) = rest.iter().position(|b| {
        match b {
            b'{' => depth += 1,
            b'}' => depth -= 1,
            _ => {}
        }
        depth == 0
    }) else {
        return true;
    };
    rest[..close]
        .split(|b| !(b.is_ascii_alphanumeric() || *b == b'_'))
        .any(|w| w == b"table" || w == b"dsl")
}

/// Whether a segment of a Rust path is named with a word the Redis model
/// links a Redis instance by (`ReceiptCache`, `receipts_redis`).
pub(super) fn redis_link_name(known: &Judgements, name: &[u8]) -> bool {
    // Asked of most weak words in Rust, and the same names recur (a
    // payment switch's `IncomingWebhookEvent`): judged once a thread.
    judged_as(known, (name, false), Named::Link)
}

/// The `::` segments of a name [`store_name_at`] found in Rust code, stray
/// `:` and `-` trimmed (`inbox_url:` of a field); none when it is not UTF-8.
pub(super) fn path_segments(name: &[u8]) -> Vec<&str> {
    std::str::from_utf8(name).map_or_else(
        |_| Vec::new(),
        |name| {
            name.split("::")
                .map(|s| s.trim_matches(|c| c == ':' || c == '-'))
                .collect()
        },
    )
}

/// Whether the front end of `kind` reads the name of a table (SQL and
/// Prisma schemas; SQL text and table modules in Rust; SQL and ORM calls in the sources of
/// other languages, `text::table_uses`), the names the catalogue words
/// ([`catalogue_words`]) stand in. Configuration kinds name a store only
/// by the words of `rules/prefilter.toml` (a header name, a Redis link
/// word, a declared store), all of them listed.
pub(super) fn reads_table_names(kind: FileKind) -> bool {
    matches!(kind, FileKind::Sql | FileKind::Prisma) || kind.is_code()
}
