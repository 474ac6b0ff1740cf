//! `missing-unique-key-constraint`: a store whose key columns have no
//! PRIMARY KEY, UNIQUE constraint or unique index at the end of its
//! migration history, or only a partial one.

use super::Context;
use crate::diagnostic::{Diagnostic, RuleId, Severity};
use crate::facts::store::{KeyKind, SchemaCode};
use crate::model::find_or_create::{KeyedGap, KeyedLookup};
use crate::model::schema::{self, Guard, Guarding, Removed, Store, Table};

pub const NAME: RuleId = RuleId::MissingUniqueKeyConstraint;

pub fn check(ctx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    let mut reported: Vec<&str> = Vec::new();
    for (t, s) in ctx.model.schema.stores() {
        if s.key.is_empty() {
            continue;
        }
        let dialect = Dialect::of(ctx, t);
        match s.guarding(t) {
            Guarding::Missing if swapped_by_schema(t, &s) => {}
            Guarding::Missing => {
                let d = match minted_guard(t, &s) {
                    Some((g, cols)) => per_row(t, &s, g, &cols, dialect),
                    None => missing(t, &s, s.last_removed(t), s.plain_index(t), dialect),
                };
                out.push(d);
                reported.push(&t.key);
            }
            Guarding::Partial(g) => {
                out.push(partial(t, &s, g, dialect));
                reported.push(&t.key);
            }
            Guarding::Guarded(_) | Guarding::SplitByPartition { .. } => {}
        }
    }
    for t in &ctx.model.schema.tables {
        if t.declared_by == Some(SchemaCode::Ent) && !reported.contains(&t.key.as_str()) {
            let d = demoted(t, Dialect::of(ctx, t));
            if !d.is_empty() {
                out.extend(d);
                reported.push(&t.key);
            }
        }
    }
    for t in &ctx.model.schema.tables {
        // ent names an index for its columns (`<type>_<columns>`), not
        // for what it guards
        let ent = t.declared_by == Some(SchemaCode::Ent);
        if t.partition_of.is_none() && !ent && !reported.contains(&t.key.as_str()) {
            out.extend(named_guards(t, Dialect::of(ctx, t)));
        }
    }
    let mut seen: Vec<(&str, &[String])> = Vec::new();
    // a guard that leaves out the target's scope is unscoped-idempotency-key's
    for (c, t, _, _) in ctx.model.schema.unscoped_conflicts() {
        seen.push((t.key.as_str(), c.target.columns.as_slice()));
    }
    for (c, t) in ctx.model.schema.unguarded_conflicts() {
        let at = (t.key.as_str(), c.target.columns.as_slice());
        if reported.contains(&t.key.as_str()) || seen.contains(&at) {
            continue;
        }
        seen.push(at);
        out.push(unguarded_conflict(c, t, Dialect::of(ctx, t)));
    }
    for k in ctx.model.schema.keyed_lookups() {
        let at = (k.table.key.as_str(), k.call.call.columns.as_slice());
        let shown = reported.contains(&k.table.key.as_str()) || seen.contains(&at);
        if matches!(k.gap, KeyedGap::Unguarded) && !shown {
            seen.push(at);
            out.push(lost_key(&k, Dialect::of(ctx, k.table)));
        }
    }
}

/// A definition of a table with no unique guard over the columns code
/// finds or creates its rows by, which another definition of the table
/// guards: the model and its migrations disagree, and the one without the
/// guard lets a second row with the same key in.
fn lost_key(k: &KeyedLookup<'_>, dialect: Dialect) -> Diagnostic {
    let t = k.table;
    let columns = cols(&k.columns);
    Diagnostic::new(
        NAME,
        Severity::Warning,
        t.created.file,
        t.created.span,
        format!(
            "`{}` has no unique guard over the columns the code finds its rows by",
            t.name
        ),
    )
    .with_primary_label(format!("table defined here, without a guard over `({columns})`"))
    .with_label(k.call.file, k.call.call.span, format!("looks the row up by `({columns})`, then inserts it"))
    .with_label(k.keyed_by.at.file, k.keyed_by.at.span, "another definition of the table guards these columns")
    .with_note("the code keys the rows by these columns and another definition of the table says they are unique: where this definition holds, a retried or concurrent call finds nothing and inserts the row again")
    .with_help(format!(
        "{}: `{}`",
        add_guard(dialect),
        unique_index(t, &k.columns, dialect)
    ))
}

