//! Rows that expire: `DELETE FROM <table> WHERE <time column> < <cut-off>`
//! (at top level, in a CTE, inside `cron.schedule(…, $$…$$)`, function
//! bodies and MySQL `CREATE EVENT … DO`), `expires_at … DEFAULT now() +
//! interval '…'` columns, pg_partman's `retention` and TimescaleDB's
//! `add_retention_policy`. A cut-off is `now() - <constant interval
//! arithmetic>`, its `date_trunc`, MySQL's `DATE_SUB`, an epoch minus
//! seconds, or SQLite's `datetime('now', '-3 days')`. Read from the statement
//! text, so a body sqlparser cannot parse (PL/pgSQL) is still read. A value
//! that cannot be resolved here (a bound parameter `$1`, psql's `:var`, a
//! function argument) yields nothing.

use super::interval;
use super::split::{split, RawStatement};
use crate::duration::{self, Duration};
use crate::facts::retention::{EarlyPurge, RetentionFact, StoreRef};
use crate::facts::store::{
    AlterOp, Column, Delete, Expiry, Name, SchemaChange, SchemaEvent, SqlFacts,
};
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

/// A statement pattern tried only on text that holds words it cannot match
/// without: most statements of a migration history are plain DDL, and the
/// patterns, Unicode-aware and case-insensitive, took about 4 ms to build
/// in a run over omicron's migrations, a tenth of their SQL parse time.
/// The words hold no `k` nor `s`, the only ASCII letters a
/// case-insensitive pattern also matches in other scripts (the Kelvin
/// sign, the long s), so the screen passes all that the pattern can match.
struct Screened {
    re: fn() -> Option<&'static Regex>,
    may: fn(&str) -> bool,
}

impl Screened {
    fn captures<'t>(&self, text: &'t str) -> Option<regex::Captures<'t>> {
        (self.may)(text)
            .then(|| (self.re)()?.captures(text))
            .flatten()
    }
}

const QUOTED_CRON: Screened = Screened {
    re: quoted_cron_re,
    may: |t| has(t, "cron."),
};
const CRON: Screened = Screened {
    re: cron_re,
    may: |t| has(t, "cron."),
};
const TIMESCALE: Screened = Screened {
    re: timescale_re,
    may: |t| has(t, "add_retention_policy"),
};
const EVENT: Screened = Screened {
    re: event_re,
    may: |t| opens_with(t, "create") && has(t, "event"),
};
const FUNCTION: Screened = Screened {
    re: function_re,
    may: |t| opens_with(t, "create"),
};
const DELETE: Screened = Screened {
    re: delete_re,
    may: |t| opens_with(t, "delete") || opens_with(t, "with"),
};
const CTE_DELETE: Screened = Screened {
    re: cte_delete_re,
    may: |t| opens_with(t, "with"),
};
const PARTMAN: Screened = Screened {
    re: partman_re,
    may: |t| has(t, "partman"),
};

/// Whether `text`, past leading whitespace, starts with `word` in any case.
fn opens_with(text: &str, word: &str) -> bool {
    text.trim_start()
        .get(..word.len())
        .is_some_and(|head| head.eq_ignore_ascii_case(word))
}

/// Whether `text` holds `word` in any case.
fn has(text: &str, word: &str) -> bool {
    knowledge::contains_ignore_ascii_case(text, word)
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

/// A `DELETE` inside a common table expression, whose count or rows the
/// statement returns: `WITH d AS (DELETE FROM t WHERE … RETURNING 1)
/// SELECT count(*) FROM d`.
fn cte_delete_re() -> Option<&'static Regex> {
    static R: OnceLock<Option<Regex>> = OnceLock::new();
    re(
        &R,
        &format!(
            r#"(?is)^\s*with\s+(?:recursive\s+)?(?:"[^"]+"|\w+)(?:\s*\([^)]*\))?\s+as\s+(?:(?:not\s+)?materialized\s+)?\(\s*delete\s+from\s+(?:only\s+)?({NAME})"#
        ),
    )
}

