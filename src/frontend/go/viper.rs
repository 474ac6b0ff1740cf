//! viper's defaults written in code: `v.SetDefault("sink.dedupe.config.expiration",
//! "24h")` gives a setting as a configuration file would
//! (`sink: {dedupe: {config: {expiration: 24h}}}`), so a store's retention
//! given there is judged as one in YAML is. Only defaults whose key is a
//! dotted literal and whose value is a duration string are read.

use super::syntax::{args, named, path_of, span, string_value, text};
use crate::facts::config::{ConfDoc, ConfEntry, ConfValue, PathSeg, ScalarStyle};
use crate::source::Span;
use tree_sitter::Node;

/// Most calls looked at in one file.
const MAX_NODES: usize = 200_000;

/// The duration defaults of a file; `None` when it sets none.
pub fn read(root: Node, src: &str) -> Option<ConfDoc> {
    if !src.contains(".SetDefault(") {
        return None;
    }
    let mut entries = Vec::new();
    let mut stack = vec![root];
    let mut seen = 0;
    while let Some(n) = stack.pop() {
        seen += 1;
        if seen > MAX_NODES {
            break;
        }
        if n.kind() == "call_expression" {
            if let Some(e) = default(n, src) {
                entries.push(e);
            }
        }
        stack.extend(named(n));
    }
    if entries.is_empty() {
        return None;
    }
    entries.sort_by_key(|e: &ConfEntry| e.value_span.start);
    Some(ConfDoc { entries })
}

/// `v.SetDefault("a.b.c", "10m")`.
fn default(call: Node, src: &str) -> Option<ConfEntry> {
    let f = path_of(call.child_by_field_name("function")?, src)?;
    if f.len() < 2 || f.last()? != "SetDefault" {
        return None;
    }
    let a = args(call);
    let (key, value) = (*a.first()?, *a.get(1)?);
    if value.kind() != "interpreted_string_literal" {
        return None;
    }
    let path = string_value(key, src)?;
    let v = string_value(value, src)?;
    // a Go duration: a number and a unit, repeated (`24h`, `1h30m`, `500ms`)
    let duration = !v.is_empty()
        && v.starts_with(|c: char| c.is_ascii_digit())
        && v.ends_with(['h', 'm', 's'])
        && crate::duration::parse(&v, None).is_some();
    if !duration || path.split('.').any(str::is_empty) {
        return None;
    }
    let k = span(key);
    Some(ConfEntry {
        doc: 0,
        path: path.split('.').map(|p| PathSeg::Key(p.into())).collect(),
        key_span: Some(Span::new(
            k.start + 1,
            k.end.saturating_sub(1).max(k.start + 1),
        )),
        value: ConfValue::Scalar {
            text: v,
            style: ScalarStyle::DoubleQuoted,
        },
        value_span: span(value),
        tag: None,
    })
    .filter(|_| !text(value, src).contains('\\'))
}