/// Code that inserts with `ON CONFLICT (cols)` into a table no unique guard
/// of which is over exactly those columns. A warning: the schema may be
/// completed where idemlint does not read (an ORM's start-up, a migration
/// kept in another repository).
fn unguarded_conflict(c: &schema::ConflictUse, t: &Table, dialect: Dialect) -> Diagnostic {
    let columns = cols(&c.target.columns);
    Diagnostic::new(
        NAME,
        Severity::Warning,
        t.created.file,
        t.created.span,
        format!(
            "`{}` has no unique guard over `({columns})`, the code's `ON CONFLICT` target",
            t.name
        ),
    )
    .with_primary_label("table defined here")
    .with_label(
        c.file,
        c.target.span,
        format!("the code dedupes on `({columns})` here"),
    )
    .with_note(format!(
        "PostgreSQL takes as arbiter only a unique index or constraint over exactly `({columns})`: without one the insert fails, and nothing refuses a second row with the same values"
    ))
    .with_help(format!(
        "{}: `{}`",
        add_guard(dialect),
        unique_index(t, &c.target.columns, dialect)
    ))
}

/// The SQL dialect a table's guard is to be written in: by the schema
/// file's path (`mysql/`, `sqlite/`), else by types only MySQL has, else
/// PostgreSQL.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Dialect {
    Postgres,
    MySql,
    Sqlite,
    /// A Prisma model: the guard is declared in the model, and Prisma
    /// Migrate writes the SQL.
    Prisma,
    /// An ORM's table object or entity (Drizzle, TypeORM, Sequelize,
    /// Medusa): the guard is declared there, by property names.
    Code(SchemaCode),
}

impl Dialect {
    fn of(ctx: &Context<'_>, t: &Table) -> Dialect {
        let path = ctx.sources.path(t.created.file).to_ascii_lowercase();
        if path.ends_with(".prisma") {
            return Dialect::Prisma;
        }
        if let Some(c) = t.declared_by.filter(|c| *c != SchemaCode::Prisma) {
            return Dialect::Code(c);
        }
        if path.contains("sqlite") {
            return Dialect::Sqlite;
        }
        if path.contains("mysql") || path.contains("mariadb") {
            return Dialect::MySql;
        }
        let mysql_only = [
            "TINYINT",
            "MEDIUMINT",
            "DATETIME",
            "TINYTEXT",
            "MEDIUMTEXT",
            "LONGTEXT",
            "TINYBLOB",
            "MEDIUMBLOB",
            "LONGBLOB",
            "ENUM(",
        ];
        let mysql = t.columns.iter().any(|c| {
            let ty = c.ty.to_ascii_uppercase();
            mysql_only.iter().any(|w| ty.starts_with(w))
        });
        if mysql {
            Dialect::MySql
        } else {
            Dialect::Postgres
        }
    }
}

fn cols(c: &[String]) -> String {
    c.join(", ")
}

/// An identifier as PostgreSQL must read it: quoted unless it is already
/// in the form an unquoted name folds to (`"IdempotencyKey"`, but
/// `idempotency_keys`).
fn ident(name: &str) -> String {
    let plain = name.starts_with(|c: char| c.is_ascii_lowercase() || c == '_')
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
    if plain {
        name.to_string()
    } else {
        format!("\"{}\"", name.replace('"', "\"\""))
    }
}

