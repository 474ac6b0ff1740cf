//! Text front end for other source files (js/ts/py/go/java/rb/kt/cs/php) and
//! nginx/envoy configs: quoted string literals, and the header-name argument
//! of nginx header directives. No parsing beyond a line-aware quote scan.

use crate::facts::headers::{StrLit, StrRole};
use crate::facts::store::{ConflictTarget, TableUse};
use crate::facts::FileFacts;
use crate::source::Span;
use regex::Regex;
use std::sync::OnceLock;

/// nginx directives whose first argument is a request or response header name.
const NGINX_HEADER_DIRECTIVES: &[&str] = &[
    "proxy_set_header",
    "add_header",
    "more_set_headers",
    "more_set_input_headers",
    "proxy_hide_header",
    "proxy_pass_header",
    "grpc_set_header",
];
// NOTE: `fastcgi_param IDEMPOTENCY_KEY $http_idempotency_key;` names a CGI
// variable, not a header: underscores are its normal spelling, so
// `fastcgi_param` is not in this list.

/// Of those, the directives that set a header on the request nginx forwards
/// upstream (not on its response to the client).
const NGINX_UPSTREAM_DIRECTIVES: &[&str] = &[
    "proxy_set_header",
    "grpc_set_header",
    "more_set_input_headers",
];

/// Literals longer than this are not header names and are not kept.
const MAX_LITERAL: usize = 128;

pub fn parse(text: &str, facts: &mut FileFacts) {
    facts.hints.talks_to_stripe = crate::knowledge::headers().talks_to_stripe(text);
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        scan_line(line, offset, facts);
        offset += line.len();
    }
}

fn scan_line(line: &str, offset: usize, facts: &mut FileFacts) {
    let trimmed = line.trim_start();
    let indent = line.len() - trimmed.len();
    // A whole-line comment holds prose, not header names:
    // `# Stripe sends "Idempotent-Replayed"`.
    if ["//", "#", "/*", "*", "--", ";"]
        .iter()
        .any(|c| trimmed.starts_with(c))
    {
        return;
    }
    // nginx: `proxy_set_header Idempotency-Key $http_idempotency_key;`
    let mut words = trimmed.split_whitespace();
    if let Some(first) = words.next() {
        if first == "underscores_in_headers" {
            let arg = words.next().unwrap_or("");
            if arg.trim_end_matches(';') == "on" {
                if let Some(pos) = trimmed.find(arg) {
                    let start = offset + indent + pos;
                    facts.hints.nginx_passes_underscores = Some(Span::new(start, start + 2));
                }
            }
            return;
        }
        if NGINX_HEADER_DIRECTIVES.contains(&first) {
            if let Some(name) = words.next() {
                let name_trim =
                    name.trim_matches(|c| c == '"' || c == '\'' || c == ';' || c == ':');
                if let Some(pos) = trimmed.find(name_trim) {
                    let start = offset + indent + pos;
                    if NGINX_UPSTREAM_DIRECTIVES.contains(&first) {
                        facts
                            .hints
                            .forwarded_headers
                            .push(Span::new(start, start + name_trim.len()));
                    }
                    facts.strings.push(StrLit {
                        value: name_trim.to_string(),
                        span: Span::new(start, start + name_trim.len()),
                        role: StrRole::Write,
                    });
                }
            }
            return;
        }
    }
    let bytes = line.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let q = bytes[i];
        if q == b'"' || q == b'\'' || q == b'`' {
            let start = i + 1;
            let mut j = start;
            while j < bytes.len() && bytes[j] != q {
                if bytes[j] == b'\\' {
                    j += 1;
                }
                j += 1;
            }
            if j >= bytes.len() {
                return; // unterminated on this line: not a literal we can read
            }
            let value = &line[start..j];
            if !value.is_empty() && value.len() <= MAX_LITERAL && !names_data(&line[..i]) {
                facts.strings.push(StrLit {
                    value: value.to_string(),
                    span: Span::new(offset + start, offset + j),
                    role: role_of(&line[..i], &line[j + 1..]),
                });
            }
            i = j + 1;
        } else {
            i += 1;
        }
    }
}

