//! The statement splitter: cuts SQL text at top-level `;` the way psql does,
//! so each statement can be parsed on its own and one bad statement cannot
//! hide the next. Knows quotes (`'…'` with `''`, `E'…'` with backslash
//! escapes, `"…"`, MySQL backticks), dollar-quoted bodies (`$$…$$`,
//! `$tag$…$tag$`), `--` comments and nested `/* */` comments, and the two
//! psql forms of pg_dump output that are not SQL: the data lines after
//! `COPY … FROM stdin;` up to `\.`, and backslash meta-commands (`\connect`,
//! `\restrict`) that end at the end of their line. Not a parser. Beside it,
//! what the SQL front end and the prefilter both ask of a statement's
//! words: whether it changes a table ([`changes_tables`]), and whether a
//! migration holds one whose parentheses do not balance
//! ([`has_broken_table_statement`]).

use crate::source::Span;

/// One statement: its span (from its first token to before its `;`, leading
/// comments and blanks excluded) and the spans of the dollar-quoted bodies
/// inside it (the text between the delimiters), all in the input's offsets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawStatement {
    pub span: Span,
    pub bodies: Vec<Span>,
}

fn is_ident_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b >= 0x80
}

/// The length of a dollar-quote delimiter (`$$` or `$tag$`) starting at `i`,
/// if one starts there. `$1` (a parameter) is not one: a tag cannot start
/// with a digit.
fn dollar_tag(bytes: &[u8], i: usize) -> Option<usize> {
    if bytes.get(i) != Some(&b'$') {
        return None;
    }
    if i > 0 && is_ident_byte(bytes[i - 1]) {
        return None;
    }
    let mut j = i + 1;
    if let Some(&b) = bytes.get(j) {
        if b.is_ascii_digit() {
            return None;
        }
    }
    while let Some(&b) = bytes.get(j) {
        if b == b'$' {
            return Some(j + 1 - i);
        }
        if !(b.is_ascii_alphanumeric() || b == b'_' || b >= 0x80) {
            return None;
        }
        j += 1;
    }
    None
}

/// Split `text` into statements. Never fails: an unterminated quote or
/// comment runs to the end of the text, and that statement will not parse.
pub fn split(text: &str) -> Vec<RawStatement> {
    let bytes = text.as_bytes();
    let n = bytes.len();
    let mut out = Vec::new();
    let mut start: Option<usize> = None;
    let mut bodies = Vec::new();
    let mut i = 0;
    while i < n {
        let b = bytes[i];
        // comments are skipped whether or not a statement has begun
        if b == b'-' && bytes.get(i + 1) == Some(&b'-') {
            i = memchr::memchr(b'\n', &bytes[i..]).map_or(n, |p| i + p + 1);
            continue;
        }
        if b == b'/' && bytes.get(i + 1) == Some(&b'*') {
            i = skip_block_comment(bytes, i + 2);
            continue;
        }
        if b.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        if b == b';' {
            i += 1;
            if let Some(s) = start.take() {
                let end = trim_end(bytes, s, i - 1);
                out.push(RawStatement {
                    span: Span::new(s, end),
                    bodies: std::mem::take(&mut bodies),
                });
                if is_copy_from_stdin(&bytes[s..end]) {
                    i = skip_copy_data(bytes, i);
                }
            }
            continue;
        }
        if start.is_none() && b == b'\\' {
            // a psql meta-command: its line, not SQL
            i = memchr::memchr(b'\n', &bytes[i..]).map_or(n, |p| i + p + 1);
            continue;
        }
        if start.is_none() {
            start = Some(i);
        }
        match b {
            b'\'' => {
                let escapes = i > 0
                    && matches!(bytes[i - 1], b'E' | b'e')
                    && (i < 2 || !is_ident_byte(bytes[i - 2]));
                i = skip_quoted(bytes, i + 1, b'\'', escapes);
            }
            b'"' => i = skip_quoted(bytes, i + 1, b'"', false),
            b'`' => i = skip_quoted(bytes, i + 1, b'`', false),
            b'$' => match dollar_tag(bytes, i) {
                Some(len) => {
                    let tag = &bytes[i..i + len];
                    let body_start = i + len;
                    match memchr::memmem::find(&bytes[body_start..], tag) {
                        Some(p) => {
                            bodies.push(Span::new(body_start, body_start + p));
                            i = body_start + p + len;
                        }
                        None => {
                            bodies.push(Span::new(body_start, n));
                            i = n;
                        }
                    }
                }
                None => i += 1,
            },
            _ => i += 1,
        }
    }
    if let Some(s) = start {
        out.push(RawStatement {
            span: Span::new(s, trim_end(bytes, s, n)),
            bodies,
        });
    }
    out
}

