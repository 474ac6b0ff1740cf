//! Command-line definitions (clap). No behaviour here.

use crate::render::{Format, OutputFormat};
use clap::{Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

#[derive(Parser, Debug)]
#[command(
    name = "idemlint",
    version,
    about = "Finds idempotency-key mistakes in payment codebases before they double-apply a money movement"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Check files and directories (default: the current directory).
    Check(CheckArgs),
    /// List every rule with its default severity.
    Rules {
        #[arg(long, value_enum, default_value = "human")]
        format: Format,
    },
    /// Print the counterparty catalogue: each published replay window with
    /// its direction and source, and the floors idemlint checks against.
    Horizons {
        #[arg(long, value_enum, default_value = "human")]
        format: Format,
        /// Use this config file (its `[[counterparty]]`, `margin` and
        /// `default_horizon`) instead of discovering one.
        #[arg(long, conflicts_with = "isolated")]
        config: Option<PathBuf>,
        /// Print the built-in catalogue only, ignoring every config file.
        #[arg(long)]
        isolated: bool,
        /// One unwrapped line per window, with the quote and note, instead
        /// of the table wrapped to 100 columns.
        #[arg(long)]
        wide: bool,
    },
    /// Print a rule's documentation.
    Explain {
        /// The rule's name, e.g. misspelled-idempotency-header.
        rule: String,
        #[arg(long, value_enum, default_value = "human")]
        format: Format,
    },
    /// Maintain a baseline file written by `check --write-baseline`.
    Baseline {
        #[command(subcommand)]
        command: BaselineCommand,
    },
    /// Write a commented starter idemlint.toml listing the stores found,
    /// each with the counterparty idemlint inferred, to confirm or correct.
    Init {
        /// The repository (or directory) to scan and write the file into.
        #[arg(default_value = ".")]
        path: PathBuf,
        /// Overwrite an existing idemlint.toml.
        #[arg(long)]
        force: bool,
    },
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell).
    Completions { shell: clap_complete::Shell },
    /// List every idempotency store: definition, unique guard, retention,
    /// counterparty with horizon, floor and coverage, Redis eviction,
    /// writers, size at the floor, and the findings about it.
    Inventory(InventoryArgs),
    /// Estimate the PostgreSQL storage of a store table at a write rate,
    /// from its columns and indexes as the migrations leave them.
    Size(SizeArgs),
    /// Read the deployed stores, read-only (PostgreSQL catalogues and
    /// statistics, Redis CONFIG/INFO/SCAN), and judge them beside the code.
    Audit(AuditArgs),
}

#[derive(Parser, Debug, Clone)]
pub struct AuditArgs {
    /// The repository (files or directories) whose stores to audit
    /// (default: the current directory).
    pub paths: Vec<PathBuf>,
    /// A PostgreSQL database to read (repeatable):
    /// `postgres://user@host:5432/db?sslmode=require`.
    #[arg(long, value_name = "URL")]
    pub postgres: Vec<String>,
    /// An environment variable holding a PostgreSQL URL (repeatable), so a
    /// password never has to be typed: `--postgres-env DATABASE_URL`.
    #[arg(long, value_name = "VAR")]
    pub postgres_env: Vec<String>,
    /// A Redis instance to read (repeatable): `redis://host:6379`,
    /// `rediss://:password@host:6380` (TLS).
    #[arg(long, value_name = "URL")]
    pub redis: Vec<String>,
    /// An environment variable holding a Redis URL (repeatable).
    #[arg(long, value_name = "VAR")]
    pub redis_env: Vec<String>,
    /// Output formats, as for `check`: FORMAT or FORMAT=FILE, repeatable.
    #[arg(long, value_name = "FORMAT[=FILE]", value_delimiter = ',', value_parser = format_spec)]
    pub format: Vec<FormatSpec>,
    /// Write what was read (no password, no key beyond its prefix) to FILE,
    /// for a post-mortem and `inventory --live FILE`.
    #[arg(long, value_name = "FILE")]
    pub save: Option<PathBuf>,
    /// Lowest severity that makes the run exit 1.
    #[arg(long, value_enum)]
    pub fail_on: Option<FailOnArg>,
    /// Seconds to wait for a connection (and its TLS and authentication).
    #[arg(long, value_name = "SECS", default_value = "5", value_parser = parse_timeout)]
    pub connect_timeout: std::time::Duration,
    /// PostgreSQL `statement_timeout`, and the Redis read timeout, in seconds.
    #[arg(long, value_name = "SECS", default_value = "5", value_parser = parse_timeout)]
    pub statement_timeout: std::time::Duration,
    /// Rows sampled at most for a table's oldest row when no index leads
    /// with its timestamp column.
    #[arg(long, value_name = "N", default_value_t = 10_000)]
    pub sample_rows: u64,
    /// Keys sampled at most per Redis store prefix.
    #[arg(long, value_name = "N", default_value_t = 1_000)]
    pub redis_sample: u64,
    /// Seconds spent at most scanning per Redis store prefix.
    #[arg(long, value_name = "SECS", default_value = "5", value_parser = parse_timeout)]
    pub redis_time_limit: std::time::Duration,
    /// Colour in human output.
    #[arg(long, value_enum, default_value = "auto")]
    pub color: ColorChoice,
    /// Use this config file instead of discovering one.
    #[arg(long, conflicts_with = "isolated")]
    pub config: Option<PathBuf>,
    /// Ignore every config file.
    #[arg(long)]
    pub isolated: bool,
}

