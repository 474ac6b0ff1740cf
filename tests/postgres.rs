//! Real PostgreSQL: every SQL fixture under `testdata/` is applied to a
//! fresh database, history by history in the order idemlint replays them
//! (down and undo files skipped), proving the fixtures are valid SQL; and
//! the partition case of `unique-guard-split-by-partition` is shown to
//! happen: the same key inserted into two partitions succeeds twice.
//!
//! The server comes from `IDEMLINT_TEST_DATABASE_URL` (`.ci/run` starts a
//! throwaway cluster and sets it). Unset, the test says SKIPPED and passes.
//!
//! It drives `psql` rather than a client crate: `psql -f` applies a
//! migration file the way deploy tools do, statement by statement in
//! autocommit (so `CREATE INDEX CONCURRENTLY` works, which fails inside the
//! implicit transaction of a multi-statement `batch_execute`), it ships with
//! the server packages `.ci/run` installs, and it adds nothing to compile.
//!
//! A fixture that is deliberately not PostgreSQL (MySQL syntax, a statement
//! broken on purpose for `parse-error`) says so on its first line:
//! `-- postgres: skip (<reason>)`. pg_cron is not in Debian's server
//! package, so each database gets a stub `cron.schedule` with pg_cron's
//! signature; it stores nothing and checks nothing of the job's text.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::Command;

mod support;
use support::{database_url, on_database as with_database, CRON_STUB, SKIP_MARKER};

struct Psql<'a> {
    url: &'a str,
}

impl Psql<'_> {
    /// Run psql with `args`; Ok(stdout) or Err(stderr).
    fn run(&self, db_url: &str, args: &[&str]) -> Result<String, String> {
        let out = Command::new("psql")
            .arg(db_url)
            .args(["-X", "-q", "-v", "ON_ERROR_STOP=1", "-t", "-A"])
            .args(args)
            .output()
            .map_err(|e| format!("cannot run psql: {e}"))?;
        if out.status.success() {
            Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
        } else {
            Err(String::from_utf8_lossy(&out.stderr).trim().to_string())
        }
    }

    fn sql(&self, db_url: &str, sql: &str) -> Result<String, String> {
        self.run(db_url, &["-c", sql])
    }

    /// A fresh, empty database; dropped by the returned guard.
    fn fresh(&self, name: &str) -> FreshDb<'_> {
        let _ = self.sql(self.url, &format!("DROP DATABASE IF EXISTS {name}"));
        // FILE_COPY (PostgreSQL 15+) copies the template's files instead of
        // writing them all to the WAL: half the time of a database, and this
        // test makes one per migration history.
        self.sql(
            self.url,
            &format!("CREATE DATABASE {name} STRATEGY FILE_COPY"),
        )
        .or_else(|_| self.sql(self.url, &format!("CREATE DATABASE {name}")))
        .unwrap_or_else(|e| panic!("CREATE DATABASE {name}: {e}"));
        FreshDb {
            psql: Psql { url: self.url },
            name: name.to_string(),
            url: with_database(self.url, name),
        }
    }
}

struct FreshDb<'a> {
    psql: Psql<'a>,
    name: String,
    url: String,
}

impl Drop for FreshDb<'_> {
    fn drop(&mut self) {
        let _ = self.psql.sql(
            self.psql.url,
            &format!("DROP DATABASE IF EXISTS {}", self.name),
        );
    }
}

fn sql_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "sql") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

#[test]
fn every_sql_fixture_applies_to_a_real_postgresql() {
    let Some(url) = database_url(file!()) else {
        return;
    };
    let psql = Psql { url: &url };
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata");
    let mut failures = Vec::new();
    let mut applied = 0;
    let mut skipped = Vec::new();
    let mut db_n = 0;
    for project in support::projects(&root) {
        let files = sql_files(&project);
        if files.is_empty() {
            continue;
        }
        let rel: Vec<String> = files
            .iter()
            .map(|f| {
                f.strip_prefix(&project)
                    .unwrap()
                    .to_string_lossy()
                    .replace('\\', "/")
            })
            .collect();
        let ids: Vec<(usize, &str)> = rel.iter().map(String::as_str).enumerate().collect();
        for history in idemlint::model::migrations::histories(&ids) {
            db_n += 1;
            let db = psql.fresh(&format!("idemlint_fixture_{}_{db_n}", std::process::id()));
            psql.sql(&db.url, CRON_STUB).expect("cron stub");
            for id in history.files {
                let path = &files[id];
                let text = std::fs::read_to_string(path).unwrap();
                if text
                    .lines()
                    .next()
                    .is_some_and(|l| l.trim_start().starts_with(SKIP_MARKER))
                {
                    skipped.push(path.display().to_string());
                    continue;
                }
                match psql.run(&db.url, &["-f", &path.to_string_lossy()]) {
                    Ok(_) => applied += 1,
                    Err(e) => failures.push(format!("{}: {e}", path.display())),
                }
            }
        }
    }
    eprintln!("applied {applied} SQL fixture files to PostgreSQL; skipped by marker: {skipped:#?}");
    assert!(applied > 0, "no SQL fixture was applied");
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

#[test]
fn same_key_lands_twice_in_a_table_partitioned_by_created_at() {
    let Some(url) = database_url(file!()) else {
        return;
    };
    let psql = Psql { url: &url };
    let db = psql.fresh(&format!("idemlint_partition_{}", std::process::id()));
    // The seed's table, with the only unique guard PostgreSQL accepts on it.
    psql.sql(
        &db.url,
        "create table payment_idempotency (
           key uuid not null, created_at timestamptz not null,
           unique (key, created_at)
         ) partition by range (created_at);
         create table payment_idempotency_d1 partition of payment_idempotency
           for values from ('2026-11-29') to ('2026-11-30');
         create table payment_idempotency_d2 partition of payment_idempotency
           for values from ('2026-11-30') to ('2026-12-01');",
    )
    .expect("create partitioned table");

    // UNIQUE (key) alone is refused: the partition column must be in it.
    let refused = psql
        .sql(&db.url, "alter table payment_idempotency add unique (key)")
        .expect_err("a unique constraint without the partition column is refused");
    assert!(refused.contains("partition"), "{refused}");

    // The first request, and its replay a day later: both insert.
    let key = "0b6f1c3e-7d1a-4b7e-9d1e-2f3a4b5c6d7e";
    for at in ["2026-11-29 23:59:00+00", "2026-11-30 00:01:00+00"] {
        psql.sql(
            &db.url,
            &format!("insert into payment_idempotency values ('{key}', '{at}')"),
        )
        .unwrap_or_else(|e| panic!("insert at {at}: {e}"));
    }
    let rows = psql
        .sql(
            &db.url,
            &format!("select count(*) from payment_idempotency where key = '{key}'"),
        )
        .unwrap();
    assert_eq!(
        rows, "2",
        "the same key is stored twice, once per partition"
    );

    // Control: the same replay against an unpartitioned table is refused.
    psql.sql(
        &db.url,
        &format!(
            "create table keys_plain (key uuid primary key, created_at timestamptz not null);
             insert into keys_plain values ('{key}', '2026-11-29 23:59:00+00');"
        ),
    )
    .unwrap();
    let dup = psql
        .sql(
            &db.url,
            &format!("insert into keys_plain values ('{key}', '2026-11-30 00:01:00+00')"),
        )
        .expect_err("the replay is refused by the primary key");
    assert!(dup.contains("duplicate key"), "{dup}");
}