/// An identifier as MySQL must read it: in backticks unless plain.
fn mysql_ident(name: &str) -> String {
    let plain = name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if plain {
        name.to_string()
    } else {
        format!("`{}`", name.replace('`', "``"))
    }
}

/// The guard to add: scope columns first, so one caller's key never meets
/// another's. Names are the normalised ones (case kept only where it was
/// quoted), quoted where the dialect needs it.
fn suggestion(t: &Table, s: &Store, dialect: Dialect) -> String {
    let mut columns = s.scope.clone();
    columns.extend(s.key.iter().cloned());
    unique_index(t, &columns, dialect)
}

/// A statement that adds a unique guard over `columns` of `t` without
/// stopping writes where the dialect can: PostgreSQL builds it
/// `CONCURRENTLY`, MySQL (InnoDB online DDL) with `ALGORITHM=INPLACE,
/// LOCK=NONE`; SQLite has neither, and its `CREATE UNIQUE INDEX` holds the
/// database's write lock while it builds.
fn unique_index(t: &Table, columns: &[String], dialect: Dialect) -> String {
    let bare = t.key.rsplit('.').next().unwrap_or(&t.key);
    let name = format!("{bare}_{}_key", columns.join("_"));
    let q: fn(&str) -> String = match dialect {
        Dialect::MySql => mysql_ident,
        Dialect::Postgres | Dialect::Sqlite | Dialect::Prisma | Dialect::Code(_) => ident,
    };
    let table: Vec<String> = t.key.split('.').map(q).collect();
    let quoted: Vec<String> = columns.iter().map(|c| q(c)).collect();
    match dialect {
        Dialect::Postgres => format!(
            "CREATE UNIQUE INDEX CONCURRENTLY {} ON {} ({});",
            q(&name),
            table.join("."),
            cols(&quoted)
        ),
        Dialect::MySql => format!(
            "ALTER TABLE {} ADD UNIQUE INDEX {} ({}), ALGORITHM=INPLACE, LOCK=NONE;",
            table.join("."),
            q(&name),
            cols(&quoted)
        ),
        Dialect::Sqlite => format!(
            "CREATE UNIQUE INDEX {} ON {} ({});",
            q(&name),
            table.join("."),
            cols(&quoted)
        ),
        Dialect::Prisma => format!("@@unique([{}])", cols(&fields_of(t, columns))),
        Dialect::Code(code) => orm_unique(code, &name, &t.key, &fields_of(t, columns)),
    }
}

/// The properties the declaring code names `columns` by.
fn fields_of(t: &Table, columns: &[String]) -> Vec<String> {
    columns
        .iter()
        .map(|c| t.field_name(c).to_string())
        .collect()
}

/// A unique guard as an ORM declares it, over properties.
fn orm_unique(code: SchemaCode, name: &str, table: &str, fields: &[String]) -> String {
    let quoted: Vec<String> = fields.iter().map(|f| format!("\"{f}\"")).collect();
    match code {
        SchemaCode::Drizzle => {
            let on: Vec<String> = fields.iter().map(|f| format!("t.{f}")).collect();
            format!("uniqueIndex(\"{name}\").on({})", cols(&on))
        }
        SchemaCode::TypeOrm => format!(
            "@Index(\"{name}\", [{}], {{ unique: true }})",
            cols(&quoted)
        ),
        SchemaCode::Sequelize => format!(
            "indexes: [{{ name: \"{name}\", unique: true, fields: [{}] }}]",
            cols(&quoted)
        ),
        SchemaCode::Medusa => format!(".indexes([{{ on: [{}], unique: true }}])", cols(&quoted)),
        SchemaCode::Prisma => format!("@@unique([{}])", cols(fields)),
        SchemaCode::Django => format!(
            "models.UniqueConstraint(fields=[{}], name=\"{name}\")",
            cols(&quoted)
        ),
        SchemaCode::SqlAlchemy => format!("UniqueConstraint({}, name=\"{name}\")", cols(&quoted)),
        SchemaCode::Alembic => format!(
            "op.create_index(\"{name}\", \"{table}\", [{}], unique=True, postgresql_concurrently=True)",
            cols(&quoted)
        ),
        SchemaCode::Ent => format!("index.Fields({}).Unique()", cols(&quoted)),
    }
}

