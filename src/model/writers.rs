//! The code that writes or reads a store, and what it says of the store's
//! counterparty: a path named for a provider's handler
//! (`api/webhooks/adyen.py`), the provider's signature header or field
//! (`Stripe-Signature`, Adyen's `hmacSignature`), or its event types
//! (`payment_intent.succeeded`). Used by `model::retention` when the store's
//! own names say nothing; not for which code is a store (`schema`).

use crate::facts::retention::StoreRef;
use crate::facts::FileFacts;
use crate::horizons::Catalogue;
use crate::knowledge::{self, name_words, Counterparty};
use crate::source::{FileId, SourceMap, Span};

/// A file that writes or reads a store, and the counterparty it names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Writer {
    pub file: FileId,
    /// The file's path as reported, for the label.
    pub path: String,
    /// The statement or Redis write that touches the store.
    pub span: Span,
    pub writes: bool,
    /// The counterparty's id, and what the file does that names it
    /// ("verifies `Stripe-Signature`", "is named for Adyen").
    pub counterparty: String,
    pub why: String,
}

impl Writer {
    /// The label at the writer: "written by `api/webhooks/adyen.py`, which
    /// verifies Adyen's HMAC signature".
    pub fn label(&self) -> String {
        format!(
            "{} by `{}`, which {}",
            if self.writes { "written" } else { "read" },
            self.path,
            self.why
        )
    }
}

/// The writer that names the counterparty of a store, when some writer
/// names one: of several counterparties, the one with the longest inbound
/// horizon, as for names (a store that serves both must outlive both).
/// Test code and SQL files (migrations) are not writers here.
pub fn counterparty_writer(
    target: &StoreRef,
    files: &[FileFacts],
    sources: &SourceMap,
    catalogue: &Catalogue,
) -> Option<Writer> {
    let mut best: Option<(crate::duration::Duration, Writer)> = None;
    let accessors = crate::facts::store::table_aliases(files);
    for f in files {
        let Some(src) = sources.files.get(f.file) else {
            continue;
        };
        if !src.kind.is_code() || f.test_path {
            continue;
        }
        let Some((span, writes)) = touches(target, f, &accessors) else {
            continue;
        };
        if f.test_regions
            .iter()
            .any(|r| r.start <= span.start && span.end <= r.end)
        {
            continue;
        }
        let Some((cp, why)) = named(f, &src.path, src.text(), catalogue) else {
            continue;
        };
        let Some((_, horizon)) = cp.inbound_horizon() else {
            continue;
        };
        if best.as_ref().is_none_or(|(h, _)| horizon > *h) {
            best = Some((
                horizon,
                Writer {
                    file: f.file,
                    path: src.path.clone(),
                    span,
                    writes,
                    counterparty: cp.id.clone(),
                    why,
                },
            ));
        }
    }
    best.map(|(_, w)| w)
}

/// Where a file writes or reads the store: SQL naming the table (a Prisma
/// client's accessor names its model's table), or a Redis write of the key
/// prefix, else a Redis command of the flow on it (a webhook route that
/// only reads the keys another service writes, in another language
/// perhaps, names the counterparty as well as the writer). Writes first.
fn touches(
    target: &StoreRef,
    f: &FileFacts,
    accessors: &std::collections::HashMap<String, String>,
) -> Option<(Span, bool)> {
    let bare_of = |t: &str| {
        t.rsplit('.')
            .next()
            .unwrap_or(t)
            .trim_matches(|c| c == '"' || c == '`')
            .to_ascii_lowercase()
    };
    match target {
        StoreRef::Table(t) => {
            let bare = bare_of(t);
            let names = |u: &&crate::facts::store::TableUse| {
                u.table == bare || accessors.get(&u.table).is_some_and(|m| bare_of(m) == bare)
            };
            let uses = || f.table_uses.iter().filter(names);
            uses()
                .find(|u| u.writes)
                .or_else(|| uses().next())
                .map(|u| (u.span, u.writes))
        }
        StoreRef::RedisPrefix(p) if !p.is_empty() => f
            .redis_writes
            .iter()
            .find(|w| w.key_prefix.as_deref() == Some(p.as_str()))
            .map(|w| (w.span, true))
            .or_else(|| redis_command(f, p).map(|s| (s, false))),
        _ => None,
    }
}

/// The first Redis command of the file's functions on keys of `prefix`.
fn redis_command(f: &FileFacts, prefix: &str) -> Option<Span> {
    let flow = &f.code.as_ref()?.flow;
    flow.functions
        .iter()
        .flat_map(|func| &func.events)
        .find(|s| match &s.kind {
            crate::facts::flow::StepKind::Redis { key, .. } => {
                key.prefix.as_deref() == Some(prefix)
            }
            _ => false,
        })
        .map(|s| s.span)
}

