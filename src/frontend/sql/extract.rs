//! Statements to schema events. Each statement is parsed on its own:
//! PostgreSQL first, then MySQL and SQLite for their forms (backticks,
//! `UNIQUE KEY` and `KEY` inside `CREATE TABLE`, `ENGINE=`). sqlparser's own
//! spans are approximate, so exact token positions (the table
//! name, the `UNIQUE` keyword, an index name) are found by searching the
//! statement's text from a cursor.

use super::split::RawStatement;
use crate::facts::store::{
    AlterOp, Column, CreateIndex, CreateTable, Key, KeyKind, KeyPart, Name, PartitionMethod,
    Partitioning, SchemaChange, SchemaEvent, SqlFacts,
};
use crate::facts::Problem;
use crate::knowledge;
use crate::lex::sql::{changes_tables, first_words};
use crate::source::Span;
use sqlparser::ast::{
    self, AlterColumnOperation, AlterIndexOperation, AlterTableOperation, ColumnOption, Expr,
    IndexColumn, ObjectName, ObjectType, RenameTableNameKind, Statement, TableConstraint,
};
use sqlparser::dialect::{
    ClickHouseDialect, Dialect, MySqlDialect, PostgreSqlDialect, SQLiteDialect,
};
use sqlparser::parser::Parser;

/// Byte-search helper over one statement of a file.
struct Text<'a> {
    file: &'a str,
    stmt: Span,
}

fn is_ident_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'$' || b >= 0x80
}

impl Text<'_> {
    /// The first whole-word, case-insensitive occurrence of `words`
    /// (separated by any whitespace in the text) at or after `from`.
    fn find(&self, from: usize, words: &str) -> Option<Span> {
        let bytes = self.file.as_bytes();
        let parts: Vec<&[u8]> = words.split_whitespace().map(str::as_bytes).collect();
        let first = *parts.first()?;
        let mut i = from.max(self.stmt.start);
        while i + first.len() <= self.stmt.end {
            if let Some(end) = self.match_at(i, &parts) {
                let before_ok = i == 0 || !is_ident_byte(bytes[i - 1]);
                let after_ok = end >= bytes.len() || !is_ident_byte(bytes[end]);
                if before_ok && after_ok {
                    return Some(Span::new(i, end));
                }
            }
            i += 1;
        }
        None
    }

    fn match_at(&self, mut i: usize, parts: &[&[u8]]) -> Option<usize> {
        let bytes = self.file.as_bytes();
        for (k, p) in parts.iter().enumerate() {
            if k > 0 {
                let ws = i;
                while i < self.stmt.end && bytes[i].is_ascii_whitespace() {
                    i += 1;
                }
                if i == ws {
                    return None;
                }
            }
            let end = i + p.len();
            if end > self.stmt.end || !bytes[i..end].eq_ignore_ascii_case(p) {
                return None;
            }
            i = end;
        }
        Some(i)
    }

    /// A span at or after `from` for the identifier `ident`, else `fallback`.
    fn ident(&self, from: usize, ident: &str, fallback: Span) -> Span {
        self.find(from, ident).unwrap_or(fallback)
    }
}

fn ident_norm(id: &ast::Ident) -> String {
    if id.quote_style.is_some() {
        id.value.clone()
    } else {
        id.value.to_ascii_lowercase()
    }
}

/// Normalise a possibly qualified name: `public.` dropped, unquoted parts
/// lower-cased.
/// A dotted name as written (`public."Idem_Keys"`), normalised: unquoted
/// parts lower-cased, quoted ones kept, `public.` dropped.
pub fn normalise_written(raw: &str) -> String {
    let parts: Vec<String> = raw
        .split('.')
        .map(|p| {
            if p.starts_with('"') || p.starts_with('`') {
                p.trim_matches(['"', '`']).to_string()
            } else {
                p.to_ascii_lowercase()
            }
        })
        .collect();
    normalise(&parts)
}

pub fn normalise(parts: &[String]) -> String {
    let parts: Vec<&str> = match parts {
        [schema, rest @ ..] if !rest.is_empty() && schema == "public" => {
            rest.iter().map(String::as_str).collect()
        }
        _ => parts.iter().map(String::as_str).collect(),
    };
    parts.join(".")
}

fn name_of(t: &Text<'_>, from: usize, n: &ObjectName) -> Name {
    let idents: Vec<&ast::Ident> = n.0.iter().filter_map(|p| p.as_ident()).collect();
    let text = idents
        .iter()
        .map(|i| i.value.as_str())
        .collect::<Vec<_>>()
        .join(".");
    let parts: Vec<String> = idents.iter().map(|i| ident_norm(i)).collect();
    let last = idents.last().map(|i| i.value.as_str()).unwrap_or_default();
    Name {
        key: normalise(&parts),
        span: t.ident(from, last, t.stmt),
        text,
    }
}

