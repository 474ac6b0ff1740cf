//! The PostgreSQL reader: one read-only session per database URL, the
//! catalogues and statistics of the store tables, nothing else. Every query
//! is bounded: catalogue lookups by the table's oid, the oldest row through
//! an index leading with its timestamp column or a `TABLESAMPLE SYSTEM` of
//! a bounded number of pages, never a scan of a large table.

use super::facts::{
    CronJob, LiveColumn, LiveIndex, LivePartitioning, LiveSize, LiveTable, Oldest, PgDatabase,
};
use super::{Limits, Target};
use postgres::types::ToSql;
use postgres::{Client, Row};

/// A table under this many bytes is read whole for its oldest row when no
/// index leads with the timestamp column (8 MiB: about a thousand pages).
const SMALL_TABLE_BYTES: i64 = 8 * 1024 * 1024;
/// Partitions listed at most per table.
const MAX_PARTITIONS: usize = 500;

/// What the reader needs from the model: the store tables' names, and the
/// recogniser for a live table that has a store's name.
pub struct Wanted<'a> {
    pub stores: &'a [String],
    pub is_store_name: &'a dyn Fn(&str) -> bool,
}

/// Read one database. `Err` only when no session could be opened (exit 2);
/// whatever a session cannot read is listed in `unreadable`.
pub fn read(url: &str, wanted: &Wanted<'_>, limits: &Limits) -> Result<PgDatabase, String> {
    let target = Target::parse(url);
    let mut client = connect(url, &target, limits)?;
    let mut db = PgDatabase {
        target: target.display(),
        ..Default::default()
    };
    let mut q = Session {
        client: &mut client,
        target: &target,
        unreadable: Vec::new(),
    };
    if let Some(row) = q.one("SELECT current_setting('server_version'), pg_is_in_recovery(), current_setting('default_transaction_read_only')", &[], "the server version") {
        db.server_version = row.get::<_, String>(0);
        db.standby = row.get::<_, bool>(1);
        if row.get::<_, String>(2) != "on" {
            // A pooler may drop startup options: set it for the session.
            if q.client.batch_execute("SET default_transaction_read_only = on").is_err() {
                return Err(format!("{}: the session could not be made read-only; nothing was read", target.display()));
            }
        }
    }
    if db.standby {
        q.unreadable.push("the server is a standby (in recovery): statistics and vacuum times are the standby's own, and pg_cron jobs run on the primary".into());
    }
    db.extensions = q
        .all(
            "SELECT extname::text FROM pg_extension ORDER BY 1",
            &[],
            "the installed extensions",
        )
        .iter()
        .map(|r| r.get::<_, String>(0))
        .collect();
    let partman_schema = if db.extensions.iter().any(|e| e == "pg_partman") {
        q.one("SELECT extnamespace::regnamespace::text FROM pg_extension WHERE extname = 'pg_partman'", &[], "pg_partman's schema")
            .map(|r| r.get::<_, String>(0))
    } else {
        None
    };
    let has_cron = db.extensions.iter().any(|e| e == "pg_cron");
    let candidates = q.all(
        "SELECT c.oid, n.nspname::text, c.relname::text FROM pg_class c \
         JOIN pg_namespace n ON n.oid = c.relnamespace \
         WHERE c.relkind IN ('r', 'p') AND NOT c.relispartition \
           AND n.nspname NOT IN ('pg_catalog', 'information_schema') \
           AND n.nspname NOT LIKE 'pg_toast%' AND n.nspname NOT LIKE 'pg_temp%' \
         ORDER BY 2, 3",
        &[],
        "the list of tables",
    );
    let bare = |s: &str| {
        s.rsplit('.')
            .next()
            .unwrap_or(s)
            .trim_matches('"')
            .to_ascii_lowercase()
    };
    let mut found = vec![false; wanted.stores.len()];
    for row in &candidates {
        let oid: u32 = row.get(0);
        let schema: String = row.get(1);
        let name: String = row.get(2);
        let lower = name.to_ascii_lowercase();
        let store = wanted.stores.iter().position(|s| bare(s) == lower);
        if let Some(i) = store {
            found[i] = true;
        } else if !(wanted.is_store_name)(&lower) {
            continue;
        }
        let mut t = LiveTable {
            name: format!("{schema}.{name}"),
            store: store.map(|i| wanted.stores[i].clone()),
            ..Default::default()
        };
        read_table(&mut q, oid, &mut t, limits);
        if has_cron {
            t.cron_jobs = cron_jobs(&mut q, &name);
        }
        if let Some(s) = &partman_schema {
            t.partman = partman(&mut q, s, &t.name);
        }
        t.unreadable.append(&mut q.unreadable);
        db.tables.push(t);
    }
    db.absent = wanted
        .stores
        .iter()
        .zip(&found)
        .filter(|(_, f)| !**f)
        .map(|(s, _)| s.clone())
        .collect();
    if db.tables.is_empty() && db.absent.len() == wanted.stores.len() {
        q.unreadable.push(format!(
            "no table of this database is an idempotency store{}",
            if wanted.stores.is_empty() {
                ""
            } else {
                " the migrations define"
            }
        ));
    }
    db.unreadable.append(&mut q.unreadable);
    Ok(db)
}

