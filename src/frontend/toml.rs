//! TOML front end on toml_edit, which keeps byte spans and bounds its own
//! recursion. Produces the same flattened tree as YAML.

use super::conf::{column_titles, header_role};
use crate::facts::config::{ConfDoc, ConfEntry, ConfValue, PathSeg, ScalarStyle};
use crate::facts::headers::{StrLit, StrRole};
use crate::facts::{FileFacts, Problem};
use crate::source::Span;
use toml_edit::{Item, Value};

/// TOML files larger than this are not parsed: toml_edit keeps formatting
/// and spans for every value, about 200 times the source for dense arrays
/// (measured), and configuration files are far smaller.
pub const MAX_TOML_BYTES: usize = 2 * 1024 * 1024;

pub fn parse(text: &str, facts: &mut FileFacts) {
    if text.len() > MAX_TOML_BYTES {
        facts.problems.push(Problem::new(
            Span::new(0, 0),
            format!(
                "{:.1} MiB of TOML, over the {} MiB that are parsed; not parsed",
                text.len() as f64 / 1048576.0,
                MAX_TOML_BYTES / 1048576
            ),
        ));
        return;
    }
    match toml_edit::Document::parse(text) {
        Ok(doc) => {
            let mut out = ConfDoc::default();
            let mut path = Vec::new();
            walk_table(
                doc.as_table().iter(),
                doc.as_table(),
                &mut path,
                &mut out,
                facts,
                text,
            );
            facts.conf = Some(out);
        }
        Err(e) => {
            let span = e
                .span()
                .map(|r| Span::new(r.start, r.end))
                .unwrap_or_default();
            let msg = e.message().trim().to_string();
            facts.problems.push(if msg.contains("recursion") {
                Problem::new(span, "nested too deep for the TOML parser; not read")
            } else {
                // Nothing of the file is read: the fault hides a finding
                // only when the file holds what the prefilter lets through.
                Problem {
                    reported: crate::prefilter::admits_text(
                        crate::source::FileKind::Toml,
                        text.as_bytes(),
                    ),
                    ..Problem::invalid(span, "TOML", msg)
                }
            });
        }
    }
}

fn to_span(r: Option<std::ops::Range<usize>>) -> Span {
    r.map(|r| Span::new(r.start, r.end)).unwrap_or_default()
}

fn walk_table<'a>(
    items: impl Iterator<Item = (&'a str, &'a Item)>,
    table: &'a toml_edit::Table,
    path: &mut Vec<PathSeg>,
    out: &mut ConfDoc,
    facts: &mut FileFacts,
    text: &str,
) {
    for (k, item) in items {
        let key_span = table
            .key(k)
            .and_then(|key| key.span())
            .map(|r| Span::new(r.start, r.end));
        if let Some(ks) = key_span.filter(|_| !column_titles(path)) {
            facts.strings.push(StrLit {
                value: k.to_string(),
                span: unquote(text, ks),
                role: header_role(path).unwrap_or(StrRole::ConfKey),
            });
        }
        path.push(PathSeg::Key(k.into()));
        walk_item(item, key_span, path, out, facts, text);
        path.pop();
    }
}

fn walk_item(
    item: &Item,
    key_span: Option<Span>,
    path: &mut Vec<PathSeg>,
    out: &mut ConfDoc,
    facts: &mut FileFacts,
    text: &str,
) {
    match item {
        Item::None => {}
        Item::Value(v) => walk_value(v, key_span, path, out, facts, text),
        Item::Table(t) => {
            push(out, path, key_span, ConfValue::Map, to_span(t.span()));
            walk_table(t.iter(), t, path, out, facts, text);
        }
        Item::ArrayOfTables(a) => {
            push(out, path, key_span, ConfValue::Seq, to_span(a.span()));
            for (i, t) in a.iter().enumerate() {
                path.push(PathSeg::Index(i));
                push(out, path, None, ConfValue::Map, to_span(t.span()));
                walk_table(t.iter(), t, path, out, facts, text);
                path.pop();
            }
        }
    }
}

