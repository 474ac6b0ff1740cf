//! Rows that expire: `DELETE FROM <table> WHERE <time column> < now() -
//! <interval>` (at top level, inside `cron.schedule(…, $$…$$)` and inside
//! function bodies), `expires_at … DEFAULT now() + interval '…'` columns,
//! and pg_partman's `retention`. Read from the statement text, so a body
//! sqlparser cannot parse (PL/pgSQL) is still read. A value that cannot be
//! resolved here (a bound parameter `$1`) yields nothing.

use super::split::{split, RawStatement};
use super::{Delete, EventKind, Expiry, Name, SchemaEvent, SqlFacts};
use crate::duration::{self, Duration};
use crate::frontend::{RetentionFact, StoreRef};
use crate::knowledge;
use crate::source::Span;
use regex::Regex;
use std::sync::OnceLock;

/// Deepest nesting of dollar-quoted bodies followed (a cron job whose
/// command calls a function defined in the same statement is two).
const MAX_BODY_DEPTH: usize = 4;

fn re(cell: &'static OnceLock<Option<Regex>>, pattern: &str) -> Option<&'static Regex> {
    cell.get_or_init(|| Regex::new(pattern).ok()).as_ref()
}

const NAME: &str =
    r#"(?:"[^"]+"|`[^`]+`|[A-Za-z_][\w$]*)(?:\.(?:"[^"]+"|`[^`]+`|[A-Za-z_][\w$]*))?"#;

fn delete_re() -> Option<&'static Regex> {
    static R: OnceLock<Option<Regex>> = OnceLock::new();
    re(
        &R,
        &format!(r#"(?is)^\s*(?:with\s.*?\)\s*)?delete\s+from\s+(?:only\s+)?({NAME})"#),
    )
}

fn where_re() -> Option<&'static Regex> {
    static R: OnceLock<Option<Regex>> = OnceLock::new();
    re(&R, r"(?is)\bwhere\b")
}

/// The current time in PostgreSQL and MySQL spellings.
const NOW: &str = r"(?:now\s*\(\s*\)|current_timestamp(?:\s*\(\s*\))?|localtimestamp|clock_timestamp\s*\(\s*\)|statement_timestamp\s*\(\s*\)|transaction_timestamp\s*\(\s*\)|utc_timestamp\s*\(\s*\))";

/// MySQL's unquoted `INTERVAL 30 DAY`: the number and the unit.
const MYSQL_INTERVAL: &str = r"\d+\s+(?:second|minute|hour|day|week|month)\b";

/// `<col> < now() - <interval>` and its variants, and MySQL's
/// `< NOW() - INTERVAL 30 DAY` and `< DATE_SUB(NOW(), INTERVAL 30 DAY)`.
fn cutoff_re() -> Option<&'static Regex> {
    static R: OnceLock<Option<Regex>> = OnceLock::new();
    re(
        &R,
        &format!(
            r#"(?is)[`"]?([A-Za-z_][\w$]*)[`"]?\s*<=?\s*\(?\s*(?:{NOW}\s*-\s*(?:interval\s*'([^']*)'|'([^']*)'\s*::\s*interval|make_interval\s*\(([^)]*)\)|interval\s+({MYSQL_INTERVAL}))|(?:date_sub|subdate)\s*\(\s*{NOW}\s*,\s*interval\s+({MYSQL_INTERVAL})\s*\))"#
        ),
    )
}

/// `now() + <interval>` in a column default.
fn default_re() -> Option<&'static Regex> {
    static R: OnceLock<Option<Regex>> = OnceLock::new();
    re(
        &R,
        r#"(?is)(?:now\s*\(\s*\)|current_timestamp|clock_timestamp\s*\(\s*\)|transaction_timestamp\s*\(\s*\))\s*\+\s*(?:interval\s*'([^']*)'|'([^']*)'\s*::\s*interval|make_interval\s*\(([^)]*)\))"#,
    )
}

fn cron_re() -> Option<&'static Regex> {
    static R: OnceLock<Option<Regex>> = OnceLock::new();
    re(
        &R,
        r"(?is)cron\.schedule(?:_in_database)?\s*\(\s*'([^']*)'\s*,\s*'[^']*'\s*,\s*[$']",
    )
}

