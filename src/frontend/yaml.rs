//! YAML front end (compose, Kubernetes, Helm values, CloudFormation, app
//! configs) on saphyr-parser's event stream. The tree is built with an
//! explicit stack, so no input depth can overflow ours; aliases are recorded
//! and never expanded, so alias bombs cost nothing.

use super::conf::{
    column_titles, content_span, header_role, ConfDoc, ConfEntry, ConfValue, PathSeg, ScalarStyle,
};
use super::{FileFacts, Problem, StrLit, StrRole, MAX_NESTING};
use crate::source::{CharToByte, Span};
use saphyr_parser::{Event, Parser, ScalarStyle as YStyle};

/// Events past this many are not read: a bound on time and memory (each
/// node becomes an entry with its full path and strings, about 1 KiB
/// measured) for files that are data dumps rather than configuration.
const MAX_EVENTS: usize = 250_000;

enum Kind {
    Map,
    Other,
}

enum Frame {
    Map {
        /// The key read and waiting for its value.
        pending: Option<(String, Span)>,
    },
    Seq {
        next: usize,
    },
}

pub fn parse(text: &str, facts: &mut FileFacts) {
    let doc = build(text, facts);
    push_strings(text, &doc, facts);
    facts.conf = Some(doc);
}

/// YAML and JSON files larger than this are not parsed. Memory grows with
/// the input at about 115 bytes per byte (measured): saphyr buffers every
/// token of a flow collection that could still turn out to be a mapping key
/// (`[..]: v`), which in a minified JSON file is the whole file.
pub const MAX_YAML_BYTES: usize = 4 * 1024 * 1024;

/// Build the flattened tree; problems go to `facts`.
pub fn build(text: &str, facts: &mut FileFacts) -> ConfDoc {
    if text.len() > MAX_YAML_BYTES {
        facts.problems.push(Problem::new(
            Span::new(0, 0),
            format!(
                "{:.1} MiB of YAML/JSON, over the {} MiB that are parsed; not parsed",
                text.len() as f64 / 1048576.0,
                MAX_YAML_BYTES / 1048576
            ),
        ));
        return ConfDoc::default();
    }
    let chars = CharToByte::new(text);
    let mut doc = ConfDoc::default();
    let mut stack: Vec<Frame> = Vec::new();
    let mut path: Vec<PathSeg> = Vec::new();
    let mut doc_index = 0usize;
    let mut started = false;
    let mut skip_depth = 0usize; // inside a complex (non-scalar) mapping key

    for (n, item) in Parser::new_from_str(text).enumerate() {
        if n >= MAX_EVENTS {
            facts.problems.push(Problem::new(
                Span::new(0, 0),
                format!("over {MAX_EVENTS} YAML/JSON nodes; the rest was not read"),
            ));
            break;
        }
        let (event, yspan) = match item {
            Ok(x) => x,
            Err(e) => {
                let at = chars.byte(e.marker().index());
                let message = if e.info().contains("recursion limit") {
                    "nested too deep for the YAML parser; the rest was not read".to_string()
                } else {
                    format!("invalid YAML: {}", e.info())
                };
                facts
                    .problems
                    .push(Problem::new(error_span(text, at), message));
                break;
            }
        };
        let span = Span::new(
            chars.byte(yspan.start.index()),
            chars.byte(yspan.end.index()),
        );

        let event_kind = if matches!(event, Event::MappingStart(..)) {
            Kind::Map
        } else {
            Kind::Other
        };
        if skip_depth > 0 {
            match event {
                Event::MappingStart(..) | Event::SequenceStart(..) => skip_depth += 1,
                Event::MappingEnd | Event::SequenceEnd => {
                    skip_depth -= 1;
                    if skip_depth == 0 {
                        if let Some(Frame::Map { pending, .. }) = stack.last_mut() {
                            *pending = Some(("?".to_string(), span));
                        }
                    }
                }
                _ => {}
            }
            continue;
        }

        match event {
            Event::DocumentStart(_) => {
                if started {
                    doc_index += 1;
                }
                started = true;
                stack.clear();
                path.clear();
            }
            Event::Scalar(value, style, _, tag) => {
                let tag = tag.map(|t| format!("{}{}", t.handle, t.suffix));
                if let Some(Frame::Map { pending, .. }) = stack.last_mut() {
                    if pending.is_none() {
                        *pending = Some((value.to_string(), span));
                        continue;
                    }
                }
                let value = ConfValue::Scalar {
                    text: value.to_string(),
                    style: map_style(style),
                };
                leaf(&mut doc, &mut stack, &mut path, doc_index, value, span, tag);
            }
            Event::Alias(_) => {
                if let Some(Frame::Map { pending, .. }) = stack.last_mut() {
                    if pending.is_none() {
                        *pending = Some(("*alias".to_string(), span));
                        continue;
                    }
                }
                leaf(
                    &mut doc,
                    &mut stack,
                    &mut path,
                    doc_index,
                    ConfValue::Alias,
                    span,
                    None,
                );
            }
            Event::MappingStart(_, tag) | Event::SequenceStart(_, tag) => {
                let is_map = matches!(event_kind, Kind::Map);
                if let Some(Frame::Map { pending: None, .. }) = stack.last() {
                    skip_depth = 1;
                    continue;
                }
                if stack.len() >= MAX_NESTING {
                    facts.problems.push(Problem::new(
                        span,
                        format!(
                            "nested deeper than {MAX_NESTING} levels of YAML; the rest was not read"
                        ),
                    ));
                    return doc;
                }
                let tag = tag.map(|t| format!("{}{}", t.handle, t.suffix));
                let kind = if is_map {
                    ConfValue::Map
                } else {
                    ConfValue::Seq
                };
                let key_span = enter(&mut stack, &mut path);
                doc.entries.push(ConfEntry {
                    doc: doc_index,
                    path: path.clone(),
                    key_span,
                    value: kind,
                    value_span: Span::new(span.start, span.start),
                    tag,
                });
                stack.push(if is_map {
                    Frame::Map { pending: None }
                } else {
                    Frame::Seq { next: 0 }
                });
            }
            Event::MappingEnd | Event::SequenceEnd => {
                stack.pop();
                finish_child(&mut stack, &mut path);
            }
            _ => {}
        }
    }
    doc
}