#[derive(Parser, Debug, Clone)]
pub struct InventoryArgs {
    /// Files or directories to read (default: the current directory).
    pub paths: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value = "terminal")]
    pub format: InventoryFormat,
    /// Write the report to FILE instead of standard output.
    #[arg(long, short, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Read the repository as it was at commit REV (through git; the work
    /// tree is not touched).
    #[arg(long, value_name = "REV")]
    pub rev: Option<String>,
    /// Show the findings suppression comments hide, with their reasons.
    #[arg(long)]
    pub no_suppressions: bool,
    /// Write rate for the size at the floor (`20/s`, `1200/min`); without
    /// it the size is given for each write a second.
    #[arg(long, value_name = "RATE")]
    pub rate: Option<String>,
    /// Colour in the terminal format.
    #[arg(long, value_enum, default_value = "auto")]
    pub color: ColorChoice,
    /// Use this config file instead of discovering one.
    #[arg(long, conflicts_with = "isolated")]
    pub config: Option<PathBuf>,
    /// Ignore every config file.
    #[arg(long)]
    pub isolated: bool,
    /// Count test code (tests/, fixtures/, ...) too.
    #[arg(long)]
    pub include_tests: bool,
    /// Show what `audit --save FILE` read from the deployed stores beside
    /// what the code says.
    #[arg(long, value_name = "FILE")]
    pub live: Option<PathBuf>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum InventoryFormat {
    Terminal,
    Markdown,
    Json,
    Html,
}

#[derive(Parser, Debug, Clone)]
pub struct SizeArgs {
    /// The table, as the migrations name it.
    #[arg(long, value_name = "NAME")]
    pub table: String,
    /// Files or directories to read (default: the current directory).
    pub paths: Vec<PathBuf>,
    /// Write rate: `20/s`, `1200/min`, `5000/h`, `100000/d`.
    #[arg(long, value_name = "RATE")]
    pub rate: String,
    /// Also the size after this many days of keys.
    #[arg(long, value_name = "D")]
    pub days: Option<String>,
    /// The typical size of a variable-length column's values, in bytes
    /// (repeatable): `--assume response_body=900`.
    #[arg(long, value_name = "COLUMN=BYTES")]
    pub assume: Vec<String>,
    /// Output format.
    #[arg(long, value_enum, default_value = "human")]
    pub format: Format,
    /// Read the repository as it was at commit REV.
    #[arg(long, value_name = "REV")]
    pub rev: Option<String>,
    /// Use this config file instead of discovering one.
    #[arg(long, conflicts_with = "isolated")]
    pub config: Option<PathBuf>,
    /// Ignore every config file.
    #[arg(long)]
    pub isolated: bool,
}

#[derive(Subcommand, Debug)]
pub enum BaselineCommand {
    /// List baseline entries that no current finding matches (fixed, moved
    /// or renamed); exits 1 when there are some, unless `--write` drops them.
    Prune {
        /// The baseline file.
        file: PathBuf,
        /// Files or directories to check (default: the current directory).
        paths: Vec<PathBuf>,
        /// Rewrite the file without the stale entries.
        #[arg(long)]
        write: bool,
        /// Judge test code too (as the check that wrote the baseline did).
        #[arg(long)]
        include_tests: bool,
        /// Use this config file instead of discovering one.
        #[arg(long, conflicts_with = "isolated")]
        config: Option<PathBuf>,
        /// Ignore every config file.
        #[arg(long)]
        isolated: bool,
    },
}

/// One `--format` value: a format, and the file it goes to (standard output
/// when none).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FormatSpec {
    pub format: OutputFormat,
    pub path: Option<PathBuf>,
}

fn format_spec(s: &str) -> Result<FormatSpec, String> {
    let (name, path) = match s.split_once('=') {
        Some((n, "")) => return Err(format!("`{n}=` names no file")),
        Some((n, p)) => (n, Some(PathBuf::from(p))),
        None => (s, None),
    };
    let format = OutputFormat::parse(name).ok_or_else(|| {
        let names: Vec<&str> = OutputFormat::ALL.iter().map(|(n, _)| *n).collect();
        format!("unknown format `{name}`; one of: {}", names.join(", "))
    })?;
    Ok(FormatSpec { format, path })
}

