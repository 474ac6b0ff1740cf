//! Schemas written in TypeScript: the tables an ORM declares in code,
//! lowered into the schema facts SQL migrations give ([`SqlFacts`]): a
//! Drizzle `pgTable`/`mysqlTable`/`sqliteTable` (`drizzle`), a TypeORM
//! `@Entity` class (`typeorm`), a Sequelize `define` or `Model.init`
//! (`sequelize`), a Medusa data model `model.define(..)` (`medusa`),
//! each a `CREATE TABLE` with its columns and keys, and the
//! name code reaches it by (the table's variable, the entity's class) as an
//! alias of the table. Also the statements code sends through Drizzle's
//! query builder and TypeORM's repositories ([`step`]).
//!
//! Not read: migrations written in TypeScript (Knex's `createTable`,
//! TypeORM's `queryRunner.createTable`, Drizzle Kit's SQL is read as SQL),
//! relations, and a naming strategy or casing option other than the
//! ORM's default.

mod drizzle;
mod medusa;
mod sequelize;
mod typeorm;

use super::syntax::{self, bare, span};
use crate::facts::flow::StepKind;
use crate::facts::store::{
    Column, CreateTable, Key, KeyKind, Name, SchemaChange, SchemaCode, SchemaEvent, SqlFacts,
    TableAlias,
};
use crate::knowledge;
use crate::source::Span;
use oxc_ast::ast::{
    ArrowFunctionBody, CallExpression, Class, Expression, Function, Program, Statement,
    VariableDeclarator,
};
use oxc_ast_visit::{walk, Visit};

/// Most tables read from one file: beyond this the file is generated.
const MAX_TABLES: usize = 2_000;

/// A table an ORM declares, as read.
struct Table {
    name: Name,
    /// The declaration (the `pgTable(..)` call, the class).
    span: Span,
    columns: Vec<Column>,
    keys: Vec<Key>,
    /// The name code reaches it by (`processedEvents`, `ProcessedEvent`).
    alias: Option<String>,
    /// The ORM that declares it.
    code: SchemaCode,
    /// (property, column) of each column.
    fields: Vec<(String, String)>,
}

impl Table {
    fn new(code: SchemaCode, text: &str, schema: Option<&str>, at: Span, span: Span) -> Table {
        let key = match schema {
            Some(s) if !s.is_empty() && s != "public" => format!("{s}.{text}"),
            _ => text.to_string(),
        };
        Table {
            name: Name {
                text: key.clone(),
                key,
                span: at,
            },
            span,
            columns: Vec::new(),
            keys: Vec::new(),
            alias: None,
            code,
            fields: Vec::new(),
        }
    }

    /// The key last added is partial (`.where(..)`, `where:`): it guards
    /// only some rows.
    fn last_partial(&mut self) {
        if let Some(k) = self.keys.last_mut() {
            k.predicate = Some("where".to_string());
        }
    }

    fn column_named(&self, name: &str) -> bool {
        self.columns.iter().any(|c| c.name == name)
    }

    /// A key named as PostgreSQL would name it unless `name` is given.
    fn key(&mut self, kind: KeyKind, columns: Vec<String>, name: Option<String>, at: Span) {
        if columns.is_empty() {
            return;
        }
        let key = Key::over_columns(self.name.bare(), kind, columns, name, at);
        self.keys.push(key);
    }
}

/// The tables a file's ORM declarations make, with the names code reaches
/// them by; `None` when it declares none.
pub(super) fn schema(program: &Program) -> Option<SqlFacts> {
    let mut r = Reader::default();
    r.visit_program(program);
    if r.tables.is_empty() {
        return None;
    }
    let mut sql = SqlFacts::default();
    for t in r.tables {
        if let Some(a) = &t.alias {
            let name = knowledge::snake(a);
            if name != t.name.key {
                sql.aliases.push(TableAlias {
                    name,
                    table: t.name.key.clone(),
                });
            }
        }
        sql.events.push(SchemaEvent {
            span: t.span,
            kind: SchemaChange::CreateTable(CreateTable {
                name: t.name,
                if_not_exists: false,
                columns: t.columns,
                keys: t.keys,
                partition_by: None,
                partition_of: None,
                declared_by: Some(t.code),
                fields: t
                    .fields
                    .into_iter()
                    .filter(|(p, c)| p != c)
                    .map(|(p, c)| (c, p))
                    .collect(),
            }),
        });
    }
    Some(sql)
}

/// The statement a call sends through an ORM's query builder or
/// repository, on the table by the name code gives it (in snake case,
/// as [`schema`] records the alias).
pub(super) fn step(call: &CallExpression) -> Option<StepKind> {
    drizzle::step(call).or_else(|| typeorm::step(call))
}

#[derive(Default)]
struct Reader {
    tables: Vec<Table>,
    /// The variable the call at this offset is bound to
    /// (`const processedEvents = pgTable(..)`).
    binding: Option<(String, u32)>,
    /// `const billing = pgSchema("billing")`: variables naming a schema.
    schemas: Vec<(String, String)>,
}

impl Reader {
    fn push(&mut self, t: Table) {
        if self.tables.len() < MAX_TABLES {
            self.tables.push(t);
        }
    }
}

