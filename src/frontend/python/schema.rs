//! Schemas written in Python, lowered into the schema facts SQL
//! migrations give ([`SqlFacts`]): Django models (`models.Model`
//! subclasses: fields' `unique=True`/`primary_key=True`, `Meta.db_table`,
//! `unique_together`, `UniqueConstraint`, `Index`) and migrations
//! (`CreateModel`, `AddField`, `AlterField`, `AddConstraint`,
//! `RemoveConstraint`, `DeleteModel`, `RunSQL`), SQLAlchemy declarative
//! models (`__tablename__`, `Column`/`mapped_column(unique=True)`,
//! `__table_args__`) and `Table(..)`, and Alembic operations
//! (`op.create_table`, `op.add_column`, `op.create_unique_constraint`,
//! `op.create_index(unique=)`, `op.drop_constraint`, `op.drop_index`,
//! `op.drop_table`, `op.execute(sql)`). SQL written in a string (`RunSQL`,
//! `op.execute`) is read by the SQL front end.
//!
//! A Django model without `db_table` is named here by its lower-cased
//! class (`ProcessedEvent` → `processedevent`), as migrations name it, and
//! listed in [`SqlFacts::app_tables`]: the model prefixes Django's app
//! label (`<app_label>_processedevent`), which is the app's directory in
//! the file's path, or `Meta.app_label` when the model says it. An
//! abstract model (`Meta.abstract = True`) makes no table: its fields and
//! guards are listed in [`SqlFacts::model_classes`] with the concrete
//! models that may inherit them, in any file (`model::inherit`). Not read:
//! mixins that are no abstract model, `batch_alter_table`.

use super::syntax::{arg, is_true, kwarg, path_of, span_of, string_value};
use crate::facts::store::{
    Column, CreateTable, Key, KeyKind, Name, SchemaChange, SchemaCode, SchemaEvent, SqlFacts,
    TableAlias,
};
use crate::knowledge;
use crate::source::Span;
use ruff_python_ast::{Expr, ExprCall, Stmt, StmtClassDef};
use std::collections::HashMap;

/// Most events read from one file: beyond this the file is generated.
const MAX_EVENTS: usize = 2_000;

struct Reader<'t> {
    text: &'t str,
    events: Vec<SchemaEvent>,
    aliases: Vec<TableAlias>,
    /// A migration's models by their lower-cased name: their tables.
    models: HashMap<String, String>,
    /// Django's tables named by their model alone (`SqlFacts::app_tables`).
    app_tables: Vec<String>,
    /// Django model classes, for inheritance (`SqlFacts::model_classes`).
    model_classes: Vec<crate::facts::store::ModelClass>,
}

/// The tables a module's models and migrations declare; `None` when none.
pub fn read(body: &[Stmt], text: &str) -> Option<SqlFacts> {
    let mut r = Reader {
        text,
        events: Vec::new(),
        aliases: Vec::new(),
        models: HashMap::new(),
        app_tables: Vec::new(),
        model_classes: Vec::new(),
    };
    r.stmts(body);
    if r.events.is_empty() && r.model_classes.is_empty() {
        return None;
    }
    r.model_classes.truncate(MAX_EVENTS);
    r.events.truncate(MAX_EVENTS);
    r.app_tables.sort_unstable();
    r.app_tables.dedup();
    Some(SqlFacts {
        events: r.events,
        aliases: r.aliases,
        app_tables: r.app_tables,
        model_classes: r.model_classes,
        ..SqlFacts::default()
    })
}

fn name(text: &str, span: Span) -> Name {
    let key = text.trim_matches('"').to_ascii_lowercase();
    let key = key.strip_prefix("public.").unwrap_or(&key).to_string();
    Name {
        text: text.to_string(),
        key,
        span,
    }
}

/// A key named as PostgreSQL would name it unless `given`.
fn key(table: &str, kind: KeyKind, cols: Vec<String>, given: Option<String>, at: Span) -> Key {
    let bare = table.rsplit('.').next().unwrap_or(table);
    Key::over_columns(bare, kind, cols, given, at)
}

/// The strings of a list, tuple or set literal (`["a", "b"]`), or one string.
fn strings(e: &Expr) -> Vec<String> {
    match e {
        Expr::List(l) => l.elts.iter().filter_map(string_value).collect(),
        Expr::Tuple(t) => t.elts.iter().filter_map(string_value).collect(),
        Expr::Set(s) => s.elts.iter().filter_map(string_value).collect(),
        e => string_value(e).into_iter().collect(),
    }
}

/// The elements of a list, tuple or set literal.
fn elements(e: &Expr) -> &[Expr] {
    match e {
        Expr::List(l) => &l.elts,
        Expr::Tuple(t) => &t.elts,
        Expr::Set(s) => &s.elts,
        _ => &[],
    }
}

