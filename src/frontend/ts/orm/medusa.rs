//! Medusa's data-model language (DML): `model.define("notification", {
//! .. })` (or `model.define({ name, tableName }, { .. })`), optionally
//! followed by `.indexes([{ on: [..], unique: true }])`, as a table. Its
//! name is the first argument as written (Medusa's MikroORM naming keeps
//! it); its properties are columns built by `model.text()`,
//! `model.id()`, `model.number()` and the like, not null unless
//! `.nullable()`, with `.primaryKey()`, `.unique()` and `.index()` as
//! keys, and the `created_at`, `updated_at`, `deleted_at` columns Medusa
//! adds. Relations (`model.belongsTo(..)`, `hasMany`, ..) are not read.
//!
//! Medusa makes a `.unique()` index partial on `deleted_at IS NULL` (a
//! soft-deleted row frees its key); it is read as a whole-table key, since
//! a soft-deleted row is no replay of a live one, and so is an index of
//! `.indexes(..)` whose `where` is that filter.

use super::{call_chain, column, default_text, strings, Chain, Table};
use crate::facts::store::{KeyKind, SchemaCode};
use crate::frontend::ts::syntax::{self, bare, span, span_of};
use oxc_ast::ast::{CallExpression, Expression, ObjectExpression, ObjectPropertyKind};

/// DML column builders and the SQL type Medusa gives each.
const TYPES: &[(&str, &str)] = &[
    ("id", "TEXT"),
    ("text", "TEXT"),
    ("enum", "TEXT"),
    ("number", "INTEGER"),
    ("float", "REAL"),
    ("bigNumber", "NUMERIC"),
    ("autoincrement", "SERIAL"),
    ("boolean", "BOOLEAN"),
    ("dateTime", "TIMESTAMPTZ"),
    ("json", "JSONB"),
    ("array", "TEXT[]"),
];

/// The table a DML chain declares: the call given is `model.define(..)`
/// or a method chained after it (`.indexes(..)`, `.cascades(..)`).
pub(super) fn define(call: &CallExpression) -> Option<Table> {
    let (root, methods): Chain = call_chain(call);
    let m = bare(&root.callee).as_member_expression()?;
    if m.static_property_name()? != "define" || syntax::path_of(m.object())? != ["model"] {
        return None;
    }
    let first = syntax::arg(root, 0)?;
    let (name, at) = match bare(first) {
        Expression::ObjectExpression(o) => {
            let e = syntax::prop(o, "tableName").or_else(|| syntax::prop(o, "name"))?;
            (syntax::string_value(e)?, span_of(e))
        }
        e => (syntax::string_value(e)?, span_of(e)),
    };
    let Some(Expression::ObjectExpression(props)) = syntax::arg(root, 1).map(bare) else {
        return None;
    };
    let mut t = Table::new(SchemaCode::Medusa, &name, None, at, span(call.span));
    columns(&mut t, props);
    for stamp in ["created_at", "updated_at", "deleted_at"] {
        if !t.column_named(stamp) {
            let mut c = column(stamp.to_string(), at, "TIMESTAMPTZ".to_string());
            c.not_null = stamp != "deleted_at";
            t.columns.push(c);
        }
    }
    for (method, _, c) in &methods {
        if *method == "indexes" {
            indexes(&mut t, syntax::arg(c, 0));
        }
    }
    Some(t)
}

/// The properties built by `model.<type>()` chains, as columns and keys.
fn columns(t: &mut Table, props: &ObjectExpression) {
    for p in &props.properties {
        let ObjectPropertyKind::ObjectProperty(p) = p else {
            continue;
        };
        let Some(name) = syntax::key_name(&p.key) else {
            continue;
        };
        let Expression::CallExpression(call) = bare(&p.value) else {
            continue;
        };
        let (root, methods) = call_chain(call);
        let Some(ty) = builder_type(root) else {
            continue;
        };
        let mut c = column(name.clone(), span_of(&p.key), ty.to_string());
        c.not_null = true;
        for (m, at, call) in &methods {
            match *m {
                "nullable" => c.not_null = false,
                "primaryKey" => t.key(KeyKind::PrimaryKey, vec![name.clone()], None, *at),
                "unique" => {
                    let named = syntax::arg(call, 0).and_then(syntax::string_value);
                    t.key(KeyKind::Unique, vec![name.clone()], named, *at);
                }
                "index" => {
                    let named = syntax::arg(call, 0).and_then(syntax::string_value);
                    t.key(KeyKind::Index, vec![name.clone()], named, *at);
                }
                "default" => c.default = syntax::arg(call, 0).map(default_text),
                _ => {}
            }
        }
        if !t.column_named(&name) {
            t.columns.push(c);
        }
    }
}

/// `model.text()`: the SQL type of a DML builder, `None` for a relation
/// or any other call.
fn builder_type(root: &CallExpression) -> Option<&'static str> {
    let m = bare(&root.callee).as_member_expression()?;
    if syntax::path_of(m.object())? != ["model"] {
        return None;
    }
    let name = m.static_property_name()?;
    TYPES.iter().find(|(b, _)| *b == name).map(|(_, ty)| *ty)
}

/// `.indexes([{ on: ["a", "b"], unique: true, where: ".." }, ..])`.
fn indexes(t: &mut Table, list: Option<&Expression>) {
    let Some(Expression::ArrayExpression(a)) = list.map(bare) else {
        return;
    };
    for el in a.elements.iter().filter_map(|e| e.as_expression()) {
        let Expression::ObjectExpression(o) = bare(el) else {
            continue;
        };
        let Some(on) = syntax::prop(o, "on") else {
            continue;
        };
        let kind = if super::is_true(syntax::prop(o, "unique")) {
            KeyKind::Unique
        } else {
            KeyKind::Index
        };
        let named = syntax::prop(o, "name").and_then(syntax::string_value);
        t.key(kind, strings(on), named, span_of(el));
        let filter = syntax::prop(o, "where");
        if filter.is_some_and(|w| !soft_delete(w)) {
            t.last_partial();
        }
    }
}

/// `where: "deleted_at IS NULL"`: the soft-delete filter Medusa puts on
/// its own unique indexes; it leaves out no live row.
fn soft_delete(e: &Expression) -> bool {
    syntax::string_value(e).is_some_and(|w| {
        let w = w.to_ascii_lowercase();
        w.split_whitespace().collect::<Vec<_>>() == ["deleted_at", "is", "null"]
    })
}