/// The counterparty a file names, with what names it: a signature it
/// verifies or an event type it handles (most telling), else its path.
fn named<'c>(
    f: &FileFacts,
    path: &str,
    text: &str,
    catalogue: &'c Catalogue,
) -> Option<(&'c Counterparty, String)> {
    let all = knowledge::counterparties();
    let find = |id: &str| catalogue.counterparties.iter().find(|c| c.id == id);
    for s in &all.signal {
        let hit = match s.kind.as_str() {
            "signature" => has_token(text, &s.text),
            "event_prefix" => f.strings.iter().any(|l| event_literal(&l.value, &s.text)),
            _ => false,
        };
        if hit {
            if let Some(cp) = find(&s.counterparty) {
                return Some((cp, s.says.clone()));
            }
        }
    }
    let handler = &all.handler_paths.words;
    let parts: Vec<String> = name_words(path);
    let stem = path
        .rsplit('/')
        .next()
        .and_then(|f| f.split('.').next())
        .unwrap_or("")
        .to_ascii_lowercase();
    let by_handler = parts.iter().any(|p| handler.contains(p));
    catalogue
        .counterparties
        .iter()
        .filter(|c| c.inbound_horizon().is_some())
        .filter(|c| {
            let dirs_and_file = path.to_ascii_lowercase();
            (by_handler && c.matches(&dirs_and_file)) || c.r#match.contains(&stem)
        })
        .max_by_key(|c| c.inbound_horizon().map(|(_, h)| h))
        .map(|c| (c, format!("is named for {}", c.name)))
}

/// Whether `token` occurs in `text` (any case) with no letter, digit, `-`
/// or `_` on either side.
fn has_token(text: &str, token: &str) -> bool {
    let hay = text.as_bytes();
    let needle = token.as_bytes();
    if needle.is_empty() || hay.len() < needle.len() {
        return false;
    }
    let word = |b: u8| b.is_ascii_alphanumeric() || b == b'-' || b == b'_';
    let first = needle[0].to_ascii_lowercase();
    (0..=hay.len() - needle.len()).any(|i| {
        hay[i].to_ascii_lowercase() == first
            && hay[i..i + needle.len()].eq_ignore_ascii_case(needle)
            && (i == 0 || !word(hay[i - 1]))
            && hay.get(i + needle.len()).is_none_or(|b| !word(*b))
    })
}

/// A string literal naming an event type of the prefix:
/// `payment_intent.succeeded`, not `payment_intent.` alone nor prose.
fn event_literal(value: &str, prefix: &str) -> bool {
    value.strip_prefix(prefix).is_some_and(|rest| {
        !rest.is_empty()
            && rest
                .chars()
                .all(|c| c.is_ascii_lowercase() || c == '_' || c == '.')
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::redis::testing::facts;

    fn writer(files: &[(&str, &str)], table: &str) -> Option<Writer> {
        let (f, s) = facts(files);
        counterparty_writer(
            &StoreRef::Table(table.into()),
            &f,
            &s,
            &Catalogue::builtin(),
        )
    }

    #[test]
    fn a_writer_that_verifies_a_signature_names_its_counterparty() {
        let py = "def handle(req):\n    item = req.json['notificationItems'][0]\n    sig = item['additionalData']['hmacSignature']\n    cur.execute(\"INSERT INTO processed_deliveries (psp_reference) VALUES (%s)\", (ref,))\n";
        let w = writer(&[("app/notify.py", py)], "processed_deliveries").unwrap();
        assert_eq!(w.counterparty, "adyen-webhooks");
        assert_eq!(w.why, "verifies Adyen's HMAC signature");
        let ts = "if (event.type === 'payment_intent.succeeded') {\n  await db.query('INSERT INTO webhook_events (id) VALUES ($1)', [event.id]);\n}\n";
        let w = writer(&[("src/app.ts", ts)], "webhook_events").unwrap();
        assert_eq!(w.counterparty, "stripe-webhooks");
    }

    #[test]
    fn a_handler_path_names_its_counterparty_and_a_plain_path_does_not() {
        let go = "db.Exec(`INSERT INTO webhook_events (id) VALUES ($1)`, id)\n";
        let w = writer(
            &[("internal/webhooks/paypal/handler.go", go)],
            "webhook_events",
        )
        .unwrap();
        assert_eq!(w.counterparty, "paypal-webhooks");
        assert_eq!(w.why, "is named for PayPal");
        assert!(writer(&[("internal/store/events.go", go)], "webhook_events").is_none());
        assert!(writer(&[("internal/stripe/sync.go", go)], "webhook_events").is_none());
        // Test code is no writer.
        let (mut f, s) = facts(&[("tests/webhooks/stripe_test.go", go)]);
        f[0].test_path = true;
        let t = StoreRef::Table("webhook_events".into());
        assert!(counterparty_writer(&t, &f, &s, &Catalogue::builtin()).is_none());
    }

    #[test]
    fn tokens_and_event_literals_are_whole() {
        assert!(has_token("headers['stripe-signature']", "Stripe-Signature"));
        assert!(!has_token("x-stripe-signature-v2", "Stripe-Signature"));
        assert!(event_literal("payment_intent.succeeded", "payment_intent."));
        assert!(!event_literal("payment_intent.", "payment_intent."));
        assert!(!event_literal(
            "payment_intent.Succeeded later",
            "payment_intent."
        ));
    }
}