/// A unique guard over the store's key that its Prisma model declares and
/// no migration creates (a migration edited by hand, or not generated).
fn unmigrated_guard<'t>(t: &'t Table, s: &Store) -> Option<&'t Guard> {
    t.unmigrated.iter().find(|g| {
        g.key
            .parts
            .iter()
            .any(|p| p.columns().iter().any(|c| s.key.iter().any(|k| k == c)))
    })
}

/// A unique guard over the key that the Prisma model declares and no
/// migration creates.
/// A Prisma model that declares a unique guard on the key other than the
/// one its migrations created (scoped differently, say): the database the
/// migrations built has the one, the next migration makes the other, and
/// neither state lacks a guard (`unscoped-idempotency-key` judges both).
fn swapped_by_schema(t: &Table, s: &Store) -> bool {
    let removed = s
        .last_removed(t)
        .is_some_and(|r| r.by_schema && r.guard.key.kind != KeyKind::Index);
    removed && unmigrated_guard(t, s).is_some()
}

fn unmigrated(t: &Table, s: &Store, g: &Guard, key: &str) -> Diagnostic {
    Diagnostic::new(
        NAME,
        s.severity(Severity::Error),
        g.at.file,
        g.at.span,
        format!(
            "`{}` declares a unique guard on `{key}` that no migration creates",
            t.name
        ),
    )
    .with_primary_label("declared in the model, never migrated")
    .with_label(
        t.created.file,
        t.created.span,
        "the migrations build the table without it",
    )
    .with_note("a database the migrations built refuses no second row with the same key: two concurrent replays both read nothing and both insert one")
}

/// The words of a help that adds the guard, by dialect.
fn add_guard(dialect: Dialect) -> &'static str {
    match dialect {
        Dialect::Postgres => "add the guard without locking writes",
        Dialect::MySql => "add the guard online (InnoDB builds it while writes go on)",
        Dialect::Sqlite => "add the guard (SQLite holds its write lock while it builds the index)",
        Dialect::Prisma => {
            "declare the guard in the model, then let Prisma Migrate write its index (`prisma migrate dev`)"
        }
        Dialect::Code(SchemaCode::Drizzle) => {
            "declare the guard in the table's indexes, then generate its migration (`drizzle-kit generate`)"
        }
        Dialect::Code(SchemaCode::TypeOrm) => {
            "declare the guard on the entity, then generate its migration (`typeorm migration:generate`)"
        }
        Dialect::Code(SchemaCode::Sequelize) => {
            "declare the guard in the model's options, and create it in a migration (`queryInterface.addIndex(table, fields, { unique: true })`)"
        }
        Dialect::Code(SchemaCode::Medusa) => {
            "declare the guard in the data model, then generate its migration (`medusa db:generate`)"
        }
        Dialect::Code(SchemaCode::Prisma) => "declare the guard in the model",
        Dialect::Code(SchemaCode::Django) => {
            "declare the guard in the model's `Meta.constraints`, then generate its migration (`manage.py makemigrations`)"
        }
        Dialect::Code(SchemaCode::SqlAlchemy) => {
            "declare the guard in the model's `__table_args__`, then generate its revision (`alembic revision --autogenerate`)"
        }
        Dialect::Code(SchemaCode::Ent) => {
            "declare the guard in the schema's `Indexes()`, then generate its migration (`atlas migrate diff`)"
        }
        Dialect::Code(SchemaCode::Alembic) => {
            "add the guard in a new revision, without locking writes (inside `with op.get_context().autocommit_block():` on PostgreSQL)"
        }
    }
}