impl<'a> Visit<'a> for Reader {
    fn visit_variable_declarator(&mut self, it: &VariableDeclarator<'a>) {
        let id = it.id.get_binding_identifier();
        if let (Some(id), Some(init)) = (id, it.init.as_ref()) {
            if let Expression::CallExpression(c) = bare(init) {
                if let Some(s) = drizzle::schema_call(c) {
                    self.schemas.push((id.name.to_string(), s));
                }
                self.binding = Some((id.name.to_string(), c.span.start));
            }
        }
        walk::walk_variable_declarator(self, it);
    }

    fn visit_call_expression(&mut self, it: &CallExpression<'a>) {
        let bound = self
            .binding
            .take_if(|(_, at)| *at == it.span.start)
            .map(|(n, _)| n);
        let table = drizzle::table(it, &self.schemas)
            .or_else(|| medusa::define(it))
            .or_else(|| sequelize::define(it, bound.as_deref()))
            .or_else(|| sequelize::init(it));
        if let Some(mut t) = table {
            t.alias = t.alias.or(bound);
            self.push(t);
            return;
        }
        walk::walk_call_expression(self, it);
    }

    fn visit_class(&mut self, it: &Class<'a>) {
        if let Some(t) = typeorm::entity(it) {
            self.push(t);
        }
        walk::walk_class(self, it);
    }
}

/// The expression a function gives back: an arrow's body expression, or
/// its first `return`'s argument.
fn returned<'b, 'a>(e: &'b Expression<'a>) -> Option<&'b Expression<'a>> {
    match bare(e) {
        Expression::ArrowFunctionExpression(a) => match &a.body {
            ArrowFunctionBody::FunctionBody(b) => first_return(&b.statements),
            body => body.as_expression(),
        },
        Expression::FunctionExpression(f) => fn_return(f),
        _ => None,
    }
}

fn fn_return<'b, 'a>(f: &'b Function<'a>) -> Option<&'b Expression<'a>> {
    first_return(&f.body.as_ref()?.statements)
}

fn first_return<'b, 'a>(body: &'b [Statement<'a>]) -> Option<&'b Expression<'a>> {
    body.iter().find_map(|s| match s {
        Statement::ReturnStatement(r) => r.argument.as_ref(),
        _ => None,
    })
}

/// A call chain from its root: `text("x").notNull().unique()` as the root
/// call `text("x")` and the methods after it, each with its name's token
/// and its call, in the order written.
type Chain<'b, 'a> = (
    &'b CallExpression<'a>,
    Vec<(&'b str, Span, &'b CallExpression<'a>)>,
);

fn chain<'b, 'a>(e: &'b Expression<'a>) -> Option<Chain<'b, 'a>> {
    match bare(e) {
        Expression::CallExpression(call) => Some(call_chain(call)),
        _ => None,
    }
}

fn call_chain<'b, 'a>(mut call: &'b CallExpression<'a>) -> Chain<'b, 'a> {
    let mut methods = Vec::new();
    loop {
        let callee = bare(&call.callee);
        let inner = callee.as_member_expression().and_then(|m| {
            let Expression::CallExpression(c) = bare(m.object()) else {
                return None;
            };
            let (at, name) = m.static_property_info()?;
            Some((c, name, span(at)))
        });
        match inner {
            Some((c, name, at)) => {
                methods.push((name, at, call));
                call = c;
            }
            None => {
                methods.reverse();
                return (call, methods);
            }
        }
    }
}

/// The last name of a callee (`text` of `text(..)` and of `t.text(..)`)
/// with its token.
fn callee_name(call: &CallExpression) -> Option<(String, Span)> {
    let callee = bare(&call.callee);
    if let Expression::Identifier(id) = callee {
        return Some((id.name.to_string(), span(id.span)));
    }
    let (at, name) = callee.as_member_expression()?.static_property_info()?;
    Some((name.to_string(), span(at)))
}

/// The strings of an array literal (`["provider", "eventId"]`), or of one
/// string.
fn strings(e: &Expression) -> Vec<String> {
    match bare(e) {
        Expression::ArrayExpression(a) => a
            .elements
            .iter()
            .filter_map(|el| el.as_expression().and_then(syntax::string_value))
            .collect(),
        e => syntax::string_value(e).into_iter().collect(),
    }
}

/// The column a property declares, by (property, column) pairs; the
/// property's own name when it declares none.
fn column_of(prop: &str, fields: &[(String, String)]) -> String {
    fields
        .iter()
        .find(|(p, _)| p == prop)
        .map_or_else(|| prop.to_string(), |(_, c)| c.clone())
}

fn is_true(e: Option<&Expression>) -> bool {
    matches!(e.map(bare), Some(Expression::BooleanLiteral(b)) if b.value)
}

/// A column with the ORM's defaults: not null unless said otherwise.
fn column(name: String, at: Span, ty: String) -> Column {
    Column {
        name,
        span: at,
        ty,
        not_null: false,
        default: None,
        generated: None,
    }
}

/// A default's expression as far as it tells: a literal as SQL writes
/// it, a call by its name (`uuid()`, `now()`), a member by its path
/// (`DataTypes.UUIDV4`).
fn default_text(e: &Expression) -> String {
    match bare(e) {
        Expression::StringLiteral(s) => format!("'{}'", s.value),
        Expression::NumericLiteral(n) => n.value.to_string(),
        Expression::BooleanLiteral(b) => b.value.to_string(),
        Expression::CallExpression(c) => match syntax::path_of(&c.callee) {
            Some(p) => format!("{}()", p.join(".")),
            None => "expression".to_string(),
        },
        e => syntax::path_of(e).map_or_else(|| "expression".to_string(), |p| p.join(".")),
    }
}

#[cfg(test)]
mod tests;