/// SQL verbs followed by the table they touch, in code of any language:
/// `INSERT INTO t`, `UPDATE t SET`, `DELETE FROM t`, `… FROM t`, `JOIN t`.
fn table_use_re() -> Option<&'static Regex> {
    static R: OnceLock<Option<Regex>> = OnceLock::new();
    R.get_or_init(|| {
        Regex::new(
            r#"(?i)\b(?:(insert)\s+(?:or\s+\w+\s+|ignore\s+)?into|(delete)\s+from|(update)|(replace)\s+into|(merge)\s+into|from|join)\s+(?:only\s+)?((?:["`]?[A-Za-z_][\w$]*["`]?\.)?["`]?[A-Za-z_][\w$]*["`]?)"#,
        )
        .ok()
    })
    .as_ref()
}

/// How far back a `FROM` looks for the `SELECT` or `DELETE` it belongs to.
const FROM_WINDOW: usize = 400;

/// Tables that SQL in the text's string literals writes or reads. A cheap
/// scan of the whole text (a multi-line Python or template string holds SQL
/// as often as a one-line literal); a `FROM` counts only after a `SELECT` or
/// `DELETE` close before it, and an `UPDATE` only before `SET`, so
/// `from x import y` or prose is not a read.
pub fn table_uses(text: &str) -> Vec<TableUse> {
    let Some(re) = table_use_re() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for c in re.captures_iter(text) {
        let (Some(whole), Some(name)) = (c.get(0), c.get(6)) else {
            continue;
        };
        let writes = (1..=5).any(|i| c.get(i).is_some());
        if c.get(3).is_some() {
            let after = text[name.end()..].trim_start();
            let set = after.len() >= 3 && after.as_bytes()[..3].eq_ignore_ascii_case(b"set");
            if !set {
                continue;
            }
        }
        if !writes {
            let from =
                crate::source::ceil_char_boundary(text, whole.start().saturating_sub(FROM_WINDOW));
            let before = text[from..whole.start()].to_ascii_lowercase();
            let after = text[name.end()..].trim_start();
            let import = after.len() >= 6 && after.as_bytes()[..6].eq_ignore_ascii_case(b"import");
            if !before.contains("select") || import {
                continue;
            }
        }
        let bare = name.as_str().rsplit('.').next().unwrap_or(name.as_str());
        let table = bare
            .trim_matches(|c| c == '"' || c == '`')
            .to_ascii_lowercase();
        out.push(TableUse {
            table,
            span: Span::new(whole.start(), name.end()),
            writes,
        });
    }
    out
}

/// `INSERT INTO t` in code of any language, its table captured.
fn insert_re() -> Option<&'static Regex> {
    static R: OnceLock<Option<Regex>> = OnceLock::new();
    R.get_or_init(|| {
        Regex::new(
            r#"(?i)\binsert\s+into\s+((?:["`]?[A-Za-z_][\w$]*["`]?\.)?["`]?[A-Za-z_][\w$]*["`]?)"#,
        )
        .ok()
    })
    .as_ref()
}

/// `ON CONFLICT (a, b)`, its column list captured.
fn conflict_re() -> Option<&'static Regex> {
    static R: OnceLock<Option<Regex>> = OnceLock::new();
    R.get_or_init(|| Regex::new(r"(?i)\bon\s+conflict\s*\(([^()]*)\)").ok())
        .as_ref()
}

/// How far past `INSERT INTO t` its `ON CONFLICT` is looked for.
const CONFLICT_WINDOW: usize = 2_000;

/// A column or table name as the schema model keeps it: quotes removed,
/// case kept where it was quoted, else lower-cased; `None` for anything
/// but a plain name (an expression target, `lower(email)`).
fn plain_name(raw: &str) -> Option<String> {
    let raw = raw.trim();
    let (quoted, inner) = match raw.strip_prefix('"').and_then(|r| r.strip_suffix('"')) {
        Some(inner) => (true, inner),
        None => (false, raw.trim_matches('`')),
    };
    let ok = inner.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && inner.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    ok.then(|| {
        if quoted {
            inner.to_string()
        } else {
            inner.to_ascii_lowercase()
        }
    })
}