fn missing(
    t: &Table,
    s: &Store,
    removed: Option<&Removed>,
    index: Option<&Guard>,
    dialect: Dialect,
) -> Diagnostic {
    let key = cols(&s.key);
    let mut d = match removed {
        Some(r) if r.by_schema => Diagnostic::new(
            NAME,
            s.severity(Severity::Error),
            r.at.file,
            r.at.span,
            format!(
                "the model of `{}` no longer declares the unique guard on `{key}`",
                t.name
            ),
        )
        .with_primary_label(format!(
            "the next {} drops `{}`",
            next_migration(dialect),
            r.guard.key.name
        ))
        .with_label(
            r.guard.at.file,
            r.guard.at.span,
            format!(
                "a migration creates the guard, but {} makes the database what the schema says and drops it",
                next_migration(dialect)
            ),
        )
        .with_note("two concurrent replays both read nothing and both insert a row"),
        Some(r) => Diagnostic::new(
            NAME,
            s.severity(Severity::Error),
            r.at.file,
            r.at.span,
            format!("`{}` is left with no unique guard on `{key}`", t.name),
        )
        .with_primary_label(format!("`{}` dropped here", r.guard.key.name))
        .with_label(
            t.created.file,
            t.created.span,
            format!("`{}` created here", t.name),
        )
        .with_label(
            r.guard.at.file,
            r.guard.at.span,
            "the guard, before the drop",
        )
        .with_note("two concurrent replays both read nothing and both insert a row"),
        None => match unmigrated_guard(t, s) {
            Some(g) => unmigrated(t, s, g, &key),
            None => Diagnostic::new(
                NAME,
                s.severity(Severity::Error),
                t.created.file,
                t.created.span,
                format!("`{}` has no unique guard on `{key}`", t.name),
            )
            .with_primary_label("table defined here")
            .with_note("two concurrent replays both read nothing and both insert a row"),
        },
    };
    if let Some(u) = &s.derived {
        d = d.with_label(
            u.file,
            u.span,
            format!(
                "the code {} `{}` {} {}: the table keeps {}",
                if u.writes { "fills" } else { "looks up" },
                u.column.as_deref().unwrap_or(&t.name),
                if u.writes { "from" } else { "by" },
                u.what,
                if u.event {
                    "the provider's event ids"
                } else {
                    "the clients' idempotency keys"
                }
            ),
        );
    }
    let had_guard = removed.is_some()
        || t.guards.iter().any(|g| {
            g.key.kind != KeyKind::Index
                && g.key
                    .parts
                    .iter()
                    .any(|p| p.columns().iter().any(|c| s.key.iter().any(|k| k == c)))
        });
    if s.own_guard && had_guard {
        d = d.with_note(format!(
            "`{}` carries the key, and this was its own unique guard over `{key}`: a unique index over the key exists only to refuse a second row with it",
            t.name
        ));
    }
    if let Some(ix) = index.filter(|ix| removed.is_none_or(|r| r.at != ix.at)) {
        d = d.with_label(
            ix.at.file,
            ix.at.span,
            format!(
                "`{}` is a plain index: it refuses no second row",
                ix.key.name
            ),
        );
    }
    let help = if let Some((p, _)) = &t.partition_by {
        d = d.with_note(format!(
            "`{}` is partitioned by `{}`, and PostgreSQL only allows a unique index that includes the partition column",
            t.name,
            cols(&p.columns)
        ));
        format!(
            "keep the keys in a table that is not partitioned by time, or partition it by `HASH ({key})` so `UNIQUE ({key})` is allowed"
        )
    } else if removed.is_none() && unmigrated_guard(t, s).is_some() {
        "generate the migration that creates it (`prisma migrate dev`) and deploy it; if a migration was edited to leave it out, restore it".to_string()
    } else {
        format!("{}: `{}`", add_guard(dialect), suggestion(t, s, dialect))
    };
    d.with_help(help)
}