/// Where to point for an error at byte `at`: an error at the end of the
/// input (an unclosed `[`) points at the last character read, not past it.
fn error_span(text: &str, at: usize) -> Span {
    let end = text.trim_end().len();
    if at <= end || end == 0 {
        return Span::new(at, at);
    }
    let last = text[..end].char_indices().next_back().map_or(0, |(i, _)| i);
    Span::new(last, end)
}

/// Push the path segment for a child of the current container; returns the
/// key's span when the container is a map.
fn enter(stack: &mut [Frame], path: &mut Vec<PathSeg>) -> Option<Span> {
    match stack.last_mut() {
        Some(Frame::Map { pending, .. }) => {
            let (key, key_span) = pending.clone().unwrap_or_default();
            path.push(PathSeg::Key(key));
            Some(key_span)
        }
        Some(Frame::Seq { next }) => {
            path.push(PathSeg::Index(*next));
            None
        }
        None => None,
    }
}

/// After a child of the current container is complete.
fn finish_child(stack: &mut [Frame], path: &mut Vec<PathSeg>) {
    match stack.last_mut() {
        Some(Frame::Map { pending, .. }) => {
            *pending = None;
            path.pop();
        }
        Some(Frame::Seq { next }) => {
            *next += 1;
            path.pop();
        }
        None => {}
    }
}

fn leaf(
    doc: &mut ConfDoc,
    stack: &mut [Frame],
    path: &mut Vec<PathSeg>,
    doc_index: usize,
    value: ConfValue,
    span: Span,
    tag: Option<String>,
) {
    let key_span = enter(stack, path);
    doc.entries.push(ConfEntry {
        doc: doc_index,
        path: path.clone(),
        key_span,
        value,
        value_span: span,
        tag,
    });
    finish_child(stack, path);
}

