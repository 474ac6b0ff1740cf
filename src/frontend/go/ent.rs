//! ent schemas (entgo.io): a struct that embeds `ent.Schema` is a table,
//! lowered into the schema facts SQL migrations give ([`SqlFacts`]), as a
//! Prisma model or a Django model is. Read: `Fields()` (`field.String("key")`
//! and the other builders, `.StorageKey(..)` for the column, `.Unique()`,
//! `.Optional()`/`.Nillable()`, `.SchemaType(..)`), `Indexes()`
//! (`index.Fields(..)`, `.Unique()`, `.StorageKey(..)`,
//! `.Annotations(entsql.IndexWhere(..))`) and the table's name
//! (`entsql.Annotation{Table: ..}` in `Annotations()`, else ent's default:
//! the type in snake case, plural). Not read: mixins (`Mixin()`: their
//! fields and indexes are in other packages), edges, and an index over an
//! edge (`.Edges(..)`, whose column ent chooses).

use super::syntax::{args, named, path_of, span, string_value, text};
use crate::facts::store::{
    Column, CreateTable, Key, KeyKind, Name, SchemaChange, SchemaCode, SchemaEvent, SqlFacts,
};
use crate::source::Span;
use std::collections::HashMap;
use tree_sitter::Node;

/// Most tables read from one file: beyond this the file is generated.
const MAX_TABLES: usize = 500;

/// One schema type's methods, as read.
#[derive(Default)]
struct Schema<'t> {
    at: Option<Span>,
    fields: Option<Node<'t>>,
    indexes: Option<Node<'t>>,
    annotations: Option<Node<'t>>,
}

/// Whether a file may declare an ent schema: it imports ent's schema
/// builders. Cheap, before any tree is walked.
pub fn may_declare(src: &str) -> bool {
    src.contains("entgo.io/ent/schema/") && src.contains("ent.Schema")
}

/// The tables the file's ent schemas declare; `None` when none.
pub fn read(root: Node, src: &str) -> Option<SqlFacts> {
    if !may_declare(src) {
        return None;
    }
    let mut schemas: HashMap<String, Schema> = HashMap::new();
    for n in named(root) {
        match n.kind() {
            "type_declaration" => {
                for (name, at) in schema_types(n, src) {
                    schemas.entry(name).or_default().at = Some(at);
                }
            }
            "method_declaration" => method(n, src, &mut schemas),
            _ => {}
        }
    }
    let mut events: Vec<SchemaEvent> = schemas
        .iter()
        .filter_map(|(name, s)| Some(table(name, s.at?, s, src)))
        .collect();
    if events.is_empty() {
        return None;
    }
    events.sort_by_key(|e| e.span.start);
    events.truncate(MAX_TABLES);
    Some(SqlFacts {
        events,
        ..SqlFacts::default()
    })
}

/// `type X struct { ent.Schema }`: each such type's name and span.
fn schema_types(decl: Node, src: &str) -> Vec<(String, Span)> {
    let mut out = Vec::new();
    for spec in named(decl).into_iter().filter(|s| s.kind() == "type_spec") {
        let (Some(name), Some(ty)) = (
            spec.child_by_field_name("name"),
            spec.child_by_field_name("type"),
        ) else {
            continue;
        };
        let embeds = ty.kind() == "struct_type"
            && text(ty, src)
                .split(['{', '}', '\n', ';'])
                .any(|l| l.trim() == "ent.Schema");
        if embeds {
            out.push((text(name, src).to_string(), span(name)));
        }
    }
    out
}

/// `func (X) Fields() []ent.Field { return []ent.Field{..} }`: the list.
fn method<'t>(m: Node<'t>, src: &str, schemas: &mut HashMap<String, Schema<'t>>) {
    let (Some(recv), Some(name), Some(body)) = (
        m.child_by_field_name("receiver"),
        m.child_by_field_name("name"),
        m.child_by_field_name("body"),
    ) else {
        return;
    };
    let Some(ty) = named(recv)
        .into_iter()
        .find_map(|p| p.child_by_field_name("type"))
    else {
        return;
    };
    let ty = super::syntax::type_name(ty, src);
    let Some(list) = returned_list(body) else {
        return;
    };
    let s = schemas.entry(ty).or_default();
    match text(name, src) {
        "Fields" => s.fields = Some(list),
        "Indexes" => s.indexes = Some(list),
        "Annotations" => s.annotations = Some(list),
        _ => {}
    }
}