fn partial(t: &Table, s: &Store, g: &Guard, dialect: Dialect) -> Diagnostic {
    let predicate = g.key.predicate.as_deref().unwrap_or_default();
    Diagnostic::new(
        NAME,
        s.severity(Severity::Warning),
        g.at.file,
        g.at.span,
        format!(
            "the only unique guard on `{}.{}` is partial",
            t.name,
            cols(&s.key)
        ),
    )
    .with_primary_label(format!("only rows where `{predicate}`"))
    .with_note("rows outside the predicate are not guarded: two replays of such a row both insert")
    .with_help(format!(
        "guard every row: `{}`, or show that no key is ever written outside `{predicate}`",
        suggestion(t, s, dialect)
    ))
}

/// The unique guard over the key that also holds columns each insert
/// fills anew ([`schema::minted`]), and those columns.
fn minted_guard<'a>(t: &'a Table, s: &Store) -> Option<(&'a Guard, Vec<String>)> {
    t.guards
        .iter()
        .filter(|g| g.key.kind != KeyKind::Index && g.key.predicate.is_none())
        .find_map(|g| {
            let all: Vec<&str> = g.key.parts.iter().flat_map(|p| p.columns()).collect();
            let new: Vec<String> = all
                .iter()
                .filter(|c| !s.key.iter().any(|k| k == *c) && schema::minted(t, c))
                .map(|c| c.to_string())
                .collect();
            let covers = s.key.iter().all(|k| all.contains(&k.as_str()));
            (covers && !new.is_empty()).then_some((g, new))
        })
}

/// Why a minted column is new on every insert.
fn minted_why(t: &Table, c: &str) -> String {
    match t.column(c).and_then(|col| col.default.as_deref()) {
        Some(d) => format!("`{c}` defaults to `{d}`"),
        None => format!("`{c}` is minted for each row"),
    }
}

/// The key's only unique guard also holds a column each insert fills anew
/// (`PRIMARY KEY (ap_id, published)` with `published DEFAULT now()`,
/// `PRIMARY KEY (workflow_id, run_id)`): the same key inserted twice makes
/// two rows.
fn per_row(t: &Table, s: &Store, g: &Guard, new: &[String], dialect: Dialect) -> Diagnostic {
    let key = cols(&s.key);
    let why: Vec<String> = new.iter().map(|c| minted_why(t, c)).collect();
    let mut d = Diagnostic::new(
        NAME,
        s.severity(Severity::Error),
        g.at.file,
        g.at.span,
        format!(
            "the only unique guard of `{}` also holds `{}`, new on each insert",
            t.name,
            cols(new)
        ),
    )
    .with_primary_label(format!(
        "`({})`: no second row with the same `{key}` is refused",
        g.key.parts_text()
    ))
    .with_label(
        t.created.file,
        t.created.span,
        format!("`{}` created here", t.name),
    )
    .with_note(format!(
        "{}: each insert brings a new value, so a replay of the same `{key}` meets no row and is inserted",
        why.join(", ")
    ));
    if s.note_only {
        d = d.with_note(format!(
            "`{}` keeps the caller's request id, so it answers retried requests; its name does not say it keeps keys, hence a note",
            t.name
        ));
    }
    d.with_help(format!(
        "guard the key alone: `{}`",
        unique_index(t, &s.key, dialect)
    ))
}

/// The plain columns of a key, or `None` when a part is an expression.
fn plain_columns(k: &crate::facts::store::Key) -> Option<Vec<&str>> {
    k.parts
        .iter()
        .map(|p| match p {
            crate::facts::store::KeyPart::Column(c) => Some(c.as_str()),
            crate::facts::store::KeyPart::Expr { .. } => None,
        })
        .collect()
}

