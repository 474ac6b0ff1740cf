//! Sequelize: `sequelize.define("ProcessedEvent", { .. }, { .. })` and
//! `ProcessedEvent.init({ .. }, { sequelize, .. })` as a table: its name
//! `tableName`, else the model's name (plural unless `freezeTableName`),
//! its attributes as columns (`field`, `allowNull`, `primaryKey`,
//! `unique`, `defaultValue`, `autoIncrement`; `underscored` names them in
//! snake case), the `id` Sequelize adds when no attribute is a primary
//! key, and `indexes: [{ unique: true, fields: [..] }]`.

use super::{column, default_text, strings, Table};
use crate::facts::store::{Column, KeyKind, SchemaCode};
use crate::frontend::ts::syntax::{self, bare, span, span_of};
use crate::knowledge;
use crate::source::Span;
use oxc_ast::ast::{CallExpression, Expression, ObjectExpression, ObjectPropertyKind};

/// Namespaces a Sequelize data type is reached through.
const TYPE_ROOTS: &[&str] = &["DataTypes", "Sequelize", "DataType"];

/// `sequelize.define("Model", attributes, options)`.
pub(super) fn define(call: &CallExpression, bound: Option<&str>) -> Option<Table> {
    let m = bare(&call.callee).as_member_expression()?;
    if m.static_property_name()? != "define" {
        return None;
    }
    let name_arg = syntax::arg(call, 0)?;
    let model = syntax::string_value(name_arg)?;
    let attrs = object(syntax::arg(call, 1)?)?;
    let opts = syntax::arg(call, 2).and_then(object);
    let mut t = model_table(&model, attrs, opts, span_of(name_arg), span(call.span))?;
    t.alias = bound.map(str::to_string).or(Some(model));
    Some(t)
}

/// `ProcessedEvent.init(attributes, { sequelize, tableName })`.
pub(super) fn init(call: &CallExpression) -> Option<Table> {
    let m = bare(&call.callee).as_member_expression()?;
    if m.static_property_name()? != "init" {
        return None;
    }
    let Expression::Identifier(class) = bare(m.object()) else {
        return None;
    };
    let attrs = object(syntax::arg(call, 0)?)?;
    let opts = object(syntax::arg(call, 1)?)?;
    syntax::prop(opts, "sequelize")?;
    let model = opts
        .properties
        .iter()
        .find_map(|p| match p {
            ObjectPropertyKind::ObjectProperty(p)
                if syntax::key_name(&p.key).as_deref() == Some("modelName") =>
            {
                syntax::string_value(&p.value)
            }
            _ => None,
        })
        .unwrap_or_else(|| class.name.to_string());
    let mut t = model_table(&model, attrs, Some(opts), span(class.span), span(call.span))?;
    t.alias = Some(class.name.to_string());
    Some(t)
}

fn object<'b, 'a>(e: &'b Expression<'a>) -> Option<&'b ObjectExpression<'a>> {
    match bare(e) {
        Expression::ObjectExpression(o) => Some(o),
        _ => None,
    }
}

/// The table of a model: `None` unless some attribute has a Sequelize
/// type (so `customElements.define(..)` and the like are not tables).
fn model_table(
    model: &str,
    attrs: &ObjectExpression,
    opts: Option<&ObjectExpression>,
    at: Span,
    whole: Span,
) -> Option<Table> {
    let opt = |k: &str| opts.and_then(|o| syntax::prop(o, k));
    let given = opt("tableName").and_then(|e| Some((syntax::string_value(e)?, span_of(e))));
    let frozen = super::is_true(opt("freezeTableName"));
    let underscored = super::is_true(opt("underscored"));
    let (name, at) = given.unwrap_or_else(|| {
        (
            if frozen {
                model.to_string()
            } else {
                plural(model)
            },
            at,
        )
    });
    let schema = opt("schema").and_then(syntax::string_value);
    let mut t = Table::new(SchemaCode::Sequelize, &name, schema.as_deref(), at, whole);
    let mut typed = false;
    let mut fields = Vec::new();
    let mut composite: Vec<(String, Vec<String>, Span)> = Vec::new();
    for p in &attrs.properties {
        let ObjectPropertyKind::ObjectProperty(p) = p else {
            continue;
        };
        let Some(prop) = syntax::key_name(&p.key) else {
            continue;
        };
        let Some(a) = attribute(&prop, &p.value, underscored, span_of(&p.key)) else {
            continue;
        };
        typed = true;
        if a.primary {
            t.key(
                KeyKind::PrimaryKey,
                vec![a.column.name.clone()],
                None,
                a.column.span,
            );
        }
        match a.unique {
            Some((None, u)) => t.key(KeyKind::Unique, vec![a.column.name.clone()], None, u),
            Some((Some(group), u)) => match composite.iter_mut().find(|(g, _, _)| *g == group) {
                Some((_, cols, _)) => cols.push(a.column.name.clone()),
                None => composite.push((group, vec![a.column.name.clone()], u)),
            },
            None => {}
        }
        fields.push((prop, a.column.name.clone()));
        if !t.column_named(&a.column.name) {
            t.columns.push(a.column);
        }
    }
    if !typed {
        return None;
    }
    for (group, cols, u) in composite {
        t.key(KeyKind::Unique, cols, Some(group), u);
    }
    if !t.keys.iter().any(|k| k.kind == KeyKind::PrimaryKey) && !t.column_named("id") {
        let mut id = column("id".to_string(), at, "SERIAL".to_string());
        id.not_null = true;
        t.columns.insert(0, id);
        t.key(KeyKind::PrimaryKey, vec!["id".to_string()], None, at);
    }
    t.fields.clone_from(&fields);
    if let Some(Expression::ArrayExpression(ix)) = opt("indexes").map(bare) {
        for e in ix.elements.iter().filter_map(|e| e.as_expression()) {
            if let Some(o) = object(e) {
                index(&mut t, o, &fields);
            }
        }
    }
    Some(t)
}

