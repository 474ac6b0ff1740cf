//! The storage estimate (`idemlint size`) against a real PostgreSQL: a
//! sample of the store tables of the SQL fixtures that covers every column
//! type, guard kind and partitioning they use (`sample`; all 51 with
//! `IDEMLINT_PG_SIZE_ALL=1`) is created by applying its migration history,
//! filled with 10,000 to 20,000 realistic rows (uniformly
//! random 128-bit UUID keys, 32-byte digests, increasing timestamps, text of
//! the sizes idemlint assumes, all from a seeded `random()` so a run can be
//! repeated), and `pg_relation_size` of the table and of each index is
//! compared per row with the estimate.
//!
//! What is asserted, per table: the heap within 10% (as the estimate lays
//! it on pages: whole rows to a page), and heap plus unique indexes within
//! 10%; each unique index within 15%. Random inserts split a B-tree's leaves
//! in waves, so one measurement can land anywhere between about 55% and 72%
//! full; each index is measured at five row counts across one doubling
//! (10,000 to 20,000 rows, a whole wave) and the mean is compared. A
//! non-unique or partial index must come in at most 15% over the estimate
//! (deduplication and the predicate only make it smaller). The sizes of
//! variable-length values are measured (`pg_column_size`) and given to the
//! estimate, so what is checked is the layout arithmetic, not the guess of a
//! column's typical size.
//!
//! The server comes from `IDEMLINT_TEST_DATABASE_URL` (`.ci/run` starts one);
//! unset, the test says SKIPPED and passes.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use idemlint::model::schema::Table;
use idemlint::{ConfigChoice, Options};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

mod support;
use support::{database_url, on_database, projects, skipped, CRON_STUB};

/// Rows inserted in each table before the first measurement.
const ROWS: u64 = 10_000;
/// Random inserts split a B-tree's leaves in waves: pages filled at the same
/// pace split at about the same time, so the fill swings between about 55%
/// and 72% and comes round again each time the row count doubles. An index
/// is measured at this many evenly spaced row counts from `ROWS` to
/// `2 × ROWS` (one whole wave) and the mean is what the estimate is held to.
const WAVE_POINTS: u64 = 5;
fn psql(url: &str, args: &[&str]) -> Result<String, String> {
    let out = Command::new("psql")
        .arg(url)
        .args(["-X", "-q", "-v", "ON_ERROR_STOP=1", "-t", "-A", "-F", "\t"])
        .args(args)
        .output()
        .map_err(|e| format!("cannot run psql: {e}"))?;
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).trim().to_string())
    }
}

fn sql(url: &str, text: &str) -> Result<String, String> {
    psql(url, &["-c", text])
}