/// MySQL's scheduled events: `CREATE EVENT purge ON SCHEDULE EVERY 1 DAY
/// DO [BEGIN] DELETE …`. The match ends where the event's statement starts.
fn event_re() -> Option<&'static Regex> {
    static R: OnceLock<Option<Regex>> = OnceLock::new();
    re(
        &R,
        &format!(
            r"(?is)^\s*create\s+(?:definer\s*=\s*\S+\s+)?event\s+(?:if\s+not\s+exists\s+)?({NAME})\s.*?\bdo\s+(?:begin\s+)?"
        ),
    )
}

/// TimescaleDB: `SELECT add_retention_policy('t', INTERVAL '3 days')`, also
/// with `drop_after =>`; group 1 is the hypertable, the match ends where the
/// interval starts.
fn timescale_re() -> Option<&'static Regex> {
    static R: OnceLock<Option<Regex>> = OnceLock::new();
    re(
        &R,
        r"(?is)\badd_retention_policy\s*\(\s*'([^']+)'(?:\s*::\s*regclass)?\s*,\s*(?:drop_after\s*=>\s*)?",
    )
}

fn where_re() -> Option<&'static Regex> {
    static R: OnceLock<Option<Regex>> = OnceLock::new();
    re(&R, r"(?is)\bwhere\b")
}

/// The current time in PostgreSQL and MySQL spellings.
const NOW: &str = r"(?:now\s*\(\s*\)|current_timestamp(?:\s*\(\s*\))?|localtimestamp|clock_timestamp\s*\(\s*\)|statement_timestamp\s*\(\s*\)|transaction_timestamp\s*\(\s*\)|utc_timestamp\s*\(\s*\))";

/// `<col> <` or `<col> <=`: the left side of an age cut-off. What follows
/// is read by [`cutoff_value`].
fn cutoff_re() -> Option<&'static Regex> {
    static R: OnceLock<Option<Regex>> = OnceLock::new();
    re(&R, r#"(?is)[`"]?([A-Za-z_][\w$]*)[`"]?\s*<=?\s*"#)
}

/// The cut-off's right side, each form anchored at its start: `now() - E`,
/// `date_trunc('day', now()) - E`, `date_trunc('day', now() - E)`,
/// `DATE_SUB(NOW(), E)`, an epoch minus seconds, SQLite's
/// `datetime('now', '-3 days')`. `E` is folded by [`interval::fold`].
fn now_minus_re() -> Option<&'static Regex> {
    static R: OnceLock<Option<Regex>> = OnceLock::new();
    re(
        &R,
        &format!(
            r"(?is)^\(?\s*(?:date_trunc\s*\(\s*'[^']*'\s*,\s*(?P<trunc>{NOW}\s*\)|{NOW})|{NOW})\s*-\s*"
        ),
    )
}

fn date_sub_re() -> Option<&'static Regex> {
    static R: OnceLock<Option<Regex>> = OnceLock::new();
    re(
        &R,
        &format!(r"(?is)^\(?\s*(?:date_sub|subdate)\s*\(\s*{NOW}\s*,\s*"),
    )
}

/// The current time as seconds since the epoch, minus a number:
/// `to_timestamp(extract(epoch from now()) - 259200)`,
/// `FROM_UNIXTIME(UNIX_TIMESTAMP() - 259200)`, or the bare epoch compared
/// with an epoch column.
fn epoch_re() -> Option<&'static Regex> {
    static R: OnceLock<Option<Regex>> = OnceLock::new();
    re(
        &R,
        &format!(
            r"(?is)^\(?\s*(?:(?:to_timestamp|from_unixtime)\s*\(\s*)?(?:extract\s*\(\s*epoch\s+from\s+{NOW}\s*\)|date_part\s*\(\s*'epoch'\s*,\s*{NOW}\s*\)|unix_timestamp\s*\(\s*\)|(?:cast\s*\(\s*)?strftime\s*\(\s*'%s'\s*,\s*'now'\s*\)(?:\s+as\s+\w+\s*\))?)(?:\s*::\s*\w+)?\s*-\s*"
        ),
    )
}