fn walk_value(
    v: &Value,
    key_span: Option<Span>,
    path: &mut Vec<PathSeg>,
    out: &mut ConfDoc,
    facts: &mut FileFacts,
    text: &str,
) {
    let span = to_span(v.span());
    match v {
        Value::Array(a) => {
            push(out, path, key_span, ConfValue::Seq, span);
            for (i, x) in a.iter().enumerate() {
                path.push(PathSeg::Index(i));
                walk_value(x, None, path, out, facts, text);
                path.pop();
            }
        }
        Value::InlineTable(t) => {
            push(out, path, key_span, ConfValue::Map, span);
            for (k, x) in t.iter() {
                let ks = t
                    .key(k)
                    .and_then(|key| key.span())
                    .map(|r| Span::new(r.start, r.end));
                if let Some(ks) = ks.filter(|_| !column_titles(path)) {
                    facts.strings.push(StrLit {
                        value: k.to_string(),
                        span: unquote(text, ks),
                        role: header_role(path).unwrap_or(StrRole::ConfKey),
                    });
                }
                path.push(PathSeg::Key(k.into()));
                walk_value(x, ks, path, out, facts, text);
                path.pop();
            }
        }
        Value::String(s) => {
            let style = match text.as_bytes().get(span.start) {
                Some(b'\'') => ScalarStyle::SingleQuoted,
                _ => ScalarStyle::DoubleQuoted,
            };
            let value = s.value().to_string();
            if !column_titles(path) {
                facts.strings.push(StrLit {
                    value: value.clone(),
                    span: unquote(text, span),
                    role: header_role(path).unwrap_or(StrRole::Mention),
                });
            }
            push(
                out,
                path,
                key_span,
                ConfValue::Scalar { text: value, style },
                span,
            );
        }
        other => {
            let raw = text
                .get(span.start..span.end)
                .unwrap_or_default()
                .trim()
                .to_string();
            let raw = if raw.is_empty() {
                other.to_string().trim().to_string()
            } else {
                raw
            };
            push(
                out,
                path,
                key_span,
                ConfValue::Scalar {
                    text: raw,
                    style: ScalarStyle::Plain,
                },
                span,
            );
        }
    }
}

fn push(out: &mut ConfDoc, path: &[PathSeg], key_span: Option<Span>, value: ConfValue, span: Span) {
    out.entries.push(ConfEntry {
        doc: 0,
        path: path.to_vec(),
        key_span,
        value,
        value_span: span,
        tag: None,
    });
}

/// Inside the quotes of a quoted key or string (`"a"`, `'a'`, `"""a"""`).
fn unquote(text: &str, span: Span) -> Span {
    let s = text.get(span.start..span.end).unwrap_or_default();
    for q in ["\"\"\"", "'''", "\"", "'"] {
        if s.len() >= 2 * q.len() && s.starts_with(q) && s.ends_with(q) {
            return Span::new(span.start + q.len(), span.end - q.len());
        }
    }
    span
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nested_tables_give_paths_and_value_spans() {
        let text = "[stripe.webhooks]\ndedup_ttl_hours = 24\nheader = \"Idempotency-Key\"\n";
        let mut facts = FileFacts::default();
        parse(text, &mut facts);
        let doc = facts.conf.unwrap();
        let e = doc
            .entries
            .iter()
            .find(|e| e.dotted() == "stripe.webhooks.dedup_ttl_hours")
            .unwrap();
        assert_eq!(e.scalar(), Some("24"));
        assert_eq!(&text[e.value_span.start..e.value_span.end], "24");
        let s = facts
            .strings
            .iter()
            .find(|s| s.value == "Idempotency-Key")
            .unwrap();
        assert_eq!(&text[s.span.start..s.span.end], "Idempotency-Key");
    }

    #[test]
    fn keys_and_values_of_header_tables_are_header_names() {
        let text = "[bank.headers]\nIdempotency_Key = \"x\"\n[bank]\nidempotency_header = \"Idempotency-Key\"\nkey_field = \"idempotency_key\"\n";
        let mut facts = FileFacts::default();
        parse(text, &mut facts);
        let role = |v: &str| facts.strings.iter().find(|s| s.value == v).map(|s| s.role);
        assert_eq!(role("Idempotency_Key"), Some(StrRole::HeaderName));
        assert_eq!(role("Idempotency-Key"), Some(StrRole::HeaderName));
        assert_eq!(role("idempotency_key"), Some(StrRole::Mention));
        assert_eq!(role("idempotency_header"), Some(StrRole::ConfKey));
    }

    #[test]
    fn deep_nesting_is_a_problem() {
        let text = format!("a = {}", "[".repeat(50_000));
        let mut facts = FileFacts::default();
        parse(&text, &mut facts);
        assert_eq!(facts.problems.len(), 1);
    }
}