fn ident(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

/// `public.t` → `"public"."t"`.
fn qualified(name: &str) -> String {
    name.split('.')
        .map(|p| ident(p.trim_matches('"')))
        .collect::<Vec<_>>()
        .join(".")
}

/// A random hex text of `n` characters.
fn hex(n: u64) -> String {
    let md5s = n.div_ceil(32).max(1);
    let parts: Vec<&str> = (0..md5s).map(|_| "md5(random()::text)").collect();
    format!("substr({}, 1, {n})", parts.join(" || "))
}

/// A value expression for a column of PostgreSQL type `ty` (`format_type`),
/// `typtype`, holding `bytes` bytes when variable-length; row number `g`.
fn value(name: &str, ty: &str, typtype: &str, typname: &str, bytes: u64) -> Option<String> {
    let t = ty.to_ascii_lowercase();
    // A surrogate `id` counts up, as its sequence would.
    if name.eq_ignore_ascii_case("id") && matches!(t.as_str(), "bigint" | "integer" | "smallint") {
        return Some(format!("g::{t}"));
    }
    if typtype == "e" {
        return Some(format!("(enum_range(NULL::{ty}))[1]"));
    }
    if t.ends_with("[]") {
        return Some(format!(
            "ARRAY[{}]::{ty}",
            hex(bytes.saturating_sub(24).max(1))
        ));
    }
    // `timestamp(6) without time zone` → `timestamp without time zone`
    let mut bare = String::new();
    let mut depth = 0;
    for ch in t.chars() {
        match ch {
            '(' => depth += 1,
            ')' => depth -= 1,
            c if depth == 0 => bare.push(c),
            _ => {}
        }
    }
    let bare = bare.split_whitespace().collect::<Vec<_>>().join(" ");
    let base = bare.as_str();
    Some(match base {
        // A uniformly random 128-bit value, as a UUID v4 is, from the seeded
        // `random()` so a run can be repeated.
        "uuid" => "md5(random()::text)::uuid".to_string(),
        "smallint" => "(random() * 30000)::smallint".to_string(),
        "integer" => "(random() * 2000000000)::integer".to_string(),
        "bigint" => "(random() * 9e15)::bigint".to_string(),
        "boolean" => "random() < 0.5".to_string(),
        "real" | "double precision" => "random()".to_string(),
        "numeric" => "round((random() * 1e9)::numeric, 2)".to_string(),
        "timestamp with time zone" | "timestamp without time zone" => {
            "now() - interval '30 days' + g * interval '1 second'".to_string()
        }
        "date" => "current_date - 30 + (g / 3000)::int".to_string(),
        "interval" => "random() * interval '1 day'".to_string(),
        "bytea" if bytes == 32 => "sha256(random()::text::bytea)".to_string(),
        "bytea" => format!("decode({}, 'hex')", hex(2 * bytes)),
        "text" | "character varying" | "citext" | "name" => format!("{}::{ty}", hex(bytes)),
        "character" => format!("{}::{ty}", hex(bytes)),
        "jsonb" | "json" => format!(
            "jsonb_build_object('id', {}, 'status', 'succeeded')::{ty}",
            hex(bytes.saturating_sub(32).max(1))
        ),
        "inet" | "cidr" => "('10.0.0.0'::inet + (g % 65000))".to_string(),
        _ if typname == "citext" => format!("{}::{ty}", hex(bytes)),
        _ => return None,
    })
}

struct Column {
    name: String,
    ty: String,
    typtype: String,
    typname: String,
    /// Left to its default: generated, identity or a sequence.
    defaulted: bool,
}

fn columns(url: &str, table: &str) -> Vec<Column> {
    let out = sql(
        url,
        &format!(
            "SELECT a.attname, format_type(a.atttypid, a.atttypmod), t.typtype, t.typname, \
             (a.attgenerated <> '' OR a.attidentity <> '' OR coalesce(pg_get_expr(d.adbin, d.adrelid), '') LIKE 'nextval(%') \
             FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid \
             LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum \
             WHERE a.attrelid = '{}'::regclass AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum",
            qualified(table).replace('\'', "''")
        ),
    )
    .expect("columns");
    out.lines()
        .filter(|l| !l.is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            Column {
                name: f[0].to_string(),
                ty: f[1].to_string(),
                typtype: f[2].to_string(),
                typname: f[3].to_string(),
                defaulted: f[4] == "t",
            }
        })
        .collect()
}

/// Bytes of a relation and of its partitions (a partitioned table or index
/// has no storage of its own).
fn relation_bytes(url: &str, oid: &str) -> u64 {
    sql(url, &format!("SELECT {}", size_of(oid)))
        .expect("size")
        .parse()
        .unwrap_or(0)
}

/// The bytes of a relation (its partitions summed), as a scalar subquery.
fn size_of(oid: &str) -> String {
    format!(
        "(SELECT CASE WHEN c.relkind IN ('p', 'I') \
         THEN (SELECT coalesce(sum(pg_relation_size(relid)), 0) FROM pg_partition_tree(c.oid)) \
         ELSE pg_relation_size(c.oid) END FROM pg_class c WHERE c.oid = {oid}::regclass)"
    )
}

struct Checked {
    table: String,
    rows: u64,
    lines: Vec<String>,
    failures: Vec<String>,
}