/// A pg_cron command written as a standard string
/// (`cron.schedule('job', '0 3 * * *', 'DELETE … interval ''3 days''')`):
/// group 1 is the command between its quotes.
fn quoted_cron_re() -> Option<&'static Regex> {
    static R: OnceLock<Option<Regex>> = OnceLock::new();
    re(
        &R,
        r"(?is)^\s*select\s+cron\.schedule(?:_in_database)?\s*\(\s*(?:'[^']*'\s*,\s*)?'[^']*'\s*,\s*'((?:[^']|'')*)'",
    )
}

/// The file up to a standard-string body's end, with the body's doubled
/// quotes undone in place: an opening `''` becomes ` '`, a closing one
/// `' `, so `interval ''3 days''` reads `interval  '3 days' ` at the same
/// offsets.
fn undouble_quotes(file: &str, body: Span) -> String {
    let mut bytes = file.as_bytes()[..body.end].to_vec();
    let mut i = body.start;
    let mut open = true;
    while i + 1 < body.end {
        if bytes[i] == b'\'' && bytes[i + 1] == b'\'' {
            if open {
                bytes[i] = b' ';
            } else {
                bytes[i + 1] = b' ';
            }
            open = !open;
            i += 2;
        } else {
            i += 1;
        }
    }
    String::from_utf8(bytes).unwrap_or_default()
}

fn function_re() -> Option<&'static Regex> {
    static R: OnceLock<Option<Regex>> = OnceLock::new();
    re(
        &R,
        &format!(r"(?is)^\s*create\s+(?:or\s+replace\s+)?(?:function|procedure)\s+({NAME})"),
    )
}

fn partman_re() -> Option<&'static Regex> {
    static R: OnceLock<Option<Regex>> = OnceLock::new();
    re(
        &R,
        r"(?is)^\s*update\s+partman\.part_config\s+set\s.*?\bretention\s*=\s*'([^']*)'.*?\bwhere\b.*?\bparent_table\s*=\s*'([^']*)'",
    )
}

/// `make_interval(days => 30)`, `make_interval(0, 0, 0, 30)`.
fn make_interval(args: &str) -> Option<Duration> {
    const POSITIONAL: [&str; 7] = ["years", "months", "weeks", "days", "hours", "mins", "secs"];
    let mut total = 0f64;
    for (i, arg) in args.split(',').enumerate() {
        let arg = arg.trim();
        if arg.is_empty() {
            continue;
        }
        let (unit, value) = match arg.split_once("=>").or_else(|| arg.split_once(":=")) {
            Some((u, v)) => (u.trim().to_ascii_lowercase(), v.trim()),
            None => (POSITIONAL.get(i)?.to_string(), arg),
        };
        let n: f64 = value.parse().ok()?;
        total += n * duration::unit_secs(&unit)?;
    }
    Duration::from_unit(total, 1).filter(|d| d.secs > 0)
}

/// Whether the interval just read is scaled by what follows it
/// (`interval '1 day' * 30`, `'1 hour'::interval * $1`): its literal is not
/// the duration, so nothing is read rather than a guess.
fn scaled(after: &str) -> bool {
    after.trim_start().starts_with(['*', '/'])
}

/// The duration of an interval matched by one of the regexes above (groups
/// `first..first+2`: quoted literal, `'…'::interval`, `make_interval` args;
/// then, for a cutoff, MySQL's `INTERVAL 30 DAY` in `NOW() - …` and in
/// `DATE_SUB(…)`)
/// and the span of its text in `base`'s coordinates.
fn interval(c: &regex::Captures<'_>, first: usize, base: usize) -> Option<(Duration, Span)> {
    let literal = c
        .get(first)
        .or_else(|| c.get(first + 1))
        .or_else(|| c.get(first + 3))
        .or_else(|| c.get(first + 4));
    if let Some(m) = literal {
        let d = duration::parse(m.as_str(), None)?;
        return Some((d, Span::new(base + m.start(), base + m.end())));
    }
    let m = c.get(first + 2)?;
    let d = make_interval(m.as_str())?;
    let trimmed = m.as_str().trim();
    let lead = m.as_str().len() - m.as_str().trim_start().len();
    let start = base + m.start() + lead;
    Some((d, Span::new(start, start + trimmed.len())))
}