/// An attribute read: its column, whether it is the primary key, and its
/// `unique` (a group name for a composite, and the key's token).
struct Attribute {
    column: Column,
    primary: bool,
    unique: Option<(Option<String>, Span)>,
}

fn attribute(prop: &str, value: &Expression, underscored: bool, at: Span) -> Option<Attribute> {
    let (ty, o) = match bare(value) {
        Expression::ObjectExpression(o) => (sequelize_type(syntax::prop(o, "type")?)?, Some(&**o)),
        e => (sequelize_type(e)?, None),
    };
    let opt = |k: &str| o.and_then(|o| syntax::prop(o, k));
    let name = opt("field")
        .and_then(syntax::string_value)
        .unwrap_or_else(|| {
            if underscored {
                knowledge::snake(prop)
            } else {
                prop.to_string()
            }
        });
    let mut c = column(name, at, ty);
    let primary = super::is_true(opt("primaryKey"));
    c.not_null = primary
        || matches!(opt("allowNull").map(bare), Some(Expression::BooleanLiteral(b)) if !b.value);
    c.default = opt("defaultValue").map(default_text);
    if super::is_true(opt("autoIncrement")) {
        c.ty = "SERIAL".to_string();
    }
    let unique_at = o.and_then(|o| {
        o.properties.iter().find_map(|p| match p {
            ObjectPropertyKind::ObjectProperty(p)
                if syntax::key_name(&p.key).as_deref() == Some("unique") =>
            {
                Some((span_of(&p.key), &p.value))
            }
            _ => None,
        })
    });
    let unique = unique_at.and_then(|(u, v)| match bare(v) {
        Expression::BooleanLiteral(b) if b.value => Some((None, u)),
        Expression::ObjectExpression(g) => {
            Some((syntax::prop(g, "name").and_then(syntax::string_value), u))
        }
        e => syntax::string_value(e).map(|g| (Some(g), u)),
    });
    Some(Attribute {
        column: c,
        primary,
        unique,
    })
}

/// `DataTypes.STRING`, `DataTypes.STRING(64)`, `Sequelize.UUID` as the
/// SQL type PostgreSQL is given.
fn sequelize_type(e: &Expression) -> Option<String> {
    let path = match bare(e) {
        Expression::CallExpression(c) => syntax::path_of(&c.callee)?,
        e => syntax::path_of(e)?,
    };
    let [root, ty] = path.as_slice() else {
        return None;
    };
    if !TYPE_ROOTS.contains(&root.as_str()) {
        return None;
    }
    Some(
        match ty.as_str() {
            "STRING" => "VARCHAR(255)",
            "DATE" => "TIMESTAMPTZ",
            "UUIDV4" | "UUIDV1" => "UUID",
            t => t,
        }
        .to_string(),
    )
}

/// `{ unique: true, fields: ["provider", "eventId"], name, where }`.
fn index(t: &mut Table, o: &ObjectExpression, fields: &[(String, String)]) {
    let unique = super::is_true(syntax::prop(o, "unique"));
    let Some(f) = syntax::prop(o, "fields") else {
        return;
    };
    let mut cols = strings(f);
    if let Expression::ArrayExpression(a) = bare(f) {
        // `fields: [{ name: "eventId" }]`
        cols.extend(
            a.elements
                .iter()
                .filter_map(|e| object(e.as_expression()?))
                .filter_map(|o| syntax::prop(o, "name").and_then(syntax::string_value)),
        );
    }
    let cols = cols.iter().map(|p| super::column_of(p, fields)).collect();
    let name = syntax::prop(o, "name").and_then(syntax::string_value);
    let kind = if unique {
        KeyKind::Unique
    } else {
        KeyKind::Index
    };
    t.key(kind, cols, name, span(o.span));
    if syntax::prop(o, "where").is_some() {
        t.last_partial();
    }
}

/// A model's name made plural as Sequelize's default does for the common
/// English endings (`ProcessedEvent` → `ProcessedEvents`, `Entry` →
/// `Entries`, `Batch` → `Batches`).
fn plural(model: &str) -> String {
    let lower = model.to_ascii_lowercase();
    if lower.ends_with('s') && !lower.ends_with("ss") {
        return model.to_string();
    }
    if ["ss", "x", "ch", "sh", "z"]
        .iter()
        .any(|e| lower.ends_with(e))
    {
        return format!("{model}es");
    }
    if let Some(stem) = model.strip_suffix('y') {
        if !stem.ends_with(['a', 'e', 'i', 'o', 'u']) {
            return format!("{stem}ies");
        }
    }
    format!("{model}s")
}