/// Parse one statement and push what it says about the schema. A statement
/// no dialect can parse becomes a [`Problem`], reported only when it
/// mentions an idempotency store (outside dollar-quoted bodies, which the
/// retention scan reads on its own).
pub fn statement(
    file: &str,
    raw: &RawStatement,
    facts: &mut SqlFacts,
    problems: &mut Vec<Problem>,
) {
    let sql = &file[raw.span.start..raw.span.end];
    let t = Text {
        file,
        stmt: raw.span,
    };
    if is_do_block(sql) {
        do_block(file, raw, facts, problems);
        return;
    }
    if harmless(sql) {
        return;
    }
    // NOTE: ClickHouse tables (`ENGINE = MergeTree`, `LowCardinality(…)`,
    // `CODEC(…)`) have no unique guard to check: idemlint reads nothing
    // from them, and one sqlparser cannot read is counted, never reported.
    let clickhouse = is_clickhouse(sql);
    if clickhouse {
        if Parser::parse_sql(&ClickHouseDialect {}, sql).is_err() {
            facts.unparsed += 1;
            problems.push(Problem {
                span: raw.span,
                message: format!(
                    "ClickHouse statement `{}`, a dialect idemlint does not check",
                    head(sql)
                ),
                reported: false,
                detail: None,
            });
        }
        return;
    }
    let dialects: [&dyn Dialect; 4] = [
        &PostgreSqlDialect {},
        &MySqlDialect {},
        &SQLiteDialect {},
        &ClickHouseDialect {},
    ];
    let mut first_error = None;
    // sqlparser rejects `(LIKE t INCLUDING ALL)` and pg_dump's
    // `CREATE INDEX … ON ONLY parent`; blanked to the same length, those
    // words go and every offset stays where it was.
    let blanked = blank_like_options(sql).or_else(|| blank_on_only(sql));
    let attempts = dialects.into_iter().map(|d| (d, sql)).chain(
        blanked
            .as_deref()
            .into_iter()
            .flat_map(|s| dialects.into_iter().map(move |d| (d, s))),
    );
    for (d, sql) in attempts {
        match Parser::parse_sql(d, sql) {
            Ok(stmts) => {
                for s in stmts {
                    if let Some(kind) = event(&t, &s) {
                        facts.events.push(SchemaEvent {
                            span: raw.span,
                            kind,
                        });
                    }
                }
                return;
            }
            Err(e) => {
                first_error.get_or_insert(e);
            }
        }
    }
    if let Some(kind) = drop_index_by_hand(&t).or_else(|| rename_by_hand(&t)) {
        facts.events.push(SchemaEvent {
            span: raw.span,
            kind,
        });
        return;
    }
    if attaches_index_partition(sql) {
        return;
    }
    facts.unparsed += 1;
    // A statement no dialect reads for a form of its own is counted; one
    // whose parentheses do not balance is broken in every dialect, and a
    // table or index it was to create or change is missing from the schema.
    let broken = super::split::unbalanced_parens(sql);
    let reported = changes_tables(sql) && (broken.is_some() || touches_store(file, raw));
    let message = match broken {
        Some(_) => format!("invalid SQL statement `{}`", head(sql)),
        None => format!("cannot parse SQL statement `{}`", head(sql)),
    };
    let mut span = raw.span;
    let mut detail = None;
    if let Some(e) = first_error {
        // sqlparser's position is relative to the statement: the span
        // points at the token it stopped on, the label says what it wanted.
        let e = e.to_string();
        let (words, at) = e.split_once(" at Line:").unwrap_or((&e, ""));
        if let Some(offset) = error_offset(sql, at) {
            let end = sql[offset..]
                .find(char::is_whitespace)
                .map_or(sql.len(), |i| offset + i)
                .max((offset + 1).min(sql.len()));
            span = Span::new(raw.span.start + offset, raw.span.start + end);
        }
        detail = Some(words.trim_start_matches("sql parser error: ").to_string());
    }
    if let Some(why) = broken {
        detail = Some(match detail {
            Some(words) => format!("{why}; {words}"),
            None => why.to_string(),
        });
    }
    problems.push(Problem {
        span,
        message,
        reported,
        detail,
    });
}

/// The byte offset in `sql` of sqlparser's ` Line: 3, Column: 5` (1-based,
/// columns in characters), when it is inside the statement.
fn error_offset(sql: &str, at: &str) -> Option<usize> {
    let (line, column) = at.trim().split_once(", Column:")?;
    let line: usize = line.trim().parse().ok()?;
    let column: usize = column
        .trim()
        .trim_end_matches(|c: char| !c.is_ascii_digit())
        .parse()
        .ok()?;
    let start = sql
        .split_inclusive('\n')
        .take(line.checked_sub(1)?)
        .map(str::len)
        .sum::<usize>();
    let text = sql.get(start..)?.split('\n').next()?;
    let within = text
        .char_indices()
        .nth(column.checked_sub(1)?)
        .map(|(i, _)| i)?;
    let offset = start + within;
    (offset < sql.len()).then_some(offset)
}

/// `DO [LANGUAGE plpgsql] $$ … $$`: an anonymous PL/pgSQL block.
fn is_do_block(sql: &str) -> bool {
    sql.get(..2).is_some_and(|w| w.eq_ignore_ascii_case("do"))
        && sql[2..].starts_with(|c: char| c.is_ascii_whitespace() || c == '$')
}

/// The statements of DDL inside a `DO` block's body, each parsed like a
/// top-level one: a migration that adds a guard only when it is missing
/// (`IF NOT EXISTS (SELECT … FROM pg_constraint …) THEN ALTER TABLE … ADD
/// CONSTRAINT … UNIQUE (…)`) adds it, for the replayed history. The
/// PL/pgSQL around them (`BEGIN`, `IF … THEN`, `EXCEPTION WHEN … THEN`) is
/// passed over; what cannot be parsed inside the block is counted, since the
/// block may never run it.
fn do_block(file: &str, raw: &RawStatement, facts: &mut SqlFacts, problems: &mut Vec<Problem>) {
    const DDL: [&str; 7] = [
        "alter table",
        "create table",
        "create unique index",
        "create index",
        "drop index",
        "drop table",
        "alter index",
    ];
    for body in &raw.bodies {
        let text = &file[body.start..body.end];
        for inner in super::split::split(text) {
            let t = Text {
                file,
                stmt: Span::new(body.start + inner.span.start, body.start + inner.span.end),
            };
            let Some(start) = DDL
                .iter()
                .filter_map(|w| t.find(t.stmt.start, w))
                .map(|s| s.start)
                .min()
            else {
                continue;
            };
            let stmt = RawStatement {
                span: Span::new(start, t.stmt.end),
                bodies: Vec::new(),
            };
            let mut inner_problems = Vec::new();
            statement(file, &stmt, facts, &mut inner_problems);
            problems.extend(inner_problems.into_iter().map(|p| Problem {
                reported: false,
                ..p
            }));
        }
    }
}

/// Statements that cannot change a guard and that sqlparser does not
/// read: pg_dump's `ALTER SEQUENCE … OWNED BY …`, a `CREATE MATERIALIZED
/// VIEW` (its unique index is a `CREATE INDEX` of its own).
fn harmless(sql: &str) -> bool {
    let words = first_words(sql);
    let w: Vec<&str> = words.iter().map(String::as_str).collect();
    matches!(
        w.as_slice(),
        ["alter", "sequence", ..]
            | ["create", "materialized", "view", ..]
            | ["create", "or", "replace", "materialized", ..]
    )
}