/// How the parentheses of one statement's text fail to balance, outside
/// its quotes, comments and dollar-quoted bodies: no SQL dialect reads such
/// a statement. Judged with and without backslash escapes in `'…'` (MySQL
/// and PostgreSQL's `E'…'` take them, standard strings do not): only a
/// statement unbalanced both ways is named, so a string read the other way
/// never makes one.
pub fn unbalanced_parens(sql: &str) -> Option<&'static str> {
    let plain = paren_balance(sql.as_bytes(), false)?;
    paren_balance(sql.as_bytes(), true)?;
    Some(plain)
}

/// `None` when balanced; else what is wrong.
fn paren_balance(bytes: &[u8], escapes: bool) -> Option<&'static str> {
    let n = bytes.len();
    let mut depth: i64 = 0;
    let mut i = 0;
    while i < n {
        let b = bytes[i];
        let next = bytes.get(i + 1).copied();
        i = match (b, next) {
            (b'-', Some(b'-')) => memchr::memchr(b'\n', &bytes[i..]).map_or(n, |p| i + p + 1),
            (b'/', Some(b'*')) => skip_block_comment(bytes, i + 2),
            (b'\'', _) => skip_quoted(bytes, i + 1, b'\'', escapes),
            (b'"' | b'`', _) => skip_quoted(bytes, i + 1, b, false),
            (b'$', _) => match dollar_tag(bytes, i) {
                Some(len) => {
                    let tag = &bytes[i..i + len];
                    memchr::memmem::find(&bytes[i + len..], tag).map_or(n, |p| i + len + p + len)
                }
                None => i + 1,
            },
            (b'(', _) => {
                depth += 1;
                i + 1
            }
            (b')', _) => {
                depth -= 1;
                if depth < 0 {
                    return Some("a `)` closes no parenthesis");
                }
                i + 1
            }
            _ => i + 1,
        };
    }
    (depth > 0).then_some("a `(` is never closed")
}

/// Index just past a nested `/* */` comment whose body starts at `i`.
fn skip_block_comment(bytes: &[u8], mut i: usize) -> usize {
    let mut depth = 1usize;
    while i < bytes.len() && depth > 0 {
        if bytes[i] == b'/' && bytes.get(i + 1) == Some(&b'*') {
            depth += 1;
            i += 2;
        } else if bytes[i] == b'*' && bytes.get(i + 1) == Some(&b'/') {
            depth -= 1;
            i += 2;
        } else {
            i += 1;
        }
    }
    i
}

/// `COPY <table> [(cols)] FROM stdin`: psql reads the rows that follow as
/// data, not SQL.
fn is_copy_from_stdin(stmt: &[u8]) -> bool {
    let text = String::from_utf8_lossy(stmt).to_ascii_lowercase();
    let words: Vec<&str> = text.split_ascii_whitespace().collect();
    words.first() == Some(&"copy")
        && words
            .windows(2)
            .any(|w| w[0] == "from" && w[1].trim_end_matches(';') == "stdin")
}