fn within(estimate: f64, measured: f64, tolerance: f64) -> bool {
    measured > 0.0 && ((estimate - measured) / measured).abs() <= tolerance
}

/// Make the table ready to fill: somewhere for every row of a partitioned
/// table to land, and no check or foreign key (they constrain values, not
/// layout).
fn prepare(url: &str, t: &Table, name: &str, oid: &str) -> Result<(), String> {
    if t.partition_by.is_some() {
        // Somewhere for every row to land.
        let kind = sql(
            url,
            &format!(
                "SELECT partstrat FROM pg_partitioned_table WHERE partrelid = {oid}::regclass"
            ),
        )?;
        let bounds = if kind == "h" {
            "FOR VALUES WITH (MODULUS 1, REMAINDER 0)"
        } else {
            "DEFAULT"
        };
        let _ = sql(
            url,
            &format!("CREATE TABLE idemlint_rows PARTITION OF {name} {bounds}"),
        );
    }
    sql(
        url,
        &format!(
            "DO $$ DECLARE c record; BEGIN FOR c IN SELECT conname, conrelid::regclass AS r FROM pg_constraint \
             WHERE contype IN ('c', 'f') AND conrelid IN (SELECT relid FROM pg_partition_tree({oid}::regclass)) \
             LOOP EXECUTE format('ALTER TABLE %s DROP CONSTRAINT IF EXISTS %I', c.r, c.conname); END LOOP; END $$"
        ),
    )?;
    Ok(())
}

/// The sizes variable-length values really took, by column: their average
/// size on disk, less its header.
fn measured_sizes(
    url: &str,
    first: &idemlint::size::Estimate,
    cols: &[Column],
    name: &str,
) -> Result<BTreeMap<String, u64>, String> {
    let mut measured_sizes = BTreeMap::new();
    for p in first.heap.columns.iter().filter(|p| p.column.header > 0) {
        let Some(c) = cols
            .iter()
            .find(|c| c.name.eq_ignore_ascii_case(&p.column.name))
        else {
            continue;
        };
        let avg: f64 = sql(
            url,
            &format!("SELECT avg(pg_column_size({})) FROM {name}", ident(&c.name)),
        )?
        .parse()
        .unwrap_or(0.0);
        let whole = avg.round() as u64;
        let payload = if whole <= 127 {
            whole.saturating_sub(1)
        } else {
            whole.saturating_sub(4)
        };
        measured_sizes.insert(p.column.name.clone(), payload);
    }
    Ok(measured_sizes)
}

/// Each index's measured bytes a row (`sums` over the points of the wave)
/// against the estimate's, into `lines` and `failures`; the bytes of the
/// unique, whole indexes are added to `totals` (estimated, measured).
fn compare_indexes(
    e: &idemlint::size::Estimate,
    (indexes, sums): (&[Vec<String>], &[f64]),
    (estimated_total, measured_total): &mut (f64, f64),
    lines: &mut Vec<String>,
    failures: &mut Vec<String>,
) {
    let mut seen = BTreeSet::new();
    for (f, sum) in indexes.iter().zip(sums) {
        let (ix_name, unique, partial) = (f[0].as_str(), f[2] == "t", f[3] == "t");
        let measured = sum / WAVE_POINTS as f64;
        let Some(est) = e.indexes.iter().find(|i| i.name == ix_name) else {
            failures.push(format!(
                "index `{ix_name}` exists in PostgreSQL but not in the estimate"
            ));
            continue;
        };
        seen.insert(ix_name.to_string());
        lines.push(format!(
            "index {ix_name}: {:.1} measured, {} estimated ({:+.1}%){}",
            measured,
            idemlint::size::figure(est.bytes_per_row),
            100.0 * (est.bytes_per_row - measured) / measured.max(0.001),
            if unique && !partial {
                ""
            } else {
                " (an upper bound)"
            }
        ));
        if unique && !partial {
            *estimated_total += est.bytes_per_row;
            *measured_total += measured;
            if !within(est.bytes_per_row, measured, 0.15) {
                failures.push(format!(
                    "index `{ix_name}`: estimated {:.1}, measured {measured:.1}",
                    est.bytes_per_row
                ));
            }
        } else if measured > est.bytes_per_row * 1.15 {
            failures.push(format!(
                "index `{ix_name}` (non-unique or partial): measured {measured:.1} over the estimate {:.1}",
                est.bytes_per_row
            ));
        }
    }
    for ix in &e.indexes {
        if !seen.contains(&ix.name) {
            failures.push(format!(
                "index `{}` is in the estimate but not in PostgreSQL",
                ix.name
            ));
        }
    }
}

