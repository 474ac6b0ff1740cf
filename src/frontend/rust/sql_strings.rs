//! SQL inside Rust: the text handed to sqlx (`query`, `query_as`,
//! `query_scalar`, their `!` macros, `QueryBuilder::new`), tokio-postgres and
//! the pools built on it (`execute`, `query`, `query_one`, `query_opt`,
//! `prepare`, …), diesel (`sql_query`, and the DSL's `insert_into`,
//! `update`, `delete`, `<table>::table` reads) and sea-orm raw statements,
//! as a string literal, a raw string, `concat!` or a `const` of the file.
//! The SQL front end classifies the text (`sql::dml`); a `DELETE` that
//! expires a store's rows is handed to its retention reader. Not for the
//! order of events (`flow`).

use crate::facts::store::{Dml, DmlKind};
use crate::facts::FileFacts;
use crate::frontend::sql::dml;
use crate::source::Span;
use std::collections::HashMap;

/// SQL text found in code.
#[derive(Debug, Clone)]
pub struct SqlText {
    pub text: String,
    /// The text's exact place in the file, when the literal has no escapes.
    pub inner: Option<Span>,
}

/// `const NAME: &str = "…"` items of a file, by name.
pub type StrConsts = HashMap<String, SqlText>;

/// The text of a `const`'s value, with its place in the file when it is one
/// literal without escapes.
pub fn const_text(file: &str, e: &syn::Expr) -> Option<SqlText> {
    if let syn::Expr::Lit(syn::ExprLit {
        lit: syn::Lit::Str(s),
        ..
    }) = e
    {
        return Some(literal(file, s));
    }
    super::str_lit(e).map(|text| SqlText { text, inner: None })
}

/// Free functions and associated functions that take SQL text first.
fn sql_fn(segs: &[String]) -> Option<usize> {
    let last = segs.last()?.as_str();
    let owner = segs.iter().rev().nth(1).map(String::as_str);
    Some(match (owner, last) {
        (
            _,
            "query" | "query_as" | "query_scalar" | "query_with" | "query_as_with"
            | "query_scalar_with" | "sql_query",
        ) if segs.len() == 1 || matches!(owner, Some("sqlx" | "diesel")) => 0,
        (Some("QueryBuilder"), "new") => 0,
        // sea-orm `Statement::from_string(backend, sql)`
        (Some("Statement"), "from_string" | "from_sql_and_values") => 1,
        _ => return None,
    })
}

/// Whether a macro name is one of sqlx's checked-query macros.
pub fn is_sql_macro(name: &str) -> bool {
    matches!(
        name,
        "query"
            | "query_as"
            | "query_scalar"
            | "query_unchecked"
            | "query_as_unchecked"
            | "query_scalar_unchecked"
    )
}

/// Methods that take SQL text first (tokio-postgres, deadpool/bb8 clients,
/// sea-orm `execute_unprepared`, sqlx `Executor::execute("…")`).
pub fn is_sql_method(name: &str) -> bool {
    matches!(
        name,
        "execute"
            | "query"
            | "query_one"
            | "query_opt"
            | "query_raw"
            | "query_typed"
            | "prepare"
            | "prepare_cached"
            | "batch_execute"
            | "simple_query"
            | "execute_unprepared"
    )
}

/// Methods that run a built query on the executor they are given.
pub fn is_exec_method(name: &str) -> bool {
    matches!(
        name,
        "execute"
            | "fetch"
            | "fetch_one"
            | "fetch_optional"
            | "fetch_all"
            | "fetch_many"
            | "get_result"
            | "get_results"
            | "first"
            | "load"
            | "optional"
            | "exec"
            | "one"
            | "all"
    )
}

/// The SQL text of a string expression: a literal, `&"…"`, `concat!` of
/// literals, or a `const` of the file.
pub fn string_arg(file: &str, e: &syn::Expr, consts: &StrConsts) -> Option<SqlText> {
    match e {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(s),
            ..
        }) => Some(literal(file, s)),
        syn::Expr::Reference(r) => string_arg(file, &r.expr, consts),
        syn::Expr::Paren(p) => string_arg(file, &p.expr, consts),
        syn::Expr::Group(g) => string_arg(file, &g.expr, consts),
        syn::Expr::Macro(m) => concat(&m.mac),
        syn::Expr::Path(p) if p.path.segments.len() == 1 => {
            let name = p.path.segments.first()?.ident.to_string();
            consts.get(&name).cloned()
        }
        _ => None,
    }
}