/// `sslmode=verify-ca` / `verify-full` are read as `require` with the
/// certificate checked (the driver knows only disable, prefer and require);
/// `require` and `prefer` encrypt without checking it, as libpq does.
fn tls_mode(url: &str) -> (String, bool) {
    let mut verify = false;
    let mut out = url.to_string();
    for mode in ["verify-full", "verify-ca"] {
        let from = format!("sslmode={mode}");
        if out.contains(&from) {
            verify = true;
            out = out.replace(&from, "sslmode=require");
        }
    }
    (out, verify)
}

fn connect(url: &str, target: &Target, limits: &Limits) -> Result<Client, String> {
    let (url, verify) = tls_mode(url);
    let place = if target.host_port.is_empty() {
        "the local socket".to_string()
    } else if target.host_port.contains(':') && !target.host_port.ends_with(']') {
        target.host_port.clone()
    } else {
        format!("{}:5432", target.host_port)
    };
    let mut cfg: postgres::Config = url.parse().map_err(|e: postgres::Error| {
        format!(
            "{}: not a PostgreSQL URL: {}",
            target.display(),
            target.scrub(&e.to_string())
        )
    })?;
    let ms = limits.statement.as_millis().max(1);
    let mine = format!(
        "-c default_transaction_read_only=on -c statement_timeout={ms} -c lock_timeout={} -c idle_in_transaction_session_timeout={}",
        ms.min(1000),
        ms.saturating_mul(4)
    );
    let options = match cfg.get_options() {
        Some(o) if !o.trim().is_empty() => format!("{o} {mine}"),
        _ => mine,
    };
    cfg.options(&options);
    cfg.connect_timeout(limits.connect);
    cfg.application_name("idemlint audit");
    let tls =
        super::tls::client_config(verify).map_err(|e| format!("{}: {e}", target.display()))?;
    cfg.connect(tokio_postgres_rustls::MakeRustlsConnect::new(tls))
        .map_err(|e| {
            format!(
                "cannot connect to PostgreSQL at {place} ({}): {}",
                target.display(),
                target.scrub(&error_text(&e))
            )
        })
}

/// The server's message when there is one (`permission denied for ...`),
/// else the driver's, with its cause.
fn error_text(e: &postgres::Error) -> String {
    if let Some(db) = e.as_db_error() {
        return format!("{}: {}", db.severity(), db.message());
    }
    let mut text = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        let more = s.to_string();
        if !text.contains(&more) {
            text = format!("{text}: {more}");
        }
        source = s.source();
    }
    text
}

/// A session that notes each query it could not run and goes on. Every
/// query casts each column it returns to the Rust type read (and wraps a
/// column that can be NULL in COALESCE or reads it as an `Option`), so
/// `Row::get` cannot meet a type it does not expect.
struct Session<'a> {
    client: &'a mut Client,
    target: &'a Target,
    unreadable: Vec<String>,
}

impl Session<'_> {
    fn all(&mut self, sql: &str, params: &[&(dyn ToSql + Sync)], what: &str) -> Vec<Row> {
        match self.client.query(sql, params) {
            Ok(rows) => rows,
            Err(e) => {
                self.unreadable.push(format!(
                    "could not read {what}: {}",
                    self.target.scrub(&error_text(&e))
                ));
                Vec::new()
            }
        }
    }

    fn one(&mut self, sql: &str, params: &[&(dyn ToSql + Sync)], what: &str) -> Option<Row> {
        self.all(sql, params, what).into_iter().next()
    }
}

fn quote_ident(s: &str) -> String {
    format!("\"{}\"", s.replace('"', "\"\""))
}