/// The literal's body a function returns (`return []ent.Field{..}`).
fn returned_list(body: Node) -> Option<Node> {
    let list = named(body)
        .into_iter()
        .find(|c| c.kind() == "statement_list")
        .unwrap_or(body);
    let ret = named(list)
        .into_iter()
        .find(|n| n.kind() == "return_statement")?;
    let lit = named(ret).into_iter().find_map(|e| {
        let e = if e.kind() == "expression_list" {
            named(e).into_iter().next()?
        } else {
            e
        };
        (e.kind() == "composite_literal").then_some(e)
    })?;
    lit.child_by_field_name("body")
}

/// The elements of a literal's body.
fn elements(body: Node) -> Vec<Node> {
    named(body)
        .into_iter()
        .filter(|e| e.kind() != "comment")
        .map(|e| {
            if e.kind() == "literal_element" {
                named(e).into_iter().next().unwrap_or(e)
            } else {
                e
            }
        })
        .collect()
}

/// A builder chain (`index.Fields("a").Annotations(..).Unique()`): its root
/// call's path and arguments, then each method with its arguments, in the
/// written order.
type Chain<'t> = (Vec<String>, Vec<Node<'t>>, Vec<(String, Vec<Node<'t>>)>);

fn chain<'t>(mut n: Node<'t>, src: &str) -> Option<Chain<'t>> {
    let mut methods = Vec::new();
    for _ in 0..64 {
        if n.kind() != "call_expression" {
            return None;
        }
        let f = n.child_by_field_name("function")?;
        if f.kind() == "selector_expression" {
            let operand = f.child_by_field_name("operand")?;
            if operand.kind() == "call_expression" {
                let field = text(f.child_by_field_name("field")?, src).to_string();
                methods.push((field, args(n)));
                n = operand;
                continue;
            }
        }
        methods.reverse();
        return Some((path_of(f, src)?, args(n), methods));
    }
    None
}

/// The first string argument of a method of the chain.
fn method_string(methods: &[(String, Vec<Node>)], name: &str, src: &str) -> Option<String> {
    methods
        .iter()
        .find(|(m, _)| m == name)
        .and_then(|(_, a)| a.first())
        .and_then(|a| string_value(*a, src))
}

/// ent's default table name: the type in snake case, plural
/// (`ChargeCreditPurchase` → `charge_credit_purchases`).
fn default_table(ty: &str) -> String {
    let s = crate::knowledge::snake(ty);
    if let Some(stem) = s
        .strip_suffix('y')
        .filter(|st| !st.ends_with(['a', 'e', 'i', 'o', 'u']))
    {
        format!("{stem}ies")
    } else if s.ends_with(['s', 'x', 'z']) || s.ends_with("ch") || s.ends_with("sh") {
        format!("{s}es")
    } else {
        format!("{s}s")
    }
}

/// `entsql.Annotation{Table: "x"}` among a schema's annotations.
fn annotated_table(list: Node, src: &str) -> Option<(String, Span)> {
    for e in elements(list) {
        if e.kind() != "composite_literal" {
            continue;
        }
        let ty = e.child_by_field_name("type").map(|t| text(t, src));
        if !ty.is_some_and(|t| t.ends_with("Annotation")) {
            continue;
        }
        for kv in named(e.child_by_field_name("body")?) {
            if kv.kind() != "keyed_element" {
                continue;
            }
            let (Some(k), Some(v)) = (
                kv.child_by_field_name("key"),
                kv.child_by_field_name("value"),
            ) else {
                continue;
            };
            if text(k, src) == "Table" {
                return string_value(v, src).map(|s| (s, span(v)));
            }
        }
    }
    None
}