/// The table's indexes, each as its name, oid, whether it is unique and
/// whether it is partial (`t` or `f`).
fn indexes_of(url: &str, oid: &str) -> Result<Vec<Vec<String>>, String> {
    let indexes = sql(
        url,
        &format!(
            "SELECT c.relname, c.oid, i.indisunique, i.indpred IS NOT NULL FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid \
             WHERE i.indrelid = {oid}::regclass ORDER BY c.relname"
        ),
    )?;
    Ok(indexes
        .lines()
        .filter(|l| !l.is_empty())
        .map(|l| l.split('\t').map(str::to_string).collect())
        .collect())
}

/// Fill one table and compare; `Err` says why the table could not be filled.
fn check_table(url: &str, t: &Table) -> Result<Checked, String> {
    let name = qualified(&t.name);
    let oid = format!("'{}'", name.replace('\'', "''"));
    prepare(url, t, &name, &oid)?;
    let first = idemlint::size::estimate(t, &BTreeMap::new()).map_err(|e| e.to_string())?;
    let assumed: BTreeMap<String, u64> = first
        .heap
        .columns
        .iter()
        .map(|p| (p.column.name.clone(), p.column.bytes - p.column.header))
        .collect();
    let cols = columns(url, &t.name);
    let mut names = Vec::new();
    let mut values = Vec::new();
    for c in cols.iter().filter(|c| !c.defaulted) {
        let bytes = assumed
            .get(&c.name.to_ascii_lowercase())
            .copied()
            .unwrap_or(16);
        let v = value(&c.name, &c.ty, &c.typtype, &c.typname, bytes)
            .ok_or_else(|| format!("no value generator for type `{}` of `{}`", c.ty, c.name))?;
        names.push(ident(&c.name));
        values.push(v);
    }
    let insert = |from: u64, to: u64| {
        sql(
            url,
            &format!(
                "SET session_replication_role = replica; SELECT setseed({seed}); \
                 INSERT INTO {name} ({}) SELECT {} FROM generate_series({from}, {to}) g ON CONFLICT DO NOTHING",
                names.join(", "),
                values.join(", "),
                seed = (from % 997) as f64 / 997.0,
            ),
        )
    };
    let count = || -> Result<u64, String> {
        Ok(sql(url, &format!("SELECT count(*) FROM {name}"))?
            .parse()
            .unwrap_or(0))
    };
    insert(1, ROWS)?;
    let first_rows = count()?;
    if first_rows < ROWS / 2 {
        return Err(format!("only {first_rows} of {ROWS} rows inserted"));
    }
    let indexes = indexes_of(url, &oid)?;
    // Each index's bytes a row, summed over the points of the wave.
    let mut index_sums = vec![0.0; indexes.len()];
    let step = ROWS / (WAVE_POINTS - 1);
    let mut rows = first_rows;
    // The rows and every index's bytes, in one round trip a point.
    let measure = format!(
        "SELECT (SELECT count(*) FROM {name}){}",
        indexes
            .iter()
            .map(|ix| format!(", {}", size_of(&ix[1])))
            .collect::<String>()
    );
    for point in 0..WAVE_POINTS {
        if point > 0 {
            insert(ROWS + (point - 1) * step + 1, ROWS + point * step)?;
        }
        let got = sql(url, &measure)?;
        let got: Vec<u64> = got
            .split('\t')
            .map(|v| v.trim().parse().unwrap_or(0))
            .collect();
        rows = got.first().copied().unwrap_or(rows).max(1);
        for (sum, bytes) in index_sums.iter_mut().zip(&got[1..]) {
            *sum += *bytes as f64 / rows as f64;
        }
    }
    let measured_sizes = measured_sizes(url, &first, &cols, &name)?;
    let e = idemlint::size::estimate(t, &measured_sizes).map_err(|e| e.to_string())?;
    let mut lines = Vec::new();
    let mut failures = Vec::new();
    // The heap as the estimate puts it on pages: whole rows to a page (a
    // page that holds 6 rows of 1,220 bytes takes 1,365 a row).
    let heap = relation_bytes(url, &oid) as f64 / rows as f64;
    lines.push(format!(
        "heap {:.1} measured, {} estimated a row ({:+.1}%), {} on pages ({:+.1}%)",
        heap,
        e.heap.bytes,
        100.0 * (e.heap.bytes as f64 - heap) / heap,
        idemlint::size::figure(e.heap.packed_bytes),
        100.0 * (e.heap.packed_bytes - heap) / heap
    ));
    if !within(e.heap.packed_bytes, heap, 0.10) {
        failures.push(format!(
            "heap: estimated {:.1} on pages, measured {heap:.1}",
            e.heap.packed_bytes
        ));
    }
    let mut totals = (e.heap.packed_bytes, heap);
    compare_indexes(
        &e,
        (&indexes, &index_sums),
        &mut totals,
        &mut lines,
        &mut failures,
    );
    let (estimated_total, measured_total) = totals;
    lines.push(format!(
        "per row (heap + unique indexes): {measured_total:.1} measured, {} estimated ({:+.1}%)",
        idemlint::size::figure(estimated_total),
        100.0 * (estimated_total - measured_total) / measured_total
    ));
    if !within(estimated_total, measured_total, 0.10) {
        failures.push(format!(
            "per row: estimated {estimated_total:.1}, measured {measured_total:.1}"
        ));
    }
    Ok(Checked {
        table: t.name.clone(),
        rows,
        lines,
        failures,
    })
}