/// The `ON CONFLICT (cols)` targets of the inserts in a text's SQL: each
/// `INSERT INTO t` with the first `ON CONFLICT (…)` after it, before the
/// next insert, a `;` or [`CONFLICT_WINDOW`] bytes. A target with an
/// expression or a `WHERE` (a partial index's arbiter) is left out, as is
/// `ON CONFLICT ON CONSTRAINT name` and `ON CONFLICT DO …` (no target).
pub fn conflict_targets(text: &str) -> Vec<ConflictTarget> {
    let (Some(insert), Some(conflict)) = (insert_re(), conflict_re()) else {
        return Vec::new();
    };
    if !crate::knowledge::contains_ignore_ascii_case(text, "on conflict") {
        return Vec::new();
    }
    let inserts: Vec<regex::Match> = insert
        .captures_iter(text)
        .filter_map(|c| c.get(1))
        .collect();
    let mut out = Vec::new();
    for (i, name) in inserts.iter().enumerate() {
        let next = inserts.get(i + 1).map_or(text.len(), |n| n.start());
        let limit = crate::source::ceil_char_boundary(text, next.min(name.end() + CONFLICT_WINDOW));
        let body = &text[name.end()..limit.max(name.end())];
        let body = &body[..body.find(';').unwrap_or(body.len())];
        let Some(c) = conflict.captures(body) else {
            continue;
        };
        let (Some(whole), Some(list)) = (c.get(0), c.get(1)) else {
            continue;
        };
        let after = body[whole.end()..].trim_start();
        if after.len() >= 5 && after.as_bytes()[..5].eq_ignore_ascii_case(b"where") {
            continue;
        }
        let columns: Option<Vec<String>> = list.as_str().split(',').map(plain_name).collect();
        let bare = name.as_str().rsplit('.').next().unwrap_or(name.as_str());
        let (Some(columns), Some(table)) = (columns, plain_name(bare)) else {
            continue;
        };
        out.push(ConflictTarget {
            table: table.to_ascii_lowercase(),
            columns,
            span: Span::new(name.end() + whole.start(), name.end() + whole.end()),
        });
    }
    out
}

/// Annotations and calls whose string argument names a column, a table or a
/// serialised field, never a header: `@Column(name = "Idempotency_Key")`,
/// `[JsonPropertyName("Idempotency_Key")]`, `Column("Idempotency_Key", ...)`.
const DATA_CALLS: &[&str] = &[
    "column",
    "table",
    "jsonproperty",
    "jsonpropertyname",
    "serializedname",
    "jsonalias",
    "jsonfield",
    "field",
];

/// Whether the literal after `before` names data (a column, a table, a
/// serialised field) rather than a header: an argument of a [`DATA_CALLS`]
/// call, directly or as `name =`/`value =`/`alias =`, or a `db_column=`.
fn names_data(before: &str) -> bool {
    let lower = before.trim_end().to_ascii_lowercase();
    if lower.ends_with("db_column=") || lower.ends_with("db_column =") {
        return true;
    }
    let Some(open) = lower.rfind('(') else {
        return false;
    };
    let args = lower[open + 1..].trim();
    let keyword_ok = args.is_empty()
        || args
            .strip_suffix('=')
            .map(str::trim_end)
            .is_some_and(|k| ["name", "value", "alias"].contains(&k));
    if !keyword_ok {
        return false;
    }
    let callee: String = lower[..open]
        .chars()
        .rev()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    DATA_CALLS.contains(&callee.as_str())
}

/// Methods that read a header by name whatever their receiver
/// (`req.getHeader`, `request.get_header`, `@RequestHeader`).
const READ_CALLS: &[&str] = &[
    "getheader",
    "get_header",
    "getheaders",
    "getfirstheader",
    "getrequestheader",
    "getresponseheader",
    "requestheader",
    "header_value",
];

/// Methods that set a header by name whatever their receiver.
const WRITE_CALLS: &[&str] = &[
    "setheader",
    "set_header",
    "addheader",
    "add_header",
    "append_header",
    "insert_header",
    "setrequestheader",
    "setrequestproperty",
    "addrequestproperty",
    "withheader",
    "with_header",
];

/// Map methods that read or write when their receiver speaks of headers
/// (`r.Header.Get`, `resp.headers.get`, `w.Header().Set`, `headers.append`).
const MAP_READS: &[&str] = &[
    "get",
    "has",
    "getall",
    "get_all",
    "getlist",
    "getone",
    "getfirst",
    "values",
    "contains",
    "containskey",
    "trygetvalues",
    "fetch",
];
const MAP_WRITES: &[&str] = &[
    "set",
    "add",
    "append",
    "put",
    "insert",
    "tryaddwithoutvalidation",
];