fn literal(file: &str, s: &syn::LitStr) -> SqlText {
    let text = s.value();
    let full = super::byte_span(s.span());
    // The value sits in the file as written unless it had escapes: a plain
    // "…" or a raw r#"…"# string.
    let inner = file
        .get(full.start..full.end)
        .and_then(|written| written.find(text.as_str()))
        .filter(|_| !text.is_empty())
        .map(|off| Span::new(full.start + off, full.start + off + text.len()));
    SqlText { text, inner }
}

/// `concat!("…", "…")` of string literals.
fn concat(mac: &syn::Macro) -> Option<SqlText> {
    if mac.path.segments.last()?.ident != "concat" {
        return None;
    }
    let parts = mac
        .parse_body_with(
            syn::punctuated::Punctuated::<syn::LitStr, syn::Token![,]>::parse_terminated,
        )
        .ok()?;
    Some(SqlText {
        text: parts.iter().map(syn::LitStr::value).collect(),
        inner: None,
    })
}

/// SQL of a call to a driver entry point (`sqlx::query("…")`).
pub fn of_call(file: &str, call: &syn::ExprCall, consts: &StrConsts) -> Option<SqlText> {
    let syn::Expr::Path(p) = &*call.func else {
        return None;
    };
    let segs = super::path_idents(&p.path);
    let at = sql_fn(&segs)?;
    string_arg(file, call.args.iter().nth(at)?, consts)
}

/// SQL of a checked-query macro (`sqlx::query!("…", a)`,
/// `query_as!(Row, "…", a)`): its first string literal.
pub fn of_macro(file: &str, mac: &syn::Macro) -> Option<SqlText> {
    let name = mac.path.segments.last()?.ident.to_string();
    if !is_sql_macro(&name) {
        return None;
    }
    for tt in mac.tokens.clone() {
        if let proc_macro2::TokenTree::Literal(l) = tt {
            if let Ok(syn::Lit::Str(s)) =
                syn::parse2::<syn::Lit>(proc_macro2::TokenTree::Literal(l).into())
            {
                return Some(literal(file, &s));
            }
        }
    }
    None
}

/// SQL of a method that takes it first (`client.execute("…", &[..])`).
pub fn of_method(file: &str, m: &syn::ExprMethodCall, consts: &StrConsts) -> Option<SqlText> {
    if !is_sql_method(&m.method.to_string()) {
        return None;
    }
    string_arg(file, m.args.first()?, consts)
}

/// The DSL of diesel: `insert_into(t::table)…[.on_conflict(..).do_nothing()]`,
/// `update(t::table…)`, `delete(t::table…)`; `root` is the chain's root
/// call, `methods` the names of the methods called on it.
pub fn diesel_dsl(root: &syn::Expr, methods: &[String]) -> Option<Dml> {
    let has = |m: &str| methods.iter().any(|x| x == m);
    match root {
        syn::Expr::Call(c) => {
            let syn::Expr::Path(p) = &*c.func else {
                return None;
            };
            let segs = super::path_idents(&p.path);
            let last = segs.last()?.as_str();
            let qualified = segs.len() == 1 || segs.first().is_some_and(|s| s == "diesel");
            if !qualified {
                return None;
            }
            let table = c.args.first().and_then(dsl_table)?;
            let kind = match last {
                "insert_into" | "insert_or_ignore_into" | "replace_into" => {
                    if last == "replace_into" || has("do_update") {
                        DmlKind::Upsert
                    } else if last == "insert_or_ignore_into"
                        || has("on_conflict_do_nothing")
                        || has("do_nothing")
                    {
                        DmlKind::InsertDoNothing
                    } else {
                        DmlKind::Insert
                    }
                }
                "update" => DmlKind::Update,
                "delete" => DmlKind::Delete,
                _ => return None,
            };
            Some(Dml::new(kind, table))
        }
        // `idempotency_keys::table.find(k).first::<Row>(conn)`
        syn::Expr::Path(_) if methods.iter().any(|m| is_exec_method(m)) => {
            Some(Dml::new(DmlKind::Read, dsl_table(root)?))
        }
        _ => None,
    }
}

/// `t::table`, `schema::t::table`, `t::dsl::t`, `t::table.filter(..)`.
fn dsl_table(e: &syn::Expr) -> Option<String> {
    match e {
        syn::Expr::Path(p) => {
            let segs = super::path_idents(&p.path);
            match segs.as_slice() {
                [.., t, last] if last == "table" => Some(t.to_ascii_lowercase()),
                [.., t, dsl, last] if dsl == "dsl" && last == t => Some(t.to_ascii_lowercase()),
                _ => None,
            }
        }
        syn::Expr::MethodCall(m) => dsl_table(&m.receiver),
        syn::Expr::Reference(r) => dsl_table(&r.expr),
        syn::Expr::Paren(p) => dsl_table(&p.expr),
        _ => None,
    }
}

