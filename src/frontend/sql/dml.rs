//! Data statements found in code (SQL strings inside Rust): which table each
//! statement touches and how — a read, a plain insert, an insert that skips a
//! duplicate (`ON CONFLICT … DO NOTHING`, `INSERT IGNORE`), an upsert, an
//! update, a delete. Read from sqlparser's tokens, so placeholders of every
//! driver (`$1`, `?`, `:name`) and statements sqlparser cannot parse whole
//! still classify. Not for schema changes (`extract`) or retention
//! (`retention`).

use crate::facts::store::{Dml, DmlKind};
use sqlparser::dialect::PostgreSqlDialect;
use sqlparser::tokenizer::{Token, Tokenizer};

/// The columns of `ON CONFLICT (a, b)`, normalised.
fn conflict_target(toks: &[Token]) -> thin_vec::ThinVec<String> {
    let at = toks.windows(3).position(|w| {
        word(w.first()).as_deref() == Some("ON")
            && word(w.get(1)).as_deref() == Some("CONFLICT")
            && matches!(w.get(2), Some(Token::LParen))
    });
    let Some(at) = at else {
        return thin_vec::ThinVec::new();
    };
    toks[at + 3..]
        .iter()
        .take_while(|t| !matches!(t, Token::RParen))
        .filter_map(|t| match t {
            Token::Word(w) if w.quote_style.is_some() => Some(w.value.clone()),
            Token::Word(w) => Some(w.value.to_ascii_lowercase()),
            _ => None,
        })
        .collect()
}

/// Most tokens read from one string: SQL in code is short.
const MAX_TOKENS: usize = 20_000;

/// The tables a SQL text touches and how, in statement order. DDL and text
/// that does not tokenize give nothing.
pub fn classify(sql: &str) -> Vec<Dml> {
    let dialect = PostgreSqlDialect {};
    let Ok(tokens) = Tokenizer::new(&dialect, sql).tokenize() else {
        return Vec::new();
    };
    let toks: Vec<Token> = tokens
        .into_iter()
        .filter(|t| !matches!(t, Token::Whitespace(_)))
        .take(MAX_TOKENS)
        .collect();
    let mut out = Vec::new();
    for stmt in toks.split(|t| matches!(t, Token::SemiColon)) {
        statement(stmt, &mut out);
    }
    out
}

/// The column each bound parameter of a statement stands for, by the
/// parameter's 0-based position (`$1` is 0; the n-th `?` is n-1): an
/// insert's `(a, b) VALUES ($1, $2)`, and a comparison `a = $1` anywhere
/// (`WHERE`, `ON CONFLICT … WHERE`). Column names are normalised.
pub fn param_columns(sql: &str) -> Vec<(usize, String)> {
    let dialect = PostgreSqlDialect {};
    let Ok(tokens) = Tokenizer::new(&dialect, sql).tokenize() else {
        return Vec::new();
    };
    let toks: Vec<Token> = tokens
        .into_iter()
        .filter(|t| !matches!(t, Token::Whitespace(_)))
        .take(MAX_TOKENS)
        .collect();
    let mut question = 0;
    let mut params: Vec<Option<usize>> = Vec::with_capacity(toks.len());
    for t in &toks {
        params.push(match t {
            // PostgreSQL's tokenizer reads a bare `?` as its JSON operator
            Token::Question => {
                question += 1;
                Some(question - 1)
            }
            Token::Placeholder(p) if p == "?" => {
                question += 1;
                Some(question - 1)
            }
            Token::Placeholder(p) => p
                .strip_prefix('$')
                .and_then(|n| n.parse::<usize>().ok())
                .and_then(|n| n.checked_sub(1)),
            _ => None,
        });
    }
    let col = |t: &Token| match t {
        Token::Word(w) if w.quote_style.is_some() => Some(w.value.clone()),
        Token::Word(w) => Some(w.value.to_ascii_lowercase()),
        _ => None,
    };
    let mut out = Vec::new();
    // `a = $1`, `$1 = a`, `t.a = $1`
    for i in 0..toks.len() {
        if !matches!(toks[i], Token::Eq) || i == 0 {
            continue;
        }
        match (params.get(i + 1).copied().flatten(), params[i - 1]) {
            (Some(n), _) => {
                if let Some(c) = col(&toks[i - 1]) {
                    out.push((n, c));
                }
            }
            (None, Some(n)) => {
                if let Some(c) = toks.get(i + 1).and_then(col) {
                    out.push((n, c));
                }
            }
            _ => {}
        }
    }
    // INSERT INTO t (a, b) VALUES ($1, $2)
    let upper: Vec<Option<String>> = toks.iter().map(|t| word(Some(t))).collect();
    if let Some(ins) = upper.iter().position(|w| w.as_deref() == Some("INSERT")) {
        let open = (ins..toks.len()).find(|&i| matches!(toks[i], Token::LParen));
        let values = upper.iter().position(|w| w.as_deref() == Some("VALUES"));
        if let (Some(open), Some(values)) = (open, values) {
            let cols: Vec<String> = toks[open + 1..values]
                .iter()
                .take_while(|t| !matches!(t, Token::RParen))
                .filter_map(col)
                .collect();
            let mut at = 0;
            let mut depth = 0;
            for (i, t) in toks.iter().enumerate().skip(values + 1) {
                match t {
                    Token::LParen => depth += 1,
                    Token::RParen => {
                        depth -= 1;
                        if depth <= 0 {
                            break;
                        }
                    }
                    Token::Comma if depth == 1 => at += 1,
                    _ => {
                        if let (Some(n), Some(c)) = (params[i], cols.get(at)) {
                            out.push((n, c.clone()));
                        }
                    }
                }
            }
        }
    }
    out
}