/// SQLite: `datetime('now', '-3 days')`, `date('now', '-72 hours', 'localtime')`.
fn sqlite_now_re() -> Option<&'static Regex> {
    static R: OnceLock<Option<Regex>> = OnceLock::new();
    re(
        &R,
        r"(?is)^\(?\s*(?:datetime|date|julianday|unixepoch)\s*\(\s*'now'\s*((?:,\s*'[^']*'\s*)+)\)",
    )
}

/// The age a cut-off's right side names, and the span of its text
/// (offsets into `after`).
fn cutoff_value(after: &str) -> Option<(Duration, Span)> {
    if let Some(m) = now_minus_re().and_then(|r| r.captures(after)) {
        let at = m.get(0)?.end();
        let f = interval::fold(&after[at..])?;
        // `date_trunc('day', now() - E)`: the subtraction sits inside.
        let inside =
            m.name("trunc").is_none() && after[..at].to_ascii_lowercase().contains("date_trunc");
        if inside && !after[at + f.end..].trim_start().starts_with(')') {
            return None;
        }
        return Some((f.duration()?, f.span.shift(at)));
    }
    if let Some(m) = date_sub_re().and_then(|r| r.find(after)) {
        let f = interval::fold(&after[m.end()..])?;
        return Some((f.duration()?, f.span.shift(m.end())));
    }
    if let Some(m) = epoch_re().and_then(|r| r.find(after)) {
        let f = interval::fold(&after[m.end()..])?;
        return Some((f.seconds()?, f.span.shift(m.end())));
    }
    if let Some(c) = sqlite_now_re().and_then(|r| r.captures(after)) {
        return sqlite_modifiers(c.get(1)?);
    }
    None
}

/// SQLite's time modifiers after `'now'`: the negative amounts add up
/// (`'-3 days'`); `'start of day'`, `'localtime'`, `'utc'` change nothing
/// that matters; a positive amount is no cut-off in the past.
fn sqlite_modifiers(mods: regex::Match<'_>) -> Option<(Duration, Span)> {
    let mut total = 0u64;
    let mut span: Option<Span> = None;
    let text = mods.as_str();
    let mut at = 0;
    while let Some(open) = text[at..].find('\'') {
        let s = at + open + 1;
        let close = s + text[s..].find('\'')?;
        let m = text[s..close].trim();
        at = close + 1;
        if let Some(amount) = m.strip_prefix('-') {
            total += duration::parse(amount.trim(), None)?.secs;
            let here = Span::new(mods.start() + s, mods.start() + close);
            span = Some(match span {
                Some(sp) => Span::new(sp.start, here.end),
                None => here,
            });
        } else if m.starts_with('+') || m.starts_with(|c: char| c.is_ascii_digit()) {
            return None;
        }
    }
    Some((Duration::from_secs(total), span?)).filter(|(d, _)| d.secs > 0)
}

/// `now() +` in a column default; the interval after it is folded.
fn default_now_re() -> Option<&'static Regex> {
    static R: OnceLock<Option<Regex>> = OnceLock::new();
    re(
        &R,
        r"(?is)(?:now\s*\(\s*\)|current_timestamp|clock_timestamp\s*\(\s*\)|transaction_timestamp\s*\(\s*\))\s*\+\s*",
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
        .then(|| QUOTED_CRON.captures(text))
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
    timescale(file, raw.span, out);
}