fn read_table(q: &mut Session<'_>, oid: u32, t: &mut LiveTable, limits: &Limits) {
    let qualified = t
        .name
        .split_once('.')
        .map(|(s, n)| format!("{}.{}", quote_ident(s), quote_ident(n)))
        .unwrap_or_else(|| quote_ident(&t.name));
    t.columns = q
        .all(
            "SELECT attname::text, format_type(atttypid, atttypmod) FROM pg_attribute \
             WHERE attrelid = $1 AND attnum > 0 AND NOT attisdropped ORDER BY attnum",
            &[&oid],
            &format!("the columns of {}", t.name),
        )
        .iter()
        .map(|r| LiveColumn {
            name: r.get(0),
            ty: r.get(1),
        })
        .collect();
    t.indexes = q
        .all(
            "SELECT i.relname::text, pg_get_indexdef(x.indexrelid), x.indisunique, x.indisprimary, \
                    x.indisvalid, x.indisready, pg_get_expr(x.indpred, x.indrelid), \
                    ARRAY(SELECT COALESCE(a.attname::text, '(expression)') \
                          FROM unnest(x.indkey::int2[]) WITH ORDINALITY k(attnum, ord) \
                          LEFT JOIN pg_attribute a ON a.attrelid = x.indrelid AND a.attnum = k.attnum \
                          WHERE k.ord <= x.indnkeyatts ORDER BY k.ord) \
             FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid \
             WHERE x.indrelid = $1 ORDER BY 1",
            &[&oid],
            &format!("the indexes of {}", t.name),
        )
        .iter()
        .map(|r| LiveIndex {
            name: r.get(0),
            definition: r.get(1),
            unique: r.get(2),
            primary: r.get(3),
            valid: r.get(4),
            ready: r.get(5),
            predicate: r.get(6),
            columns: r.get(7),
        })
        .collect();
    t.partitioning = partitioning(q, oid, &t.name);
    t.size = size(q, oid, &t.name);
    t.oldest = oldest(q, oid, t, &qualified, limits);
}

fn partitioning(q: &mut Session<'_>, oid: u32, name: &str) -> Option<LivePartitioning> {
    let row = q.one(
        "SELECT CASE pt.partstrat WHEN 'r' THEN 'range' WHEN 'l' THEN 'list' WHEN 'h' THEN 'hash' ELSE pt.partstrat::text END, \
                ARRAY(SELECT COALESCE(a.attname::text, '(expression)') FROM unnest(pt.partattrs::int2[]) WITH ORDINALITY k(n, ord) \
                      LEFT JOIN pg_attribute a ON a.attrelid = pt.partrelid AND a.attnum = k.n ORDER BY k.ord) \
         FROM pg_partitioned_table pt WHERE pt.partrelid = $1",
        &[&oid],
        &format!("the partitioning of {name}"),
    )?;
    let partitions = q
        .all(
            "SELECT c.relname::text, COALESCE(pg_get_expr(c.relpartbound, c.oid), '') \
             FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid \
             WHERE i.inhparent = $1 ORDER BY 1",
            &[&oid],
            &format!("the partitions of {name}"),
        )
        .iter()
        .take(MAX_PARTITIONS)
        .map(|r| (r.get(0), r.get(1)))
        .collect();
    Some(LivePartitioning {
        strategy: row.get(0),
        columns: row.get(1),
        partitions,
    })
}

fn size(q: &mut Session<'_>, oid: u32, name: &str) -> Option<LiveSize> {
    // A partitioned table holds nothing itself: its partitions are summed.
    let row = q.one(
        "SELECT COALESCE(sum(pg_table_size(t.relid)), 0)::bigint, \
                COALESCE(sum(pg_indexes_size(t.relid)), 0)::bigint, \
                COALESCE(sum(CASE WHEN c.reltoastrelid <> 0 THEN pg_total_relation_size(c.reltoastrelid) ELSE 0 END), 0)::bigint \
         FROM (SELECT $1::oid::regclass AS relid \
               UNION SELECT relid FROM pg_partition_tree($1::oid::regclass)) t \
         JOIN pg_class c ON c.oid = t.relid",
        &[&oid],
        &format!("the size of {name}"),
    )?;
    let mut s = LiveSize {
        table_bytes: row.get(0),
        index_bytes: row.get(1),
        toast_bytes: row.get(2),
        ..Default::default()
    };
    if let Some(r) = q.one(
        "SELECT sum(n_live_tup)::bigint, sum(n_dead_tup)::bigint, \
                to_char(max(last_vacuum) AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"'), \
                to_char(max(last_autovacuum) AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"') \
         FROM pg_stat_user_tables WHERE relid = $1 \
            OR relid IN (SELECT relid FROM pg_partition_tree($1::oid::regclass))",
        &[&oid],
        &format!("pg_stat_user_tables for {name}"),
    ) {
        s.live_tuples = r.get(0);
        s.dead_tuples = r.get(1);
        s.last_vacuum = r.get(2);
        s.last_autovacuum = r.get(3);
    }
    Some(s)
}

/// Words that name the moment a key was stored, best first.
const TIME_WORDS: &[&str] = &[
    "created",
    "received",
    "inserted",
    "processed",
    "recorded",
    "first_seen",
    "seen",
    "locked",
];