#[derive(Parser, Debug, Clone)]
pub struct CheckArgs {
    /// Files or directories to check; `-` reads standard input.
    pub paths: Vec<PathBuf>,
    /// Output formats: human, json, sarif, github, gitlab, junit; each as
    /// FORMAT (standard output) or FORMAT=FILE. Repeat the flag or separate
    /// with commas; at most one format goes to standard output. Default:
    /// human, or github (with human on standard error) when GITHUB_ACTIONS
    /// is true.
    #[arg(long, value_name = "FORMAT[=FILE]", value_delimiter = ',', value_parser = format_spec)]
    pub format: Vec<FormatSpec>,
    /// Human output: the findings only, no summary line.
    #[arg(long, short)]
    pub quiet: bool,
    /// Human output: a count per rule instead of the reports.
    #[arg(long)]
    pub statistics: bool,
    /// Human and SARIF output: show suppressed findings, with their reasons.
    #[arg(long)]
    pub show_suppressed: bool,
    /// Lowest severity that makes the run exit 1.
    #[arg(long, value_enum)]
    pub fail_on: Option<FailOnArg>,
    /// Colour in human output.
    #[arg(long, value_enum, default_value = "auto")]
    pub color: ColorChoice,
    /// The path to report for standard input (`-`), which also sets its kind.
    #[arg(long)]
    pub stdin_filename: Option<String>,
    /// Use this config file instead of discovering one.
    #[arg(long, conflicts_with = "isolated")]
    pub config: Option<PathBuf>,
    /// Ignore every config file.
    #[arg(long)]
    pub isolated: bool,
    /// Report everything, ignoring suppression comments (post-mortems).
    #[arg(long)]
    pub no_suppressions: bool,
    /// Judge test code (tests/, fixtures/, *_test.go, #[cfg(test)], ...)
    /// with the retention, header and flow rules too.
    #[arg(long)]
    pub include_tests: bool,
    /// Give up on a file whose front end takes longer than SECS, with a
    /// parse-error, and go on (default: 5 s plus 1 s per MiB of the file).
    #[arg(long, value_name = "SECS", value_parser = parse_timeout)]
    pub parse_timeout: Option<std::time::Duration>,
    /// Record the current findings in FILE (and exit 0), for `--baseline`.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["baseline", "fix", "diff"])]
    pub write_baseline: Option<PathBuf>,
    /// Hide the findings FILE records; report only new ones.
    #[arg(long, value_name = "FILE")]
    pub baseline: Option<PathBuf>,
    /// Check what is staged for commit (the git index, not the work tree);
    /// report findings in staged files only, judged against the whole
    /// repository as staged.
    #[arg(long, conflicts_with = "changed_since")]
    pub staged: bool,
    /// Check the repository as it was at commit REV (read through git; the
    /// work tree is not touched); the commit and its date are named on
    /// standard error.
    #[arg(long, value_name = "REV", conflicts_with_all = ["staged", "changed_since", "fix", "diff"])]
    pub rev: Option<String>,
    /// Report findings only in files changed since the merge base with REV
    /// (committed, uncommitted or untracked), judged against the whole
    /// repository.
    #[arg(long, value_name = "REV")]
    pub changed_since: Option<String>,
    /// Apply the safe fixes in place, then report what remains.
    #[arg(long, conflicts_with_all = ["diff", "staged"])]
    pub fix: bool,
    /// Print the safe fixes as a unified diff without writing; exit 1 when
    /// there is something to fix.
    #[arg(long, conflicts_with = "staged")]
    pub diff: bool,
    /// Also list the files (and statements) not read in full whose unread
    /// part cannot hold what idemlint checks, which the summary counts as
    /// `files_unparsed`.
    #[arg(long, short)]
    pub verbose: bool,
    /// Print where the time went to standard error: each phase's wall time
    /// and, per file kind, the files scanned, let through by the prefilter
    /// and parsed (also `IDEMLINT_TIMINGS=1`).
    #[arg(long)]
    pub timings: bool,
    /// Read every file whole, with no prefilter (also
    /// `IDEMLINT_EXHAUSTIVE=1`): slower, the same findings. The oracle
    /// that the prefilter is tested against.
    #[arg(long)]
    pub exhaustive: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FailOnArg {
    Error,
    Warning,
    Note,
    Never,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    Auto,
    Always,
    Never,
}

/// `--parse-timeout`: a positive number of seconds.
fn parse_timeout(s: &str) -> Result<std::time::Duration, String> {
    match s.parse::<f64>() {
        Ok(n) if n.is_finite() && n > 0.0 && n < 1e9 => Ok(std::time::Duration::from_secs_f64(n)),
        _ => Err(format!("`{s}` is not a positive number of seconds")),
    }
}