/// Read one top-level statement: `DELETE`s (pushed as events, with their
/// expiry), and retention facts for stores.
pub fn statement(
    file: &str,
    raw: &RawStatement,
    facts: &mut SqlFacts,
    out: &mut Vec<RetentionFact>,
) {
    let text = &file[raw.span.start..raw.span.end];
    let quoted = raw
        .bodies
        .is_empty()
        .then(|| quoted_cron_re().and_then(|r| r.captures(text)))
        .flatten()
        .and_then(|c| c.get(1))
        .map(|m| Span::new(raw.span.start + m.start(), raw.span.start + m.end()));
    match quoted {
        Some(body) => {
            let undone = undouble_quotes(file, body);
            let with_body = RawStatement {
                span: Span::new(raw.span.start, body.end),
                bodies: vec![body],
            };
            walk(&undone, &with_body, &mut Vec::new(), 0, facts, out);
        }
        None => walk(file, raw, &mut Vec::new(), 0, facts, out),
    }
    partman(file, raw.span, out);
}

fn walk(
    file: &str,
    raw: &RawStatement,
    context: &mut Vec<String>,
    depth: usize,
    facts: &mut SqlFacts,
    out: &mut Vec<RetentionFact>,
) {
    let text = &file[raw.span.start..raw.span.end];
    if raw.bodies.is_empty() {
        if let Some(d) = delete(file, raw.span, context) {
            if let Some(e) = &d.expiry {
                if knowledge::stores().is_store_table(&d.table.key) {
                    let mut ctx = vec![d.table.text.clone()];
                    ctx.extend(context.iter().cloned());
                    out.push(RetentionFact {
                        span: e.span,
                        duration: e.duration,
                        target: StoreRef::Table(d.table.text.clone()),
                        via: format!(
                            "`DELETE` of `{}` rows whose `{}` is older than an interval",
                            d.table.text, e.column
                        ),
                        context: ctx,
                    });
                }
            }
            facts.events.push(SchemaEvent {
                span: raw.span,
                kind: EventKind::Delete(d),
            });
        }
        return;
    }
    if depth >= MAX_BODY_DEPTH {
        return;
    }
    let before = context.len();
    if let Some(c) = cron_re().and_then(|r| r.captures(text)) {
        context.push(c[1].to_string());
    }
    if let Some(c) = function_re().and_then(|r| r.captures(text)) {
        context.push(c[1].replace('"', ""));
    }
    for body in &raw.bodies {
        let inner = &file[body.start..body.end];
        for mut s in split(inner) {
            s.span = s.span.shift(body.start);
            for b in &mut s.bodies {
                *b = b.shift(body.start);
            }
            // PL/pgSQL wraps statements in BEGIN … END: the first statement
            // of a body starts with `BEGIN`, the last may be `END`.
            s.span = strip_block_words(file, s.span);
            walk(file, &s, context, depth + 1, facts, out);
        }
    }
    context.truncate(before);
}

/// Drop a leading `BEGIN` keyword so the `DELETE` after it is found at the
/// start.
fn strip_block_words(file: &str, span: Span) -> Span {
    let text = &file[span.start..span.end];
    let trimmed = text.trim_start();
    let lead = text.len() - trimmed.len();
    let b = trimmed.as_bytes();
    if b.len() > 5 && b[..5].eq_ignore_ascii_case(b"begin") && b[5].is_ascii_whitespace() {
        let rest = &trimmed[5..];
        let skip = rest.len() - rest.trim_start().len();
        return Span::new(span.start + lead + 5 + skip, span.end);
    }
    span
}

/// A `DELETE FROM` statement at `span`, with its expiry if its `WHERE`
/// compares a column to now minus a constant interval.
fn delete(file: &str, span: Span, context: &[String]) -> Option<Delete> {
    let text = &file[span.start..span.end];
    let c = delete_re()?.captures(text)?;
    let m = c.get(1)?;
    let raw_name = m.as_str();
    let last = raw_name.rsplit('.').next().unwrap_or(raw_name);
    let name_start = span.start + m.start() + raw_name.len() - last.len();
    let table = Name {
        text: raw_name.replace(['"', '`'], ""),
        key: super::extract::normalise_written(raw_name),
        span: Span::new(name_start, span.start + m.end()),
    };
    let rest_at = m.end();
    let predicate_at = where_re()?
        .find(&text[rest_at..])
        .map(|w| rest_at + w.end());
    let predicate = predicate_at.map(|p| text[p..].trim().to_string());
    let expiry = predicate_at.and_then(|p| {
        let c = cutoff_re()?.captures(&text[p..])?;
        if scaled(&text[p + c.get(0)?.end()..]) {
            return None;
        }
        let (duration, dspan) = interval(&c, 2, span.start + p)?;
        Some(Expiry {
            column: c[1].to_ascii_lowercase(),
            duration,
            span: dspan,
        })
    });
    Some(Delete {
        table,
        predicate,
        expiry,
        context: context.to_vec(),
    })
}

