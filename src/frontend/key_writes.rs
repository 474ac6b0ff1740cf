//! Key writes to Redis or a cache, lowered the same way whatever the
//! language: each front end reads its client calls into [`KeyWrite`]s
//! (syntax), and [`lower`] turns them into the facts every rule reads — the
//! write itself, the prefix derived from a key source, and the retention of a
//! write that keeps a store (by its prefix's name, its key's source, or a
//! claim whose answer skips a duplicate).

use crate::facts::keys::KeySource;
use crate::facts::redis::RedisKeyWrite;
use crate::facts::retention::{
    fold_duration, refs_of, ConstExpr, PendingRetention, StoreRef, REQUEST_KEY_CONTEXT,
};
use crate::facts::FileFacts;
use crate::knowledge;
use crate::source::Span;

/// One write of a key, as a front end reads it.
#[derive(Debug)]
pub struct KeyWrite {
    pub at: Span,
    /// The key's literal prefix (`stripe:event:`).
    pub prefix: Option<String>,
    /// The expiry: expression, span, and milliseconds per bare number
    /// (`None` where a bare number is not a duration a front end reads, as
    /// Go's nanoseconds).
    pub ttl: Option<(ConstExpr, Span, Option<u64>)>,
    pub nx: bool,
    /// Where the key comes from (the `Idempotency-Key` header, `event.id`).
    pub source: Option<KeySource>,
    /// The enclosing function's name.
    pub fn_name: Option<String>,
    /// What keeps the key, for messages: `Redis expiry`, `cache timeout`, a
    /// queue option that keeps a job.
    pub via: &'static str,
    /// A set-if-absent whose answer decides: a dedup claim, its key a store
    /// whatever its prefix.
    pub claim: bool,
}

/// The writes with their expiries folded by the file's constants, and the
/// retentions of those that keep a store. `claim_how` says, for messages,
/// how the language's clients claim a key (`` `SET NX` ``, "a
/// set-if-absent").
pub fn lower(writes: Vec<KeyWrite>, claim_how: &str, facts: &mut FileFacts) {
    let code = facts.code.get_or_insert_with(Default::default);
    let defs = code.retention.defs.clone();
    let stores = knowledge::stores();
    let words = knowledge::retention_words();
    for w in writes {
        let folded = w.ttl.as_ref().and_then(|(e, s, unit)| {
            let lookup = |n: &str| defs.iter().find(|d| d.name == n).map(|d| &d.expr);
            fold_duration(e, *unit, &lookup).map(|d| (d, *s))
        });
        facts.redis_writes.push(RedisKeyWrite {
            span: w.at,
            key_prefix: w.prefix.clone(),
            ttl: folded,
            nx: w.nx,
        });
        let by_name = w
            .prefix
            .as_deref()
            .is_some_and(|p| stores.is_store_prefix(p));
        if let (Some(p), Some(src), false) = (&w.prefix, &w.source, by_name) {
            if !facts.derived_prefixes.iter().any(|(d, _)| d == p) {
                facts.derived_prefixes.push((p.clone(), src.what.clone()));
            }
        }
        let via = via(&w, by_name, claim_how);
        let Some((expr, ttl_span, unit)) = w.ttl else {
            continue;
        };
        let refs = refs_of(&expr);
        // `lock:{id}` for 30 s, `IN_FLIGHT_TTL`: a claim's lifetime, not a
        // store's.
        let is_lock = w.prefix.iter().chain(&refs).any(|c| words.is_excluded(c));
        if !(by_name || w.source.is_some() || w.claim) || is_lock || expr == ConstExpr::Unknown {
            continue;
        }
        // A store known only by its claim names its counterparty by the
        // file's path and the constants of its expiry: its key and its
        // function may name a provider it only reports on
        // (`posthog:stripe-checkout-created:`, `trackStripeCheckoutCreated`,
        // called when the app creates a checkout, not from a webhook). Its
        // prefix stays in `via`.
        let claim_only = w.claim && !by_name && w.source.is_none();
        let mut context: Vec<String> = w.prefix.iter().filter(|_| !claim_only).cloned().collect();
        if let Some(src) = &w.source {
            context.extend(src.context.iter().cloned());
            if !src.event {
                context.push(REQUEST_KEY_CONTEXT.to_string());
            }
        }
        context.extend(refs.iter().cloned());
        context.extend(w.fn_name.iter().filter(|_| !claim_only).cloned());
        let direct_ref = match &expr {
            ConstExpr::Ref(n) => Some(n.clone()),
            _ => None,
        };
        code.retention.pending.push(PendingRetention {
            span: ttl_span,
            expr,
            unit_ms: unit,
            target: StoreRef::RedisPrefix(if claim_only {
                String::new()
            } else {
                w.prefix.unwrap_or_default()
            }),
            via,
            context,
            site: Some(w.at),
            direct_ref,
            standalone: false,
            labels: Vec::new(),
        });
    }
}

/// What keeps the key, in a message's words.
fn via(w: &KeyWrite, by_name: bool, claim_how: &str) -> String {
    let what = w.via;
    match (&w.prefix, &w.source) {
        (Some(p), Some(src)) => format!("{what} on `{p}` keys, built from {}", src.what),
        (Some(p), None) if w.claim && !by_name => {
            format!("{what} on `{p}` keys, claimed with {claim_how} whose answer skips a duplicate")
        }
        (Some(p), None) => format!("{what} on `{p}` keys"),
        (None, Some(src)) => format!("{what} on keys built from {}", src.what),
        (None, None) => what.to_string(),
    }
}

/// A write as the front ends' tests compare it: prefix, TTL in seconds, NX.
#[cfg(test)]
pub type Seen = (String, Option<u64>, bool);

/// A file's writes as [`Seen`], and its pending retentions' `via`.
#[cfg(test)]
pub fn seen(f: &FileFacts) -> (Vec<Seen>, Vec<String>) {
    let w = f
        .redis_writes
        .iter()
        .map(|w| {
            (
                w.key_prefix.clone().unwrap_or_default(),
                w.ttl.map(|(d, _)| d.secs),
                w.nx,
            )
        })
        .collect();
    let p = f
        .code
        .as_ref()
        .map(|c| c.retention.pending.iter().map(|p| p.via.clone()).collect())
        .unwrap_or_default();
    (w, p)
}