/// `SELECT add_retention_policy('public.t', INTERVAL '3 days')`: chunks of
/// the hypertable older than the interval are dropped. An integer-time
/// hypertable's `drop_after` is a number in the table's own unit, which is
/// not known here: nothing is read.
fn timescale(file: &str, span: Span, out: &mut Vec<RetentionFact>) {
    let text = &file[span.start..span.end];
    let Some(c) = TIMESCALE.captures(text) else {
        return;
    };
    let (Some(whole), Some(table)) = (c.get(0), c.get(1)) else {
        return;
    };
    let Some(f) = interval::fold(&text[whole.end()..]) else {
        return;
    };
    let Some(d) = f.duration() else { return };
    let table = table.as_str().to_string();
    if !knowledge::stores().is_store_table(&table) {
        return;
    }
    out.push(RetentionFact {
        span: f.span.shift(span.start + whole.end()),
        duration: d,
        target: StoreRef::Table(table.clone()),
        via: format!("TimescaleDB retention policy of `{table}`"),
        context: vec![table],
    });
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
        // A MySQL event's statement is read as a statement of its own, in
        // the event's name.
        let event = EVENT.captures(text);
        let (leaf, named) = match &event {
            Some(c) => (
                Span::new(
                    raw.span.start + c.get(0).map_or(0, |m| m.end()),
                    raw.span.end,
                ),
                Some(c[1].replace('`', "")),
            ),
            None => (raw.span, None),
        };
        let before = context.len();
        context.extend(named);
        let found = delete(file, leaf, context);
        if let Some(e) = found.as_ref().and_then(|d| early_purge(file, leaf, d)) {
            facts.early_purges.push(e);
        }
        if found.is_none() {
            takeover(file, leaf, context, out);
        }
        context.truncate(before);
        if let Some(d) = found {
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
                kind: SchemaChange::Delete(d),
            });
        }
        return;
    }
    if depth >= MAX_BODY_DEPTH {
        return;
    }
    let before = context.len();
    if let Some(c) = CRON.captures(text) {
        context.push(c[1].to_string());
    }
    if let Some(c) = FUNCTION.captures(text) {
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
    let c = DELETE
        .captures(text)
        .or_else(|| CTE_DELETE.captures(text))?;
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
    // The first comparison of a column with a constant age decides.
    let expiry = predicate_at.and_then(|p| {
        let pred = &text[p..];
        cutoff_re()?.captures_iter(pred).find_map(|c| {
            let head = c.get(0)?;
            let (duration, dspan) = cutoff_value(&pred[head.end()..])?;
            Some(Expiry {
                column: c[1].to_ascii_lowercase(),
                duration,
                span: dspan.shift(span.start + p + head.end()),
            })
        })
    });
    Some(Delete {
        table,
        predicate,
        expiry,
        context: context.to_vec(),
    })
}

/// A `DELETE` whose age cut-off is a bound parameter: `DELETE FROM
/// stripe_events WHERE created_at < $1` (sqlx, tokio-postgres) or `… < ?`
/// (MySQL, SQLite). The code that binds it may know the value
/// (`Utc::now() - Duration::hours(24)`); the statement alone does not.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BoundCutoff {
    /// The table as written, quotes removed.
    pub table: String,
    pub column: String,
    /// Which bound value, from 0 (`$1` and the first `?` are 0).
    pub param: usize,
}

/// The bound cut-off of a `DELETE` on a store (a table named for keys or
/// a provider's deliveries), if its first age comparison is one.
pub fn bound_cutoff(sql: &str) -> Option<BoundCutoff> {
    let c = DELETE.captures(sql).or_else(|| CTE_DELETE.captures(sql))?;
    let m = c.get(1)?;
    let raw_name = m.as_str();
    let key = super::extract::normalise_written(raw_name);
    let stores = knowledge::stores();
    if !stores.is_store_table(&key) && !stores.is_provider_event_table(&key) {
        return None;
    }
    let p = m.end() + where_re()?.find(&sql[m.end()..])?.end();
    let pred = &sql[p..];
    let c = cutoff_re()?.captures(pred)?;
    let head = c.get(0)?;
    let after = pred[head.end()..].trim_start();
    let param = if let Some(rest) = after.strip_prefix('$') {
        let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
        digits.parse::<usize>().ok()?.checked_sub(1)?
    } else if after.starts_with('?') {
        sql[..p + head.end()].matches('?').count()
    } else {
        return None;
    };
    Some(BoundCutoff {
        table: raw_name.replace(['"', '`'], ""),
        column: c[1].to_ascii_lowercase(),
        param,
    })
}

