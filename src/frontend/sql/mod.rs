//! The SQL front end: split a file into statements (`split`), parse each on
//! its own with sqlparser (PostgreSQL first, then MySQL and SQLite for their
//! forms), and turn what it reads into an ordered list of schema events
//! (`extract`) and retention facts (`retention`). Replaying the events of a
//! migration history is the model's job (`model::schema`), not this one's.

pub mod dml;
pub mod extract;
pub mod interval;
pub mod retention;
pub use crate::lex::sql as split;

use crate::lex::sql::down_section;
use crate::source::Span;

/// Everything the SQL front end found in one file, in statement order.
#[derive(Debug, Default, Clone)]
pub struct SqlFacts {
    pub events: Vec<SchemaEvent>,
    /// `DELETE`s of a store's rows before their own expiry.
    pub early_purges: Vec<super::EarlyPurge>,
    /// Statements no dialect could parse (reported or only counted).
    pub unparsed: usize,
    /// The built-in prefilter admits the file by its text alone, so a run
    /// that reads every file whole reads it too: set by
    /// [`crate::frontend::parse`]. Findings that need no store word read
    /// only such files.
    pub admitted: bool,
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
pub enum EventKind {
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
    pub kind: EventKind,
}

/// Parse one SQL file into `facts`.
pub fn parse(text: &str, facts: &mut super::FileFacts) {
    let mut sql = SqlFacts::default();
    let up = &text[..down_section(text).unwrap_or(text.len())];
    for stmt in split::split(up) {
        extract::statement(text, &stmt, &mut sql, &mut facts.problems);
        retention::statement(text, &stmt, &mut sql, &mut facts.retention);
    }
    retention::column_defaults(text, &sql, &mut facts.retention);
    facts.early_purges.append(&mut sql.early_purges);
    facts.sql = Some(sql);
}

#[cfg(test)]
mod tests {
    use crate::frontend::FileFacts;

    /// The down half of a goose, sql-migrate or dbmate file is not
    /// applied: the guard the up half makes stays.
    #[test]
    fn the_down_half_of_a_migration_file_is_not_read() {
        for marker in ["-- +goose Down", "-- +migrate Down", "-- migrate:down"] {
            let sql = format!(
                "-- +goose Up\nCREATE TABLE idem_keys (k text);\nCREATE UNIQUE INDEX idem_keys_k ON idem_keys (k);\n{marker}\nDROP INDEX idem_keys_k;\nDROP TABLE idem_keys;\n"
            );
            let mut f = FileFacts::default();
            super::parse(&sql, &mut f);
            let events = f.sql.map(|s| s.events.len()).unwrap_or(0);
            assert_eq!(events, 2, "{marker}");
        }
    }

    /// Every prefix of a file full of edge cases (cut inside quotes,
    /// bodies, comments, multi-byte characters) parses without a panic.
    #[test]
    fn every_prefix_of_a_tricky_file_parses_without_panicking() {
        let sql = "-- é ünïcode\u{a0}\nCREATE TABLE \"Idem\u{a0}Keys\" (k text PRIMARY KEY, e timestamptz DEFAULT now() + interval '1 day');\n\
                   DROP INDEX CONCURRENTLY IF EXISTS \u{a0}idx_é;\n\
                   SELECT cron.schedule('j', '* * * * *', $$DELETE FROM idem_keys WHERE t < now() - make_interval(days => 3)$$);\n\
                   CREATE FUNCTION f() RETURNS void AS $x$ BEGIN DELETE FROM idempotency_keys WHERE created_at < now() - '2 days'::interval; END $x$ LANGUAGE plpgsql;\n\
                   /* nested /* é */ */ ALTER TABLE idem_keys DROP CONSTRAINT idem_keys_pkey, ADD UNIQUE (k);\n\
                   UPDATE partman.part_config SET retention = '30 days' WHERE parent_table = 'public.idem_keys';";
        for (i, _) in sql.char_indices() {
            let mut f = FileFacts::default();
            super::parse(&sql[..i], &mut f);
        }
        let mut f = FileFacts::default();
        super::parse(sql, &mut f);
        assert_eq!(f.retention.len(), 3, "{:?}", f.retention);
    }

    #[test]
    fn deeply_nested_parentheses_are_a_problem_not_a_crash() {
        let sql = format!(
            "CREATE TABLE idempotency_keys (k text CHECK ({}true{}));",
            "(".repeat(10_000),
            ")".repeat(10_000)
        );
        let mut f = FileFacts::default();
        super::parse(&sql, &mut f);
        assert_eq!(f.problems.len(), 1);
        assert!(f.problems[0].reported);
    }
}