fn word(t: Option<&Token>) -> Option<String> {
    match t {
        Some(Token::Word(w)) if w.quote_style.is_none() => Some(w.value.to_ascii_uppercase()),
        _ => None,
    }
}

fn is(t: Option<&Token>, w: &str) -> bool {
    word(t).as_deref() == Some(w)
}

/// A possibly qualified name starting at `i`: its normalised text and the
/// index after it.
fn name_at(toks: &[Token], mut i: usize, columns_follow: bool) -> Option<(String, usize)> {
    let mut parts = Vec::new();
    while let Some(Token::Word(w)) = toks.get(i) {
        parts.push(if w.quote_style.is_some() {
            w.value.clone()
        } else {
            w.value.to_ascii_lowercase()
        });
        i += 1;
        if matches!(toks.get(i), Some(Token::Period)) {
            i += 1;
        } else {
            break;
        }
    }
    // `FROM unnest(…)`, `FROM generate_series(…)`: a function, not a table.
    if parts.is_empty() || (!columns_follow && matches!(toks.get(i), Some(Token::LParen))) {
        return None;
    }
    Some((super::extract::normalise(&parts), i))
}

fn statement(toks: &[Token], out: &mut Vec<Dml>) {
    if matches!(
        word(toks.first()).as_deref(),
        Some("CREATE" | "ALTER" | "DROP" | "GRANT" | "COMMENT")
    ) {
        return;
    }
    let upper: Vec<Option<String>> = toks.iter().map(|t| word(Some(t))).collect();
    let has_seq = |words: &[&str]| {
        upper
            .windows(words.len())
            .any(|w| w.iter().zip(words).all(|(a, b)| a.as_deref() == Some(*b)))
    };
    let conflict_nothing = has_seq(&["DO", "NOTHING"]);
    let conflict_update = has_seq(&["DO", "UPDATE"]) || has_seq(&["DUPLICATE", "KEY", "UPDATE"]);
    let mut i = 0;
    while i < toks.len() {
        let w = upper[i].as_deref();
        let prev = i.checked_sub(1).and_then(|p| upper[p].as_deref());
        match w {
            Some("INSERT") | Some("REPLACE") if i == 0 || prev.is_none() || prev == Some("AS") => {
                let mut j = i + 1;
                let mut kind = if w == Some("REPLACE") {
                    DmlKind::Upsert
                } else if conflict_nothing {
                    DmlKind::InsertDoNothing
                } else if conflict_update {
                    DmlKind::Upsert
                } else {
                    DmlKind::Insert
                };
                // INSERT IGNORE / INSERT OR IGNORE / INSERT OR REPLACE
                while let Some(x) = upper.get(j).and_then(|x| x.as_deref()) {
                    match x {
                        "IGNORE" => kind = DmlKind::InsertDoNothing,
                        "REPLACE" => kind = DmlKind::Upsert,
                        "OR" | "INTO" | "LOW_PRIORITY" | "HIGH_PRIORITY" | "DELAYED" => {}
                        _ => break,
                    }
                    j += 1;
                }
                if let Some((table, next)) = name_at(toks, j, true) {
                    out.push(Dml {
                        kind,
                        table,
                        conflict: conflict_target(toks),
                    });
                    i = next;
                    continue;
                }
            }
            // not `DO UPDATE`, `KEY UPDATE`, `FOR UPDATE`, `ON UPDATE`
            Some("UPDATE") if !matches!(prev, Some("DO" | "KEY" | "FOR" | "ON" | "NO")) => {
                let j = if is(toks.get(i + 1), "ONLY") {
                    i + 2
                } else {
                    i + 1
                };
                if let Some((table, next)) = name_at(toks, j, false) {
                    out.push(Dml::new(DmlKind::Update, table));
                    i = next;
                    continue;
                }
            }
            Some("DELETE") if prev != Some("ON") && is(toks.get(i + 1), "FROM") => {
                let j = if is(toks.get(i + 2), "ONLY") {
                    i + 3
                } else {
                    i + 2
                };
                if let Some((table, next)) = name_at(toks, j, false) {
                    out.push(Dml::new(DmlKind::Delete, table));
                    i = next;
                    continue;
                }
            }
            // `IS DISTINCT FROM`, `EXTRACT(x FROM y)` are no table reads:
            // a name followed by `(` is refused by `name_at`; `DISTINCT` here.
            Some("FROM") | Some("JOIN") if prev != Some("DISTINCT") => {
                let j = if is(toks.get(i + 1), "ONLY") {
                    i + 2
                } else {
                    i + 1
                };
                if let Some((table, next)) = name_at(toks, j, false) {
                    if !out.iter().any(|d| d.table == table && d.kind.writes()) {
                        out.push(Dml::new(DmlKind::Read, table));
                    }
                    i = next;
                    continue;
                }
            }
            _ => {}
        }
        i += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(sql: &str) -> Vec<(DmlKind, String)> {
        classify(sql)
            .into_iter()
            .map(|d| (d.kind, d.table))
            .collect()
    }

    #[test]
    fn inserts_are_told_apart_by_their_conflict_clause() {
        use DmlKind::*;
        assert_eq!(
            kinds("INSERT INTO idempotency_keys (key) VALUES ($1) ON CONFLICT (key) DO NOTHING RETURNING key"),
            vec![(InsertDoNothing, "idempotency_keys".into())]
        );
        assert_eq!(
            kinds("insert into public.Idem_Keys (k) values (?) on conflict (k) do update set r = excluded.r"),
            vec![(Upsert, "idem_keys".into())]
        );
        assert_eq!(
            kinds("INSERT IGNORE INTO dedup (id) VALUES (?)"),
            vec![(InsertDoNothing, "dedup".into())]
        );
        assert_eq!(
            kinds("INSERT INTO processed_events (event_id) VALUES ($1)"),
            vec![(Insert, "processed_events".into())]
        );
        assert_eq!(
            kinds("INSERT INTO t (k) VALUES (?) ON DUPLICATE KEY UPDATE k = k"),
            vec![(Upsert, "t".into())]
        );
    }

    #[test]
    fn an_insert_keeps_its_conflict_target() {
        let d = classify(
            "INSERT INTO task_runs (id, idempotency_key) VALUES ($1, $2) ON CONFLICT (idempotency_key) DO UPDATE SET id = task_runs.id RETURNING id",
        );
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].conflict.as_slice(), ["idempotency_key".to_string()]);
        let d =
            classify("INSERT INTO t (a) VALUES ($1) ON CONFLICT ON CONSTRAINT t_a_key DO NOTHING");
        assert!(d[0].conflict.is_empty());
    }

    #[test]
    fn bound_parameters_name_their_columns() {
        assert_eq!(
            param_columns("INSERT INTO received_hooks (source, ref, body) VALUES ('stripe', $1, $2) ON CONFLICT DO NOTHING"),
            vec![(0, "ref".to_string()), (1, "body".to_string())]
        );
        assert_eq!(
            param_columns("SELECT 1 FROM hooks WHERE tenant = ? AND h.ref = ?"),
            vec![(0, "tenant".to_string()), (1, "ref".to_string())]
        );
    }

    #[test]
    fn reads_updates_and_deletes_name_their_table() {
        use DmlKind::*;
        assert_eq!(
            kinds("SELECT EXISTS (SELECT 1 FROM processed_events WHERE event_id = $1)"),
            vec![(Read, "processed_events".into())]
        );
        assert_eq!(
            kinds("UPDATE idempotency_keys SET response = $2 WHERE key = $1"),
            vec![(Update, "idempotency_keys".into())]
        );
        assert_eq!(
            kinds("DELETE FROM idempotency WHERE created_at < now() - interval '24 hours'"),
            vec![(Delete, "idempotency".into())]
        );
        assert_eq!(
            kinds("SELECT * FROM unnest($1::text[]) AS k JOIN ledger l ON l.k = k"),
            vec![(Read, "ledger".into())]
        );
        assert_eq!(
            kinds("SELECT r FROM idem FOR UPDATE"),
            vec![(Read, "idem".into())]
        );
    }

    #[test]
    fn ddl_and_garbage_give_nothing() {
        assert!(kinds("CREATE TABLE idem (k text PRIMARY KEY)").is_empty());
        assert!(kinds("'unterminated").is_empty());
        assert!(kinds("hello world").is_empty());
    }
}