/// `now() + E`: a time in the future.
fn now_plus_re() -> Option<&'static Regex> {
    static R: OnceLock<Option<Regex>> = OnceLock::new();
    re(&R, &format!(r"(?is)^\(?\s*{NOW}\s*\+\s*"))
}

/// Whether a column holds a row's own expiry time.
pub fn is_expiry_column(column: &str) -> bool {
    let c = column.to_ascii_lowercase();
    c.contains("expire") || c.contains("expiry") || c.contains("valid_until")
}

/// A `DELETE` of a store's rows whose expiry column is before now plus an
/// interval: each row goes that long before it expires.
fn early_purge(file: &str, span: Span, d: &Delete) -> Option<EarlyPurge> {
    let stores = knowledge::stores();
    if !stores.is_store_table(&d.table.key) && !stores.is_provider_event_table(&d.table.key) {
        return None;
    }
    let text = &file[span.start..span.end];
    let p = d.table.span.end.checked_sub(span.start)?;
    let p = p + where_re()?.find(&text[p..])?.end();
    let pred = &text[p..];
    cutoff_re()?.captures_iter(pred).find_map(|c| {
        let column = c[1].to_ascii_lowercase();
        if !is_expiry_column(&column) {
            return None;
        }
        let head = c.get(0)?;
        let after = &pred[head.end()..];
        let m = now_plus_re()?.find(after)?;
        let f = interval::fold(&after[m.end()..])?;
        let lead = f.duration().filter(|l| l.secs > 0)?;
        Some(EarlyPurge {
            span: f.span.shift(span.start + p + head.end() + m.end()),
            lead,
            table: d.table.text.clone(),
            column,
        })
    })
}

fn upsert_re() -> Option<&'static Regex> {
    static R: OnceLock<Option<Regex>> = OnceLock::new();
    re(
        &R,
        &format!(r#"(?is)\binsert\s+into\s+({NAME}).*?\bon\s+conflict\b.*?\bdo\s+update\b"#),
    )
}

/// An upsert that takes a store's key over once a time column of the row
/// is older than an interval: `INSERT INTO idempotency_keys … ON CONFLICT
/// (key) DO UPDATE … WHERE idempotency_keys.updated_at < now() - interval
/// '5 minutes'`, the condition written in the upsert or in a CTE of the
/// same statement (`claimable AS (SELECT … WHERE updated_at <= NOW() -
/// INTERVAL '5 minutes')`). The key is as good as gone after the
/// interval, whatever its `expires_at`: the interval is the store's
/// retention. A cut-off on the row's in-flight mark (`locked_at`,
/// `claimed_at`: `rules/stores.toml` `[in_flight_column]`) reclaims an
/// abandoned claim and is left alone, as is one on an expiry column.
fn takeover(file: &str, span: Span, context: &[String], out: &mut Vec<RetentionFact>) {
    let text = &file[span.start..span.end];
    if !(has(text, "conflict") && has(text, "insert")) {
        return;
    }
    let Some(c) = upsert_re().and_then(|r| r.captures(text)) else {
        return;
    };
    let Some(m) = c.get(1) else { return };
    let table = m.as_str().replace(['"', '`'], "");
    let stores = knowledge::stores();
    if !stores.is_store_table(&super::extract::normalise_written(m.as_str())) {
        return;
    }
    let Some(cut) = cutoff_re() else { return };
    let found = cut.captures_iter(text).find_map(|c| {
        let column = c[1].to_ascii_lowercase();
        let head = c.get(0)?;
        if stores.in_flight_column.matches(&column) || is_expiry_column(&column) {
            return None;
        }
        let (d, dspan) = cutoff_value(&text[head.end()..])?;
        Some((column, d, dspan.shift(span.start + head.end())))
    });
    let Some((column, duration, at)) = found else {
        return;
    };
    let mut ctx = vec![table.clone()];
    ctx.extend(context.iter().cloned());
    out.push(RetentionFact {
        span: at,
        duration,
        target: StoreRef::Table(table.clone()),
        via: format!(
            "an upsert that takes over `{table}` keys whose `{column}` is older than an interval"
        ),
        context: ctx,
    });
}

