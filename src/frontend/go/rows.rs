//! Rows as bun (uptrace/bun) maps and reads them: a struct whose embedded
//! `bun.BaseModel` is tagged `bun:"table:logs"` maps its fields to the
//! columns their `bun:"col,…"` tags name; what code assigns to such a field
//! and compares it with; the functions named for a fingerprint and whether
//! they read their parameters; and the query chains that name a table
//! (`ModelTableExpr("logs")`, `Table("logs")`) and filter it by a key
//! column (`Where("idempotency_key = ?", k)`).

use super::syntax::{args, bare, named, path_of, span, string_value, text};
use crate::facts::rows::{
    Assigned, DigestFn, FieldAssign, FieldColumn, FieldCompare, RowFacts, RowLookup,
};
use crate::knowledge;
use tree_sitter::Node;

/// Deepest nesting walked.
const MAX_DEPTH: usize = 200;

/// The row facts of a file.
pub fn read(root: Node, src: &str) -> RowFacts {
    let mut out = RowFacts::default();
    let mut stack = vec![(root, 0usize)];
    while let Some((n, depth)) = stack.pop() {
        match n.kind() {
            "type_spec" => out.columns.extend(columns(n, src)),
            "assignment_statement" => assignment(n, src, &mut out),
            "keyed_element" => keyed(n, src, &mut out),
            "binary_expression" => compared(n, src, &mut out),
            "call_expression" => {
                equal_call(n, src, &mut out);
                if !matches!(n.parent().map(|p| p.kind()), Some("selector_expression")) {
                    out.lookups.extend(lookup(n, src));
                }
            }
            "function_declaration" | "method_declaration" => out.digests.extend(digest(n, src)),
            _ => {}
        }
        if depth < MAX_DEPTH {
            stack.extend(named(n).into_iter().map(|c| (c, depth + 1)));
        }
    }
    let words = &knowledge::stores().fingerprint_column;
    let fingerprint = |f: &str| words.matches(&knowledge::snake(f));
    out.assigns.retain(|a| fingerprint(&a.field));
    out.compares.retain(|c| fingerprint(&c.field));
    out
}

/// The value of one key of a struct tag (`bun` of `` `json:"x" bun:"y,unique"` ``).
fn tag_value<'s>(tag: &'s str, key: &str) -> Option<&'s str> {
    let at = tag.find(&format!("{key}:\""))?;
    let rest = &tag[at + key.len() + 2..];
    Some(&rest[..rest.find('"')?])
}

/// `type Log struct { bun.BaseModel `bun:"table:logs"`; F T `bun:"col"` }`.
fn columns(spec: Node, src: &str) -> Vec<FieldColumn> {
    let Some(ty) = spec
        .child_by_field_name("type")
        .filter(|t| t.kind() == "struct_type")
    else {
        return Vec::new();
    };
    let mut fields = Vec::new();
    let mut table = None;
    let mut stack = named(ty);
    while let Some(n) = stack.pop() {
        if n.kind() != "field_declaration" {
            stack.extend(named(n));
            continue;
        }
        let Some(tag) = n
            .child_by_field_name("tag")
            .and_then(|t| string_value(t, src))
        else {
            continue;
        };
        let Some(bun) = tag_value(&tag, "bun") else {
            continue;
        };
        let mut c = n.walk();
        let names: Vec<Node> = n.children_by_field_name("name", &mut c).collect();
        if names.is_empty() {
            if let Some(t) = bun.split(',').find_map(|p| p.trim().strip_prefix("table:")) {
                table = Some(bare_table(t));
            }
            continue;
        }
        let column = bun.split(',').next().unwrap_or("").trim();
        if column.is_empty() || column == "-" || column.contains(':') {
            continue;
        }
        for f in names {
            fields.push((
                text(f, src).to_string(),
                column.to_ascii_lowercase(),
                span(f),
            ));
        }
    }
    let Some(table) = table else {
        return Vec::new();
    };
    fields
        .into_iter()
        .map(|(field, column, span)| FieldColumn {
            table: table.clone(),
            field,
            column,
            span,
        })
        .collect()
}