/// The role a literal gets from the code around it on its line: an argument
/// of a header lookup or setter, or a subscript of a `headers` map. Anything
/// else is a mention. A cheap look at the text, not a parse: it only needs to
/// tell `headers.get('…')` from `body['…']`.
fn role_of(before: &str, after: &str) -> StrRole {
    let before = before.trim_end();
    let after = after.trim_start();
    // `response.headers['Idempotency-Key'] = key` / `req.headers["…"]`
    if let Some(recv) = before.strip_suffix('[') {
        if !tail(recv).contains("header") {
            return StrRole::Mention;
        }
        let rest = after.strip_prefix(']').unwrap_or(after).trim_start();
        let assigns = rest.starts_with('=') && !rest.starts_with("==");
        return if assigns {
            StrRole::Write
        } else {
            StrRole::Read
        };
    }
    // `@RequestHeader(value = "…")`, `@RequestHeader(name = "…")`
    let before = ["value", "name"]
        .iter()
        .find_map(|k| {
            before
                .strip_suffix('=')
                .map(str::trim_end)
                .and_then(|b| b.strip_suffix(k))
                .map(str::trim_end)
        })
        .unwrap_or(before);
    let Some(callee) = before.strip_suffix('(') else {
        return StrRole::Mention;
    };
    let callee = tail(callee);
    let (recv, method) = callee.rsplit_once('.').unwrap_or(("", callee.as_str()));
    // `create(@RequestHeader(` → `requestheader`
    let method = method
        .rsplit('(')
        .next()
        .unwrap_or(method)
        .trim_start_matches('@');
    let first_of_many = after.starts_with(',');
    if READ_CALLS.contains(&method) {
        StrRole::Read
    } else if WRITE_CALLS.contains(&method) {
        StrRole::Write
    } else if method == "header" {
        // Express `req.header('…')` reads, `res.header('…', v)` and builders
        // (`.header("…", v)`) write.
        if first_of_many {
            StrRole::Write
        } else {
            StrRole::Read
        }
    } else if recv.contains("header") && MAP_READS.contains(&method) {
        StrRole::Read
    } else if recv.contains("header") && MAP_WRITES.contains(&method) {
        StrRole::Write
    } else {
        StrRole::Mention
    }
}

