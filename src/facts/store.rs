//! Stores and statements: the schema a migration history declares (tables,
//! columns, unique keys, indexes, partitions, deletes by age) as ordered
//! events, the data statements code sends (which table, read or write,
//! insert that skips a duplicate, upsert), and the tables code names.
//! Replaying the events is the model's work.

use crate::source::Span;

/// Everything the SQL front end found in one file, in statement order.
#[derive(Debug, Default, Clone)]
pub struct SqlFacts {
    pub events: Vec<SchemaEvent>,
    /// `DELETE`s of a store's rows before their own expiry.
    pub early_purges: Vec<crate::facts::retention::EarlyPurge>,
    /// Statements no dialect could parse (reported or only counted).
    pub unparsed: usize,
    /// The built-in prefilter admits the file by its text alone, so a run
    /// that reads every file whole reads it too: set by
    /// the front end (`frontend::parse`). Findings that need no store word read
    /// only such files.
    pub admitted: bool,
    /// A Prisma schema's models (`frontend::prisma`): set for a `.prisma`
    /// file, whose events are the tables its models declare.
    pub prisma: Option<Vec<PrismaModel>>,
    /// Names code reaches a table by that are not the table's name: a
    /// Drizzle table's variable, a TypeORM entity's or a Sequelize model's
    /// class, in snake case (`processedEvents` → `processed_events`).
    pub aliases: Vec<TableAlias>,
    /// Tables named by a Django model without `db_table` (its lower-cased
    /// class, `idempotencykey`): Django names them `<app_label>_<model>`,
    /// and the app label is the app's directory, which the model knows from
    /// the file's path (`model::schema`), not the front end.
    pub app_tables: Vec<String>,
    /// Django model classes whose table another file's class may shape: an
    /// abstract model's fields and guards, which its concrete subclasses
    /// inherit, and the concrete models (or classes of a models module that
    /// only name a base) that may inherit them (`model::inherit`).
    pub model_classes: Vec<ModelClass>,
}

/// A Django model class as far as inheritance goes.
#[derive(Debug, Default, Clone)]
pub struct ModelClass {
    /// The class's name (`AbstractOrder`).
    pub class: String,
    /// Its bases' last names (`StripeModel`, `AbstractOrder`).
    pub bases: Vec<String>,
    /// `Meta.abstract = True`: no table of its own; its fields and guards
    /// are its subclasses'.
    pub abstract_: bool,
    /// A concrete class's table (app-labelled as the events are); `None`
    /// for an abstract one.
    pub table: Option<Name>,
    /// Whether the file's events create the table (a model with fields of
    /// its own); else the class makes one only if a base is abstract.
    pub declared: bool,
    /// Whether it declares its primary key.
    pub has_pk: bool,
    /// Whether it takes its bases' `Meta` (it has none of its own, or
    /// `class Meta(Base.Meta)`): their `unique_together`, `constraints`.
    pub inherits_meta: bool,
    /// An abstract model's columns, and the keys over one of them.
    pub columns: Vec<Column>,
    pub keys: Vec<Key>,
    /// An abstract model's `Meta` keys.
    pub meta_keys: Vec<Key>,
    /// An abstract model's (field, column) pairs.
    pub fields: Vec<(String, String)>,
    /// The class's name.
    pub span: Span,
}

/// A name code gives a table in a schema written in code (an ORM's table
/// object or class) and the table it stands for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableAlias {
    /// The name as a front end of code writes it in a statement's table
    /// (`processed_events` of `db.insert(processedEvents)`).
    pub name: String,
    /// The table's normalised key.
    pub table: String,
}

/// A Prisma model: the name its client is reached by and the table it makes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PrismaModel {
    /// The client's accessor, lower-cased (`prisma.processedEvent` →
    /// `processedevent`): how a front end of code names the table.
    pub accessor: String,
    /// The table's normalised key (`ProcessedEvent`, or the `@@map` name).
    pub table: String,
    /// The model's name.
    pub span: Span,
    /// Columns named apart from their field (`eventId String
    /// @map("event_id")`): (column, field).
    pub mapped: Vec<(String, String)>,
}

