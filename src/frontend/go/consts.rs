//! Constants of a Go file: integer and `time.Duration` constants
//! (`const eventTTL = 24 * time.Hour`, in a `const ( … )` group too),
//! which the model looks up across files by name, and string constants
//! (`const headerIdempotencyKey = "Idempotency-Key"`, a SQL query), which
//! the passes of this file read by name.

use super::syntax::{duration_expr, named, span, string_value, text};
use crate::facts::retention::{ConstExpr, DurDef};
use std::collections::HashMap;
use tree_sitter::Node;

/// What a file's top-level constants hold.
#[derive(Debug, Default)]
pub(super) struct Consts {
    pub strings: HashMap<String, String>,
    pub durations: Vec<DurDef>,
}

/// Read the `const` declarations at the top of the file.
pub(super) fn read(root: Node, src: &str) -> Consts {
    let mut out = Consts::default();
    for decl in named(root)
        .into_iter()
        .filter(|d| d.kind() == "const_declaration")
    {
        for spec in named(decl).into_iter().filter(|s| s.kind() == "const_spec") {
            spec_into(spec, src, &mut out);
        }
    }
    out
}

fn spec_into(spec: Node, src: &str, out: &mut Consts) {
    let mut c = spec.walk();
    let names: Vec<Node> = spec.children_by_field_name("name", &mut c).collect();
    let Some(values) = spec.child_by_field_name("value") else {
        return;
    };
    let values = named(values);
    for (name, value) in names.iter().zip(values) {
        let name = text(*name, src).to_string();
        if let Some(s) = string_value(value, src) {
            out.strings.insert(name, s);
            continue;
        }
        let expr = duration_expr(value, src, 0);
        if expr != ConstExpr::Unknown {
            out.durations.push(DurDef {
                name,
                expr,
                span: span(value),
            });
        }
    }
}