/// A table as written in a tag or a query: its last dotted part, unquoted,
/// lower-cased, without an alias (`"public"."logs" AS l` → `logs`).
fn bare_table(t: &str) -> String {
    let first = t.split_whitespace().next().unwrap_or("");
    first
        .rsplit('.')
        .next()
        .unwrap_or(first)
        .trim_matches(|c| c == '"' || c == '`' || c == '?')
        .to_ascii_lowercase()
}

/// The last name of a selector (`log.IdempotencyHash` → `IdempotencyHash`).
fn field_of(n: Node, src: &str) -> Option<String> {
    let n = bare(n);
    (n.kind() == "selector_expression")
        .then(|| n.child_by_field_name("field"))
        .flatten()
        .map(|f| text(f, src).to_string())
}

/// What a value puts in a field.
fn assigned(v: Node, src: &str) -> Assigned {
    let v = bare(v);
    match v.kind() {
        "nil" => Assigned::Empty,
        "interpreted_string_literal" | "raw_string_literal" => {
            if string_value(v, src).is_some_and(|s| s.is_empty()) {
                Assigned::Empty
            } else {
                Assigned::Other
            }
        }
        "composite_literal" => match v.child_by_field_name("body") {
            Some(b) if named(b).is_empty() => Assigned::Empty,
            _ => Assigned::Other,
        },
        // `[]byte(nil)`, `string("")`: a conversion of nothing.
        "type_conversion_expression" => match v.child_by_field_name("operand") {
            Some(o) if assigned(o, src) == Assigned::Empty => Assigned::Empty,
            _ => Assigned::Other,
        },
        "call_expression" => {
            let args = args(v);
            let f = v.child_by_field_name("function");
            // `[]byte(nil)`, `string("")`: a conversion of nothing.
            if args.len() == 1 && assigned(args[0], src) == Assigned::Empty {
                return Assigned::Empty;
            }
            match f.and_then(|f| path_of(f, src)) {
                Some(p) => Assigned::Call(p.last().cloned().unwrap_or_default()),
                None => Assigned::Other,
            }
        }
        _ => Assigned::Other,
    }
}

/// `a.F = v` (also `a.F, b = v, w`).
fn assignment(n: Node, src: &str, out: &mut RowFacts) {
    let (Some(l), Some(r)) = (
        n.child_by_field_name("left"),
        n.child_by_field_name("right"),
    ) else {
        return;
    };
    let (l, r) = (named(l), named(r));
    if l.len() != r.len() {
        return;
    }
    for (a, v) in l.into_iter().zip(r) {
        if let Some(field) = field_of(a, src) {
            out.assigns.push(FieldAssign {
                field,
                value: assigned(v, src),
                span: span(n),
            });
        }
    }
}

/// `F: v` in a composite literal.
fn keyed(n: Node, src: &str, out: &mut RowFacts) {
    let parts = named(n);
    let [k, v] = parts.as_slice() else {
        return;
    };
    let k = bare(*k);
    if !matches!(k.kind(), "field_identifier" | "identifier") {
        return;
    }
    out.assigns.push(FieldAssign {
        field: text(k, src).to_string(),
        value: assigned(*v, src),
        span: span(n),
    });
}

/// Whether an operand is a literal (`""`, `nil`, a number).
fn literal(n: Node) -> bool {
    matches!(
        bare(n).kind(),
        "nil"
            | "interpreted_string_literal"
            | "raw_string_literal"
            | "int_literal"
            | "true"
            | "false"
    )
}

/// `a.F != b`, `a.F == b` with `b` no literal.
fn compared(n: Node, src: &str, out: &mut RowFacts) {
    let Some(op) = n.child_by_field_name("operator") else {
        return;
    };
    if !matches!(text(op, src), "==" | "!=") {
        return;
    }
    let (Some(l), Some(r)) = (
        n.child_by_field_name("left"),
        n.child_by_field_name("right"),
    ) else {
        return;
    };
    for (a, b) in [(l, r), (r, l)] {
        if let Some(field) = field_of(a, src).filter(|_| !literal(b)) {
            out.compares.push(FieldCompare {
                field,
                span: span(n),
            });
        }
    }
}