/// A table, index or constraint name as written, with its normalised form:
/// unquoted parts lower-cased, quotes removed, a leading `public.` dropped
/// (PostgreSQL's default schema), so `"Public".x`, `public.x` and `X` compare
/// as they would in the database.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Name {
    /// As written, quotes removed (`public.idempotency_keys`).
    pub text: String,
    /// Normalised, for comparisons (`idempotency_keys`).
    pub key: String,
    /// The name's token (its last part) in the file.
    pub span: Span,
}

impl Name {
    /// The name without its schema (`idempotency_keys`).
    pub fn bare(&self) -> &str {
        self.key.rsplit('.').next().unwrap_or(&self.key)
    }
}

/// A column definition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Column {
    /// Normalised name.
    pub name: String,
    pub span: Span,
    /// The type as sqlparser prints it (`TEXT`, `TIMESTAMPTZ`, `VARCHAR(64)`).
    pub ty: String,
    pub not_null: bool,
    /// The default expression's text, if any (`now() + INTERVAL '30 days'`).
    pub default: Option<String>,
    /// For a generated column (`GENERATED ALWAYS AS (lower(key)) STORED`),
    /// the columns its expression reads: a unique key on it guards those.
    pub generated: Option<Vec<String>>,
}

/// What a key guarantees.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyKind {
    PrimaryKey,
    /// A UNIQUE constraint or a unique index.
    Unique,
    /// A plain (non-unique) index: speeds lookups, guards nothing.
    Index,
}

impl KeyKind {
    /// The name PostgreSQL gives such a key on `table` (bare, no schema)
    /// over `columns` when the schema names none.
    pub fn default_name<S: AsRef<str>>(self, table: &str, columns: &[S]) -> String {
        let cols: Vec<&str> = columns.iter().map(AsRef::as_ref).collect();
        match self {
            KeyKind::PrimaryKey => format!("{table}_pkey"),
            KeyKind::Unique => format!("{table}_{}_key", cols.join("_")),
            KeyKind::Index => format!("{table}_{}_idx", cols.join("_")),
        }
    }
}

/// One part of a key: a column, or an expression such as `lower(key)` with
/// the columns it reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeyPart {
    Column(String),
    Expr { text: String, columns: Vec<String> },
}

impl KeyPart {
    /// The columns this part reads.
    pub fn columns(&self) -> Vec<&str> {
        match self {
            KeyPart::Column(c) => vec![c.as_str()],
            KeyPart::Expr { columns, .. } => columns.iter().map(String::as_str).collect(),
        }
    }

    pub fn text(&self) -> &str {
        match self {
            KeyPart::Column(c) => c,
            KeyPart::Expr { text, .. } => text,
        }
    }
}

/// A PRIMARY KEY, UNIQUE constraint, unique or plain index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Key {
    /// The constraint or index name, given or as PostgreSQL would name it
    /// (`<table>_pkey`, `<table>_<cols>_key`, `<table>_<cols>_idx`).
    pub name: String,
    pub kind: KeyKind,
    pub parts: Vec<KeyPart>,
    /// A partial index's `WHERE` text.
    pub predicate: Option<String>,
    /// The token that declares it (`UNIQUE`, `PRIMARY KEY`, the index name).
    pub span: Span,
}

impl Key {
    /// A key over plain columns of `table` (bare, no schema), named as
    /// PostgreSQL would name it unless the schema gives a name.
    pub fn over_columns(
        table: &str,
        kind: KeyKind,
        columns: Vec<String>,
        given: Option<String>,
        span: Span,
    ) -> Key {
        let name = given.unwrap_or_else(|| kind.default_name(table, &columns));
        Key {
            name,
            kind,
            parts: columns.into_iter().map(KeyPart::Column).collect(),
            predicate: None,
            span,
        }
    }

