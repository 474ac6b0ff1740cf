//! Header names that Go declares as such, beyond the literals the text
//! reader finds in a header call (`r.Header.Get("…")`): a string constant
//! named or typed as a header (`const idempotencyKeyHeader = "…"`,
//! `DefaultRequestIDHeader RequestIDHeaderProvider = "…"`), and the name in
//! a struct field's `header` tag (gin's `header:"Idempotency-Key"` binding,
//! a generated SDK's `header:"style=simple,name=Idempotency-Key"`). Both
//! are header names wherever they are used (`StrRole::HeaderName`).

use super::syntax::{named, span, string_value, text};
use crate::facts::headers::{StrLit, StrRole};
use crate::facts::FileFacts;
use crate::header_names::header_relevant;
use crate::source::Span;
use tree_sitter::Node;

/// Mark the file's declared header names.
pub(super) fn declared(root: Node, src: &str, facts: &mut FileFacts) {
    let mut stack = vec![root];
    let mut seen = 0usize;
    while let Some(n) = stack.pop() {
        seen += 1;
        if seen > 200_000 {
            return;
        }
        match n.kind() {
            "const_spec" => header_const(n, src, facts),
            "field_declaration" => {
                if let Some(tag) = n.child_by_field_name("tag") {
                    header_tag(tag, src, facts);
                }
            }
            _ => stack.extend(named(n)),
        }
    }
}

/// `const idempotencyKeyHeader = "Idempotency-Key"`: a constant whose name
/// or declared type says header.
fn header_const(spec: Node, src: &str, facts: &mut FileFacts) {
    let says_header = |t: &str| t.to_ascii_lowercase().contains("header");
    let typed = spec
        .child_by_field_name("type")
        .is_some_and(|t| says_header(text(t, src)));
    let Some(values) = spec.child_by_field_name("value") else {
        return;
    };
    let mut c = spec.walk();
    let names: Vec<Node> = spec.children_by_field_name("name", &mut c).collect();
    for (name, value) in names.iter().zip(named(values)) {
        let n = text(*name, src).to_ascii_lowercase();
        if !(typed || n.ends_with("header") || n.ends_with("headername")) {
            continue;
        }
        let Some(s) = string_value(value, src) else {
            continue;
        };
        let sp = span(value);
        // Inside the quotes.
        let inner = Span::new(sp.start + 1, sp.end.saturating_sub(1).max(sp.start + 1));
        mark(facts, s, inner);
    }
}

/// A struct tag's `header:"…"` value: the header's name (its first part,
/// or a `name=` part).
fn header_tag(tag: Node, src: &str, facts: &mut FileFacts) {
    let raw = text(tag, src);
    let Some(at) = raw.find("header:\"") else {
        return;
    };
    // `xheader:"…"` is another key.
    if raw[..at].ends_with(|c: char| c.is_ascii_alphanumeric() || c == '_') {
        return;
    }
    let start = at + "header:\"".len();
    let Some(len) = raw[start..].find('"') else {
        return;
    };
    let value = &raw[start..start + len];
    let mut offset = start;
    let mut name = None;
    for (i, part) in value.split(',').enumerate() {
        if let Some(v) = part.strip_prefix("name=") {
            name = Some((v, offset + "name=".len()));
            break;
        }
        if i == 0 && !part.contains('=') && !part.is_empty() {
            name = Some((part, offset));
        }
        offset += part.len() + 1;
    }
    let Some((v, off)) = name else { return };
    let base = tag.start_byte() + off;
    mark(facts, v.to_string(), Span::new(base, base + v.len()));
}

/// The literal at `at` is a header name: upgrade the text reader's
/// mention, or add it.
fn mark(facts: &mut FileFacts, value: String, at: Span) {
    if !header_relevant(&value) {
        return;
    }
    if let Some(s) = facts
        .strings
        .iter_mut()
        .find(|s| s.span.start >= at.start && s.span.end <= at.end + 1 && s.value == value)
    {
        if s.role == StrRole::Mention {
            s.role = StrRole::HeaderName;
        }
        return;
    }
    facts.strings.push(StrLit {
        value,
        span: at,
        role: StrRole::HeaderName,
    });
}

#[cfg(test)]
mod tests {
    use crate::facts::headers::StrRole;
    use crate::source::{FileKind, Span};

    fn names(src: &str) -> Vec<(String, StrRole, String)> {
        let f = crate::frontend::parse(0, FileKind::Go, src);
        f.strings
            .iter()
            .map(|s| {
                let Span { start, end } = s.span;
                (s.value.clone(), s.role, src[start..end].to_string())
            })
            .collect()
    }

    #[test]
    fn constants_named_or_typed_as_headers_are_header_names() {
        let src = "package p\n\nconst idempotencyKeyHeader = \"Idempotency-Keys\"\n\
                   const (\n\tDefaultRequestIDHeader RequestIDHeaderProvider = \"X-Acme-Idempotency_Key\"\n\
                   \tidempotencyKeysMetric = \"Idempotency-Keys\"\n)\n";
        let got = names(src);
        assert!(
            got.contains(&(
                "Idempotency-Keys".into(),
                StrRole::HeaderName,
                "Idempotency-Keys".into()
            )),
            "{got:?}"
        );
        assert!(got
            .iter()
            .any(|g| g.0 == "X-Acme-Idempotency_Key" && g.1 == StrRole::HeaderName));
        assert_eq!(
            got.iter().filter(|g| g.1 == StrRole::HeaderName).count(),
            2,
            "{got:?}"
        );
    }

    #[test]
    fn header_tags_name_their_header() {
        let src = "package p\n\ntype R struct {\n\
                   \tKey *string `header:\"style=simple,explode=false,name=Idempotency_Key\"`\n\
                   \tOther string `json:\"k\" header:\"Idempotency-Keys\"`\n\
                   \tBody string `json:\"idempotency_key\"`\n}\n";
        let mut got: Vec<_> = names(src)
            .into_iter()
            .filter(|g| g.1 == StrRole::HeaderName)
            .map(|g| (g.0, g.2))
            .collect();
        got.sort();
        assert_eq!(
            got,
            [
                (
                    "Idempotency-Keys".to_string(),
                    "Idempotency-Keys".to_string()
                ),
                ("Idempotency_Key".to_string(), "Idempotency_Key".to_string())
            ]
        );
    }
}
