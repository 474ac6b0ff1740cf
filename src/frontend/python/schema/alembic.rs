//! SQLAlchemy tables and models, and Alembic's operations.

use super::{arg, column, column_keys, kwarg, name, span_of, string_value, strings, table_key};
use super::{key, Declared, Reader};
use crate::facts::store::{AlterOp, CreateIndex, KeyKind, Name, SchemaChange, SchemaCode};
use crate::source::Span;
use ruff_python_ast::{Expr, ExprCall, Stmt, StmtClassDef};

impl Reader<'_> {
    /// `op.<last>(..)`.
    pub(super) fn alembic(&mut self, last: &str, c: &ExprCall) {
        let at = span_of(c);
        match last {
            "create_table" => self.sqlalchemy_table(c, SchemaCode::Alembic),
            "add_column" => {
                let (Some(t), Some(Expr::Call(col))) =
                    (self.table_arg(c, 0, "table_name"), arg(c, 1))
                else {
                    return;
                };
                let Some((cname, cat)) =
                    arg(col, 0).and_then(|e| string_value(e).map(|s| (s, span_of(e))))
                else {
                    return;
                };
                let mut ops = vec![AlterOp::AddColumn(column(
                    cname.to_ascii_lowercase(),
                    col,
                    cat,
                ))];
                let mut keys = Vec::new();
                column_keys(&t.key, &cname.to_ascii_lowercase(), col, cat, &mut keys);
                ops.extend(keys.into_iter().map(AlterOp::AddKey));
                self.alter(at, t, ops);
            }
            "create_unique_constraint" | "create_primary_key" => {
                let given = arg(c, 0)
                    .or(kwarg(c, "constraint_name"))
                    .and_then(string_value);
                let Some(t) = self.table_arg(c, 1, "table_name") else {
                    return;
                };
                let cols = arg(c, 2)
                    .or(kwarg(c, "columns"))
                    .map(strings)
                    .unwrap_or_default();
                let kind = if last == "create_primary_key" {
                    KeyKind::PrimaryKey
                } else {
                    KeyKind::Unique
                };
                if cols.is_empty() {
                    return;
                }
                let k = key(&t.key, kind, lower(cols), given, at);
                self.push(
                    at,
                    SchemaChange::AlterTable {
                        table: t,
                        ops: vec![AlterOp::AddKey(k)],
                    },
                );
            }
            "create_index" => self.create_index(c, at),
            "drop_constraint" => {
                let (Some(n), Some(t)) = (
                    arg(c, 0)
                        .or(kwarg(c, "constraint_name"))
                        .and_then(string_value),
                    self.table_arg(c, 1, "table_name"),
                ) else {
                    return;
                };
                let op = AlterOp::DropConstraint { name: n, span: at };
                self.alter(at, t, vec![op]);
            }
            "drop_index" => {
                let Some(n) = arg(c, 0).or(kwarg(c, "index_name")).and_then(index_name) else {
                    return;
                };
                self.push(
                    at,
                    SchemaChange::DropIndex {
                        names: vec![name(&n, at)],
                    },
                );
            }
            "drop_table" => {
                if let Some(t) = self.table_arg(c, 0, "table_name") {
                    self.push(at, SchemaChange::DropTable { names: vec![t] });
                }
            }
            "execute" => {
                if let Some(e) = arg(c, 0).or(kwarg(c, "sqltext")) {
                    self.sql(e);
                }
            }
            _ => {}
        }
    }

    /// `op.create_index("ix", "t", ["a"], unique=True)`.
    fn create_index(&mut self, c: &ExprCall, at: Span) {
        let given = arg(c, 0).or(kwarg(c, "index_name")).and_then(index_name);
        let Some(t) = self.table_arg(c, 1, "table_name") else {
            return;
        };
        let cols = lower(
            arg(c, 2)
                .or(kwarg(c, "columns"))
                .map(strings)
                .unwrap_or_default(),
        );
        if cols.is_empty() {
            return;
        }
        let kind = if kwarg(c, "unique").is_some_and(super::is_true) {
            KeyKind::Unique
        } else {
            KeyKind::Index
        };
        let mut k = key(&t.key, kind, cols, given, at);
        if kwarg(c, "postgresql_where").is_some() || kwarg(c, "sqlite_where").is_some() {
            k.predicate = Some("where".to_string());
        }
        let concurrently = kwarg(c, "postgresql_concurrently").is_some_and(super::is_true);
        self.push(
            at,
            SchemaChange::CreateIndex(CreateIndex {
                table: t,
                key: k,
                concurrently,
                if_not_exists: kwarg(c, "if_not_exists").is_some_and(super::is_true),
            }),
        );
    }

    /// The table named by argument `i` or keyword `kw`.
    fn table_arg(&self, c: &ExprCall, i: usize, kw: &str) -> Option<Name> {
        let e = kwarg(c, kw).or(arg(c, i))?;
        let t = string_value(e)?;
        let t = match kwarg(c, "schema").and_then(string_value) {
            Some(s) if s != "public" => format!("{s}.{t}"),
            _ => t,
        };
        Some(name(&t, span_of(e)))
    }

    /// `Table("t", metadata, Column("a", ..), UniqueConstraint("a"))` and
    /// `op.create_table("t", sa.Column(..), ..)`.
    pub(super) fn sqlalchemy_table(&mut self, c: &ExprCall, code: SchemaCode) {
        let Some(t) = self.table_arg(c, 0, "name") else {
            return;
        };
        let (mut columns, mut keys) = (Vec::new(), Vec::new());
        for a in c.arguments.args.iter().skip(1) {
            let Expr::Call(x) = a else { continue };
            let is_column = super::last_name(x).is_some_and(|n| n == "Column");
            match arg(x, 0)
                .filter(|_| is_column)
                .and_then(|e| string_value(e).map(|s| (s, span_of(e))))
            {
                Some((cname, cat)) => {
                    let cname = cname.to_ascii_lowercase();
                    column_keys(&t.key, &cname, x, cat, &mut keys);
                    columns.push(column(cname, x, cat));
                }
                None => keys.extend(table_key(&t.key, a).map(lower_key)),
            }
        }
        let at = span_of(c);
        self.create(at, t, Declared::new(code, columns, keys));
    }

    /// A declarative model: `__tablename__`, its `Column`/`mapped_column`
    /// attributes and `__table_args__`.
    pub(super) fn sqlalchemy_model(&mut self, c: &StmtClassDef, table: &str, at: Span) {
        let t = name(table, at);
        let (mut columns, mut keys) = (Vec::new(), Vec::new());
        for s in &c.body {
            let (target, value) = match s {
                Stmt::Assign(a) if a.targets.len() == 1 => (&a.targets[0], &*a.value),
                Stmt::AnnAssign(a) => match &a.value {
                    Some(v) => (&*a.target, &**v),
                    None => continue,
                },
                _ => continue,
            };
            let Expr::Name(attr) = target else { continue };
            if attr.id.as_str() == "__table_args__" {
                let args: &[Expr] = match value {
                    Expr::Tuple(t) => &t.elts,
                    Expr::List(l) => &l.elts,
                    _ => &[],
                };
                keys.extend(
                    args.iter()
                        .filter_map(|a| table_key(&t.key, a))
                        .map(lower_key),
                );
                continue;
            }
            let Expr::Call(x) = value else { continue };
            if !super::last_name(x).is_some_and(|n| n == "Column" || n == "mapped_column") {
                continue;
            }
            // `Column("event_id", String)`: the column's own name.
            let cname = arg(x, 0)
                .and_then(string_value)
                .unwrap_or_else(|| attr.id.to_string())
                .to_ascii_lowercase();
            let cat = span_of(attr);
            column_keys(&t.key, &cname, x, cat, &mut keys);
            columns.push(column(cname, x, cat));
        }
        self.alias(c.name.id.as_str(), &t.key.clone());
        let declared = Declared::new(SchemaCode::SqlAlchemy, columns, keys);
        self.create(span_of(&c.name), t, declared);
    }

    /// SQL in a string (`op.execute("CREATE UNIQUE INDEX ..")`,
    /// `RunSQL("..")`), read by the SQL front end where it is written.
    pub(super) fn sql(&mut self, e: &Expr) {
        let Expr::StringLiteral(s) = e else { return };
        let Some(part) = s
            .value
            .iter()
            .next()
            .filter(|_| !s.value.is_implicit_concatenated())
        else {
            return;
        };
        let content = part.content_range();
        let (start, end) = (content.start().to_usize(), content.end().to_usize());
        let Some(raw) = self.text.get(start..end) else {
            return;
        };
        // The file's text with all but the string's own bytes blanked: the
        // SQL's spans are the file's.
        let mut padded = String::with_capacity(end);
        padded.extend(self.text.as_bytes()[..start].iter().map(|&b| {
            if b == b'\n' {
                '\n'
            } else {
                ' '
            }
        }));
        padded.push_str(raw);
        let mut facts = crate::facts::FileFacts::default();
        crate::frontend::sql::parse(&padded, &mut facts);
        if let Some(sql) = facts.sql {
            self.events.extend(sql.events);
        }
    }
}

/// An index's name: a string, or `op.f("ix_..")` (a name Alembic takes as
/// given).
fn index_name(e: &Expr) -> Option<String> {
    match e {
        Expr::Call(c) => arg(c, 0).and_then(string_value),
        e => string_value(e),
    }
}

fn lower(cols: Vec<String>) -> Vec<String> {
    cols.into_iter().map(|c| c.to_ascii_lowercase()).collect()
}

fn lower_key(mut k: crate::facts::store::Key) -> crate::facts::store::Key {
    for p in &mut k.parts {
        if let crate::facts::store::KeyPart::Column(c) = p {
            *c = c.to_ascii_lowercase();
        }
    }
    k
}