fn map_style(style: YStyle) -> ScalarStyle {
    match style {
        YStyle::SingleQuoted => ScalarStyle::SingleQuoted,
        YStyle::DoubleQuoted => ScalarStyle::DoubleQuoted,
        YStyle::Literal => ScalarStyle::Literal,
        YStyle::Folded => ScalarStyle::Folded,
        _ => ScalarStyle::Plain,
    }
}

/// Keys and scalar values of a config tree as header candidates.
pub fn push_strings(text: &str, doc: &ConfDoc, facts: &mut FileFacts) {
    // ingress-nginx ConfigMap / Helm `controller.config`: the same switch as
    // nginx's `underscores_in_headers on`.
    if let Some(e) = doc.entries.iter().find(|e| {
        e.key() == Some("enable-underscores-in-headers")
            && e.scalar().is_some_and(|v| v.eq_ignore_ascii_case("true"))
    }) {
        facts.hints.nginx_passes_underscores = Some(content_span(
            text,
            e.value_span,
            quoted_style(text, e.value_span),
        ));
    }
    // OpenAPI/Swagger parameters: `- name: Idempotency-Key` with `in: header`
    // beside it names a header, however it is spelt.
    let header_params: Vec<(usize, &[PathSeg])> = doc
        .entries
        .iter()
        .filter(|e| e.key() == Some("in") && e.scalar() == Some("header"))
        .map(|e| (e.doc, &e.path[..e.path.len() - 1]))
        .collect();
    let is_header_param = |e: &ConfEntry| {
        e.key() == Some("name")
            && header_params
                .iter()
                .any(|(d, p)| *d == e.doc && *p == &e.path[..e.path.len() - 1])
    };
    for e in doc.entries.iter().filter(|e| !column_titles(&e.path)) {
        if let (Some(key), Some(span)) = (e.key(), e.key_span) {
            // Each key is seen once, on the node it introduces.
            let span = content_span(text, span, quoted_style(text, span));
            push_gateway_header(text, key, span, facts);
            let parent = &e.path[..e.path.len().saturating_sub(1)];
            facts.strings.push(StrLit {
                value: key.to_string(),
                span,
                role: header_role(parent).unwrap_or(StrRole::ConfKey),
            });
        }
        if let ConfValue::Scalar { text: v, style } = &e.value {
            if matches!(style, ScalarStyle::Literal | ScalarStyle::Folded) {
                continue;
            }
            push_gateway_header(text, v, content_span(text, e.value_span, *style), facts);
            facts.strings.push(StrLit {
                value: v.clone(),
                span: content_span(text, e.value_span, *style),
                role: header_role(&e.path).unwrap_or(if is_header_param(e) {
                    StrRole::HeaderName
                } else {
                    StrRole::Mention
                }),
            });
        }
    }
}

/// API Gateway request mappings name headers inside a dotted path:
/// `method.request.header.Idempotency-Key`,
/// `integration.request.header.Idempotency-Key`. The name after `.header.`
/// is a header name, when the text in the file is the value as written.
fn push_gateway_header(text: &str, value: &str, span: Span, facts: &mut FileFacts) {
    const MARK: &str = ".header.";
    let Some(pos) = value.find(MARK) else { return };
    if !value[..pos].ends_with("request") || text.get(span.start..span.end) != Some(value) {
        return;
    }
    let name = &value[pos + MARK.len()..];
    let start = span.start + pos + MARK.len();
    facts.strings.push(StrLit {
        value: name.to_string(),
        span: Span::new(start, start + name.len()),
        role: StrRole::HeaderName,
    });
}