/// Index just past the `\.` line that ends a COPY's data, which starts on
/// the line after the statement's `;`; the end of the text if none does.
fn skip_copy_data(bytes: &[u8], from: usize) -> usize {
    let n = bytes.len();
    let mut i = memchr::memchr(b'\n', &bytes[from..]).map_or(n, |p| from + p + 1);
    while i < n {
        let end = memchr::memchr(b'\n', &bytes[i..]).map_or(n, |p| i + p);
        let line = &bytes[i..end];
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line == b"\\." {
            return (end + 1).min(n);
        }
        i = end + 1;
    }
    n
}

/// Index just past a quoted run that opened before `i`. A doubled quote is
/// an escaped quote; with `escapes`, so is a backslash-escaped one.
fn skip_quoted(bytes: &[u8], mut i: usize, quote: u8, escapes: bool) -> usize {
    while i < bytes.len() {
        let b = bytes[i];
        if escapes && b == b'\\' {
            i += 2;
            continue;
        }
        if b == quote {
            if bytes.get(i + 1) == Some(&quote) {
                i += 2;
                continue;
            }
            return i + 1;
        }
        i += 1;
    }
    bytes.len()
}

/// End of a statement with trailing blanks trimmed (comments inside a
/// statement are kept; trailing ones are part of the text but harmless).
fn trim_end(bytes: &[u8], start: usize, mut end: usize) -> usize {
    while end > start && bytes[end - 1].is_ascii_whitespace() {
        end -= 1;
    }
    end
}

/// The first five words of a statement, lower-cased.
pub fn first_words(sql: &str) -> Vec<String> {
    sql.split_whitespace()
        .take(5)
        .map(str::to_ascii_lowercase)
        .collect()
}

/// Whether a statement can change a table or its guards (`CREATE TABLE`,
/// `CREATE UNIQUE INDEX`, `ALTER TABLE`, `DROP INDEX`, MySQL `RENAME
/// TABLE`). NOTE: pg_dump's `ALTER SEQUENCE idempotency_keys_id_seq OWNED BY
/// …` names a store but cannot unguard it; reporting it would be noise.
pub fn changes_tables(sql: &str) -> bool {
    let words = first_words(sql);
    matches!(
        words.first().map(String::as_str),
        Some("create" | "alter" | "drop" | "rename")
    ) && words[1..]
        .iter()
        .take(3)
        .any(|w| w == "table" || w == "index")
}

/// Whether a statement of the file (its up half) that creates, alters or
/// drops a table or an index has parentheses that do not balance: a broken
/// migration, reported whatever the file names, so the prefilter reads it.
pub fn has_broken_table_statement(text: &str) -> bool {
    let up = &text[..down_section(text).unwrap_or(text.len())];
    split(up).iter().any(|s| {
        let sql = &up[s.span.start..s.span.end];
        changes_tables(sql) && unbalanced_parens(sql).is_some()
    })
}