/// Classify SQL text; a `DELETE` that expires a store's rows by age also
/// becomes a retention of that store, and schema statements (`CREATE TABLE`,
/// `CREATE UNIQUE INDEX`, `ALTER TABLE`, run at start-up or by an embedded
/// migration) become the file's schema events, so the store recogniser and
/// the unique-guard rules see tables that no `.sql` file declares.
pub fn read(file: &str, sql: &SqlText, facts: &mut FileFacts) -> Vec<Dml> {
    let found = dml::classify(&sql.text);
    let Some(inner) = sql.inner else {
        return found;
    };
    let delete = found.iter().any(|d| d.kind == DmlKind::Delete);
    let ddl = is_schema_text(&sql.text) && !in_test(facts, inner);
    if delete || ddl {
        statements(file, sql, inner, ddl, delete, facts);
    }
    found
}

/// A `const` of schema text (`pub const IDEMPOTENCY_TABLE_DDL: &str =
/// "CREATE TABLE …"`) outside test code: the schema a crate ships for
/// whoever runs it (a downstream migration tool, a start-up hook in another
/// crate), read where it is defined whether or not this file executes it.
/// A use of the same constant in a query adds nothing twice ([`read`]
/// keeps one event per statement).
pub fn read_const_schema(file: &str, sql: &SqlText, facts: &mut FileFacts) {
    if let Some(inner) = sql.inner {
        if is_schema_text(&sql.text) && !in_test(facts, inner) {
            statements(file, sql, inner, true, false, facts);
        }
    }
}

fn in_test(facts: &FileFacts, inner: Span) -> bool {
    facts
        .test_regions
        .iter()
        .any(|r| r.start <= inner.start && inner.end <= r.end)
}

/// The statements of `sql` (at `inner` in the file): schema events with
/// `ddl`, retentions of expiring `DELETE`s with `delete`.
fn statements(
    file: &str,
    sql: &SqlText,
    inner: Span,
    ddl: bool,
    delete: bool,
    facts: &mut FileFacts,
) {
    let mut scratch = crate::facts::store::SqlFacts::default();
    // Problems of SQL held in a Rust string are not the Rust file's parse
    // errors: a statement no dialect reads is counted, never reported.
    let mut problems = Vec::new();
    for mut stmt in crate::frontend::sql::split::split(&sql.text) {
        stmt.span = stmt.span.shift(inner.start);
        for b in &mut stmt.bodies {
            *b = b.shift(inner.start);
        }
        if ddl {
            crate::frontend::sql::extract::statement(file, &stmt, &mut scratch, &mut problems);
        }
        if delete {
            crate::frontend::sql::retention::statement(
                file,
                &stmt,
                &mut scratch,
                &mut facts.retention,
            );
        }
    }
    if ddl {
        let into = facts.sql.get_or_insert_with(Default::default);
        // a constant's statements, read where it is defined, are not read
        // again where a query runs it
        if into
            .events
            .iter()
            .any(|e| e.span.start >= inner.start && e.span.end <= inner.end)
        {
            return;
        }
        into.unparsed += scratch.unparsed;
        into.events.extend(
            scratch
                .events
                .into_iter()
                .filter(|e| !matches!(e.kind, crate::facts::store::SchemaChange::Delete(_))),
        );
    }
}

/// Text that declares or changes a table or an index.
fn is_schema_text(sql: &str) -> bool {
    let words: Vec<String> = sql
        .split(|c: char| c.is_whitespace() || c == '(' || c == ';')
        .filter(|w| !w.is_empty())
        .take(3)
        .map(str::to_ascii_lowercase)
        .collect();
    matches!(
        words.first().map(String::as_str),
        Some("create" | "alter" | "drop")
    ) && words
        .iter()
        .skip(1)
        .any(|w| matches!(w.as_str(), "table" | "index" | "unique"))
}

#[cfg(test)]
mod tests {
    use super::is_schema_text;

    #[test]
    fn schema_text_is_a_table_or_index_statement() {
        for yes in [
            "CREATE TABLE IF NOT EXISTS k (key text PRIMARY KEY)",
            "  create unique index k_key on k (key)",
            "ALTER TABLE k ADD UNIQUE (key)",
            "DROP INDEX k_key",
            "CREATE\n  TABLE k(key text)",
        ] {
            assert!(is_schema_text(yes), "{yes}");
        }
        for no in [
            "INSERT INTO k (key) VALUES ($1)",
            "SELECT 1 FROM k WHERE key = $1",
            "CREATE EXTENSION pgcrypto",
            "DELETE FROM k WHERE created_at < now() - interval '1 day'",
        ] {
            assert!(!is_schema_text(no), "{no}");
        }
    }
}
