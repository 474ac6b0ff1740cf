//! TypeORM: an `@Entity` class as a table (its name the decorator's, else
//! the class's in snake case, as TypeORM's default naming strategy gives
//! it), its `@Column`s (named by `name`, else by the property as
//! written), `@PrimaryColumn`/`@PrimaryGeneratedColumn`, `unique: true`,
//! and the `@Index`/`@Unique` decorators of the class and its properties;
//! and the repository and entity manager calls on an entity
//! (`manager.insert(ProcessedEvent, ..)`,
//! `dataSource.getRepository(ProcessedEvent).upsert(..)`) as statements.

use super::{call_chain, callee_name, column, default_text, strings, Table};
use crate::facts::flow::StepKind;
use crate::facts::store::{Dml, DmlKind, KeyKind, SchemaCode};
use crate::frontend::ts::syntax::{self, bare, span, span_of};
use crate::knowledge;
use crate::source::Span;
use oxc_ast::ast::{
    CallExpression, Class, ClassElement, Decorator, Expression, ObjectExpression,
    PropertyDefinition, TSType,
};

/// Property decorators that declare a column.
const COLUMN_DECORATORS: &[&str] = &[
    "Column",
    "PrimaryColumn",
    "PrimaryGeneratedColumn",
    "CreateDateColumn",
    "UpdateDateColumn",
    "DeleteDateColumn",
    "VersionColumn",
];

/// Repository and entity manager methods and what they do.
const METHODS: &[(&str, DmlKind)] = &[
    ("insert", DmlKind::Insert),
    ("save", DmlKind::Insert),
    ("upsert", DmlKind::Upsert),
    ("update", DmlKind::Update),
    ("delete", DmlKind::Delete),
    ("remove", DmlKind::Delete),
    ("softDelete", DmlKind::Delete),
    ("find", DmlKind::Read),
    ("findBy", DmlKind::Read),
    ("findOne", DmlKind::Read),
    ("findOneBy", DmlKind::Read),
    ("findOneOrFail", DmlKind::Read),
    ("findOneByOrFail", DmlKind::Read),
    ("count", DmlKind::Read),
    ("countBy", DmlKind::Read),
    ("exists", DmlKind::Read),
    ("existsBy", DmlKind::Read),
];

/// A decorator's name and call (`@Entity("x")`); a bare `@Entity` has no
/// call.
fn decorator<'b, 'a>(d: &'b Decorator<'a>) -> Option<(String, Option<&'b CallExpression<'a>>)> {
    match bare(&d.expression) {
        Expression::CallExpression(c) => Some((callee_name(c)?.0, Some(&**c))),
        Expression::Identifier(id) => Some((id.name.to_string(), None)),
        _ => None,
    }
}

fn options<'b, 'a>(call: Option<&'b CallExpression<'a>>) -> Option<&'b ObjectExpression<'a>> {
    call?
        .arguments
        .iter()
        .find_map(|a| match a.as_expression().map(bare) {
            Some(Expression::ObjectExpression(o)) => Some(&**o),
            _ => None,
        })
}

/// An `@Entity` class as its table.
pub(super) fn entity(c: &Class) -> Option<Table> {
    let id = c.id.as_ref()?;
    let (_, call) = c
        .decorators
        .iter()
        .filter_map(decorator)
        .find(|(n, _)| n == "Entity")?;
    let arg = call.and_then(|c| syntax::arg(c, 0));
    let opts = options(call);
    let given = arg.and_then(|a| syntax::string_value(a).map(|s| (s, span_of(a))));
    let given = given.or_else(|| {
        let n = opts.and_then(|o| syntax::prop(o, "name"))?;
        Some((syntax::string_value(n)?, span_of(n)))
    });
    let (name, at) = given.unwrap_or_else(|| (knowledge::snake(&id.name), span(id.span)));
    let schema = opts
        .and_then(|o| syntax::prop(o, "schema"))
        .and_then(syntax::string_value);
    let mut t = Table::new(
        SchemaCode::TypeOrm,
        &name,
        schema.as_deref(),
        at,
        span(c.span),
    );
    t.alias = Some(id.name.to_string());
    let mut fields = Vec::new();
    for el in &c.body.body {
        if let ClassElement::PropertyDefinition(p) = el {
            if let Some(f) = property(&mut t, p) {
                fields.push(f);
            }
        }
    }
    // NOTE: MikroORM's `@Entity` classes declare columns with `@Property`
    // and `@PrimaryKey`: a class with no TypeORM column is not TypeORM's.
    if fields.is_empty() {
        return None;
    }
    t.fields.clone_from(&fields);
    for d in &c.decorators {
        if let Some((n, Some(call))) = decorator(d) {
            class_key(&mut t, &n, call, &fields, span(d.span));
        }
    }
    Some(t)
}