/// Where the down half of a migration file that holds both halves begins:
/// goose's `-- +goose Down`, sql-migrate's `-- +migrate Down`, dbmate's
/// `-- migrate:down`. Those statements undo the file and are never applied
/// by a forward migration; read, they would drop what the up half made.
pub fn down_section(text: &str) -> Option<usize> {
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        let l = line.trim().to_ascii_lowercase();
        if let Some(rest) = l.strip_prefix("--") {
            let rest: String = rest.split_whitespace().collect::<Vec<_>>().join(" ");
            if matches!(
                rest.as_str(),
                "+goose down" | "+migrate down" | "migrate:down"
            ) {
                return Some(at);
            }
        }
        at += line.len();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(sql: &str) -> Vec<&str> {
        split(sql)
            .iter()
            .map(|s| &sql[s.span.start..s.span.end])
            .collect()
    }

    #[test]
    fn semicolons_inside_quotes_comments_and_bodies_do_not_split() {
        let sql = "-- lead; comment\nCREATE TABLE a (x text DEFAULT 'a;b');\n\
                   /* outer /* nested; */ still; */ SELECT E'it\\'s; here';\n\
                   CREATE FUNCTION f() RETURNS void AS $fn$ BEGIN DELETE FROM a; END $fn$ LANGUAGE plpgsql;\n\
                   SELECT \"odd;name\" FROM `b;c`";
        assert_eq!(
            texts(sql),
            vec![
                "CREATE TABLE a (x text DEFAULT 'a;b')",
                "SELECT E'it\\'s; here'",
                "CREATE FUNCTION f() RETURNS void AS $fn$ BEGIN DELETE FROM a; END $fn$ LANGUAGE plpgsql",
                "SELECT \"odd;name\" FROM `b;c`",
            ]
        );
    }

    #[test]
    fn dollar_bodies_are_recorded_with_exact_spans() {
        let sql = "SELECT cron.schedule('purge', '0 3 * * *', $$DELETE FROM idem WHERE true$$);";
        let st = split(sql);
        assert_eq!(st.len(), 1);
        let body = st[0].bodies[0];
        assert_eq!(&sql[body.start..body.end], "DELETE FROM idem WHERE true");
    }

    #[test]
    fn positional_parameters_are_not_dollar_quotes() {
        assert_eq!(
            texts("DELETE FROM t WHERE a = $1; SELECT 2"),
            vec!["DELETE FROM t WHERE a = $1", "SELECT 2"]
        );
    }

    #[test]
    fn standard_strings_treat_backslash_as_text() {
        // In a standard string a backslash is ordinary, so the quote ends it.
        assert_eq!(
            texts(r"SELECT 'a\'; SELECT 1"),
            vec![r"SELECT 'a\'", "SELECT 1"]
        );
    }

    #[test]
    fn copy_data_and_psql_meta_commands_are_not_statements() {
        let sql = "\\connect payments\r\nCOPY public.t (id, v) FROM stdin;\r\n\
                   1\tevt_1; DROP INDEX t_v_key;\r\n2\tit's $$ odd\r\n\\.\r\n\
                   CREATE UNIQUE INDEX t_v_key ON public.t (v);\n\
                   COPY t FROM stdin;\n\\.\nSELECT 1";
        assert_eq!(
            texts(sql),
            vec![
                "COPY public.t (id, v) FROM stdin",
                "CREATE UNIQUE INDEX t_v_key ON public.t (v)",
                "COPY t FROM stdin",
                "SELECT 1",
            ]
        );
        // a COPY from a file has no inline data
        assert_eq!(
            texts("COPY t FROM '/tmp/x.csv';\nSELECT 1"),
            vec!["COPY t FROM '/tmp/x.csv'", "SELECT 1"]
        );
    }

    #[test]
    fn unterminated_quote_runs_to_the_end_without_panicking() {
        assert_eq!(
            texts("SELECT 1; SELECT 'oops; x"),
            vec!["SELECT 1", "SELECT 'oops; x"]
        );
        assert_eq!(
            texts("SELECT $$ never closed"),
            vec!["SELECT $$ never closed"]
        );
        assert!(split("/* open").is_empty());
    }

    #[test]
    fn unbalanced_parentheses_are_found_outside_quotes_comments_and_bodies() {
        assert_eq!(
            unbalanced_parens("CREATE INDEX i ON t(a, b"),
            Some("a `(` is never closed")
        );
        assert_eq!(
            unbalanced_parens("CREATE TABLE t (a int))"),
            Some("a `)` closes no parenthesis")
        );
        for balanced in [
            "CREATE TABLE t (a text DEFAULT '(', b text) -- (",
            "CREATE TABLE t (a text /* ) */)",
            "CREATE FUNCTION f() AS $$ SELECT ( $$",
            "CREATE TABLE \"a(\" (b int)",
            // MySQL's backslash escape, read either way
            "CREATE TABLE t (a varchar(9) DEFAULT 'x\\')y')",
        ] {
            assert_eq!(unbalanced_parens(balanced), None, "{balanced}");
        }
    }
}