/// ClickHouse's own forms: a table engine, a column codec, a
/// `LowCardinality(…)` type.
fn is_clickhouse(sql: &str) -> bool {
    const ENGINES: [&str; 9] = [
        "log",
        "tinylog",
        "stripelog",
        "memory",
        "kafka",
        "distributed",
        "buffer",
        "null",
        "dictionary",
    ];
    let lower = sql.to_ascii_lowercase();
    // `ADD INDEX i expr TYPE bloom_filter GRANULARITY 4`: a data-skipping index.
    if ["lowcardinality(", "codec(", "mergetree", " granularity "]
        .iter()
        .any(|m| lower.contains(m))
    {
        return true;
    }
    // `ENGINE = Memory` is ClickHouse; MySQL's `ENGINE=InnoDB` is not.
    lower.match_indices("engine").any(|(i, _)| {
        let rest = lower[i + 6..].trim_start();
        rest.strip_prefix('=').is_some_and(|r| {
            let name: String = r
                .trim_start()
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric())
                .collect();
            ENGINES.contains(&name.as_str())
        })
    })
}

/// `CREATE [UNIQUE] INDEX … ON ONLY parent …` with `ONLY` blanked: pg_dump
/// writes the parent's index this way and attaches each partition's.
fn blank_on_only(sql: &str) -> Option<String> {
    let words = first_words(sql);
    if words.first().map(String::as_str) != Some("create") || !words.iter().any(|w| w == "index") {
        return None;
    }
    let lower = sql.to_ascii_lowercase();
    let mut from = 0;
    while let Some(p) = lower[from..].find(" only ") {
        let at = from + p + 1;
        if lower[..at].trim_end().ends_with(" on") {
            let mut out = sql.as_bytes().to_vec();
            out[at..at + 4].fill(b' ');
            return String::from_utf8(out).ok();
        }
        from = at;
    }
    None
}

/// MySQL's `ALTER TABLE a RENAME b` (no `TO`/`AS`), which sqlparser refuses.
fn rename_by_hand(t: &Text<'_>) -> Option<SchemaChange> {
    let sql = &t.file[t.stmt.start..t.stmt.end];
    let words: Vec<(usize, &str)> = sql
        .split_ascii_whitespace()
        .map(|w| (w.as_ptr() as usize - sql.as_ptr() as usize, w))
        .collect();
    let [(_, w0), (_, w1), (a_off, a), (_, w3), (b_off, b)] = words.as_slice() else {
        return None;
    };
    let name_ok = |w: &str| {
        w.chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '_' | '.' | '`' | '"'))
    };
    if !(w0.eq_ignore_ascii_case("alter")
        && w1.eq_ignore_ascii_case("table")
        && w3.eq_ignore_ascii_case("rename")
        && name_ok(a)
        && name_ok(b))
    {
        return None;
    }
    let name = |off: usize, w: &str| {
        let start = t.stmt.start + off;
        Name {
            text: w.replace(['"', '`'], ""),
            key: normalise_written(w),
            span: Span::new(start, start + w.len()),
        }
    };
    Some(SchemaChange::AlterTable {
        table: name(*a_off, a),
        ops: vec![AlterOp::RenameTable(name(*b_off, b))],
    })
}

/// `ALTER INDEX parent_idx ATTACH PARTITION child_idx`, which pg_dump
/// writes for every partition's index and sqlparser does not read: it joins
/// two indexes that already exist, so it changes no guard.
fn attaches_index_partition(sql: &str) -> bool {
    let words = first_words(sql);
    matches!(
        words
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>()
            .as_slice(),
        ["alter", "index", _, "attach", "partition"]
    )
}

/// `CREATE TABLE … (LIKE t INCLUDING ALL, …)` with its `INCLUDING`/
/// `EXCLUDING` options replaced by spaces, when it has any.
fn blank_like_options(sql: &str) -> Option<String> {
    const OPTIONS: [&str; 10] = [
        "all",
        "comments",
        "compression",
        "constraints",
        "defaults",
        "generated",
        "identity",
        "indexes",
        "statistics",
        "storage",
    ];
    if !sql
        .get(..6)
        .is_some_and(|w| w.eq_ignore_ascii_case("create"))
    {
        return None;
    }
    let lower = sql.to_ascii_lowercase();
    let mut out = sql.as_bytes().to_vec();
    let mut changed = false;
    let words: Vec<(usize, &str)> = lower
        .split_ascii_whitespace()
        .map(|w| (w.as_ptr() as usize - lower.as_ptr() as usize, w))
        .collect();
    for pair in words.windows(2) {
        let ((at, verb), (opt_at, opt)) = (pair[0], pair[1]);
        let opt_word = opt.trim_end_matches([',', ')']);
        if matches!(verb, "including" | "excluding") && OPTIONS.contains(&opt_word) {
            out[at..opt_at + opt_word.len()].fill(b' ');
            changed = true;
        }
    }
    if changed {
        String::from_utf8(out).ok()
    } else {
        None
    }
}

/// The statement's first words, for messages.
fn head(sql: &str) -> String {
    let flat: Vec<&str> = sql.split_whitespace().take(6).collect();
    let mut s = flat.join(" ");
    if s.len() > 60 {
        let mut cut = 60;
        while !s.is_char_boundary(cut) {
            cut -= 1;
        }
        s.truncate(cut);
    }
    if sql.split_whitespace().count() > 6 || s.len() == 60 {
        s.push_str(" …");
    }
    s
}

/// Whether the statement's text outside its dollar-quoted bodies names an
/// idempotency store.
fn touches_store(file: &str, raw: &RawStatement) -> bool {
    let stores = knowledge::stores();
    let mut pieces = Vec::new();
    let mut at = raw.span.start;
    for b in &raw.bodies {
        pieces.push(&file[at..b.start.max(at)]);
        at = b.end.max(at);
    }
    pieces.push(&file[at.min(raw.span.end)..raw.span.end]);
    pieces.iter().any(|p| {
        p.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '.'))
            .filter(|w| !w.is_empty())
            .any(|w| stores.is_store_table(w))
    })
}

