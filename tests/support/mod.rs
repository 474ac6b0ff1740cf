//! What the PostgreSQL tests share: the server's URL, the fixture projects,
//! and the markers and stubs the fixtures rely on.

#![allow(dead_code)]

use std::io::Write;
use std::path::{Path, PathBuf};

/// First line of a SQL fixture written for another dialect or broken on
/// purpose: it is not applied to PostgreSQL.
pub const SKIP_MARKER: &str = "-- postgres: skip";

/// pg_cron's `cron.schedule`, stubbed: fixtures schedule reaper jobs.
pub const CRON_STUB: &str = "CREATE SCHEMA IF NOT EXISTS cron; \
     CREATE OR REPLACE FUNCTION cron.schedule(job_name text, schedule text, command text) \
     RETURNS bigint LANGUAGE sql AS 'SELECT 1::bigint';";

/// `IDEMLINT_TEST_DATABASE_URL`, or a SKIPPED line naming `test` on stderr,
/// written past the harness's capture so a skip is visible in every run.
pub fn database_url(test: &str) -> Option<String> {
    match std::env::var("IDEMLINT_TEST_DATABASE_URL") {
        Ok(u) if !u.trim().is_empty() => Some(u),
        _ => {
            let _ = writeln!(
                std::io::stderr(),
                "SKIPPED {test}: IDEMLINT_TEST_DATABASE_URL is not set \
                 (.ci/run starts PostgreSQL and sets it)"
            );
            None
        }
    }
}

/// The URL with its database replaced by `db`.
pub fn on_database(url: &str, db: &str) -> String {
    let (base, query) = match url.split_once('?') {
        Some((b, q)) => (b, format!("?{q}")),
        None => (url, String::new()),
    };
    let scheme_end = base.find("://").map_or(0, |i| i + 3);
    let host = match base[scheme_end..].find('/') {
        Some(i) => &base[..scheme_end + i],
        None => base,
    };
    format!("{host}/{db}{query}")
}

/// Directories the fixture harness runs as one project each.
pub fn projects(root: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for group in ["rules", "projects"] {
        let Ok(rd) = std::fs::read_dir(root.join(group)) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            if group == "rules" {
                out.push(p.join("flag"));
                out.push(p.join("pass"));
            } else {
                out.push(p);
            }
        }
    }
    out.retain(|p| p.is_dir());
    out.sort();
    out
}

/// Whether a SQL file opts out of PostgreSQL with [`SKIP_MARKER`].
pub fn skipped(path: &Path) -> bool {
    std::fs::read_to_string(path).is_ok_and(|t| {
        t.lines()
            .next()
            .is_some_and(|l| l.trim_start().starts_with(SKIP_MARKER))
    })
}

/// Run git in `dir` with a fixed identity and no signing; its stdout.
pub fn git(dir: &Path, args: &[&str]) -> String {
    let o = std::process::Command::new("git")
        .current_dir(dir)
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
        .args([
            "-c",
            "init.defaultBranch=main",
            "-c",
            "commit.gpgsign=false",
        ])
        .args(args)
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// (rule, path) of every finding of a JSON report, in its order.
pub fn rule_paths(report: &serde_json::Value) -> Vec<(String, String)> {
    report["diagnostics"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|d| {
            let text = |k: &str| d[k].as_str().unwrap_or_default().to_string();
            (text("rule"), text("path"))
        })
        .collect()
}