/// The expression just before a `(` or `[`: identifiers, member access and
/// call parentheses, lower-cased, with `->` and `::` read as `.`.
fn tail(text: &str) -> String {
    let start = text
        .char_indices()
        .rev()
        .take(80)
        .take_while(|(_, c)| {
            c.is_ascii_alphanumeric()
                || matches!(c, '_' | '.' | '(' | ')' | '-' | '>' | ':' | '$' | '@')
        })
        .last()
        .map(|(i, _)| i)
        .unwrap_or(text.len());
    text[start..]
        .to_ascii_lowercase()
        .replace("->", ".")
        .replace("::", ".")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conflict_targets_are_plain_column_lists_of_the_insert_before_them() {
        let text = "db.Exec(`INSERT INTO app.\"Events\" (id, event) VALUES ($1, $2)\n ON CONFLICT (id, \"Event\") DO NOTHING`)\n\
            db.Exec(\"INSERT INTO users (email) VALUES ($1) ON CONFLICT (lower(email)) DO NOTHING\")\n\
            db.Exec(\"INSERT INTO jobs (key) VALUES ($1) ON CONFLICT (key) WHERE done = false DO NOTHING\")\n\
            db.Exec(\"INSERT INTO runs (id) VALUES ($1) ON CONFLICT ON CONSTRAINT runs_pkey DO NOTHING\")\n\
            db.Exec(\"INSERT INTO seen (id) VALUES ($1); UPDATE x SET y = 1 ON CONFLICT (z)\")\n";
        let found = conflict_targets(text);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].table, "events");
        assert_eq!(
            found[0].columns,
            vec!["id".to_string(), "Event".to_string()]
        );
        assert!(text[found[0].span.start..found[0].span.end].starts_with("ON CONFLICT ("));
    }

    #[test]
    fn literals_and_nginx_directives() {
        let text = "const h = 'Idempotency-Key';\n  proxy_set_header Idempotency_Key $http_idempotency_key;\n";
        let mut f = FileFacts::default();
        parse(text, &mut f);
        let vals: Vec<_> = f
            .strings
            .iter()
            .map(|s| (s.value.as_str(), s.role))
            .collect();
        assert_eq!(
            vals,
            vec![
                ("Idempotency-Key", StrRole::Mention),
                ("Idempotency_Key", StrRole::Write)
            ]
        );
        let s = &f.strings[1];
        assert_eq!(&text[s.span.start..s.span.end], "Idempotency_Key");
    }

    fn roles(text: &str) -> Vec<(String, StrRole)> {
        let mut f = FileFacts::default();
        parse(text, &mut f);
        f.strings.into_iter().map(|s| (s.value, s.role)).collect()
    }

    #[test]
    fn header_lookups_in_other_languages_are_reads() {
        for line in [
            "replayed = resp.headers.get('Idempotent-Replayed')",
            "const r = res.headers.get(\"Idempotent-Replayed\");",
            "if r.Header.Get(\"Idempotent-Replayed\") == \"true\" {",
            "String r = conn.getHeader(\"Idempotent-Replayed\");",
            "replayed = response.headers[\"Idempotent-Replayed\"]",
            "$r = $response->headers->get('Idempotent-Replayed');",
            "key = request.get_header('Idempotent-Replayed')",
            "public Charge create(@RequestHeader(value = \"Idempotent-Replayed\") String k) {",
        ] {
            assert_eq!(
                roles(line)[0],
                ("Idempotent-Replayed".to_string(), StrRole::Read),
                "{line}"
            );
        }
    }

    #[test]
    fn header_setters_in_other_languages_are_writes() {
        for line in [
            "res.setHeader('Idempotency-Key', key);",
            "w.Header().Set(\"Idempotency-Key\", key)",
            "headers.append('Idempotency-Key', key);",
            "request.Headers.Add(\"Idempotency-Key\", key);",
            "response.headers['Idempotency-Key'] = key",
            ".addHeader(\"Idempotency-Key\", key)",
        ] {
            assert_eq!(
                roles(line)[0],
                ("Idempotency-Key".to_string(), StrRole::Write),
                "{line}"
            );
        }
    }

    #[test]
    fn map_lookups_that_are_not_headers_stay_mentions() {
        for line in [
            "key = body.get('idempotency_key')",
            "key = payload[\"Idempotency-Key\"]",
            "db.query(\"SELECT * FROM idempotency_keys\")",
        ] {
            assert!(
                roles(line).iter().all(|(_, r)| *r == StrRole::Mention),
                "{line}"
            );
        }
    }

    #[test]
    fn column_and_serialised_field_names_are_not_header_candidates() {
        let text = "@Column(name = \"Idempotency_Key\", nullable = false)\n[JsonPropertyName(\"Idempotency_Key\")]\nk = Column(\"Idempotency_Key\", String)\nf = models.CharField(db_column=\"Idempotency_Key\")\nr.Header.Get(\"Idempotency_Key\")\n";
        let r = roles(text);
        assert_eq!(r, vec![("Idempotency_Key".to_string(), StrRole::Read)]);
    }

    #[test]
    fn sql_in_string_literals_names_the_tables_it_writes_and_reads() {
        let text = "cur.execute(\"\"\"\n    INSERT INTO processed_deliveries (psp_reference)\n    VALUES (%s) ON CONFLICT DO NOTHING\n\"\"\", (ref,))\n\
                    db.query('SELECT 1 FROM public.\"webhook_events\" WHERE id = $1')\n\
                    await sql`UPDATE idem_keys SET done = true`;\n\
                    from webhook_events import handler\n\
                    update the table later\n";
        let uses: Vec<(String, bool, &str)> = table_uses(text)
            .into_iter()
            .map(|u| (u.table, u.writes, &text[u.span.start..u.span.end]))
            .collect();
        assert_eq!(
            uses,
            vec![
                (
                    "processed_deliveries".to_string(),
                    true,
                    "INSERT INTO processed_deliveries"
                ),
                (
                    "webhook_events".to_string(),
                    false,
                    "FROM public.\"webhook_events\""
                ),
                ("idem_keys".to_string(), true, "UPDATE idem_keys"),
            ]
        );
    }

    #[test]
    fn comment_lines_are_not_read() {
        assert!(
            roles("# Stripe sends 'Idempotent-Replayed'\n// \"Idempotency-Replayed\"\n").is_empty()
        );
    }
}