    pub fn parts_text(&self) -> String {
        self.parts
            .iter()
            .map(KeyPart::text)
            .collect::<Vec<_>>()
            .join(", ")
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PartitionMethod {
    Range,
    List,
    Hash,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Partitioning {
    pub method: PartitionMethod,
    pub columns: Vec<String>,
    /// The `PARTITION BY` clause in the file.
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CreateTable {
    pub name: Name,
    pub if_not_exists: bool,
    pub columns: Vec<Column>,
    pub keys: Vec<Key>,
    pub partition_by: Option<Partitioning>,
    /// `CREATE TABLE … PARTITION OF <parent>`.
    pub partition_of: Option<Name>,
    /// The schema code that declares the table, when it is not SQL: a
    /// guard or a claim is then written in that code's terms.
    pub declared_by: Option<SchemaCode>,
    /// (column, property) of each column the declaring code names apart
    /// from the column (`eventId: text("event_id")`).
    pub fields: Vec<(String, String)>,
}

/// Code that declares tables instead of SQL: a Prisma model, an ORM's
/// table object or entity class.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SchemaCode {
    Prisma,
    Drizzle,
    TypeOrm,
    Sequelize,
    /// A Medusa data model (`model.define`), on MikroORM.
    Medusa,
    /// A Django model or a migration's `CreateModel`.
    Django,
    /// A SQLAlchemy model (`__tablename__`) or `Table(...)`.
    SqlAlchemy,
    /// An Alembic revision's `op.create_table`.
    Alembic,
    /// An ent schema (entgo.io, Go): a struct embedding `ent.Schema`.
    Ent,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CreateIndex {
    pub table: Name,
    pub key: Key,
    pub concurrently: bool,
    pub if_not_exists: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AlterOp {
    AddColumn(Column),
    DropColumn {
        name: String,
        span: Span,
    },
    RenameColumn {
        from: String,
        to: String,
    },
    SetNotNull {
        column: String,
        not_null: bool,
    },
    AddKey(Key),
    DropConstraint {
        name: String,
        span: Span,
    },
    /// MySQL `DROP PRIMARY KEY`.
    DropPrimaryKey {
        span: Span,
    },
    /// MySQL `DROP INDEX` inside `ALTER TABLE`.
    DropIndex {
        name: String,
        span: Span,
    },
    RenameConstraint {
        from: String,
        to: String,
    },
    /// `ADD [CONSTRAINT c] UNIQUE | PRIMARY KEY USING INDEX i`: the index
    /// becomes the constraint (renamed to `c` when given).
    PromoteIndex {
        index: String,
        name: Option<String>,
        primary: bool,
    },
    RenameTable(Name),
    /// `ATTACH PARTITION child FOR VALUES ...` (pg_dump writes partitions
    /// as plain tables, then attaches them): the child becomes a partition.
    AttachPartition(Name),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Delete {
    pub table: Name,
    /// The `WHERE` text, if any.
    pub predicate: Option<String>,
    /// `WHERE <column> < now() - <interval>`: rows expire by age.
    pub expiry: Option<Expiry>,
    /// Names around the statement: the cron job, the function it sits in.
    pub context: Vec<String>,
}

/// An age cut-off in a `DELETE`'s `WHERE`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Expiry {
    pub column: String,
    pub duration: crate::duration::Duration,
    /// The interval's text in the file (inside the quotes, or the
    /// `make_interval` arguments).
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SchemaChange {
    CreateTable(CreateTable),
    CreateIndex(CreateIndex),
    AlterTable {
        table: Name,
        ops: Vec<AlterOp>,
    },
    /// `DROP INDEX a, b`: each name with its token.
    DropIndex {
        names: Vec<Name>,
    },
    DropTable {
        names: Vec<Name>,
    },
    /// `ALTER INDEX a RENAME TO b`: a later `DROP INDEX b` drops the guard.
    RenameIndex {
        from: Name,
        to: Name,
    },
    Delete(Delete),
}

/// One schema-changing (or row-deleting) statement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaEvent {
    /// The whole statement.
    pub span: Span,
    pub kind: SchemaChange,
}

/// How a statement touches a table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DmlKind {
    Read,
    Insert,
    /// `INSERT … ON CONFLICT … DO NOTHING`, MySQL `INSERT IGNORE`, SQLite
    /// `INSERT OR IGNORE`: a duplicate is skipped, and the caller can tell.
    InsertDoNothing,
    /// `ON CONFLICT … DO UPDATE`, `ON DUPLICATE KEY UPDATE`, `REPLACE INTO`.
    Upsert,
    Update,
    Delete,
}

impl DmlKind {
    pub fn as_str(self) -> &'static str {
        match self {
            DmlKind::Read => "read",
            DmlKind::Insert => "insert",
            DmlKind::InsertDoNothing => "insert-on-conflict-do-nothing",
            DmlKind::Upsert => "upsert",
            DmlKind::Update => "update",
            DmlKind::Delete => "delete",
        }
    }

    /// Whether the statement writes rows.
    pub fn writes(self) -> bool {
        self != DmlKind::Read
    }
}

/// One table a statement touches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dml {
    pub kind: DmlKind,
    /// Normalised (`public.` dropped, unquoted parts lower-cased).
    pub table: String,
    /// An insert's `ON CONFLICT (…)` target columns (normalised): the
    /// unique guard the statement relies on. Empty when none is written
    /// (one pointer: every SQL event of a parsed file holds one). For a
    /// read, the columns it filters on where the front end knows them (a
    /// Prisma `where`), else empty.
    pub conflict: thin_vec::ThinVec<String>,
}

impl Dml {
    pub fn new(kind: DmlKind, table: String) -> Self {
        Dml {
            kind,
            table,
            conflict: thin_vec::ThinVec::new(),
        }
    }
}

/// A table named by SQL inside code (a string literal of Rust or another
/// language): which code writes or reads a store.
#[derive(Debug, Clone)]
pub struct TableUse {
    /// The table's bare name, lower-cased, without quotes or schema.
    pub table: String,
    /// The statement's verb and table (`INSERT INTO processed_deliveries`).
    pub span: Span,
    pub writes: bool,
}

/// The arbiter an `INSERT INTO t … ON CONFLICT (a, b)` names: PostgreSQL
/// (and SQLite) accept it only when a unique guard of `t` is over exactly
/// those columns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConflictTarget {
    /// The table's bare name, lower-cased, without quotes or schema.
    pub table: String,
    /// The target's columns, normalised as the schema names them (unquoted
    /// lower-cased, quoted as written).
    pub columns: Vec<String>,
    /// `ON CONFLICT (…)`.
    pub span: Span,
}

/// Code that finds a row of a table by some columns and creates it when
/// none is found, in one call (Django's `get_or_create` and
/// `update_or_create`): race-free only where a unique guard of the table
/// holds the lookup, since two concurrent calls can both miss and both
/// insert. Lowered by a language's front end, joined with the schema by
/// the model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FindOrCreate {
    /// The table as the code names it (a model class in snake case,
    /// `transaction_item`), resolved by the model's aliases.
    pub table: String,
    /// The lookup's fields as written (`idempotency_key`, `order_id`,
    /// `customer` for a relation).
    pub columns: Vec<String>,
    /// The fields the created row also gets (`defaults={..}`'s keys);
    /// `None` when they are not written out (`defaults=params`).
    pub defaults: Option<Vec<String>>,
    /// The call.
    pub span: Span,
}

