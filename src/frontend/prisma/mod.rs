//! The Prisma front end: a `schema.prisma` (or any `*.prisma` file of a
//! multi-file schema) lowered into the schema facts SQL migrations give
//! ([`SqlFacts`]): each `model` a `CREATE TABLE` of the table Prisma Migrate
//! would create, with its columns and keys (`@id`/`@@id` a primary key,
//! `@unique`/`@@unique` a unique constraint, `@@index` a plain index), so
//! that every schema rule judges a model as it judges the table. Also the
//! client's accessor of each model (`prisma.processedEvent`). Enums are read
//! for their names only; `datasource`, `generator`, `view` and `type` blocks
//! are skipped. How a model joins the migrations Prisma generated from it
//! is the model's work (`model::schema`), not this one's.

pub mod parse;

use crate::facts::store::{
    Column, CreateTable, Key, KeyKind, KeyPart, Name, PrismaModel, SchemaChange, SchemaCode,
    SchemaEvent, SqlFacts,
};
use crate::facts::{FileFacts, Problem};
use crate::knowledge;
use parse::{Attribute, Block, Field, Model, Value};

/// Prisma's scalar types and the PostgreSQL type Prisma Migrate gives each.
const SCALARS: &[(&str, &str)] = &[
    ("String", "TEXT"),
    ("Int", "INTEGER"),
    ("BigInt", "BIGINT"),
    ("Float", "DOUBLE PRECISION"),
    ("Decimal", "DECIMAL(65,30)"),
    ("Boolean", "BOOLEAN"),
    ("DateTime", "TIMESTAMP(3)"),
    ("Json", "JSONB"),
    ("Bytes", "BYTEA"),
    ("Unsupported", "UNSUPPORTED"),
];

/// Parse one Prisma schema file into `facts`.
pub fn parse(text: &str, facts: &mut FileFacts) {
    let blocks = parse::blocks(text);
    let enums: Vec<&str> = blocks
        .iter()
        .filter_map(|b| match b {
            Block::Enum(n) => Some(n.as_str()),
            _ => None,
        })
        .collect();
    let mut sql = SqlFacts::default();
    let mut models = Vec::new();
    for b in &blocks {
        match b {
            Block::Model(m) => {
                let table = create_table(m, &enums);
                let mapped = m
                    .fields
                    .iter()
                    .map(|f| (column_name(f), f.name.clone()))
                    .filter(|(c, f)| c != f)
                    .collect();
                models.push(PrismaModel {
                    accessor: m.name.to_ascii_lowercase(),
                    table: table.name.key.clone(),
                    span: m.name_span,
                    mapped,
                });
                sql.events.push(SchemaEvent {
                    span: m.span,
                    kind: SchemaChange::CreateTable(table),
                });
            }
            Block::Unreadable {
                name,
                span,
                at,
                why,
            } => {
                sql.unparsed += 1;
                let mut p = Problem::invalid(*at, "Prisma schema", why.clone());
                p.reported = may_hold_a_store(name.as_deref(), &text[span.start..span.end]);
                facts.problems.push(p);
            }
            Block::Enum(_) => {}
        }
    }
    sql.prisma = Some(models);
    facts.sql = Some(sql);
}

/// Whether an unreadable model could hold a store: its name or a word of
/// its text names one.
fn may_hold_a_store(name: Option<&str>, text: &str) -> bool {
    let stores = knowledge::stores();
    name.into_iter()
        .chain(text.split(|c: char| !(c.is_alphanumeric() || c == '_')))
        .filter(|w| !w.is_empty())
        .any(|w| {
            let snake = knowledge::snake(w);
            stores.is_store_table(w)
                || stores.is_store_table(&snake)
                || stores.key_column.marks_store.contains(&snake)
        })
}

/// The `@`/`@@` attribute named `name`.
fn attr<'a>(attrs: &'a [Attribute], name: &str) -> Option<&'a Attribute> {
    attrs.iter().find(|a| a.name == name)
}

fn string_arg(a: &Attribute, name: &str) -> Option<String> {
    match a.arg(name, true) {
        Some(Value::Str(s)) => Some(s.clone()),
        _ => None,
    }
}

/// The table a model makes: `@@map` else the model's name, as written
/// (Prisma quotes every identifier), in `@@schema` when one is given.
fn table_name(m: &Model) -> Name {
    let table = attr(&m.attributes, "map").and_then(|a| string_arg(a, "name"));
    let schema = attr(&m.attributes, "schema").and_then(|a| string_arg(a, "name"));
    let text = table.unwrap_or_else(|| m.name.clone());
    let key = match schema.as_deref() {
        Some(s) if s != "public" => format!("{s}.{text}"),
        _ => text.clone(),
    };
    Name {
        text: key.clone(),
        key,
        span: m.name_span,
    }
}

/// Whether a field is a column of its table: a scalar, an enum, or a type
/// of another file that a key or a default names (a relation field has
/// neither). Relation fields (`user User`, `events Event[]`) are not.
fn is_column(f: &Field, enums: &[&str], keyed: &[&str]) -> bool {
    if SCALARS.iter().any(|(s, _)| *s == f.ty) || enums.contains(&f.ty.as_str()) {
        return true;
    }
    if f.list || attr(&f.attributes, "relation").is_some() {
        return false;
    }
    keyed.contains(&f.name.as_str())
        || ["id", "unique", "default"]
            .iter()
            .any(|a| attr(&f.attributes, a).is_some())
}