/// `bytes.Equal(a.F, b)`, `hmac.Equal`, `subtle.ConstantTimeCompare`.
fn equal_call(n: Node, src: &str, out: &mut RowFacts) {
    let Some(name) = n
        .child_by_field_name("function")
        .and_then(|f| path_of(f, src))
        .and_then(|p| p.last().cloned())
    else {
        return;
    };
    if !matches!(name.as_str(), "Equal" | "ConstantTimeCompare" | "EqualFold") {
        return;
    }
    let a = args(n);
    if a.len() != 2 || a.iter().any(|x| literal(*x)) {
        return;
    }
    for x in a {
        if let Some(field) = field_of(x, src) {
            out.compares.push(FieldCompare {
                field,
                span: span(n),
            });
        }
    }
}

/// A function named for a fingerprint (`[fingerprint_column]` words) with
/// named parameters: whether its body reads one.
fn digest(f: Node, src: &str) -> Option<DigestFn> {
    let name = f.child_by_field_name("name")?;
    let n = text(name, src);
    if !knowledge::stores()
        .fingerprint_column
        .matches(&knowledge::snake(n))
    {
        return None;
    }
    let body = f.child_by_field_name("body")?;
    let mut params = Vec::new();
    for p in named(f.child_by_field_name("parameters")?) {
        let mut c = p.walk();
        params.extend(
            p.children_by_field_name("name", &mut c)
                .map(|x| text(x, src).to_string())
                .filter(|x| x != "_"),
        );
    }
    if params.is_empty() {
        return None;
    }
    let mut reads = false;
    let mut stack = vec![(body, 0usize)];
    while let Some((n, depth)) = stack.pop() {
        if n.kind() == "identifier" && params.iter().any(|p| p == text(n, src)) {
            reads = true;
            break;
        }
        if depth < MAX_DEPTH {
            stack.extend(named(n).into_iter().map(|c| (c, depth + 1)));
        }
    }
    Some(DigestFn {
        name: n.to_string(),
        reads_params: reads,
        span: span(name),
    })
}

/// The methods of a call chain, outermost first: (name, call).
fn chain<'t>(mut n: Node<'t>, src: &str) -> Vec<(String, Node<'t>)> {
    let mut out = Vec::new();
    for _ in 0..MAX_DEPTH {
        if n.kind() != "call_expression" {
            break;
        }
        let Some(f) = n
            .child_by_field_name("function")
            .filter(|f| f.kind() == "selector_expression")
        else {
            break;
        };
        if let Some(m) = f.child_by_field_name("field") {
            out.push((text(m, src).to_string(), n));
        }
        match f.child_by_field_name("operand") {
            Some(o) => n = o,
            None => break,
        }
    }
    out
}

/// The first string literal among a call's arguments, at any depth
/// (`store.GetPrefixedRelationName("logs")`).
fn first_string(call: Node, src: &str) -> Option<String> {
    let mut stack: Vec<Node> = args(call).into_iter().rev().collect();
    let mut seen = 0;
    while let Some(n) = stack.pop() {
        seen += 1;
        if seen > MAX_DEPTH {
            return None;
        }
        if let Some(s) = string_value(n, src) {
            return Some(s);
        }
        let mut kids = named(n);
        kids.reverse();
        stack.extend(kids);
    }
    None
}

/// The column a `Where` condition starts with (`"idempotency_key = ?"` →
/// `idempotency_key`; `"l.ledger = ?"` → `ledger`).
fn where_column(cond: &str) -> Option<String> {
    let end = cond
        .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '"')))
        .unwrap_or(cond.len());
    let col = bare_table(&cond[..end]);
    let rest = cond[end..].trim_start();
    let compares = ["=", "IN ", "in ", "IN(", "in("]
        .iter()
        .any(|o| rest.starts_with(o));
    (!col.is_empty() && compares).then_some(col)
}