fn last_name(c: &ExprCall) -> Option<String> {
    path_of(&c.func).and_then(|p| p.last().cloned())
}

/// A column's type as a field or `Column` names it (`CharField`, `String`).
fn type_name(c: &ExprCall) -> String {
    let ty = match last_name(c).as_deref() {
        Some("Column" | "mapped_column") => arg(c, 0)
            .and_then(|a| match a {
                Expr::Call(t) => last_name(t),
                e => path_of(e).and_then(|p| p.last().cloned()),
            })
            .filter(|t| t.chars().next().is_some_and(char::is_uppercase)),
        other => other.map(str::to_string),
    };
    ty.unwrap_or_default().to_ascii_uppercase()
}

/// A field or column call's keys over its own column: `unique=True`,
/// `primary_key=True`, `db_index=True`/`index=True` (plain).
fn column_keys(table: &str, col: &str, c: &ExprCall, at: Span, keys: &mut Vec<Key>) {
    if kwarg(c, "primary_key").is_some_and(is_true) {
        keys.push(key(
            table,
            KeyKind::PrimaryKey,
            vec![col.to_string()],
            None,
            at,
        ));
    } else if kwarg(c, "unique").is_some_and(is_true) {
        keys.push(key(table, KeyKind::Unique, vec![col.to_string()], None, at));
    } else if kwarg(c, "db_index").is_some_and(is_true) || kwarg(c, "index").is_some_and(is_true) {
        keys.push(key(table, KeyKind::Index, vec![col.to_string()], None, at));
    }
}

fn column(name: String, c: &ExprCall, at: Span) -> Column {
    let not_null = kwarg(c, "nullable")
        .is_some_and(|e| matches!(e, Expr::BooleanLiteral(b) if !b.value))
        || kwarg(c, "null").is_none_or(|e| matches!(e, Expr::BooleanLiteral(b) if !b.value));
    Column {
        name,
        span: at,
        ty: type_name(c),
        not_null,
        default: None,
        generated: None,
    }
}

/// Whether a call is a Django model field (`models.CharField(..)`,
/// `CharField(..)`, `models.ForeignKey(..)`).
fn is_django_field(c: &ExprCall) -> bool {
    last_name(c).is_some_and(|n| n.ends_with("Field") || n == "ForeignKey" || n == "OneToOneField")
}

/// Whether a class body assigns a `models.<..>Field(..)` (or
/// `models.ForeignKey`/`OneToOneField`): a Django model whose base is the
/// project's own class (saleor's `TransactionItem(ModelWithMetadata)`).
/// Only the `models.` path counts: DRF serializers (`serializers.CharField`),
/// forms (`forms.CharField`) and graphene types (`graphene.Field`) assign
/// field calls too and declare no table.
fn assigns_model_field(body: &[Stmt]) -> bool {
    body.iter().any(|s| {
        let Stmt::Assign(a) = s else { return false };
        let Expr::Call(f) = &*a.value else {
            return false;
        };
        is_django_field(f) && path_of(&f.func).is_some_and(|p| p.len() == 2 && p[0] == "models")
    })
}

/// A Django field's column: `db_column`, or the attribute's name (with
/// `_id` for a relation).
fn django_column(attr: &str, c: &ExprCall) -> String {
    if let Some(col) = kwarg(c, "db_column").and_then(string_value) {
        return col.to_ascii_lowercase();
    }
    match last_name(c).as_deref() {
        Some("ForeignKey" | "OneToOneField") => format!("{attr}_id"),
        _ => attr.to_ascii_lowercase(),
    }
}

/// A Django `UniqueConstraint(fields=[..], name=..)` or `Index(fields=[..])`
/// of `Meta.constraints`/`indexes`, or an SQLAlchemy `UniqueConstraint("a",
/// name=..)`, `PrimaryKeyConstraint(..)`, `Index("ix", "a", unique=True)`.
fn table_key(table: &str, e: &Expr) -> Option<Key> {
    let Expr::Call(c) = e else { return None };
    let what = last_name(c)?;
    let at = span_of(c);
    let given = kwarg(c, "name").and_then(string_value);
    let fields = kwarg(c, "fields").map(strings);
    let mut k = match what.as_str() {
        "UniqueConstraint" => {
            let cols = fields
                .unwrap_or_else(|| c.arguments.args.iter().filter_map(string_value).collect());
            key(table, KeyKind::Unique, cols, given, at)
        }
        "PrimaryKeyConstraint" => {
            let cols = c.arguments.args.iter().filter_map(string_value).collect();
            key(table, KeyKind::PrimaryKey, cols, given, at)
        }
        "Index" => {
            let (given, cols) = match fields {
                Some(f) => (given, f),
                None => {
                    let mut a = c.arguments.args.iter().filter_map(string_value);
                    (a.next().or(given), a.collect())
                }
            };
            let kind = if kwarg(c, "unique").is_some_and(is_true) {
                KeyKind::Unique
            } else {
                KeyKind::Index
            };
            key(table, kind, cols, given, at)
        }
        _ => return None,
    };
    if kwarg(c, "condition").is_some()
        || kwarg(c, "postgresql_where").is_some()
        || kwarg(c, "sqlite_where").is_some()
    {
        k.predicate = Some("where".to_string());
    }
    (!k.parts.is_empty()).then_some(k)
}

