//! Drizzle ORM: `pgTable("processed_events", { .. }, (t) => ..)` (and
//! `mysqlTable`, `sqliteTable`, `pgSchema("x").table(..)`) as a table, and
//! the query builder's calls (`db.insert(t).values(..)`,
//! `.onConflictDoNothing()`, `db.select().from(t)`, `db.update(t)`,
//! `db.delete(t)`, `db.query.t.findFirst(..)`) as statements on it.

use super::{call_chain, callee_name, chain, column, default_text, returned, Table};
use crate::facts::flow::StepKind;
use crate::facts::store::{Dml, DmlKind, KeyKind, SchemaCode};
use crate::frontend::ts::syntax::{self, bare, span, span_of};
use crate::knowledge;
use oxc_ast::ast::{CallExpression, Expression, ObjectExpression, ObjectPropertyKind};

/// The functions that declare a table.
const TABLE_FNS: &[&str] = &["pgTable", "mysqlTable", "sqliteTable", "singlestoreTable"];

/// The functions that declare a schema whose `.table(..)` declares a table.
const SCHEMA_FNS: &[&str] = &["pgSchema", "mysqlSchema"];

/// Names a Drizzle database or transaction goes by: any holding `db`
/// (`db`, `this.db`, `ctx.db`, `drizzleDb`), and these.
const CLIENTS: &[&str] = &["tx", "trx", "transaction", "drizzle", "database"];

/// A column builder's methods that change the column it builds.
const MODIFIERS: &[&str] = &[
    "notNull",
    "primaryKey",
    "unique",
    "default",
    "defaultNow",
    "defaultRandom",
    "$defaultFn",
    "$default",
    "$type",
    "$onUpdate",
    "references",
    "array",
    "autoincrement",
];

/// Relational queries (`db.query.processedEvents.findFirst(..)`).
const QUERY_METHODS: &[&str] = &["findFirst", "findMany"];

/// `pgSchema("billing")`: the schema's name.
pub(super) fn schema_call(call: &CallExpression) -> Option<String> {
    let (name, _) = callee_name(call)?;
    if !SCHEMA_FNS.contains(&name.as_str()) {
        return None;
    }
    syntax::arg(call, 0).and_then(syntax::string_value)
}

/// A table declaration: its name, columns, and the keys its columns and
/// its third argument declare.
pub(super) fn table(call: &CallExpression, schemas: &[(String, String)]) -> Option<Table> {
    let schema = table_schema(call, schemas)?;
    let name_arg = syntax::arg(call, 0)?;
    let name = syntax::string_value(name_arg)?;
    let cols = match syntax::arg(call, 1).map(bare) {
        Some(Expression::ObjectExpression(o)) => Some(&**o),
        Some(e) => match returned(e).map(bare) {
            Some(Expression::ObjectExpression(o)) => Some(&**o),
            _ => None,
        },
        None => None,
    }?;
    let mut t = Table::new(
        SchemaCode::Drizzle,
        &name,
        schema.as_deref(),
        span_of(name_arg),
        span(call.span),
    );
    let fields = columns(&mut t, cols);
    t.fields.clone_from(&fields);
    if let Some(extra) = syntax::arg(call, 2).and_then(returned) {
        extra_keys(&mut t, extra, &fields);
    }
    Some(t)
}

/// `Some(schema)` when the call declares a table: `None` inside for a
/// table of the default schema.
fn table_schema(call: &CallExpression, schemas: &[(String, String)]) -> Option<Option<String>> {
    let callee = bare(&call.callee);
    if let Expression::Identifier(id) = callee {
        return TABLE_FNS.contains(&id.name.as_str()).then_some(None);
    }
    let m = callee.as_member_expression()?;
    if m.static_property_name()? != "table" {
        return None;
    }
    match bare(m.object()) {
        Expression::CallExpression(c) => schema_call(c).map(Some),
        Expression::Identifier(id) => schemas
            .iter()
            .find(|(v, _)| id.name == v.as_str())
            .map(|(_, s)| Some(s.clone())),
        _ => None,
    }
}