/// `UPDATE partman.part_config SET retention = '30 days' WHERE
/// parent_table = 'public.x'`.
fn partman(file: &str, span: Span, out: &mut Vec<RetentionFact>) {
    let text = &file[span.start..span.end];
    let Some(c) = PARTMAN.captures(text) else {
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
        let (table, columns): (&Name, Vec<&Column>) = match &ev.kind {
            SchemaChange::CreateTable(ct) => (&ct.name, ct.columns.iter().collect()),
            SchemaChange::AlterTable { table, ops } => (
                table,
                ops.iter()
                    .filter_map(|o| match o {
                        AlterOp::AddColumn(c) => Some(c),
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
            let Some(at) = default_now_re().and_then(|r| r.find(region)) else {
                continue;
            };
            if region[..at.start()].contains(',') {
                continue;
            }
            let Some(f) = interval::fold(&region[at.end()..]) else {
                continue;
            };
            let Some(d) = f.duration() else { continue };
            let span = f.span.shift(from + at.end());
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
    use crate::facts::FileFacts;

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
            matches!(&ev[0].kind, SchemaChange::Delete(d) if d.expiry.as_ref().map(|e| e.column.as_str()) == Some("created_at"))
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
    fn constant_interval_arithmetic_is_folded() {
        let sql =
            "DELETE FROM processed_events WHERE processed_at < now() - interval '1 day' * 10;\n\
                   CREATE TABLE idempotency_keys (idempotency_key text PRIMARY KEY, \
                   expires_at timestamptz DEFAULT now() + '1 hour'::interval * 48);\n";
        assert_eq!(
            spans(sql, &facts(sql)),
            vec![
                ("interval '1 day' * 10", 10, "processed_events".to_string()),
                ("'1 hour'::interval * 48", 2, "idempotency_keys".to_string())
            ]
        );
    }

    #[test]
    fn forms_real_migrations_use_are_read() {
        for (sql, want) in [
            (
                "WITH gone AS (DELETE FROM processed_deliveries WHERE received_at < now() - interval '3 days' RETURNING 1) SELECT count(*) FROM gone;",
                "3 days",
            ),
            (
                "DELETE FROM processed_deliveries WHERE ctid IN (SELECT ctid FROM processed_deliveries WHERE received_at < now() - interval '3 days' LIMIT 5000);",
                "3 days",
            ),
            (
                "DELETE FROM processed_deliveries WHERE received_at < to_timestamp(extract(epoch from now()) - 259200);",
                "259200",
            ),
            (
                "DELETE FROM processed_deliveries WHERE received_at < date_trunc('day', now()) - interval '3 days';",
                "3 days",
            ),
            (
                "DELETE FROM processed_deliveries WHERE received_at < date_trunc('day', now() - interval '3 days');",
                "3 days",
            ),
            (
                "CREATE EVENT purge_deliveries ON SCHEDULE EVERY 1 DAY DO DELETE FROM processed_deliveries WHERE received_at < DATE_SUB(NOW(), INTERVAL 3 DAY);",
                "3 DAY",
            ),
            (
                "DELETE FROM processed_deliveries WHERE received_at < datetime('now', '-3 days');",
                "-3 days",
            ),
            (
                "SELECT add_retention_policy('processed_deliveries', INTERVAL '3 days');",
                "3 days",
            ),
            (
                "SELECT add_retention_policy('processed_deliveries', drop_after => INTERVAL '72 hours');",
                "72 hours",
            ),
        ] {
            let f = facts(sql);
            assert_eq!(spans(sql, &f), vec![(want, 3, "processed_deliveries".to_string())], "{sql}");
        }
    }

    #[test]
    fn retentions_from_variables_stay_unknown() {
        for sql in [
            "DELETE FROM idempotency_keys WHERE created_at < now() - :'retention'::interval;",
            "DELETE FROM idempotency_keys WHERE created_at < now() - :retention;",
            "CREATE FUNCTION purge(keep interval) RETURNS void LANGUAGE sql AS $$ DELETE FROM idempotency_keys WHERE created_at < now() - keep $$;",
            "CREATE FUNCTION purge(days int) RETURNS void LANGUAGE sql AS $$ DELETE FROM idempotency_keys WHERE created_at < now() - interval '1 day' * days $$;",
            "DELETE FROM idempotency_keys WHERE created_at < now() - interval '1 hour' * $1;",
            "SELECT add_retention_policy('idempotency_keys', p_keep);",
            "DELETE FROM idempotency_keys WHERE created_at < datetime('now', ?);",
        ] {
            assert!(facts(sql).retention.is_empty(), "{sql}");
        }
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

    /// Each screen passes every statement its pattern matches: the
    /// statements (and those of their bodies) of every SQL file under
    /// testdata/, and one written for each pattern.
    #[test]
    fn a_screen_passes_all_its_pattern_matches() {
        let screens = [
            ("quoted cron", QUOTED_CRON),
            ("cron", CRON),
            ("timescale", TIMESCALE),
            ("event", EVENT),
            ("function", FUNCTION),
            ("delete", DELETE),
            ("cte delete", CTE_DELETE),
            ("partman", PARTMAN),
        ];
        let mut texts: Vec<String> = [
            "SELECT cron.schedule('purge', '0 3 * * *', 'DELETE FROM idempotency_keys')",
            " \n SELECT CRON.Schedule_in_database('j', '@daily', $$DELETE FROM k$$, 'db')",
            "SELECT add_retention_policy('public.keys', INTERVAL '3 days')",
            "CREATE DEFINER=`root`@`%` EVENT IF NOT EXISTS purge ON SCHEDULE EVERY 1 DAY DO DELETE FROM k",
            "\tCreate Or Replace Function purge_keys() RETURNS void AS $$ DELETE FROM k $$",
            "create procedure p() begin delete from k; end",
            "  delete from only public.idempotency_keys where created_at < now() - interval '1 day'",
            "WITH old AS (SELECT id FROM k) DELETE FROM k WHERE id IN (SELECT id FROM old)",
            "with gone as materialized (delete from k returning id) select count(*) from gone",
            "UPDATE partman.part_config SET retention = '30 days' WHERE parent_table = 'public.k'",
        ]
        .map(String::from)
        .to_vec();
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata");
        for entry in ignore::WalkBuilder::new(root)
            .hidden(false)
            .build()
            .flatten()
        {
            if entry.path().extension().is_some_and(|e| e == "sql") {
                let Ok(file) = std::fs::read_to_string(entry.path()) else {
                    continue;
                };
                let mut statements = split(&file);
                while let Some(st) = statements.pop() {
                    for b in &st.bodies {
                        statements.extend(split(&file[b.start..b.end]).into_iter().map(|mut s| {
                            s.span = s.span.shift(b.start);
                            s.bodies.iter_mut().for_each(|x| *x = x.shift(b.start));
                            s
                        }));
                    }
                    texts.push(file[st.span.start..st.span.end].to_string());
                }
            }
        }
        assert!(texts.len() > 100, "{} statements", texts.len());
        for (name, screen) in &screens {
            let re = (screen.re)().expect("the pattern builds");
            let matched: Vec<&String> = texts.iter().filter(|t| re.is_match(t)).collect();
            assert!(!matched.is_empty(), "{name}: no statement to check it on");
            for t in matched {
                assert!((screen.may)(t), "{name}: the screen refuses {t:?}");
            }
        }
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
