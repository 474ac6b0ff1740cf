//! Small readings of tree-sitter's Go syntax tree shared by the passes:
//! a node's text and span, string literals, called paths, literal key
//! prefixes and duration expressions.

use crate::facts::retention::{ConstExpr, MAX_EXPR_DEPTH};
use crate::source::Span;
use tree_sitter::Node;

pub(super) fn span(n: Node) -> Span {
    Span::new(n.start_byte(), n.end_byte())
}

/// The node's text (empty if the tree and the text disagree).
pub(super) fn text<'s>(n: Node, src: &'s str) -> &'s str {
    src.get(n.byte_range()).unwrap_or("")
}

/// The node's named children.
pub(super) fn named<'t>(n: Node<'t>) -> Vec<Node<'t>> {
    let mut c = n.walk();
    n.named_children(&mut c).collect()
}

/// The expression inside parentheses, `&x` and `*x`.
pub(super) fn bare<'t>(mut n: Node<'t>) -> Node<'t> {
    for _ in 0..MAX_EXPR_DEPTH {
        match n.kind() {
            "parenthesized_expression" | "unary_expression" | "literal_element" => {
                match n.named_child(n.named_child_count().saturating_sub(1)) {
                    Some(c) => n = c,
                    None => return n,
                }
            }
            _ => return n,
        }
    }
    n
}

/// A string literal's value: `"a\"b"` (the common escapes) or a raw
/// `` `…` ``.
pub(super) fn string_value(n: Node, src: &str) -> Option<String> {
    let n = bare(n);
    let t = text(n, src);
    match n.kind() {
        "raw_string_literal" => Some(t.trim_start_matches('`').trim_end_matches('`').to_string()),
        "interpreted_string_literal" => {
            let inner = t.strip_prefix('"')?.strip_suffix('"')?;
            Some(
                inner
                    .replace("\\\"", "\"")
                    .replace("\\n", "\n")
                    .replace("\\t", "\t"),
            )
        }
        _ => None,
    }
}

/// The arguments of a call.
pub(super) fn args<'t>(call: Node<'t>) -> Vec<Node<'t>> {
    call.child_by_field_name("arguments")
        .map(named)
        .unwrap_or_default()
        .into_iter()
        .filter(|n| n.kind() != "comment")
        .collect()
}

/// `a.b.c` as its names; `None` for anything but names and selectors.
pub(super) fn path_of(n: Node, src: &str) -> Option<Vec<String>> {
    let mut out = Vec::new();
    let mut n = bare(n);
    for _ in 0..MAX_EXPR_DEPTH {
        match n.kind() {
            "identifier" | "field_identifier" | "package_identifier" | "type_identifier" => {
                out.push(text(n, src).to_string());
                out.reverse();
                return Some(out);
            }
            "selector_expression" => {
                out.push(text(n.child_by_field_name("field")?, src).to_string());
                n = bare(n.child_by_field_name("operand")?);
            }
            _ => return None,
        }
    }
    None
}

/// The literal text a key expression starts with: a string, a string
/// constant (`consts`), the left of `+`, or `fmt.Sprintf`'s format up to
/// its first verb.
pub(super) fn literal_prefix(
    n: Node,
    src: &str,
    consts: &std::collections::HashMap<String, String>,
) -> Option<String> {
    let mut n = bare(n);
    for _ in 0..MAX_EXPR_DEPTH {
        if let Some(s) = string_value(n, src) {
            return (!s.is_empty()).then_some(s);
        }
        match n.kind() {
            "identifier" => return consts.get(text(n, src)).filter(|s| !s.is_empty()).cloned(),
            "binary_expression" if text(n.child_by_field_name("operator")?, src) == "+" => {
                n = bare(n.child_by_field_name("left")?);
            }
            "call_expression" => {
                let f = path_of(n.child_by_field_name("function")?, src)?;
                if f.last().map(String::as_str) != Some("Sprintf") {
                    return None;
                }
                let fmt = literal_prefix(*args(n).first()?, src, consts)?;
                let pre = &fmt[..fmt.find('%').unwrap_or(fmt.len())];
                return (!pre.is_empty()).then(|| pre.to_string());
            }
            _ => return None,
        }
    }
    None
}

/// `time.Hour` and its kin, in milliseconds.
fn time_unit(name: &str) -> Option<u64> {
    Some(match name {
        "Millisecond" => 1,
        "Second" => 1000,
        "Minute" => 60_000,
        "Hour" => 3_600_000,
        _ => return None,
    })
}

/// An integer or `time.Duration` expression: literals, `time.Hour`,
/// `+ - * /`, `time.Duration(n)`, names of constants (`pkg.Name` is
/// `Name`). Anything else is `Unknown`.
pub(super) fn duration_expr(n: Node, src: &str, depth: usize) -> ConstExpr {
    if depth > MAX_EXPR_DEPTH {
        return ConstExpr::Unknown;
    }
    let n = bare(n);
    let sub = |c: Option<Node>| c.map_or(ConstExpr::Unknown, |c| duration_expr(c, src, depth + 1));
    match n.kind() {
        "int_literal" => text(n, src)
            .replace('_', "")
            .parse()
            .map_or(ConstExpr::Unknown, ConstExpr::Int),
        "identifier" => ConstExpr::Ref(text(n, src).to_string()),
        "selector_expression" => match path_of(n, src).as_deref() {
            Some([t, unit]) if t == "time" => {
                time_unit(unit).map_or(ConstExpr::Unknown, |ms| ConstExpr::Dur {
                    ms,
                    arg: Box::new(ConstExpr::Int(1)),
                })
            }
            Some([.., last]) => ConstExpr::Ref(last.clone()),
            _ => ConstExpr::Unknown,
        },
        "binary_expression" => {
            let (l, r) = (
                sub(n.child_by_field_name("left")),
                sub(n.child_by_field_name("right")),
            );
            let op = n.child_by_field_name("operator").map(|o| text(o, src));
            let (l, r) = (Box::new(l), Box::new(r));
            match op {
                Some("+") => ConstExpr::Add(l, r),
                Some("-") => ConstExpr::Sub(l, r),
                Some("*") => ConstExpr::Mul(l, r),
                Some("/") => ConstExpr::Div(l, r),
                _ => ConstExpr::Unknown,
            }
        }
        "type_conversion_expression" => sub(n.child_by_field_name("operand")),
        // `time.Duration(n)`: a conversion the grammar reads as a call.
        "call_expression" => {
            let f = n
                .child_by_field_name("function")
                .and_then(|f| path_of(f, src));
            let a = args(n);
            match (f.as_deref(), a.as_slice()) {
                (Some([t, d]), [x]) if t == "time" && d == "Duration" => sub(Some(*x)),
                (Some([t]), [x]) if matches!(t.as_str(), "int" | "int64" | "uint64") => {
                    sub(Some(*x))
                }
                _ => ConstExpr::Unknown,
            }
        }
        _ => ConstExpr::Unknown,
    }
}

/// The type a type expression names, its package and pointer dropped
/// (`*db.Queries` is `Queries`).
pub(super) fn type_name(n: Node, src: &str) -> String {
    let t = text(n, src);
    let t = t.trim_start_matches(['*', '&']);
    let t = t.split('[').next().unwrap_or(t);
    t.rsplit('.').next().unwrap_or(t).to_string()
}