/// `DROP INDEX [CONCURRENTLY] [IF EXISTS] a, b [CASCADE | RESTRICT]`, which
/// sqlparser 0.64 refuses when `CONCURRENTLY` and `IF EXISTS` meet.
fn drop_index_by_hand(t: &Text<'_>) -> Option<SchemaChange> {
    let sql = &t.file[t.stmt.start..t.stmt.end];
    // Words split at ASCII blanks and commas only, so offsets stay on
    // character boundaries.
    let mut words: Vec<(usize, &str)> = Vec::new();
    let mut start = None;
    for (i, b) in sql
        .bytes()
        .enumerate()
        .chain(std::iter::once((sql.len(), b' ')))
    {
        let sep = b.is_ascii_whitespace() || b == b',';
        match (sep, start) {
            (true, Some(s)) => {
                words.push((s, &sql[s..i]));
                start = None;
            }
            (false, None) => start = Some(i),
            _ => {}
        }
    }
    let mut it = words.into_iter().peekable();
    let (_, w0) = it.next()?;
    let (_, w1) = it.next()?;
    if !w0.eq_ignore_ascii_case("drop") || !w1.eq_ignore_ascii_case("index") {
        return None;
    }
    let mut names = Vec::new();
    for (off, w) in it {
        let lw = w.to_ascii_lowercase();
        if matches!(
            lw.as_str(),
            "concurrently" | "if" | "exists" | "cascade" | "restrict"
        ) {
            continue;
        }
        if !w
            .chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == '.' || c == '"')
        {
            return None;
        }
        let start = t.stmt.start + off;
        names.push(Name {
            text: w.replace('"', ""),
            key: normalise_written(w),
            span: Span::new(start, start + w.len()),
        });
    }
    (!names.is_empty()).then_some(SchemaChange::DropIndex { names })
}

fn event(t: &Text<'_>, s: &Statement) -> Option<SchemaChange> {
    match s {
        Statement::CreateTable(ct) => Some(SchemaChange::CreateTable(create_table(t, ct))),
        Statement::CreateIndex(ci) => Some(SchemaChange::CreateIndex(create_index(t, ci))),
        Statement::AlterTable(at) => {
            let from = t
                .find(t.stmt.start, "table")
                .map_or(t.stmt.start, |s| s.end);
            let table = name_of(t, from, &at.name);
            let ops = alter_ops(t, table.span.end, &table, &at.operations);
            Some(SchemaChange::AlterTable { table, ops })
        }
        Statement::AlterIndex {
            name,
            operation: AlterIndexOperation::RenameIndex { index_name },
        } => {
            let from = t
                .find(t.stmt.start, "index")
                .map_or(t.stmt.start, |s| s.end);
            let from = name_of(t, from, name);
            let to = name_of(t, from.span.end, index_name);
            Some(SchemaChange::RenameIndex { from, to })
        }
        Statement::Drop {
            object_type, names, ..
        } => {
            let from = t.find(t.stmt.start, "drop").map_or(t.stmt.start, |s| s.end);
            let mut cursor = from;
            let mut out = Vec::new();
            for n in names {
                let name = name_of(t, cursor, n);
                cursor = name.span.end;
                out.push(name);
            }
            match object_type {
                ObjectType::Table => Some(SchemaChange::DropTable { names: out }),
                ObjectType::Index => Some(SchemaChange::DropIndex { names: out }),
                _ => None,
            }
        }
        _ => None,
    }
}

fn column(t: &Text<'_>, from: usize, c: &ast::ColumnDef) -> (Column, Vec<Key>) {
    let name = ident_norm(&c.name);
    let span = t.ident(from, &c.name.value, t.stmt);
    let mut col = Column {
        name: name.clone(),
        span,
        ty: c.data_type.to_string(),
        not_null: false,
        default: None,
        generated: None,
    };
    let mut keys = Vec::new();
    for o in &c.options {
        let given = o.name.as_ref().map(ident_norm);
        match &o.option {
            ColumnOption::NotNull => col.not_null = true,
            ColumnOption::Default(e) => col.default = Some(e.to_string()),
            ColumnOption::Generated {
                generation_expr: Some(e),
                ..
            } => col.generated = Some(expr_columns(&e.to_string())),
            // `GENERATED ... AS IDENTITY`: the values come from a sequence.
            ColumnOption::Generated {
                generation_expr: None,
                ..
            } if col.default.is_none() => col.default = Some("GENERATED AS IDENTITY".to_string()),
            ColumnOption::PrimaryKey(pk) => {
                col.not_null = true;
                keys.push(Key {
                    name: given
                        .or_else(|| pk.name.as_ref().map(ident_norm))
                        .unwrap_or_default(),
                    kind: KeyKind::PrimaryKey,
                    parts: vec![KeyPart::Column(name.clone())],
                    predicate: None,
                    span: t.find(span.end, "primary key").unwrap_or(span),
                });
            }
            ColumnOption::Unique(u) => keys.push(Key {
                name: given
                    .or_else(|| u.name.as_ref().map(ident_norm))
                    .unwrap_or_default(),
                kind: KeyKind::Unique,
                parts: vec![KeyPart::Column(name.clone())],
                predicate: None,
                span: t.find(span.end, "unique").unwrap_or(span),
            }),
            _ => {}
        }
    }
    (col, keys)
}