fn quoted_style(text: &str, span: Span) -> ScalarStyle {
    match text.as_bytes().get(span.start) {
        Some(b'"') => ScalarStyle::DoubleQuoted,
        Some(b'\'') => ScalarStyle::SingleQuoted,
        _ => ScalarStyle::Plain,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(text: &str) -> (ConfDoc, FileFacts) {
        let mut facts = FileFacts::default();
        let d = build(text, &mut facts);
        (d, facts)
    }

    #[test]
    fn paths_and_spans_of_nested_values() {
        let text = "services:\n  redis:\n    command: [\"redis-server\", \"--maxmemory-policy\", 'allkeys-lru']\n";
        let (d, f) = doc(text);
        assert!(f.problems.is_empty());
        let e = d
            .entries
            .iter()
            .find(|e| e.dotted() == "services.redis.command[2]")
            .unwrap();
        assert_eq!(&text[e.value_span.start..e.value_span.end], "'allkeys-lru'");
        let k = d
            .entries
            .iter()
            .find(|e| e.dotted() == "services.redis")
            .unwrap();
        assert_eq!(
            &text[k.key_span.unwrap().start..k.key_span.unwrap().end],
            "redis"
        );
    }

    #[test]
    fn alias_bomb_is_not_expanded() {
        let mut text =
            String::from("a: &a [\"x\",\"x\",\"x\",\"x\",\"x\",\"x\",\"x\",\"x\",\"x\"]\n");
        for i in 1..10 {
            let prev = (b'a' + i - 1) as char;
            let cur = (b'a' + i) as char;
            text.push_str(&format!(
                "{cur}: &{cur} [*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev}]\n"
            ));
        }
        let (d, f) = doc(&text);
        assert!(f.problems.is_empty());
        assert!(d.entries.len() < 200);
    }

    #[test]
    fn deep_nesting_is_a_problem_not_a_crash() {
        let text = "[".repeat(50_000);
        let (_, f) = doc(&text);
        assert_eq!(f.problems.len(), 1);
    }

    #[test]
    fn api_gateway_request_parameters_name_headers() {
        let text = "requestParameters:\n  integration.request.header.Idempotency-Key: method.request.header.Idempotency_Key\n";
        let mut f = FileFacts::default();
        parse(text, &mut f);
        let names: Vec<(&str, StrRole, &str)> = f
            .strings
            .iter()
            .filter(|s| s.role == StrRole::HeaderName && !s.value.contains('.'))
            .map(|s| (s.value.as_str(), s.role, &text[s.span.start..s.span.end]))
            .collect();
        assert_eq!(
            names,
            vec![
                ("Idempotency-Key", StrRole::HeaderName, "Idempotency-Key"),
                ("Idempotency_Key", StrRole::HeaderName, "Idempotency_Key"),
            ]
        );
    }

    #[test]
    fn ingress_nginx_underscore_switch_is_a_hint() {
        let text =
            "apiVersion: v1\nkind: ConfigMap\ndata:\n  enable-underscores-in-headers: \"true\"\n";
        let mut f = FileFacts::default();
        parse(text, &mut f);
        let s = f.hints.nginx_passes_underscores.unwrap();
        assert_eq!(&text[s.start..s.end], "true");
    }

    #[test]
    fn strings_under_header_paths_are_header_names() {
        let text = "routes:\n  - match:\n      headers:\n        - name: idempotency-key\n    request_headers_to_add:\n      - header: { key: idempotency_key, value: x }\nidempotency:\n  key_field: idempotency_key\n";
        let mut facts = FileFacts::default();
        parse(text, &mut facts);
        let role = |v: &str, nth: usize| {
            facts
                .strings
                .iter()
                .filter(|s| s.value == v)
                .nth(nth)
                .map(|s| s.role)
        };
        assert_eq!(role("idempotency-key", 0), Some(StrRole::HeaderName));
        assert_eq!(role("idempotency_key", 0), Some(StrRole::Write));
        assert_eq!(role("idempotency_key", 1), Some(StrRole::Mention));
        assert_eq!(role("key_field", 0), Some(StrRole::ConfKey));
    }

    #[test]
    fn multi_document_streams_count_documents() {
        let (d, _) = doc("a: 1\n---\nb: 2\n");
        assert_eq!(d.entries.iter().map(|e| e.doc).max(), Some(1));
    }

    #[test]
    fn non_ascii_text_keeps_byte_spans() {
        let text = "naïve: \"Idempotency-Key\"\n";
        let (d, _) = doc(text);
        let e = d.entries.iter().find(|e| e.key() == Some("naïve")).unwrap();
        assert_eq!(
            &text[e.value_span.start..e.value_span.end],
            "\"Idempotency-Key\""
        );
    }
}
