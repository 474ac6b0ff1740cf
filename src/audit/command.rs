//! `idemlint audit`: check the repository for its stores, read each
//! database and instance named, judge, render, save.

use super::facts::Record;
use super::judge::{self, Context, Described};
use super::{postgres, redact_urls, redis, Limits};
use crate::cli::{AuditArgs, ColorChoice, FailOnArg};
use crate::config::FailOn;
use crate::diagnostic::{self, Diagnostic};
use crate::files::{Mode, Selection};
use crate::horizons::Catalogue;
use crate::inventory::{self, Kind};
use crate::render::{self, OutputFormat, Summary};
use crate::{check_with, ConfigChoice, Gate, Outcome};
use std::io::IsTerminal;
use std::path::PathBuf;

/// The URLs to read: those given, then those the named variables hold.
fn urls(given: &[String], vars: &[String], flag: &str) -> Result<Vec<String>, String> {
    let mut out: Vec<String> = given.to_vec();
    for v in vars {
        match std::env::var(v) {
            Ok(u) if !u.trim().is_empty() => out.push(u.trim().to_string()),
            _ => {
                return Err(format!(
                    "{flag} {v}: the environment variable `{v}` is not set"
                ))
            }
        }
    }
    Ok(out)
}

fn check(args: &AuditArgs) -> Result<Outcome, String> {
    let cwd = std::env::current_dir().map_err(|e| e.to_string())?;
    let files =
        Selection::resolve(&Mode::WorkTree, &args.paths, &cwd).map_err(|e| e.to_string())?;
    let opts = crate::Options {
        paths: args.paths.clone(),
        stdin: None,
        config: if args.isolated {
            ConfigChoice::Isolated
        } else if let Some(c) = &args.config {
            ConfigChoice::File(c.clone())
        } else {
            ConfigChoice::Discover
        },
        no_suppressions: false,
        include_tests: false,
        parse_timeout: None,
    };
    check_with(
        &opts,
        &Gate {
            files,
            baseline: None,
            exhaustive: false,
        },
    )
    .map_err(|e| e.to_string())
}

/// What an audit found: the record, the live findings, and the sources they
/// point into (the repository's files and one text per live object).
pub struct Audited {
    pub record: Record,
    pub outcome: Outcome,
    pub diagnostics: Vec<Diagnostic>,
    pub described: Vec<Described>,
}

/// Read and judge. `Err` (exit 2) for bad arguments and for a database or
/// instance that cannot be reached at all.
pub fn audit(args: &AuditArgs) -> Result<Audited, String> {
    let pg = urls(&args.postgres, &args.postgres_env, "--postgres-env")?;
    let rd = urls(&args.redis, &args.redis_env, "--redis-env")?;
    if pg.is_empty() && rd.is_empty() {
        return Err("nothing to audit: give --postgres URL or --redis URL (or --postgres-env VAR / --redis-env VAR naming a variable that holds one)".into());
    }
    let limits = Limits {
        connect: args.connect_timeout,
        statement: args.statement_timeout,
        sample_rows: args.sample_rows.max(1),
        redis_keys: args.redis_sample.max(1),
        redis_time: args.redis_time_limit,
    };
    super::tls::install();
    let mut outcome = check(args)?;
    let inv = inventory::build(&outcome, &inventory::Options::default());
    let mut record = Record {
        version: 1,
        read_at: std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs()),
        ..Default::default()
    };
    let tables: Vec<String> = inv
        .stores
        .iter()
        .filter(|s| s.kind == Kind::SqlTable)
        .map(|s| s.name.clone())
        .collect();
    let schema = &outcome.model.schema;
    let is_store = |name: &str| schema.is_store_name(name);
    let wanted = postgres::Wanted {
        stores: &tables,
        is_store_name: &is_store,
    };
    for url in &pg {
        record
            .postgres
            .push(postgres::read(url, &wanted, &limits).map_err(|e| redact_urls(&e))?);
    }
    let prefixes: Vec<(String, String)> = inv
        .stores
        .iter()
        .filter(|s| s.kind == Kind::RedisPrefix)
        .map(|s| {
            let pattern = if s.name.ends_with('*') {
                s.name.clone()
            } else {
                format!("{}*", s.name)
            };
            (pattern, s.name.clone())
        })
        .collect();
    for url in &rd {
        let mut r = redis::read(url, &prefixes, &limits).map_err(|e| redact_urls(&e))?;
        if prefixes.is_empty() {
            r.unreadable.push("the code names no Redis store prefix: no key was sampled, and the policy is reported, not judged".into());
        }
        record.redis.push(r);
    }
    let margin = Catalogue::with_config(&outcome.config).margin.secs;
    let cx = Context {
        model: &outcome.model,
        inventory: &inv,
        margin,
    };
    let mut diagnostics = Vec::new();
    let mut described = Vec::new();
    let mut files = Vec::new();
    for db in &record.postgres {
        let d = judge::describe_pg(db);
        let f = judge::file(&mut outcome.sources, &d);
        judge::judge_pg(&cx, db, &d, f, &mut diagnostics);
        files.push(f);
        described.push(d);
    }
    for r in &record.redis {
        let d = judge::describe_redis(r);
        let f = judge::file(&mut outcome.sources, &d);
        judge::judge_redis(&cx, r, &d, f, &mut diagnostics);
        described.push(d);
    }
    let mut diagnostics =
        crate::rules::apply_levels(diagnostics, &outcome.sources, &outcome.config);
    diagnostic::assign_fingerprints(&mut diagnostics, &outcome.sources);
    diagnostic::sort(&mut diagnostics, &outcome.sources);
    Ok(Audited {
        record,
        outcome,
        diagnostics,
        described,
    })
}