/// The columns of the second argument, with their own keys
/// (`.primaryKey()`, `.unique()`); gives (property, column) of each.
fn columns(t: &mut Table, cols: &ObjectExpression) -> Vec<(String, String)> {
    let mut fields = Vec::new();
    for p in &cols.properties {
        let ObjectPropertyKind::ObjectProperty(p) = p else {
            continue;
        };
        let Some(prop) = syntax::key_name(&p.key) else {
            continue;
        };
        let Some((root, mut methods)) = chain(&p.value) else {
            continue;
        };
        let Some((mut ty, at)) = callee_name(root) else {
            continue;
        };
        let mut name = syntax::arg(root, 0).and_then(syntax::string_value);
        if let Some(&modifier) = MODIFIERS.iter().find(|m| **m == ty.as_str()) {
            // `status: statusEnum.notNull()`: a builder kept in a variable;
            // the root call is already a modifier of it.
            let Some(builder) = bare(&root.callee)
                .as_member_expression()
                .and_then(|m| syntax::path_of(m.object()))
                .and_then(|mut p| p.pop())
            else {
                continue;
            };
            methods.insert(0, (modifier, at, root));
            ty = builder;
            name = None;
        }
        let name = name.unwrap_or_else(|| prop.clone());
        let mut c = column(name.clone(), span_of(&p.key), sql_type(&ty));
        c.not_null = ty.ends_with("serial");
        for (m, at, call) in &methods {
            match *m {
                "notNull" => c.not_null = true,
                "primaryKey" => {
                    c.not_null = true;
                    t.key(KeyKind::PrimaryKey, vec![name.clone()], None, *at);
                }
                "unique" => {
                    let named = syntax::arg(call, 0).and_then(syntax::string_value);
                    t.key(KeyKind::Unique, vec![name.clone()], named, *at);
                }
                "default" => c.default = syntax::arg(call, 0).map(default_text),
                "defaultNow" => c.default = Some("now()".to_string()),
                "defaultRandom" => c.default = Some("gen_random_uuid()".to_string()),
                "$defaultFn" | "$default" => {
                    c.default = syntax::arg(call, 0)
                        .and_then(returned)
                        .map(default_text)
                        .or_else(|| Some("$defaultFn()".to_string()));
                }
                _ => {}
            }
        }
        if !t.column_named(&name) {
            t.columns.push(c);
        }
        fields.push((prop, name));
    }
    fields
}

/// A Drizzle column builder's SQL type: `varchar` → `VARCHAR`,
/// `doublePrecision` → `DOUBLE PRECISION`.
fn sql_type(builder: &str) -> String {
    match builder {
        "int" => "INTEGER".to_string(),
        "timestamptz" => "TIMESTAMPTZ".to_string(),
        b => knowledge::snake(b).replace('_', " ").to_ascii_uppercase(),
    }
}

/// The keys of the third argument: an object of builders (`{ byEvent:
/// uniqueIndex("x").on(t.eventId) }`) or, since Drizzle 0.36, an array.
fn extra_keys(t: &mut Table, extra: &Expression, fields: &[(String, String)]) {
    let items: Vec<&Expression> = match bare(extra) {
        Expression::ObjectExpression(o) => o
            .properties
            .iter()
            .filter_map(|p| match p {
                ObjectPropertyKind::ObjectProperty(p) => Some(&p.value),
                ObjectPropertyKind::SpreadProperty(_) => None,
            })
            .collect(),
        Expression::ArrayExpression(a) => a
            .elements
            .iter()
            .filter_map(|e| e.as_expression())
            .collect(),
        _ => Vec::new(),
    };
    for item in items {
        let Some((root, methods)) = chain(item) else {
            continue;
        };
        let Some((builder, at)) = callee_name(root) else {
            continue;
        };
        let kind = match builder.as_str() {
            "uniqueIndex" | "unique" => KeyKind::Unique,
            "index" => KeyKind::Index,
            "primaryKey" => KeyKind::PrimaryKey,
            _ => continue,
        };
        let named = syntax::arg(root, 0).and_then(syntax::string_value);
        let mut refs: Vec<&Expression> = Vec::new();
        if kind == KeyKind::PrimaryKey {
            refs.extend(pk_columns(root));
        }
        let mut partial = false;
        for (m, _, call) in &methods {
            match *m {
                "on" | "onOnly" => {
                    refs.extend(call.arguments.iter().filter_map(|a| a.as_expression()))
                }
                "where" => partial = true,
                _ => {}
            }
        }
        let Some(cols) = refs.iter().map(|e| column_ref(e, fields)).collect() else {
            continue;
        };
        let name = if kind == KeyKind::PrimaryKey {
            pk_name(root)
        } else {
            named
        };
        t.key(kind, cols, name, at);
        if partial {
            t.last_partial();
        }
    }
}

/// `primaryKey({ columns: [t.a, t.b] })` or the older `primaryKey(t.a, t.b)`.
fn pk_columns<'b, 'a>(call: &'b CallExpression<'a>) -> Vec<&'b Expression<'a>> {
    if let Some(Expression::ObjectExpression(o)) = syntax::arg(call, 0).map(bare) {
        return match syntax::prop(o, "columns").map(bare) {
            Some(Expression::ArrayExpression(a)) => a
                .elements
                .iter()
                .filter_map(|e| e.as_expression())
                .collect(),
            _ => Vec::new(),
        };
    }
    call.arguments
        .iter()
        .filter_map(|a| a.as_expression())
        .collect()
}