#[derive(Debug, Default, Clone)]
pub struct CacheFacts {
    /// Cache types with a Redis implementation: the enum or trait, and the
    /// Redis type (`Cache`, `RedisCache`).
    pub redis_backends: Vec<(String, String)>,
    /// Types idempotency code holds or takes: (the idempotency item, the
    /// type's identifiers, span of the type).
    pub store_uses: Vec<CacheUse>,
}

#[derive(Debug, Clone)]
pub struct CacheUse {
    /// `IdempotencyService`, `idempotency_layer`.
    pub owner: String,
    /// Every identifier of the field's or parameter's type (`Arc<dyn
    /// CacheBackend>` → `Arc`, `CacheBackend`).
    pub types: Vec<String>,
    pub span: Span,
}

/// The names code reaches a run's tables by and the tables they stand
/// for: the Prisma client's accessors (lower-cased, as a front end of code
/// names them) and the aliases of schemas written in code (an ORM's table
/// object or entity class, [`SqlFacts::aliases`]).
pub fn table_aliases(
    files: &[crate::facts::FileFacts],
) -> std::collections::HashMap<String, String> {
    let sql = || files.iter().filter_map(|f| f.sql.as_ref());
    let prisma = sql()
        .filter_map(|s| s.prisma.as_ref())
        .flatten()
        .map(|m| (m.accessor.clone(), m.table.clone()));
    let code = sql()
        .flat_map(|s| &s.aliases)
        .map(|a| (a.name.clone(), a.table.clone()));
    prisma.chain(code).collect()
}