/// A property that is a column, with its own keys; gives (property,
/// column).
fn property(t: &mut Table, p: &PropertyDefinition) -> Option<(String, String)> {
    let prop = syntax::key_name(&p.key)?;
    let decorators: Vec<_> = p
        .decorators
        .iter()
        .filter_map(|d| Some((decorator(d)?, d.span)))
        .collect();
    let ((kind, call), _) = decorators
        .iter()
        .find(|((n, _), _)| COLUMN_DECORATORS.contains(&n.as_str()))?;
    let opts = options(*call);
    let opt = |k: &str| opts.and_then(|o| syntax::prop(o, k));
    let name = opt("name")
        .and_then(syntax::string_value)
        .unwrap_or_else(|| prop.clone());
    let given = call
        .and_then(|c| syntax::arg(c, 0))
        .and_then(syntax::string_value)
        .or_else(|| opt("type").and_then(syntax::string_value));
    let mut c = column(name.clone(), span_of(&p.key), String::new());
    c.not_null = !super::is_true(opt("nullable"));
    c.default = opt("default").map(default_text);
    c.ty = match (kind.as_str(), given.as_deref()) {
        ("PrimaryGeneratedColumn", Some("uuid")) => {
            c.default = Some("uuid_generate_v4()".to_string());
            "UUID".to_string()
        }
        ("PrimaryGeneratedColumn", _) => "SERIAL".to_string(),
        (_, Some(ty)) => ty.to_ascii_uppercase(),
        _ => ts_type(p),
    };
    if matches!(kind.as_str(), "CreateDateColumn" | "UpdateDateColumn") {
        c.default = Some("now()".to_string());
    }
    let at = span_of(&p.key);
    if kind.starts_with("Primary") || super::is_true(opt("primary")) {
        t.key(KeyKind::PrimaryKey, vec![name.clone()], None, at);
    }
    if let Some(u) = opts
        .and_then(|o| unique_key(o))
        .filter(|_| super::is_true(opt("unique")))
    {
        t.key(KeyKind::Unique, vec![name.clone()], None, u);
    }
    for ((n, call), d) in &decorators {
        let unique =
            n == "Unique" || super::is_true(options(*call).and_then(|o| syntax::prop(o, "unique")));
        if n == "Index" || n == "Unique" {
            let named = call
                .and_then(|c| syntax::arg(c, 0))
                .and_then(syntax::string_value);
            let kind = if unique {
                KeyKind::Unique
            } else {
                KeyKind::Index
            };
            t.key(kind, vec![name.clone()], named, span(*d));
        }
    }
    if !t.column_named(&name) {
        t.columns.push(c);
    }
    Some((prop, name))
}

/// The span of an options object's `unique` key.
fn unique_key(o: &ObjectExpression) -> Option<Span> {
    o.properties.iter().find_map(|p| match p {
        oxc_ast::ast::ObjectPropertyKind::ObjectProperty(p)
            if syntax::key_name(&p.key).as_deref() == Some("unique") =>
        {
            Some(span_of(&p.key))
        }
        _ => None,
    })
}

/// The SQL type TypeORM gives a property by its TypeScript type
/// (PostgreSQL's names).
fn ts_type(p: &PropertyDefinition) -> String {
    let ty = p.type_annotation.as_ref().map(|t| &t.type_annotation);
    match ty {
        Some(TSType::TSStringKeyword(_)) => "VARCHAR",
        Some(TSType::TSNumberKeyword(_)) => "INTEGER",
        Some(TSType::TSBooleanKeyword(_)) => "BOOLEAN",
        Some(TSType::TSTypeReference(r)) if r.type_name.to_string() == "Date" => "TIMESTAMP",
        _ => "TEXT",
    }
    .to_string()
}

/// `@Index(["provider", "eventId"], { unique: true })`, `@Index("name",
/// ["a", "b"])`, `@Unique(["eventId"])`, `@Unique("name", ["a", "b"])` on
/// the class.
fn class_key(t: &mut Table, n: &str, call: &CallExpression, fields: &[(String, String)], at: Span) {
    let unique = match n {
        "Unique" => true,
        "Index" => super::is_true(options(Some(call)).and_then(|o| syntax::prop(o, "unique"))),
        _ => return,
    };
    let mut name = None;
    let mut cols = Vec::new();
    for a in call.arguments.iter().filter_map(|a| a.as_expression()) {
        match bare(a) {
            Expression::ArrayExpression(_) => cols = strings(a),
            e => {
                if let Some(s) = syntax::string_value(e) {
                    name = Some(s);
                }
            }
        }
    }
    let cols = cols.iter().map(|p| super::column_of(p, fields)).collect();
    let partial = options(Some(call))
        .and_then(|o| syntax::prop(o, "where"))
        .is_some();
    let kind = if unique {
        KeyKind::Unique
    } else {
        KeyKind::Index
    };
    t.key(kind, cols, name, at);
    if partial {
        t.last_partial();
    }
}

/// `manager.insert(ProcessedEvent, ..)`, `dataSource.getRepository(
/// ProcessedEvent).insert(..)`: the entity's table, by its class in snake
/// case.
pub(super) fn step(call: &CallExpression) -> Option<StepKind> {
    let (root, methods) = call_chain(call);
    let (method, entity, conn) = match methods.last() {
        // `x.getRepository(E).insert(..)`
        Some((m, _, _)) => {
            let (name, _) = callee_name(root)?;
            if name != "getRepository" || methods.len() != 1 {
                return None;
            }
            let entity = syntax::path_of(syntax::arg(root, 0)?)?.pop()?;
            let conn = syntax::root_name(&root.callee);
            (*m, entity, conn)
        }
        // `manager.insert(E, ..)`
        None => {
            let callee = bare(&root.callee);
            let m = callee.as_member_expression()?;
            let receiver = syntax::path_of(m.object())?;
            let last = receiver.last()?;
            if !last.to_ascii_lowercase().contains("manager") {
                return None;
            }
            let Expression::Identifier(id) = bare(syntax::arg(root, 0)?) else {
                return None;
            };
            if !id.name.starts_with(|c: char| c.is_ascii_uppercase()) {
                return None;
            }
            (
                m.static_property_name()?,
                id.name.to_string(),
                Some(last.clone()),
            )
        }
    };
    let &(_, kind) = METHODS.iter().find(|(m, _)| *m == method)?;
    Some(StepKind::Sql {
        dml: Dml::new(kind, knowledge::snake(&entity)),
        conn,
    })
}