/// The features of a table that decide its bytes a row: each column's
/// type (without its length), each unique guard's kind,
/// width and partiality, other indexes, partitioning.
fn features(t: &Table) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for c in &t.columns {
        let ty = c.ty.to_ascii_lowercase();
        let base = ty.split('(').next().unwrap_or(&ty).trim().to_string();
        out.insert(format!("type {base}"));
    }
    for g in &t.guards {
        out.insert(format!(
            "guard {:?} over {} partial {}",
            g.key.kind,
            g.key.parts_text().split(',').count(),
            g.key.predicate.is_some()
        ));
    }
    if t.partition_by.is_some() {
        out.insert("partitioned".into());
    }
    out
}

/// The tables to measure: by default a sample that covers every feature
/// any fixture table has (greedily, the table adding the most features
/// not yet covered first, ties to the earliest), so every column type,
/// guard kind and partitioning is measured in a few tables and the test
/// takes seconds, not minutes. `IDEMLINT_PG_SIZE_ALL=1` measures all.
fn sample<T>(tables: Vec<(BTreeSet<String>, T)>) -> Vec<T> {
    if std::env::var_os("IDEMLINT_PG_SIZE_ALL").is_some() {
        return tables.into_iter().map(|(_, t)| t).collect();
    }
    let mut left = tables;
    let mut covered: BTreeSet<String> = BTreeSet::new();
    let mut out = Vec::new();
    loop {
        let best = left
            .iter()
            .enumerate()
            .map(|(i, (f, _))| (f.difference(&covered).count(), std::cmp::Reverse(i)))
            .max();
        match best {
            Some((gain, std::cmp::Reverse(i))) if gain > 0 => {
                let (f, t) = left.remove(i);
                covered.extend(f);
                out.push(t);
            }
            _ => return out,
        }
    }
}

/// A store table of a fixture, with the migration files that make it.
struct Candidate {
    table: Table,
    files: Vec<PathBuf>,
    project: PathBuf,
}