fn pk_name(call: &CallExpression) -> Option<String> {
    match syntax::arg(call, 0).map(bare) {
        Some(Expression::ObjectExpression(o)) => {
            syntax::prop(o, "name").and_then(syntax::string_value)
        }
        _ => None,
    }
}

/// `t.eventId` as the column its property declares.
fn column_ref(e: &Expression, fields: &[(String, String)]) -> Option<String> {
    let path = syntax::path_of(e)?;
    Some(super::column_of(path.last()?, fields))
}

/// A query builder's statement: the chain from `db.insert(t)`,
/// `db.update(t)`, `db.delete(t)` or `db.select(..).from(t)` to the call
/// given, or a relational query. The table is its variable's name in
/// snake case, as the schema's alias records it.
pub(super) fn step(call: &CallExpression) -> Option<StepKind> {
    if let Some(k) = relational(call) {
        return Some(k);
    }
    let (root, methods) = call_chain(call);
    let callee = bare(&root.callee);
    let m = callee.as_member_expression()?;
    let verb = m.static_property_name()?;
    let receiver = syntax::path_of(m.object())?;
    let conn = receiver.last()?;
    if !is_client(conn) {
        return None;
    }
    let has = |name: &str| {
        methods
            .iter()
            .find(|(m, _, _)| *m == name)
            .map(|(_, _, c)| *c)
    };
    let (mut kind, table_arg) = match verb {
        "insert" if has("values").is_some() => (DmlKind::Insert, syntax::arg(root, 0)?),
        "update" if has("set").is_some() => (DmlKind::Update, syntax::arg(root, 0)?),
        "delete" => (DmlKind::Delete, syntax::arg(root, 0)?),
        "select" | "selectDistinct" | "selectDistinctOn" => {
            (DmlKind::Read, syntax::arg(has("from")?, 0)?)
        }
        _ => return None,
    };
    let table = syntax::path_of(table_arg)?.pop()?;
    let mut conflict = thin_vec::ThinVec::new();
    if kind == DmlKind::Insert {
        if let Some(c) = has("onConflictDoNothing") {
            kind = DmlKind::InsertDoNothing;
            conflict = target(c);
        } else if let Some(c) = has("onConflictDoUpdate") {
            kind = DmlKind::Upsert;
            conflict = target(c);
        } else if has("onDuplicateKeyUpdate").is_some() {
            kind = DmlKind::Upsert;
        } else if has("ignore").is_some() {
            kind = DmlKind::InsertDoNothing;
        }
    }
    Some(StepKind::Sql {
        dml: Dml {
            kind,
            table: knowledge::snake(&table),
            conflict,
        },
        conn: Some(conn.clone()),
    })
}

/// Whether a receiver's last name is a Drizzle database or transaction.
fn is_client(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    lower.contains("db") || CLIENTS.contains(&lower.as_str())
}

/// `db.query.processedEvents.findFirst(..)`: a read.
fn relational(call: &CallExpression) -> Option<StepKind> {
    let path = syntax::path_of(&call.callee)?;
    let [.., client, query, table, method] = path.as_slice() else {
        return None;
    };
    if query != "query" || !QUERY_METHODS.contains(&method.as_str()) || !is_client(client) {
        return None;
    }
    Some(StepKind::Sql {
        dml: Dml::new(DmlKind::Read, knowledge::snake(table)),
        conn: Some(client.clone()),
    })
}

/// `onConflictDoNothing({ target: t.eventId })` or `{ target: [t.a, t.b] }`:
/// the columns, each property in snake case (Drizzle's usual naming).
fn target(call: &CallExpression) -> thin_vec::ThinVec<String> {
    let Some(Expression::ObjectExpression(o)) = syntax::arg(call, 0).map(bare) else {
        return thin_vec::ThinVec::new();
    };
    let Some(t) = syntax::prop(o, "target") else {
        return thin_vec::ThinVec::new();
    };
    let items: Vec<&Expression> = match bare(t) {
        Expression::ArrayExpression(a) => a
            .elements
            .iter()
            .filter_map(|e| e.as_expression())
            .collect(),
        e => vec![e],
    };
    items
        .iter()
        .filter_map(|e| syntax::path_of(e)?.pop())
        .map(|p| knowledge::snake(&p))
        .collect()
}