/// Plain indexes named as unique or duplicate guards (`record_uniq`,
/// `index_unique_transaction_id`, `fees_duplication_guard`) with no unique
/// guard of the table over their columns (or some of them): the name says
/// what the index was meant to refuse, and it refuses nothing. A warning:
/// the name is the authors' intent, not a proof that the code leans on it.
/// The command that makes the next migration from a schema in code.
fn next_migration(dialect: Dialect) -> &'static str {
    match dialect {
        Dialect::Code(SchemaCode::Ent) => "ent migration (`atlas migrate diff`)",
        _ => "`prisma migrate dev`",
    }
}

/// A table no store rule judges whose ent schema declares as a plain index
/// a unique guard its migrations create over a key a replay repeats (a
/// reference unique per parent, an idempotency key): the next migration
/// makes the index plain, and a replayed write is stored twice. A warning:
/// the table is no store by its name.
fn demoted(t: &Table, dialect: Dialect) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for r in t
        .removed
        .iter()
        .filter(|r| r.by_schema && r.guard.key.kind != KeyKind::Index)
    {
        let plain = t
            .guards
            .iter()
            .any(|g| g.key.kind == KeyKind::Index && g.at == r.at);
        if !plain || !schema::keyed_guard(t, &r.guard) {
            continue;
        }
        let columns: Vec<String> = r
            .guard
            .key
            .parts
            .iter()
            .map(|p| p.text().to_string())
            .collect();
        out.push(
            Diagnostic::new(
                NAME,
                Severity::Warning,
                r.at.file,
                r.at.span,
                format!(
                    "the schema of `{}` makes a unique guard a plain index",
                    t.name
                ),
            )
            .with_primary_label(format!(
                "a plain index over `({})`: the next {} makes `{}` refuse no duplicate",
                cols(&columns),
                next_migration(dialect),
                r.guard.key.name
            ))
            .with_label(r.guard.at.file, r.guard.at.span, "a migration creates the unique guard")
            .with_note("a replayed write (a retried request, a re-run sync) inserts a second row with the same key")
            .with_help(format!(
                "{}: `{}`",
                add_guard(dialect),
                unique_index(t, &columns, dialect)
            )),
        );
    }
    out
}

fn named_guards(t: &Table, dialect: Dialect) -> Vec<Diagnostic> {
    let words = &crate::knowledge::stores().guard_index_name;
    let mut out = Vec::new();
    for ix in t
        .guards
        .iter()
        .filter(|g| g.key.kind == KeyKind::Index && words.matches(&g.key.name))
    {
        let Some(columns) = plain_columns(&ix.key) else {
            continue;
        };
        let covered = t.guards.iter().any(|g| {
            g.key.kind != KeyKind::Index
                && g.key.predicate.is_none()
                && plain_columns(&g.key)
                    .is_some_and(|c| !c.is_empty() && c.iter().all(|x| columns.contains(x)))
        });
        if covered || columns.is_empty() {
            continue;
        }
        let owned: Vec<String> = columns.iter().map(|c| c.to_string()).collect();
        out.push(
            Diagnostic::new(
                NAME,
                Severity::Warning,
                ix.at.file,
                ix.at.span,
                format!(
                    "`{}` is named as a unique guard but is a plain index",
                    ix.key.name
                ),
            )
            .with_primary_label(format!(
                "a plain index: no unique guard of `{}` covers `({})`",
                t.name,
                cols(&owned)
            ))
            .with_label(
                t.created.file,
                t.created.span,
                format!("`{}` created here", t.name),
            )
            .with_note("an index named for uniqueness or for duplicates is one the code is meant to lean on: a replay that inserts the same values again is stored twice")
            .with_help(format!(
                "{}: `{}`, or rename the index if duplicates are meant to be allowed",
                add_guard(dialect),
                unique_index(t, &owned, dialect)
            )),
        );
    }
    out
}