/// Identifiers an expression reads (`lower(key)` reads `key`), skipping
/// function names, string literals and keywords that are not columns.
fn expr_columns(text: &str) -> Vec<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b == b'\'' {
            i += 1;
            while i < bytes.len() && bytes[i] != b'\'' {
                i += 1;
            }
            i += 1;
            continue;
        }
        if b.is_ascii_alphabetic() || b == b'_' || b == b'"' {
            let quoted = b == b'"';
            let start = if quoted { i + 1 } else { i };
            let mut j = start;
            while j < bytes.len()
                && (if quoted {
                    bytes[j] != b'"'
                } else {
                    is_ident_byte(bytes[j])
                })
            {
                j += 1;
            }
            let word = &text[start..j.min(text.len())];
            let after = if quoted { j + 1 } else { j };
            let mut k = after;
            while k < bytes.len() && bytes[k] == b' ' {
                k += 1;
            }
            let is_call = bytes.get(k) == Some(&b'(');
            let is_cast = i >= 2 && &bytes[i - 2..i] == b"::";
            let lw = word.to_ascii_lowercase();
            let keyword = matches!(
                lw.as_str(),
                "and"
                    | "or"
                    | "not"
                    | "null"
                    | "is"
                    | "true"
                    | "false"
                    | "in"
                    | "as"
                    | "collate"
                    | "interval"
                    | "text"
                    | "varchar"
                    | "desc"
                    | "asc"
            );
            if !is_call && !is_cast && !keyword && !word.is_empty() {
                let w = if quoted { word.to_string() } else { lw };
                if !out.contains(&w) {
                    out.push(w);
                }
            }
            i = after;
            continue;
        }
        i += 1;
    }
    out
}

fn key_part(e: &Expr) -> KeyPart {
    match e {
        Expr::Identifier(id) => KeyPart::Column(ident_norm(id)),
        Expr::CompoundIdentifier(ids) => {
            KeyPart::Column(ids.last().map(ident_norm).unwrap_or_default())
        }
        Expr::Nested(inner) => key_part(inner),
        other => {
            let text = other.to_string();
            KeyPart::Expr {
                columns: expr_columns(&text),
                text,
            }
        }
    }
}

fn index_parts(cols: &[IndexColumn]) -> Vec<KeyPart> {
    cols.iter().map(|c| key_part(&c.column.expr)).collect()
}

/// PostgreSQL's name for an unnamed constraint or index.
fn default_name(table: &Name, kind: KeyKind, parts: &[KeyPart], index: bool) -> String {
    let bare = table.bare();
    if kind == KeyKind::PrimaryKey {
        return format!("{bare}_pkey");
    }
    let cols: Vec<String> = parts
        .iter()
        .map(|p| match p {
            KeyPart::Column(c) => c.clone(),
            KeyPart::Expr { text, .. } => text
                .split('(')
                .next()
                .unwrap_or("expr")
                .trim()
                .to_ascii_lowercase(),
        })
        .collect();
    let suffix = if index { "idx" } else { "key" };
    format!("{bare}_{}_{suffix}", cols.join("_"))
}

fn table_constraint(
    t: &Text<'_>,
    cursor: &mut usize,
    table: &Name,
    c: &TableConstraint,
) -> Option<Key> {
    let (name, kind, cols, keyword) = match c {
        // MySQL's `UNIQUE KEY uk (…)` names the index, not a constraint.
        TableConstraint::PrimaryKey(pk) => (
            pk.name.as_ref().or(pk.index_name.as_ref()),
            KeyKind::PrimaryKey,
            &pk.columns,
            "primary key",
        ),
        TableConstraint::Unique(u) => (
            u.name.as_ref().or(u.index_name.as_ref()),
            KeyKind::Unique,
            &u.columns,
            "unique",
        ),
        TableConstraint::Index(ix) => (
            ix.name.as_ref(),
            KeyKind::Index,
            &ix.columns,
            if ix.display_as_key { "key" } else { "index" },
        ),
        _ => return None,
    };
    let parts = index_parts(cols);
    let span = name
        .and_then(|n| t.find(*cursor, &n.value))
        .or_else(|| t.find(*cursor, keyword))
        .unwrap_or(t.stmt);
    if span != t.stmt {
        *cursor = span.end;
    }
    // Unnamed: PostgreSQL's default, which a later `DROP CONSTRAINT` names.
    let name = name
        .map(ident_norm)
        .unwrap_or_else(|| default_name(table, kind, &parts, kind == KeyKind::Index));
    Some(Key {
        name,
        kind,
        parts,
        predicate: None,
        span,
    })
}

fn partitioning(t: &Text<'_>, e: &Expr) -> Option<Partitioning> {
    let text = e.to_string();
    let (method, rest) = text.split_once('(')?;
    let method = match method.trim().to_ascii_lowercase().as_str() {
        "range" => PartitionMethod::Range,
        "list" => PartitionMethod::List,
        "hash" => PartitionMethod::Hash,
        _ => return None,
    };
    let inner = rest.strip_suffix(')').unwrap_or(rest);
    let columns = expr_columns(inner);
    let span = t.find(t.stmt.start, "partition by").unwrap_or(t.stmt);
    Some(Partitioning {
        method,
        columns,
        span,
    })
}

fn create_table(t: &Text<'_>, ct: &ast::CreateTable) -> CreateTable {
    let from = t
        .find(t.stmt.start, "table")
        .map_or(t.stmt.start, |s| s.end);
    let name = name_of(t, from, &ct.name);
    let mut cursor = name.span.end;
    let mut columns = Vec::new();
    let mut keys = Vec::new();
    for c in &ct.columns {
        // `(LIKE template, ...)` read by a lenient dialect as a column
        // `like` of type `template`: PostgreSQL's LIKE clause, not a column.
        if c.name.quote_style.is_none() && c.name.value.eq_ignore_ascii_case("like") {
            continue;
        }
        let (mut col, mut ks) = column(t, cursor, c);
        cursor = col.span.end;
        for k in &mut ks {
            if k.name.is_empty() {
                k.name = default_name(&name, k.kind, &k.parts, false);
            }
        }
        if ks.iter().any(|k| k.kind == KeyKind::PrimaryKey) {
            col.not_null = true;
        }
        columns.push(col);
        keys.extend(ks);
    }
    for c in &ct.constraints {
        if let Some(k) = table_constraint(t, &mut cursor, &name, c) {
            if k.kind == KeyKind::PrimaryKey {
                for p in &k.parts {
                    if let KeyPart::Column(n) = p {
                        if let Some(col) = columns.iter_mut().find(|c| &c.name == n) {
                            col.not_null = true;
                        }
                    }
                }
            }
            keys.push(k);
        }
    }
    let partition_of = ct.partition_of.as_ref().map(|p| {
        let from = t
            .find(name.span.end, "partition of")
            .map_or(name.span.end, |s| s.end);
        name_of(t, from, p)
    });
    CreateTable {
        if_not_exists: ct.if_not_exists,
        columns,
        keys,
        partition_by: ct.partition_by.as_deref().and_then(|e| partitioning(t, e)),
        partition_of,
        declared_by: None,
        fields: Vec::new(),
        name,
    }
}