/// Everything that could not be read, one line each, named by its target.
pub fn unreadable(record: &Record) -> Vec<String> {
    let mut out = Vec::new();
    for db in &record.postgres {
        out.extend(db.unreadable.iter().map(|u| format!("{}: {u}", db.target)));
        for t in &db.tables {
            out.extend(
                t.unreadable
                    .iter()
                    .map(|u| format!("{} {}: {u}", db.target, t.name)),
            );
        }
    }
    for r in &record.redis {
        out.extend(r.unreadable.iter().map(|u| format!("{}: {u}", r.target)));
    }
    out
}

fn summary(a: &Audited) -> Summary {
    let count = |s| a.diagnostics.iter().filter(|d| d.severity == s).count();
    Summary {
        files_scanned: a.outcome.summary.files_scanned,
        files_parsed: a.outcome.summary.files_parsed,
        diagnostics: a.diagnostics.len(),
        errors: count(diagnostic::Severity::Error),
        warnings: count(diagnostic::Severity::Warning),
        notes: count(diagnostic::Severity::Note),
        stores: a.outcome.summary.stores,
        elapsed_ms: a.outcome.summary.elapsed_ms,
        ..Default::default()
    }
}

/// One output: the findings in `format`; JSON adds an `audit` member with
/// the record, human output the objects read and what could not be read.
fn render_one(a: &Audited, format: OutputFormat, color: bool) -> Result<String, String> {
    let summary = summary(a);
    let report = render::Report {
        diagnostics: &a.diagnostics,
        suppressed: &[],
        sources: &a.outcome.sources,
        summary: &summary,
        unparsed: None,
        not_read: None,
    };
    let human = render::human::Options {
        color,
        quiet: true,
        statistics: false,
        show_suppressed: false,
        width: None,
    };
    let mut buf = Vec::new();
    render::write(format, &report, &human, &mut buf)
        .map_err(|e| format!("rendering output: {e}"))?;
    let text = String::from_utf8_lossy(&buf).into_owned();
    Ok(match format {
        OutputFormat::Json => {
            let mut v: serde_json::Value =
                serde_json::from_str(&text).map_err(|e| e.to_string())?;
            if let Some(o) = v.as_object_mut() {
                o.insert(
                    "audit".into(),
                    serde_json::to_value(&a.record).map_err(|e| e.to_string())?,
                );
            }
            serde_json::to_string_pretty(&v).map_err(|e| e.to_string())? + "\n"
        }
        OutputFormat::Human => {
            let mut out = String::new();
            for d in &a.described {
                out.push_str(&format!("{}\n", d.path));
                for line in d.text().lines().skip(1) {
                    out.push_str(&format!("  {line}\n"));
                }
            }
            for t in &a.record.postgres {
                for line in size_lines(a, t) {
                    out.push_str(&format!("  {line}\n"));
                }
            }
            out.push('\n');
            out.push_str(&text);
            let s = &summary;
            out.push_str(&format!(
                "idemlint audit: {} PostgreSQL database{}, {} Redis instance{} read; {} finding{} ({} error{}, {} warning{}, {} note{})\n",
                a.record.postgres.len(), plural(a.record.postgres.len()),
                a.record.redis.len(), plural(a.record.redis.len()),
                s.diagnostics, plural(s.diagnostics),
                s.errors, plural(s.errors), s.warnings, plural(s.warnings), s.notes, plural(s.notes)
            ));
            out
        }
        _ => text,
    })
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// The live size of each store table beside the estimate for as many rows.
fn size_lines(a: &Audited, db: &super::facts::PgDatabase) -> Vec<String> {
    let inv = inventory::build(&a.outcome, &inventory::Options::default());
    db.tables
        .iter()
        .filter_map(|t| {
            let z = t.size.as_ref()?;
            let per_key = t
                .store
                .as_ref()
                .and_then(|n| {
                    inv.stores
                        .iter()
                        .find(|x| x.kind == Kind::SqlTable && &x.name == n)
                })
                .and_then(|x| x.size.as_ref())
                .map(|e| e.bytes_per_key);
            Some(format!(
                "size of {}: {}",
                t.name,
                super::live::size_text(z, per_key)
            ))
        })
        .collect()
}

/// `idemlint audit`: the exit code.
pub fn run(args: &AuditArgs) -> Result<u8, String> {
    if args.format.iter().filter(|f| f.path.is_none()).count() > 1 {
        return Err("at most one --format can go to standard output; send the others to files with FORMAT=FILE".into());
    }
    let a = audit(args)?;
    for line in unreadable(&a.record) {
        eprintln!("idemlint: audit: {}", redact_urls(&line));
    }
    if let Some(path) = &args.save {
        let text = serde_json::to_string_pretty(&a.record).map_err(|e| e.to_string())? + "\n";
        crate::fix::write_atomically(path, text.as_bytes())
            .map_err(|e| format!("{}: cannot write: {e}", path.display()))?;
        eprintln!("idemlint: audit: saved what was read to {}", path.display());
    }
    let specs: Vec<(OutputFormat, Option<PathBuf>)> = if args.format.is_empty() {
        vec![(OutputFormat::Human, None)]
    } else {
        args.format
            .iter()
            .map(|f| (f.format, f.path.clone()))
            .collect()
    };
    for (format, path) in specs {
        let color = match args.color {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => {
                path.is_none()
                    && std::env::var_os("NO_COLOR").is_none()
                    && std::io::stdout().is_terminal()
            }
        };
        let text = redact_urls(&render_one(&a, format, color)?);
        match path {
            Some(p) => crate::fix::write_atomically(&p, text.as_bytes())
                .map_err(|e| format!("{}: cannot write: {e}", p.display()))?,
            None => {
                use std::io::Write;
                let _ = std::io::stdout().write_all(text.as_bytes());
            }
        }
    }
    let fail_on = match args.fail_on {
        Some(FailOnArg::Error) => FailOn::Error,
        Some(FailOnArg::Warning) => FailOn::Warning,
        Some(FailOnArg::Note) => FailOn::Note,
        Some(FailOnArg::Never) => FailOn::Never,
        None => a.outcome.config.fail_on.unwrap_or(FailOn::Warning),
    };
    Ok(match fail_on.threshold() {
        Some(t) => u8::from(a.diagnostics.iter().any(|d| d.severity >= t)),
        None => 0,
    })
}