fn create_table(m: &Model, enums: &[&str]) -> CreateTable {
    let name = table_name(m);
    let field_refs = block_key_fields(m);
    let keyed: Vec<&str> = field_refs.iter().map(String::as_str).collect();
    let fields: Vec<&Field> = m
        .fields
        .iter()
        .filter(|f| is_column(f, enums, &keyed))
        .collect();
    let column_of = |field: &str| -> String {
        fields
            .iter()
            .find(|f| f.name == field)
            .map_or_else(|| field.to_string(), |f| column_name(f))
    };
    let mut columns = Vec::new();
    let mut keys = Vec::new();
    for f in &fields {
        let col = column(f);
        for (a, kind) in [("id", KeyKind::PrimaryKey), ("unique", KeyKind::Unique)] {
            if let Some(at) = attr(&f.attributes, a) {
                let parts = vec![KeyPart::Column(col.name.clone())];
                keys.push(key(&name, kind, at, parts));
            }
        }
        columns.push(col);
    }
    for a in &m.attributes {
        let kind = match a.name.as_str() {
            "id" => KeyKind::PrimaryKey,
            "unique" => KeyKind::Unique,
            "index" => KeyKind::Index,
            _ => continue,
        };
        let parts = key_fields(a)
            .iter()
            .map(|f| KeyPart::Column(column_of(f)))
            .collect();
        keys.push(key(&name, kind, a, parts));
    }
    CreateTable {
        name,
        if_not_exists: false,
        columns,
        keys,
        partition_by: None,
        partition_of: None,
        declared_by: Some(SchemaCode::Prisma),
        fields: Vec::new(),
    }
}

/// The fields a block attribute lists (`@@unique([a, b])`,
/// `@@unique(fields: [a, b(sort: Desc)])`).
fn key_fields(a: &Attribute) -> Vec<String> {
    match a.arg("fields", true) {
        Some(Value::Array(items)) => items
            .iter()
            .filter_map(Value::name)
            .map(str::to_string)
            .collect(),
        _ => Vec::new(),
    }
}

/// Every field the model's `@@id`, `@@unique` and `@@index` list.
fn block_key_fields(m: &Model) -> Vec<String> {
    m.attributes
        .iter()
        .filter(|a| matches!(a.name.as_str(), "id" | "unique" | "index"))
        .flat_map(key_fields)
        .collect()
}

/// A key as Prisma Migrate names it (`map:` else `<table>_pkey`,
/// `<table>_<columns>_key`, `<table>_<columns>_idx`), spanned on its
/// attribute.
fn key(table: &Name, kind: KeyKind, a: &Attribute, parts: Vec<KeyPart>) -> Key {
    let name = match a.arg("map", false) {
        Some(Value::Str(s)) => s.clone(),
        _ => {
            let cols: Vec<&str> = parts.iter().map(KeyPart::text).collect();
            kind.default_name(table.bare(), &cols)
        }
    };
    Key {
        name,
        kind,
        parts,
        predicate: None,
        span: a.span,
    }
}

fn column_name(f: &Field) -> String {
    attr(&f.attributes, "map")
        .and_then(|a| string_arg(a, "name"))
        .unwrap_or_else(|| f.name.clone())
}

/// A field's column: its name, the type Prisma Migrate writes for
/// PostgreSQL (a `@db.*` native type when given), nullability, default.
fn column(f: &Field) -> Column {
    let native = f
        .attributes
        .iter()
        .find_map(|a| a.name.strip_prefix("db.").map(|t| (t, &a.args)));
    let scalar = SCALARS.iter().find(|(s, _)| *s == f.ty).map(|(_, t)| *t);
    let mut ty = match native {
        Some((t, args)) => {
            let args: Vec<String> = args.iter().filter_map(|a| plain(&a.value)).collect();
            if args.is_empty() {
                t.to_ascii_uppercase()
            } else {
                format!("{}({})", t.to_ascii_uppercase(), args.join(","))
            }
        }
        None => scalar.map_or_else(|| format!("\"{}\"", f.ty), str::to_string),
    };
    let default = attr(&f.attributes, "default").and_then(|a| a.arg("value", true));
    let default = match default {
        Some(Value::Call(n, _)) if n == "autoincrement" => {
            ty = if ty == "BIGINT" {
                "BIGSERIAL"
            } else {
                "SERIAL"
            }
            .to_string();
            None
        }
        Some(Value::Call(n, _)) if n == "now" => Some("CURRENT_TIMESTAMP".to_string()),
        Some(Value::Call(n, args)) if n == "dbgenerated" => match args.first().map(|a| &a.value) {
            Some(Value::Str(s)) => Some(s.clone()),
            _ => Some("dbgenerated()".to_string()),
        },
        // `uuid()`, `cuid()`, `nanoid()`, `ulid()`: minted by the client
        // for each row, as a database default would be.
        Some(Value::Call(n, _)) => Some(format!("{n}()")),
        Some(Value::Str(s)) => Some(format!("'{s}'")),
        Some(v) => plain(v),
        None => None,
    };
    Column {
        name: column_name(f),
        span: f.span,
        ty,
        not_null: !f.optional,
        default,
        generated: None,
    }
}

/// A number or a name as written.
fn plain(v: &Value) -> Option<String> {
    match v {
        Value::Num(n) | Value::Ident(n) => Some(n.clone()),
        _ => None,
    }
}

#[cfg(test)]
mod tests;