fn create_index(t: &Text<'_>, ci: &ast::CreateIndex) -> CreateIndex {
    let on = t.find(t.stmt.start, "on").map_or(t.stmt.start, |s| s.end);
    let table = name_of(t, on, &ci.table_name);
    let parts = index_parts(&ci.columns);
    let kind = if ci.unique {
        KeyKind::Unique
    } else {
        KeyKind::Index
    };
    let (name, span) = match &ci.name {
        Some(n) => {
            let from = t
                .find(t.stmt.start, "index")
                .map_or(t.stmt.start, |s| s.end);
            let n = name_of(t, from, n);
            (n.key, n.span)
        }
        None => (
            default_name(&table, kind, &parts, true),
            t.find(t.stmt.start, "index").unwrap_or(table.span),
        ),
    };
    CreateIndex {
        key: Key {
            name,
            kind,
            parts,
            predicate: ci.predicate.as_ref().map(ToString::to_string),
            span,
        },
        table,
        concurrently: ci.concurrently,
        if_not_exists: ci.if_not_exists,
    }
}

fn alter_ops(t: &Text<'_>, from: usize, table: &Name, ops: &[AlterTableOperation]) -> Vec<AlterOp> {
    let mut cursor = from;
    let mut out = Vec::new();
    for op in ops {
        match op {
            AlterTableOperation::AddColumn { column_def, .. } => {
                let (col, keys) = column(t, cursor, column_def);
                cursor = col.span.end;
                out.push(AlterOp::AddColumn(col));
                for mut k in keys {
                    if k.name.is_empty() {
                        k.name = default_name(table, k.kind, &k.parts, false);
                    }
                    out.push(AlterOp::AddKey(k));
                }
            }
            AlterTableOperation::AddConstraint {
                constraint:
                    c
                    @ (TableConstraint::UniqueUsingIndex(u) | TableConstraint::PrimaryKeyUsingIndex(u)),
                ..
            } => out.push(AlterOp::PromoteIndex {
                index: ident_norm(&u.index_name),
                name: u.name.as_ref().map(ident_norm),
                primary: matches!(c, TableConstraint::PrimaryKeyUsingIndex(_)),
            }),
            AlterTableOperation::AddConstraint { constraint, .. } => {
                if let Some(k) = table_constraint(t, &mut cursor, table, constraint) {
                    out.push(AlterOp::AddKey(k));
                }
            }
            AlterTableOperation::DropColumn { column_names, .. } => {
                for c in column_names {
                    let span = t.ident(cursor, &c.value, t.stmt);
                    cursor = span.end;
                    out.push(AlterOp::DropColumn {
                        name: ident_norm(c),
                        span,
                    });
                }
            }
            AlterTableOperation::DropConstraint { name, .. } => {
                let span = t.ident(cursor, &name.value, t.stmt);
                cursor = span.end;
                out.push(AlterOp::DropConstraint {
                    name: ident_norm(name),
                    span,
                });
            }
            AlterTableOperation::DropPrimaryKey { .. } => {
                let span = t.find(cursor, "primary key").unwrap_or(t.stmt);
                out.push(AlterOp::DropPrimaryKey { span });
            }
            AlterTableOperation::DropIndex { name } => {
                let span = t.ident(cursor, &name.value, t.stmt);
                cursor = span.end;
                out.push(AlterOp::DropIndex {
                    name: ident_norm(name),
                    span,
                });
            }
            AlterTableOperation::RenameColumn {
                old_column_name,
                new_column_name,
            } => out.push(AlterOp::RenameColumn {
                from: ident_norm(old_column_name),
                to: ident_norm(new_column_name),
            }),
            AlterTableOperation::RenameConstraint { old_name, new_name } => {
                out.push(AlterOp::RenameConstraint {
                    from: ident_norm(old_name),
                    to: ident_norm(new_name),
                })
            }
            AlterTableOperation::AttachPartitionOf { partition, .. } => {
                let from = t.find(cursor, "partition").map_or(cursor, |s| s.end);
                let name = name_of(t, from, partition);
                cursor = name.span.end;
                out.push(AlterOp::AttachPartition(name));
            }
            AlterTableOperation::RenameTable { table_name } => {
                let n = match table_name {
                    RenameTableNameKind::As(n) | RenameTableNameKind::To(n) => n,
                };
                let from = t.find(cursor, "rename").map_or(cursor, |s| s.end);
                let mut name = name_of(t, from, n);
                // `ALTER TABLE s.a RENAME TO b` keeps schema `s`.
                if !name.key.contains('.') {
                    if let Some((schema, _)) = table.key.rsplit_once('.') {
                        name.key = format!("{schema}.{}", name.key);
                    }
                }
                out.push(AlterOp::RenameTable(name));
            }
            AlterTableOperation::AlterColumn { column_name, op } => match op {
                AlterColumnOperation::SetNotNull => out.push(AlterOp::SetNotNull {
                    column: ident_norm(column_name),
                    not_null: true,
                }),
                AlterColumnOperation::DropNotNull => out.push(AlterOp::SetNotNull {
                    column: ident_norm(column_name),
                    not_null: false,
                }),
                _ => {}
            },
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::split::split;
    use super::*;

    fn events(sql: &str) -> (Vec<SchemaEvent>, Vec<Problem>) {
        let mut facts = SqlFacts::default();
        let mut problems = Vec::new();
        for s in split(sql) {
            statement(sql, &s, &mut facts, &mut problems);
        }
        (facts.events, problems)
    }

    fn at(sql: &str, span: Span) -> &str {
        &sql[span.start..span.end]
    }

    #[test]
    fn create_table_reads_columns_guards_and_partitioning_with_exact_spans() {
        let sql = "create table public.payment_idempotency (\n  key uuid not null,\n  created_at timestamptz not null default now(),\n  unique (key, created_at)\n) partition by range (created_at);";
        let (ev, problems) = events(sql);
        assert!(problems.is_empty());
        let SchemaChange::CreateTable(ct) = &ev[0].kind else {
            panic!("{ev:?}")
        };
        assert_eq!(ct.name.key, "payment_idempotency");
        assert_eq!(at(sql, ct.name.span), "payment_idempotency");
        assert_eq!(ct.columns.len(), 2);
        assert!(ct.columns[0].not_null);
        assert_eq!(ct.columns[1].default.as_deref(), Some("now()"));
        assert_eq!(ct.keys[0].kind, KeyKind::Unique);
        assert_eq!(ct.keys[0].name, "payment_idempotency_key_created_at_key");
        assert_eq!(at(sql, ct.keys[0].span), "unique");
        let p = ct
            .partition_by
            .as_ref()
            .map(|p| (p.method, p.columns.clone()));
        assert_eq!(
            p,
            Some((PartitionMethod::Range, vec!["created_at".to_string()]))
        );
    }

    #[test]
    fn like_with_including_options_is_read_with_exact_spans() {
        let sql = "CREATE TABLE idem (LIKE audit_columns INCLUDING DEFAULTS INCLUDING COMMENTS, \
                   key text NOT NULL, CONSTRAINT idem_key_uniq UNIQUE (key))";
        let (ev, problems) = events(sql);
        assert!(problems.is_empty(), "{problems:?}");
        let SchemaChange::CreateTable(ct) = &ev[0].kind else {
            panic!("{ev:?}")
        };
        assert_eq!(at(sql, ct.name.span), "idem");
        let cols: Vec<&str> = ct.columns.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(cols, vec!["key"]);
        assert_eq!(ct.keys[0].kind, KeyKind::Unique);
        assert_eq!(at(sql, ct.keys[0].span), "idem_key_uniq");
        // the options are blanked only where they follow LIKE's table
        assert_eq!(blank_like_options("SELECT 'including all'"), None);
    }

    #[test]
    fn generated_column_records_the_columns_its_expression_reads() {
        let sql = "CREATE TABLE idem (key text NOT NULL, \
                   key_norm text GENERATED ALWAYS AS (lower(btrim(key))) STORED UNIQUE)";
        let (ev, _) = events(sql);
        let SchemaChange::CreateTable(ct) = &ev[0].kind else {
            panic!("{ev:?}")
        };
        assert_eq!(ct.columns[0].generated, None);
        assert_eq!(ct.columns[1].generated, Some(vec!["key".to_string()]));
    }

    #[test]
    fn alter_index_rename_names_both_indexes_with_exact_spans() {
        let sql = "ALTER INDEX public.idem_key_idx RENAME TO idem_key_uidx";
        let (ev, _) = events(sql);
        let SchemaChange::RenameIndex { from, to } = &ev[0].kind else {
            panic!("{ev:?}")
        };
        assert_eq!(
            (from.key.as_str(), at(sql, from.span)),
            ("idem_key_idx", "idem_key_idx")
        );
        assert_eq!(
            (to.key.as_str(), at(sql, to.span)),
            ("idem_key_uidx", "idem_key_uidx")
        );
    }

    #[test]
    fn column_level_primary_key_and_unique_are_guards() {
        let sql = "CREATE TABLE idem (id bigserial PRIMARY KEY, key text NOT NULL UNIQUE)";
        let (ev, _) = events(sql);
        let SchemaChange::CreateTable(ct) = &ev[0].kind else {
            panic!()
        };
        let names: Vec<(&str, KeyKind, &str)> = ct
            .keys
            .iter()
            .map(|k| (k.name.as_str(), k.kind, at(sql, k.span)))
            .collect();
        assert_eq!(
            names,
            vec![
                ("idem_pkey", KeyKind::PrimaryKey, "PRIMARY KEY"),
                ("idem_key_key", KeyKind::Unique, "UNIQUE")
            ]
        );
    }

    #[test]
    fn unique_expression_index_with_predicate_is_read() {
        let sql = "CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS idem_lower_key ON public.idem (lower(key), account_id) WHERE state <> 'done'";
        let (ev, _) = events(sql);
        let SchemaChange::CreateIndex(ci) = &ev[0].kind else {
            panic!()
        };
        assert!(ci.concurrently && ci.if_not_exists);
        assert_eq!(ci.key.kind, KeyKind::Unique);
        assert_eq!(at(sql, ci.key.span), "idem_lower_key");
        assert_eq!(at(sql, ci.table.span), "idem");
        assert_eq!(
            ci.key.parts,
            vec![
                KeyPart::Expr {
                    text: "lower(key)".into(),
                    columns: vec!["key".into()]
                },
                KeyPart::Column("account_id".into())
            ]
        );
        assert_eq!(ci.key.predicate.as_deref(), Some("state <> 'done'"));
    }

    #[test]
    fn mysql_inline_unique_key_and_key_are_read() {
        let sql = "CREATE TABLE `idem` (`id` bigint NOT NULL AUTO_INCREMENT, `idem_key` varchar(64) NOT NULL, PRIMARY KEY (`id`), UNIQUE KEY `uk_idem_key` (`idem_key`), KEY `ix_created` (`id`)) ENGINE=InnoDB";
        let (ev, problems) = events(sql);
        assert!(problems.is_empty(), "{problems:?}");
        let SchemaChange::CreateTable(ct) = &ev[0].kind else {
            panic!()
        };
        let keys: Vec<(&str, KeyKind)> =
            ct.keys.iter().map(|k| (k.name.as_str(), k.kind)).collect();
        assert_eq!(
            keys,
            vec![
                ("idem_pkey", KeyKind::PrimaryKey),
                ("uk_idem_key", KeyKind::Unique),
                ("ix_created", KeyKind::Index)
            ]
        );
        assert_eq!(at(sql, ct.keys[1].span), "uk_idem_key");
    }

    #[test]
    fn alter_table_operations_are_read_in_order() {
        let sql = "ALTER TABLE ONLY idem ADD COLUMN request_hash bytea, DROP CONSTRAINT idem_key_key, RENAME COLUMN a TO b;\nALTER TABLE idem RENAME TO idem_v2";
        let (ev, _) = events(sql);
        let SchemaChange::AlterTable { table, ops } = &ev[0].kind else {
            panic!()
        };
        assert_eq!(table.key, "idem");
        assert!(matches!(&ops[0], AlterOp::AddColumn(c) if c.name == "request_hash"));
        assert!(
            matches!(&ops[1], AlterOp::DropConstraint { name, span } if name == "idem_key_key" && at(sql, *span) == "idem_key_key")
        );
        assert!(matches!(&ops[2], AlterOp::RenameColumn { from, to } if from == "a" && to == "b"));
        let SchemaChange::AlterTable { ops, .. } = &ev[1].kind else {
            panic!()
        };
        assert!(matches!(&ops[0], AlterOp::RenameTable(n) if n.key == "idem_v2"));
    }

    #[test]
    fn unique_using_index_promotes_the_index() {
        let sql = "ALTER TABLE idem ADD CONSTRAINT idem_key_uniq UNIQUE USING INDEX idem_key_idx";
        let (ev, _) = events(sql);
        let SchemaChange::AlterTable { ops, .. } = &ev[0].kind else {
            panic!("{ev:?}")
        };
        assert_eq!(
            ops[0],
            AlterOp::PromoteIndex {
                index: "idem_key_idx".into(),
                name: Some("idem_key_uniq".into()),
                primary: false
            }
        );
    }

    #[test]
    fn drop_index_concurrently_if_exists_is_read_by_hand() {
        let sql = "DROP INDEX CONCURRENTLY IF EXISTS public.idem_key_uniq;";
        let (ev, problems) = events(sql);
        assert!(problems.is_empty());
        let SchemaChange::DropIndex { names } = &ev[0].kind else {
            panic!("{ev:?}")
        };
        assert_eq!(names[0].key, "idem_key_uniq");
        assert_eq!(at(sql, names[0].span), "public.idem_key_uniq");
    }

    #[test]
    fn unparseable_statement_is_reported_only_when_it_touches_a_store() {
        let sql = "CREATE TABLE idempotency_keys (key text PRIMARY KEY WITH NONSENSE);\nCREATE FROBNICATOR widgets;\nCREATE TABLE next_one (id int);";
        let (ev, problems) = events(sql);
        assert_eq!(problems.len(), 2);
        assert!(problems[0].reported);
        assert!(problems[0]
            .message
            .contains("CREATE TABLE idempotency_keys"));
        assert!(!problems[1].reported);
        assert!(matches!(&ev[0].kind, SchemaChange::CreateTable(ct) if ct.name.key == "next_one"));
    }

    #[test]
    fn ddl_inside_a_do_block_is_read_with_exact_spans() {
        let sql = "DO $$\nBEGIN\n  IF NOT EXISTS (SELECT 1 FROM pg_constraint WHERE conname = 'k_unique') THEN\n    ALTER TABLE idempotency_keys ADD CONSTRAINT k_unique UNIQUE (idempotency_key);\n  END IF;\nEXCEPTION WHEN duplicate_object THEN NULL;\nEND $$;";
        let (ev, problems) = events(sql);
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(ev.len(), 1);
        let SchemaChange::AlterTable { table, ops } = &ev[0].kind else {
            panic!("{ev:?}")
        };
        assert_eq!(table.key, "idempotency_keys");
        assert!(
            matches!(&ops[0], AlterOp::AddKey(k) if k.kind == KeyKind::Unique && k.name == "k_unique")
        );
        assert!(at(sql, ev[0].span).starts_with("ALTER TABLE idempotency_keys"));
        assert!(at(sql, ev[0].span).ends_with("(idempotency_key)"));
    }

    #[test]
    fn clickhouse_tables_are_counted_never_reported() {
        let sql = "CREATE TABLE idempotency_keys (k String, env LowCardinality(String), t DateTime CODEC(ZSTD(1))) ENGINE = MergeTree ORDER BY k;\nCREATE TABLE dedup_log (k String) ENGINE = Memory;";
        let (ev, problems) = events(sql);
        assert!(ev.is_empty(), "{ev:?}");
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert!(!problems[0].reported);
        assert!(problems[0].message.starts_with("ClickHouse statement"));
        assert!(is_clickhouse(
            "ALTER TABLE t ADD INDEX idx_k k TYPE bloom_filter GRANULARITY 4"
        ));
        // MySQL's engine clause is not ClickHouse's.
        assert!(!is_clickhouse("CREATE TABLE t (k int) ENGINE=InnoDB"));
    }

    #[test]
    fn pg_dump_and_mysql_forms_are_read_or_skipped() {
        let sql = "CREATE UNIQUE INDEX idem_key_idx ON ONLY public.idempotency_keys USING btree (idempotency_key);\n\
                   ALTER SEQUENCE public.idempotency_keys_id_seq OWNED BY public.idempotency_keys.id;\n\
                   CREATE MATERIALIZED VIEW idem_daily TO idem_daily_dest AS SELECT 1;\n\
                   ALTER TABLE `idempotency_keys` RENAME `idempotency_keys_v1`;";
        let (ev, problems) = events(sql);
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(ev.len(), 2, "{ev:?}");
        let SchemaChange::CreateIndex(ci) = &ev[0].kind else {
            panic!("{ev:?}")
        };
        assert_eq!(ci.table.key, "idempotency_keys");
        assert_eq!(at(sql, ci.table.span), "idempotency_keys");
        let SchemaChange::AlterTable { table, ops } = &ev[1].kind else {
            panic!("{ev:?}")
        };
        assert_eq!(table.key, "idempotency_keys");
        assert!(matches!(&ops[0], AlterOp::RenameTable(n) if n.key == "idempotency_keys_v1"));
    }
}