/// A chain that names a table and filters it, kept when a filter names a
/// key column.
fn lookup(n: Node, src: &str) -> Option<RowLookup> {
    let calls = chain(n, src);
    if calls.len() < 2 {
        return None;
    }
    let mut table = None;
    let mut columns = Vec::new();
    for (m, call) in &calls {
        match m.as_str() {
            "ModelTableExpr" | "Table" | "TableExpr" => {
                table = first_string(*call, src).map(|t| bare_table(&t)).or(table);
            }
            "Where" => {
                if let Some(c) = args(*call).first().and_then(|a| string_value(*a, src)) {
                    columns.extend(where_column(&c));
                }
            }
            _ => {}
        }
    }
    let key = &knowledge::stores().guard_column;
    if !columns.iter().any(|c| key.matches(c)) {
        return None;
    }
    Some(RowLookup {
        table: table.filter(|t| !t.is_empty())?,
        columns,
        span: span(n),
    })
}

#[cfg(test)]
mod tests {
    use crate::facts::rows::Assigned;

    fn rows(src: &str) -> crate::facts::rows::RowFacts {
        let f = crate::frontend::parse(0, crate::source::FileKind::Go, src);
        f.code.map(|c| c.rows).unwrap_or_default()
    }

    #[test]
    fn bun_models_fill_and_compare_their_columns() {
        let r = rows(
            "package p\n\
             type Entry struct {\n\
               bun.BaseModel `bun:\"table:entries,alias:e\"`\n\
               Key string `bun:\"idempotency_key,unique\"`\n\
               ReqHash string `json:\"h\" bun:\"request_hash\"`\n\
             }\n\
             func RequestHash(in any) string { return fmt.Sprint(in) }\n\
             func ConstHash(in any) string { return \"x\" }\n\
             func f(e *Entry, in any) bool {\n\
               e.ReqHash = RequestHash(in)\n\
               e.Key = \"\"\n\
               x := Entry{ReqHash: []byte(nil)}\n\
               return e.ReqHash != RequestHash(in) && x.Key != \"\"\n\
             }\n",
        );
        let cols: Vec<_> = r
            .columns
            .iter()
            .map(|c| (c.table.as_str(), c.field.as_str(), c.column.as_str()))
            .collect();
        assert_eq!(cols.len(), 2);
        assert!(
            cols.contains(&("entries", "ReqHash", "request_hash")),
            "{cols:?}"
        );
        let assigns: Vec<_> = r
            .assigns
            .iter()
            .map(|a| (a.field.as_str(), a.value.clone()))
            .collect();
        assert!(
            assigns.contains(&("ReqHash", Assigned::Call("RequestHash".into()))),
            "{assigns:?}"
        );
        // Only fields named for a fingerprint are kept.
        assert!(!assigns.iter().any(|(f, _)| *f == "Key"));
        assert!(assigns.contains(&("ReqHash", Assigned::Empty)));
        let compares: Vec<_> = r.compares.iter().map(|c| c.field.as_str()).collect();
        assert_eq!(compares, ["ReqHash"]);
        let d: Vec<_> = r
            .digests
            .iter()
            .map(|d| (d.name.as_str(), d.reads_params))
            .collect();
        assert!(
            d.contains(&("RequestHash", true)) && d.contains(&("ConstHash", false)),
            "{d:?}"
        );
    }

    #[test]
    fn bun_chains_name_their_table_and_filters() {
        let r = rows(
            "package p\n\
             func f(s *Store, k string) error {\n\
               return s.db.NewSelect().Model(ret).ModelTableExpr(s.rel(\"logs\")).\n\
                 Where(\"idempotency_key = ?\", k).Where(\"ledger = ?\", s.name).Limit(1).Scan(ctx)\n\
             }\n\
             func g(s *Store) error { return s.db.NewSelect().Table(\"logs\").Where(\"id = ?\", 1).Scan(ctx) }\n",
        );
        assert_eq!(r.lookups.len(), 1, "{:?}", r.lookups);
        assert_eq!(r.lookups[0].table, "logs");
        let mut cols = r.lookups[0].columns.clone();
        cols.sort();
        assert_eq!(cols, ["idempotency_key", "ledger"]);
    }
}