fn table(ty: &str, at: Span, s: &Schema, src: &str) -> SchemaEvent {
    let (text_name, name_at) = s
        .annotations
        .and_then(|a| annotated_table(a, src))
        .unwrap_or_else(|| (default_table(ty), at));
    let table = text_name.to_ascii_lowercase();
    let mut columns = Vec::new();
    let mut keys = Vec::new();
    for f in s.fields.map(elements).unwrap_or_default() {
        if let Some((c, unique)) = field(f, src) {
            if unique {
                keys.push(Key::over_columns(
                    &table,
                    KeyKind::Unique,
                    vec![c.name.clone()],
                    None,
                    c.span,
                ));
            }
            columns.push(c);
        }
    }
    for i in s.indexes.map(elements).unwrap_or_default() {
        if let Some(k) = index(ty, &table, i, src) {
            keys.push(k);
        }
    }
    SchemaEvent {
        span: at,
        kind: SchemaChange::CreateTable(CreateTable {
            name: Name {
                text: text_name,
                key: table,
                span: name_at,
            },
            if_not_exists: false,
            columns,
            keys,
            partition_by: None,
            partition_of: None,
            declared_by: Some(SchemaCode::Ent),
            fields: Vec::new(),
        }),
    }
}

/// `field.String("key").Optional().Unique()`: the column, and whether the
/// field is unique.
fn field(f: Node, src: &str) -> Option<(Column, bool)> {
    let (path, root_args, methods) = chain(f, src)?;
    let [pkg, builder] = path.as_slice() else {
        return None;
    };
    if pkg != "field" {
        return None;
    }
    let first = *root_args.first()?;
    let declared = string_value(first, src)?;
    let name = method_string(&methods, "StorageKey", src).unwrap_or(declared);
    let has = |m: &str| methods.iter().any(|(x, _)| x == m);
    let schema_type = methods
        .iter()
        .find(|(m, _)| m == "SchemaType")
        .and_then(|(_, a)| a.first())
        .and_then(|m| {
            let b = m.child_by_field_name("body")?;
            let v = named(b).into_iter().find(|e| e.kind() == "keyed_element")?;
            string_value(v.child_by_field_name("value")?, src)
        });
    let ty = schema_type.map_or_else(
        || builder_type(builder).to_string(),
        |t| t.to_ascii_uppercase(),
    );
    let column = Column {
        name: name.to_ascii_lowercase(),
        span: span(first),
        ty,
        not_null: !has("Optional") && !has("Nillable"),
        default: None,
        generated: None,
    };
    Some((column, has("Unique")))
}

/// The SQL type PostgreSQL gives a field builder's column.
fn builder_type(builder: &str) -> &'static str {
    match builder {
        "String" | "Text" | "Enum" => "VARCHAR",
        "Bool" => "BOOLEAN",
        "Time" => "TIMESTAMPTZ",
        "Float" | "Float32" => "DOUBLE PRECISION",
        "JSON" => "JSONB",
        "UUID" => "UUID",
        "Bytes" => "BYTEA",
        b if b.starts_with("Int") || b.starts_with("Uint") => "BIGINT",
        _ => "",
    }
}

/// `index.Fields("namespace", "key").Annotations(entsql.IndexWhere("..")).Unique()`.
fn index(ty: &str, table: &str, i: Node, src: &str) -> Option<Key> {
    let (path, root_args, methods) = chain(i, src)?;
    if path != ["index", "Fields"] || methods.iter().any(|(m, _)| m == "Edges") {
        return None;
    }
    let cols: Vec<String> = root_args
        .iter()
        .map(|a| string_value(*a, src).map(|s| s.to_ascii_lowercase()))
        .collect::<Option<_>>()?;
    if cols.is_empty() {
        return None;
    }
    let unique = methods.iter().any(|(m, _)| m == "Unique");
    let given = method_string(&methods, "StorageKey", src)
        .unwrap_or_else(|| format!("{}_{}", ty.to_ascii_lowercase(), cols.join("_")));
    let predicate = methods
        .iter()
        .filter(|(m, _)| m == "Annotations")
        .flat_map(|(_, a)| a.iter())
        .find_map(|a| {
            let (p, w, _) = chain(*a, src)?;
            (p.last().map(String::as_str) == Some("IndexWhere"))
                .then(|| string_value(*w.first()?, src))
                .flatten()
        });
    let kind = if unique {
        KeyKind::Unique
    } else {
        KeyKind::Index
    };
    let mut k = Key::over_columns(table, kind, cols, Some(given), span(i));
    k.predicate = predicate;
    Some(k)
}