/// What a model or a table operation declares.
struct Declared {
    code: SchemaCode,
    columns: Vec<Column>,
    keys: Vec<Key>,
    fields: Vec<(String, String)>,
}

impl Declared {
    fn new(code: SchemaCode, columns: Vec<Column>, keys: Vec<Key>) -> Self {
        Declared {
            code,
            columns,
            keys,
            fields: Vec::new(),
        }
    }

    /// Django's (field, column) pairs, kept where they differ.
    fn with_django_fields(mut self, fields: &[(String, String)]) -> Self {
        self.fields = fields
            .iter()
            .filter(|(f, c)| f != c)
            .map(|(f, c)| (c.clone(), f.clone()))
            .collect();
        self
    }
}

impl Reader<'_> {
    fn push(&mut self, span: Span, kind: SchemaChange) {
        self.events.push(SchemaEvent { span, kind });
    }

    /// An `ALTER TABLE` of `table` by `ops`, at `span`.
    fn alter(&mut self, span: Span, table: Name, ops: Vec<crate::facts::store::AlterOp>) {
        self.push(span, SchemaChange::AlterTable { table, ops });
    }

    fn stmts(&mut self, body: &[Stmt]) {
        for s in body {
            match s {
                Stmt::ClassDef(c) => self.class(c),
                // Alembic's `downgrade()` undoes the revision: never applied
                // in the history the model replays.
                Stmt::FunctionDef(f) if !f.name.id.as_str().starts_with("downgrade") => {
                    self.stmts(&f.body)
                }
                Stmt::Expr(e) => self.expr(&e.value),
                Stmt::Assign(a) => self.expr(&a.value),
                Stmt::If(i) => self.stmts(&i.body),
                Stmt::With(w) => self.stmts(&w.body),
                _ => {}
            }
        }
    }

    fn expr(&mut self, e: &Expr) {
        match e {
            Expr::Call(c) => {
                let Some(p) = path_of(&c.func) else { return };
                let last = p.last().map(String::as_str).unwrap_or("");
                if p.len() >= 2 && p[p.len() - 2] == "op" {
                    self.alembic(last, c);
                } else if last == "Table" {
                    self.sqlalchemy_table(c, SchemaCode::SqlAlchemy);
                }
            }
            // A migration's `operations = [migrations.CreateModel(..), ..]`.
            Expr::List(_) | Expr::Tuple(_) => {
                for x in elements(e) {
                    if let Expr::Call(c) = x {
                        self.django_op(c);
                    }
                }
            }
            Expr::Await(a) => self.expr(&a.value),
            _ => {}
        }
    }

    fn class(&mut self, c: &StmtClassDef) {
        let bases: Vec<Vec<String>> = c
            .arguments
            .iter()
            .flat_map(|a| a.args.iter())
            .filter_map(path_of)
            .collect();
        if bases
            .iter()
            .any(|b| b.last().is_some_and(|l| l == "Migration"))
        {
            self.stmts(&c.body);
            return;
        }
        let tablename = c.body.iter().find_map(|s| match s {
            Stmt::Assign(a) if matches!(a.targets.first(), Some(Expr::Name(n)) if n.id.as_str() == "__tablename__") => {
                string_value(&a.value).map(|t| (t, span_of(&*a.value)))
            }
            _ => None,
        });
        if let Some((t, at)) = tablename {
            self.sqlalchemy_model(c, &t, at);
        } else if bases
            .iter()
            .any(|b| b.last().is_some_and(|l| l.ends_with("Model")))
            || (!bases.is_empty() && assigns_model_field(&c.body))
        {
            self.django_model(c);
        } else {
            self.maybe_model(c);
        }
    }

    fn alias(&mut self, class: &str, table: &str) {
        let name = knowledge::snake(class);
        if name != table {
            self.aliases.push(TableAlias {
                name,
                table: table.to_string(),
            });
        }
    }

    /// A table `code` declares; `fields` are (column, property) where the
    /// code names a column apart from it (Django's `customer` for
    /// `customer_id`).
    fn create(&mut self, at: Span, name: Name, table: Declared) {
        self.push(
            at,
            SchemaChange::CreateTable(CreateTable {
                name,
                if_not_exists: false,
                columns: table.columns,
                keys: table.keys,
                partition_by: None,
                partition_of: None,
                declared_by: Some(table.code),
                fields: table.fields,
            }),
        );
    }
}

mod alembic;
mod django;