/// `UPDATE partman.part_config SET retention = '30 days' WHERE
/// parent_table = 'public.x'`.
fn partman(file: &str, span: Span, out: &mut Vec<RetentionFact>) {
    let text = &file[span.start..span.end];
    let Some(c) = partman_re().and_then(|r| r.captures(text)) else {
        return;
    };
    let (Some(value), Some(parent)) = (c.get(1), c.get(2)) else {
        return;
    };
    let Some(d) = duration::parse(value.as_str(), None) else {
        return;
    };
    let table = parent.as_str().to_string();
    if !knowledge::stores().is_store_table(&table) {
        return;
    }
    out.push(RetentionFact {
        span: Span::new(span.start + value.start(), span.start + value.end()),
        duration: d,
        target: StoreRef::Table(table.clone()),
        via: format!("pg_partman `retention` of `{table}`"),
        context: vec![table],
    });
}

/// `expires_at timestamptz DEFAULT now() + interval '…'` on a store: the
/// row's own expiry.
pub fn column_defaults(file: &str, facts: &SqlFacts, out: &mut Vec<RetentionFact>) {
    for ev in &facts.events {
        let (table, columns): (&Name, Vec<&super::Column>) = match &ev.kind {
            EventKind::CreateTable(ct) => (&ct.name, ct.columns.iter().collect()),
            EventKind::AlterTable { table, ops } => (
                table,
                ops.iter()
                    .filter_map(|o| match o {
                        super::AlterOp::AddColumn(c) => Some(c),
                        _ => None,
                    })
                    .collect(),
            ),
            _ => continue,
        };
        if !knowledge::stores().is_store_table(&table.key) {
            continue;
        }
        for col in columns {
            if !(col.name.contains("expire") || col.name.contains("expiry"))
                || col.default.is_none()
            {
                continue;
            }
            // The default's text in the file: from the column to the next
            // column (a top-level comma) or the statement's end.
            let from = col.span.end;
            let region = &file[from..ev.span.end];
            let Some(c) = default_re().and_then(|r| r.captures(region)) else {
                continue;
            };
            let Some(whole) = c.get(0) else { continue };
            if region[..whole.start()].contains(',') || scaled(&region[whole.end()..]) {
                continue;
            }
            let Some((d, span)) = interval(&c, 1, from) else {
                continue;
            };
            out.push(RetentionFact {
                span,
                duration: d,
                target: StoreRef::Table(table.text.clone()),
                via: format!("default of `{}.{}`", table.text, col.name),
                context: vec![table.text.clone(), col.name.clone()],
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frontend::FileFacts;

    fn facts(sql: &str) -> FileFacts {
        let mut f = FileFacts::default();
        super::super::parse(sql, &mut f);
        f
    }

    fn spans<'a>(sql: &'a str, f: &FileFacts) -> Vec<(&'a str, u64, String)> {
        f.retention
            .iter()
            .map(|r| {
                let StoreRef::Table(t) = &r.target else {
                    panic!("{r:?}")
                };
                (
                    &sql[r.span.start..r.span.end],
                    r.duration.secs / 86_400,
                    t.clone(),
                )
            })
            .collect()
    }

    #[test]
    fn delete_with_interval_on_a_store_is_a_retention() {
        let sql = "DELETE FROM idempotency_keys WHERE created_at < now() - interval '30 days';";
        let f = facts(sql);
        assert_eq!(
            spans(sql, &f),
            vec![("30 days", 30, "idempotency_keys".to_string())]
        );
        let ev = &f.sql.as_ref().map(|s| s.events.clone()).unwrap_or_default();
        assert!(
            matches!(&ev[0].kind, EventKind::Delete(d) if d.expiry.as_ref().map(|e| e.column.as_str()) == Some("created_at"))
        );
    }

    #[test]
    fn cron_command_in_a_standard_string_is_read_with_exact_spans() {
        let sql = "SELECT cron.schedule('purge-stripe', '0 3 * * *', \
                   'DELETE FROM processed_stripe_events WHERE received_at < now() - interval ''3 days''');";
        let f = facts(sql);
        assert_eq!(
            spans(sql, &f),
            vec![("3 days", 3, "processed_stripe_events".to_string())]
        );
        assert!(f.retention[0].context.contains(&"purge-stripe".to_string()));
    }

    #[test]
    fn mysql_unquoted_interval_and_date_sub_forms_are_read() {
        let sql = "DELETE FROM `processed_webhook_events` WHERE `received_at` < NOW() - INTERVAL 2 DAY;\n\
                   DELETE FROM idempotency_keys WHERE created_at < DATE_SUB(UTC_TIMESTAMP(), INTERVAL 36 DAY);";
        let f = facts(sql);
        assert_eq!(
            spans(sql, &f),
            vec![
                ("2 DAY", 2, "processed_webhook_events".to_string()),
                ("36 DAY", 36, "idempotency_keys".to_string())
            ]
        );
    }

    #[test]
    fn current_timestamp_cast_and_make_interval_forms_are_read() {
        let sql = "DELETE FROM processed_webhook_events WHERE received_at < CURRENT_TIMESTAMP - '7 days'::interval;\n\
                   DELETE FROM public.idem_keys WHERE created_at <= now() - make_interval(days => 35);";
        let f = facts(sql);
        assert_eq!(
            spans(sql, &f),
            vec![
                ("7 days", 7, "processed_webhook_events".to_string()),
                ("days => 35", 35, "public.idem_keys".to_string())
            ]
        );
    }

    #[test]
    fn cron_schedule_body_is_read_with_spans_in_the_file_and_the_job_name() {
        let sql = "SELECT cron.schedule('purge-stripe-events', '0 3 * * *',\n  $$DELETE FROM stripe_webhook_events WHERE created_at < now() - interval '24 hours'$$);";
        let f = facts(sql);
        assert_eq!(f.retention.len(), 1);
        let r = &f.retention[0];
        assert_eq!(&sql[r.span.start..r.span.end], "24 hours");
        assert_eq!(r.duration.secs, 86_400);
        assert!(r.context.contains(&"purge-stripe-events".to_string()));
    }

    #[test]
    fn plpgsql_function_body_is_read() {
        let sql = "CREATE OR REPLACE FUNCTION purge_idempotency_keys() RETURNS void LANGUAGE plpgsql AS $fn$\nBEGIN\n  DELETE FROM idempotency_keys WHERE created_at < now() - interval '2 days';\nEND;\n$fn$;";
        let f = facts(sql);
        assert_eq!(
            spans(sql, &f),
            vec![("2 days", 2, "idempotency_keys".to_string())]
        );
        assert!(f.retention[0]
            .context
            .contains(&"purge_idempotency_keys".to_string()));
    }

    #[test]
    fn scaled_interval_produces_nothing() {
        let sql =
            "DELETE FROM processed_events WHERE processed_at < now() - interval '1 day' * 10;\n\
                   CREATE TABLE idempotency_keys (idempotency_key text PRIMARY KEY, \
                   expires_at timestamptz DEFAULT now() + '1 hour'::interval * 48);\n";
        assert!(spans(sql, &facts(sql)).is_empty());
    }

    #[test]
    fn bound_parameter_interval_produces_nothing() {
        let sql = "DELETE FROM idempotency_keys WHERE created_at < now() - $1::interval;";
        assert!(facts(sql).retention.is_empty());
    }

    #[test]
    fn delete_from_a_table_that_is_not_a_store_is_no_retention() {
        let sql = "DELETE FROM sessions WHERE created_at < now() - interval '1 day';";
        assert!(facts(sql).retention.is_empty());
    }

    #[test]
    fn expires_at_default_on_a_store_is_a_retention() {
        let sql = "CREATE TABLE idempotency_keys (\n  key text PRIMARY KEY,\n  created_at timestamptz NOT NULL DEFAULT now(),\n  expires_at timestamptz NOT NULL DEFAULT now() + interval '24 hours'\n);";
        let f = facts(sql);
        assert_eq!(
            spans(sql, &f),
            vec![("24 hours", 1, "idempotency_keys".to_string())]
        );
    }

    #[test]
    fn pg_partman_retention_is_read() {
        let sql = "UPDATE partman.part_config SET retention = '30 days', retention_keep_table = false WHERE parent_table = 'public.payment_idempotency';";
        let f = facts(sql);
        assert_eq!(
            spans(sql, &f),
            vec![("30 days", 30, "public.payment_idempotency".to_string())]
        );
    }
}