#[cfg(test)]
mod tests {
    use crate::facts::store::{KeyKind, SchemaChange};
    use crate::source::FileKind;

    #[test]
    fn ent_schemas_are_tables_with_their_fields_and_indexes() {
        let src = "package schema\n\
            import (\"entgo.io/ent\"; \"entgo.io/ent/schema/field\"; \"entgo.io/ent/schema/index\")\n\
            type CreditPurchase struct {\n\tent.Schema\n}\n\
            func (CreditPurchase) Fields() []ent.Field {\n\
              return []ent.Field{\n\
                field.String(\"namespace\"),\n\
                field.String(\"key\").Optional().Nillable(),\n\
                field.String(\"ref\").StorageKey(\"external_ref\").Unique(),\n\
                field.Time(\"deleted_at\").Optional(),\n\
              }\n\
            }\n\
            func (CreditPurchase) Indexes() []ent.Index {\n\
              return []ent.Index{\n\
                index.Fields(\"namespace\", \"key\").\n\
                  Annotations(entsql.IndexWhere(\"key IS NOT NULL\")).\n\
                  Unique(),\n\
                index.Fields(\"namespace\").StorageKey(\"cp_ns\"),\n\
                index.Fields(\"namespace\").Edges(\"owner\"),\n\
              }\n\
            }\n\
            type Entry struct {\n\tent.Schema\n}\n\
            func (Entry) Annotations() []schema.Annotation {\n\
              return []schema.Annotation{entsql.Annotation{Table: \"ledger_entries\"}}\n\
            }\n";
        let f = crate::frontend::parse(0, FileKind::Go, src);
        let events = f.sql.expect("tables").events;
        let tables: Vec<_> = events
            .iter()
            .filter_map(|e| match &e.kind {
                SchemaChange::CreateTable(t) => Some(t),
                _ => None,
            })
            .collect();
        assert_eq!(tables.len(), 2);
        let t = tables[0];
        assert_eq!(t.name.key, "credit_purchases");
        let cols: Vec<_> = t
            .columns
            .iter()
            .map(|c| (c.name.as_str(), c.ty.as_str(), c.not_null))
            .collect();
        assert_eq!(
            cols,
            [
                ("namespace", "VARCHAR", true),
                ("key", "VARCHAR", false),
                ("external_ref", "VARCHAR", true),
                ("deleted_at", "TIMESTAMPTZ", false),
            ]
        );
        let keys: Vec<_> = t
            .keys
            .iter()
            .map(|k| {
                (
                    k.name.as_str(),
                    k.kind,
                    k.parts_text(),
                    k.predicate.as_deref(),
                )
            })
            .collect();
        assert_eq!(
            keys,
            [
                (
                    "credit_purchases_external_ref_key",
                    KeyKind::Unique,
                    "external_ref".to_string(),
                    None
                ),
                (
                    "creditpurchase_namespace_key",
                    KeyKind::Unique,
                    "namespace, key".to_string(),
                    Some("key IS NOT NULL")
                ),
                ("cp_ns", KeyKind::Index, "namespace".to_string(), None),
            ]
        );
        assert_eq!(tables[1].name.key, "ledger_entries");
    }

    #[test]
    fn plural_table_names_follow_ent() {
        for (ty, table) in [
            ("BillingInvoiceLine", "billing_invoice_lines"),
            ("Entity", "entities"),
            ("Key", "keys"),
            ("Batch", "batches"),
        ] {
            assert_eq!(super::default_table(ty), table);
        }
    }
}