/// The store's timestamp column: one an index leads with, else the one whose
/// name says when the row was stored.
fn timestamp_column(t: &LiveTable) -> Option<(String, bool)> {
    let stamps: Vec<&LiveColumn> = t
        .columns
        .iter()
        .filter(|c| c.ty.starts_with("timestamp") || c.ty == "date")
        .filter(|c| !c.name.contains("expire") && !c.name.contains("updated"))
        .collect();
    let rank = |c: &LiveColumn| {
        TIME_WORDS
            .iter()
            .position(|w| c.name.contains(w))
            .unwrap_or(TIME_WORDS.len())
    };
    let leading = |c: &LiveColumn| {
        t.indexes.iter().any(|i| {
            i.valid
                && i.predicate.is_none()
                && i.columns.first() == Some(&c.name)
                && i.definition.contains("btree")
        })
    };
    let mut best: Vec<&&LiveColumn> = stamps.iter().collect();
    best.sort_by_key(|c| (!leading(c), rank(c)));
    best.first().map(|c| (c.name.clone(), leading(c)))
}

fn oldest(
    q: &mut Session<'_>,
    oid: u32,
    t: &LiveTable,
    qualified: &str,
    limits: &Limits,
) -> Option<Oldest> {
    let (column, indexed) = timestamp_column(t)?;
    let col = quote_ident(&column);
    let what = format!("the oldest row of {}", t.name);
    if indexed {
        let sql = format!(
            "SELECT EXTRACT(EPOCH FROM now() - {col})::float8 FROM {qualified} WHERE {col} IS NOT NULL ORDER BY {col} LIMIT 1"
        );
        let rows = q.all(&sql, &[], &what);
        if q.unreadable.last().is_some_and(|u| u.contains(&what)) {
            return None;
        }
        return Some(Oldest {
            method: format!("through an index leading with `{column}`"),
            column,
            age_seconds: rows.first().and_then(|r| r.get::<_, Option<f64>>(0)),
        });
    }
    let bytes = t.size.as_ref().map_or(i64::MAX, |s| s.table_bytes);
    let (sample, method) = if bytes <= SMALL_TABLE_BYTES {
        (
            String::new(),
            "from the whole table (under 8 MiB)".to_string(),
        )
    } else {
        // SYSTEM sampling reads whole pages: ask for the share of pages that
        // holds about `sample_rows` rows, from the planner's estimates.
        let row = q.one(
            "SELECT GREATEST(reltuples, 1)::float8 FROM pg_class WHERE oid = $1",
            &[&oid],
            &what,
        )?;
        let tuples: f64 = row.get(0);
        let pct = (limits.sample_rows as f64 / tuples * 100.0).clamp(0.0001, 100.0);
        (
            format!(" TABLESAMPLE SYSTEM ({pct:.4})"),
            format!("from a sample of about {} rows, as no index leads with `{column}`: the true oldest row may be older", limits.sample_rows),
        )
    };
    let sql =
        format!("SELECT EXTRACT(EPOCH FROM now() - min({col}))::float8 FROM {qualified}{sample}");
    let rows = q.all(&sql, &[], &what);
    if q.unreadable.last().is_some_and(|u| u.contains(&what)) {
        return None;
    }
    Some(Oldest {
        column,
        age_seconds: rows.first().and_then(|r| r.get::<_, Option<f64>>(0)),
        method,
    })
}

fn cron_jobs(q: &mut Session<'_>, table: &str) -> Vec<CronJob> {
    q.all(
        "SELECT jobid::bigint, schedule::text, command::text, active FROM cron.job \
         WHERE command ILIKE '%' || $1 || '%' ORDER BY jobid",
        &[&table],
        &format!("pg_cron's jobs for {table} (cron.job)"),
    )
    .iter()
    .map(|r| CronJob {
        jobid: r.get(0),
        schedule: r.get(1),
        command: r.get(2),
        active: r.get(3),
    })
    .collect()
}

fn partman(q: &mut Session<'_>, schema: &str, table: &str) -> Option<String> {
    let sql = format!(
        "SELECT COALESCE(partition_interval::text, '?'), COALESCE(retention::text, 'none'), \
                COALESCE(retention_keep_table::text, '?') \
         FROM {}.part_config WHERE parent_table = $1",
        quote_ident(schema)
    );
    let row = q.one(&sql, &[&table], &format!("pg_partman's config for {table}"))?;
    Some(format!(
        "interval {}, retention {}, keep dropped tables {}",
        row.get::<_, String>(0),
        row.get::<_, String>(1),
        row.get::<_, String>(2)
    ))
}
