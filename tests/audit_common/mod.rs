//! What the live audit tests share: the services' URLs (from `.ci/run`),
//! throwaway databases and projects, and running `idemlint audit`.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::io::Write;
use std::path::Path;
use std::process::Command;

/// The variable's value, or a SKIPPED line naming `test` on stderr.
pub fn service(var: &str, test: &str) -> Option<String> {
    match std::env::var(var) {
        Ok(u) if !u.trim().is_empty() => Some(u),
        _ => {
            let _ = writeln!(
                std::io::stderr(),
                "SKIPPED {test}: {var} is not set (.ci/run starts the service and sets it)"
            );
            None
        }
    }
}

pub fn psql(url: &str, sql: &str) -> String {
    let out = Command::new("psql")
        .arg(url)
        .args(["-X", "-q", "-v", "ON_ERROR_STOP=1", "-t", "-A", "-c", sql])
        .output()
        .expect("psql runs");
    assert!(
        out.status.success(),
        "psql failed: {}\n{sql}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
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

/// A database created for one test, dropped when it goes out of scope.
pub struct Db {
    pub admin: String,
    pub name: String,
    pub url: String,
}

impl Db {
    pub fn new(admin: &str, tag: &str) -> Db {
        let name = format!("idemlint_audit_{tag}_{}", std::process::id());
        psql(admin, &format!("DROP DATABASE IF EXISTS {name}"));
        psql(admin, &format!("CREATE DATABASE {name}"));
        Db {
            admin: admin.to_string(),
            url: on_database(admin, &name),
            name,
        }
    }

    pub fn sql(&self, sql: &str) -> String {
        psql(&self.url, sql)
    }
}

impl Drop for Db {
    fn drop(&mut self) {
        let _ = Command::new("psql")
            .arg(&self.admin)
            .args(["-X", "-q", "-c"])
            .arg(format!(
                "DROP DATABASE IF EXISTS {} WITH (FORCE)",
                self.name
            ))
            .output();
    }
}

/// A project directory holding `files` (path, text).
pub fn project(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (path, text) in files {
        let p = dir.path().join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    dir
}

pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|e| panic!("not JSON ({e}):\n{}\n{}", self.stdout, self.stderr))
    }

    /// (rule, severity, message) of each finding.
    pub fn findings(&self) -> Vec<(String, String, String)> {
        self.json()["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| {
                (
                    d["rule"].as_str().unwrap().to_string(),
                    d["severity"].as_str().unwrap().to_string(),
                    d["message"].as_str().unwrap().to_string(),
                )
            })
            .collect()
    }
}

/// `idemlint audit ARGS` in `dir`, with `env` set.
pub fn audit(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Run {
    let started = std::time::Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_idemlint"))
        .current_dir(dir)
        .arg("audit")
        .args(args)
        .envs(env.iter().copied())
        .env("NO_COLOR", "1")
        .output()
        .expect("idemlint runs");
    assert!(
        started.elapsed() < std::time::Duration::from_secs(30),
        "an audit took {:?}",
        started.elapsed()
    );
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}
