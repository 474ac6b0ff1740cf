//! `.env` front end: `KEY=value` lines (optionally `export KEY=value`,
//! quoted values, `#` comments) into the shared flattened tree.

use crate::facts::config::{ConfDoc, ConfEntry, ConfValue, PathSeg, ScalarStyle};
use crate::facts::headers::{StrLit, StrRole};
use crate::facts::FileFacts;
use crate::source::Span;

pub fn parse(text: &str, facts: &mut FileFacts) {
    let mut doc = ConfDoc::default();
    let mut offset = 0;
    for raw_line in text.split_inclusive('\n') {
        let line_start = offset;
        offset += raw_line.len();
        let line = raw_line.trim_end_matches(['\n', '\r']);
        let trimmed = line.trim_start();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        let mut body_start = line_start + (line.len() - trimmed.len());
        let mut body = trimmed;
        if let Some(rest) = body.strip_prefix("export ") {
            let rest_trim = rest.trim_start();
            body_start += body.len() - rest_trim.len();
            body = rest_trim;
        }
        let Some(eq) = body.find('=') else { continue };
        let key = body[..eq].trim_end();
        if key.is_empty() || key.contains(char::is_whitespace) {
            continue;
        }
        let key_span = Span::new(body_start, body_start + key.len());
        let after = &body[eq + 1..];
        let value_start = body_start + eq + 1 + (after.len() - after.trim_start().len());
        let after = after.trim_start();
        let (value, span, style) = match after.chars().next() {
            Some(q @ ('"' | '\'')) => match after[1..].find(q) {
                Some(end) => (
                    after[1..1 + end].to_string(),
                    Span::new(value_start + 1, value_start + 1 + end),
                    if q == '"' {
                        ScalarStyle::DoubleQuoted
                    } else {
                        ScalarStyle::SingleQuoted
                    },
                ),
                None => (
                    after.to_string(),
                    Span::new(value_start, value_start + after.len()),
                    ScalarStyle::Plain,
                ),
            },
            _ => {
                // An unquoted value ends at ` #` (a trailing comment).
                let v = after.split(" #").next().unwrap_or("").trim_end();
                (
                    v.to_string(),
                    Span::new(value_start, value_start + v.len()),
                    ScalarStyle::Plain,
                )
            }
        };
        facts.strings.push(StrLit {
            value: key.to_string(),
            span: key_span,
            role: StrRole::ConfKey,
        });
        facts.strings.push(StrLit {
            value: value.clone(),
            span,
            role: super::conf::header_role(&[PathSeg::Key(key.into())]).unwrap_or(StrRole::Mention),
        });
        doc.entries.push(ConfEntry {
            doc: 0,
            path: vec![PathSeg::Key(key.into())],
            key_span: Some(key_span),
            value: ConfValue::Scalar { text: value, style },
            value_span: span,
            tag: None,
        });
    }
    facts.conf = Some(doc);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_values_quotes_comments_and_export() {
        let text = "# c\nexport IDEMPOTENCY_TTL_SECONDS=86400 # one day\r\nREDIS_URL=\"redis://idem:6379\"\n";
        let mut facts = FileFacts::default();
        parse(text, &mut facts);
        let doc = facts.conf.unwrap();
        assert_eq!(doc.entries.len(), 2);
        let e = &doc.entries[0];
        assert_eq!(e.key(), Some("IDEMPOTENCY_TTL_SECONDS"));
        assert_eq!(&text[e.value_span.start..e.value_span.end], "86400");
        assert_eq!(
            &text[doc.entries[1].value_span.start..doc.entries[1].value_span.end],
            "redis://idem:6379"
        );
    }
}