#[test]
fn the_storage_estimate_of_every_fixture_store_table_is_within_10_percent_of_postgresql() {
    let Some(url) = database_url(file!()) else {
        return;
    };
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata");
    let mut report = Vec::new();
    let mut failures = Vec::new();
    let mut not_filled = Vec::new();
    let mut done: BTreeSet<String> = BTreeSet::new();
    let mut candidates = Vec::new();
    let mut distinct = 0;
    for project in projects(&root) {
        let outcome = idemlint::check(&Options {
            paths: vec![project.clone()],
            stdin: None,
            config: ConfigChoice::Isolated,
            no_suppressions: true,
            include_tests: true,
            parse_timeout: None,
        })
        .expect("check");
        let schema = &outcome.model.schema;
        for (t, _) in schema.stores() {
            let files: Vec<PathBuf> = schema.histories[t.history]
                .files
                .iter()
                .map(|f| PathBuf::from(outcome.sources.path(*f)))
                .collect();
            let created = PathBuf::from(outcome.sources.path(t.created.file));
            if skipped(&created) {
                continue; // not PostgreSQL
            }
            if created.extension().is_none_or(|x| x != "sql") {
                continue; // schema run from code (a start-up `CREATE TABLE` in Rust)
            }
            // The same table in several fixtures is measured once.
            let shape = format!(
                "{:?}",
                (
                    t.columns
                        .iter()
                        .map(|c| (&c.name, &c.ty, c.not_null))
                        .collect::<Vec<_>>(),
                    t.guards
                        .iter()
                        .map(|g| (g.key.kind, g.key.parts_text(), &g.key.predicate))
                        .collect::<Vec<_>>(),
                    t.partition_by.as_ref().map(|(p, _)| p.columns.clone())
                )
            );
            if !done.insert(shape) {
                continue;
            }
            distinct += 1;
            candidates.push((
                features(t),
                Candidate {
                    table: t.clone(),
                    files,
                    project: project.clone(),
                },
            ));
        }
    }
    let chosen = sample(candidates);
    eprintln!(
        "measuring {} of {distinct} distinct store tables",
        chosen.len()
    );
    let mut n = 0;
    for Candidate {
        table: t,
        files,
        project,
    } in &chosen
    {
        n += 1;
        let db = format!("idemlint_size_{}_{n}", std::process::id());
        let _ = sql(&url, &format!("DROP DATABASE IF EXISTS {db}"));
        // FILE_COPY (PostgreSQL 15+) copies the template's files instead
        // of writing them all to the WAL: seconds less per table.
        sql(&url, &format!("CREATE DATABASE {db} STRATEGY FILE_COPY"))
            .or_else(|_| sql(&url, &format!("CREATE DATABASE {db}")))
            .expect("create database");
        let db_url = on_database(&url, &db);
        sql(&db_url, CRON_STUB).expect("cron stub");
        let mut applied = true;
        for f in files.iter().filter(|f| !skipped(f)) {
            if let Err(e) = psql(&db_url, &["-f", &f.to_string_lossy()]) {
                not_filled.push(format!("{}: {e}", f.display()));
                applied = false;
            }
        }
        let where_ = format!("{} in {}", t.name, project.display());
        if applied {
            match check_table(&db_url, t) {
                Ok(c) => {
                    report.push(format!("{where_}: {} rows", c.rows));
                    report.extend(c.lines.iter().map(|l| format!("  {l}")));
                    failures.extend(c.failures.iter().map(|f| format!("{}: {f}", c.table)));
                }
                Err(e) => not_filled.push(format!("{where_}: {e}")),
            }
        }
        let _ = sql(&url, &format!("DROP DATABASE IF EXISTS {db}"));
    }
    eprintln!("{}", report.join("\n"));
    assert!(distinct >= 10, "only {distinct} store tables found");
    assert!(n >= 3, "only {n} store tables measured");
    assert!(
        not_filled.is_empty(),
        "tables that could not be created or filled:\n{}",
        not_filled.join("\n")
    );
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}
