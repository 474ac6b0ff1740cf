//! The `idemlint` binary: parse arguments, call the library, map the outcome
//! to an exit code (0 clean, 1 findings at or above --fail-on, 2 untrusted run).

use clap::{CommandFactory, Parser};
use idemlint::baseline::Baseline;
use idemlint::cli::{BaselineCommand, CheckArgs, Cli, ColorChoice, Command, FailOnArg};
use idemlint::config::FailOn;
use idemlint::render::{self, Format, OutputFormat};
use idemlint::{catalogue, files, fix, ConfigChoice, Gate, Options};
use std::io::{IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

fn main() -> ExitCode {
    cap_malloc_arenas();
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => ExitCode::from(code),
        Err(message) => {
            eprintln!("idemlint: error: {message}");
            ExitCode::from(2)
        }
    }
}

/// At most two malloc arenas (glibc makes one for each thread that
/// allocates while the others hold theirs, up to eight a core). A run's
/// threads read in one phase what others free in the next, and every arena
/// keeps its own free memory resident: on 2 cores, capping them at two took
/// 5 to 7 MiB off the peak of omicron and medusa at the same time (bench/run
/// trees, 2026-12-03). `MALLOC_ARENA_MAX` in the environment still decides.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[allow(unsafe_code)]
fn cap_malloc_arenas() {
    if std::env::var_os("MALLOC_ARENA_MAX").is_none() {
        // SAFETY: `mallopt` takes an option and an int and touches only the
        // allocator's own settings, under its lock; it is called before any
        // other thread exists. A refusal (return 0) leaves glibc's default.
        unsafe {
            libc::mallopt(libc::M_ARENA_MAX, 2);
        }
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn cap_malloc_arenas() {}

fn run(cli: Cli) -> Result<u8, String> {
    match cli.command {
        Command::Rules { format } => {
            print_rules(format);
            Ok(0)
        }
        Command::Horizons {
            format,
            config,
            isolated,
            wide,
        } => {
            let choice = if isolated {
                ConfigChoice::Isolated
            } else if let Some(c) = config {
                ConfigChoice::File(c)
            } else {
                ConfigChoice::Discover
            };
            let cfg = idemlint::load_config(&choice, &[]).map_err(|e| e.to_string())?;
            let cat = idemlint::horizons::Catalogue::with_config(&cfg);
            match format {
                Format::Human => print!("{}", idemlint::horizons::render_table(&cat, wide)),
                Format::Json => println!("{}", idemlint::horizons::render_json(&cat)),
            }
            Ok(0)
        }
        Command::Explain { rule, format } => match catalogue::get(&rule) {
            Some(meta) => {
                match format {
                    Format::Human => print!("{}", meta.render_docs()),
                    Format::Json => println!(
                        "{}",
                        serde_json::to_string_pretty(&meta.to_json()).unwrap_or_default()
                    ),
                }
                Ok(0)
            }
            None => Err(match catalogue::closest(&rule) {
                Some(n) => format!("unknown rule `{rule}`; did you mean `{n}`?"),
                None => format!(
                    "unknown rule `{rule}`; known rules:\n  {}",
                    catalogue::names().join("\n  ")
                ),
            }),
        },
        Command::Check(args) => check(&args),
        Command::Baseline {
            command:
                BaselineCommand::Prune {
                    file,
                    paths,
                    write,
                    include_tests,
                    config,
                    isolated,
                },
        } => {
            let opts = Options {
                paths,
                stdin: None,
                config: config_choice(config, isolated),
                no_suppressions: false,
                include_tests,
                parse_timeout: None,
            };
            prune(&file, &opts, write)
        }
        Command::Init { path, force } => init(&path, force),
        Command::Inventory(args) => {
            let color = match args.color {
                ColorChoice::Always => true,
                ColorChoice::Never => false,
                ColorChoice::Auto => {
                    args.output.is_none()
                        && std::env::var_os("NO_COLOR").is_none()
                        && std::io::stdout().is_terminal()
                }
            };
            let text = idemlint::inventory_command::inventory(&args, color)?;
            write_report(args.output.as_deref(), &text)?;
            Ok(0)
        }
        Command::Audit(args) => idemlint::audit::command::run(&args),
        Command::Size(args) => {
            print_or_broken_pipe(&idemlint::inventory_command::size(&args)?)?;
            Ok(0)
        }
        Command::Completions { shell } => {
            let mut cmd = Cli::command();
            clap_complete::generate(shell, &mut cmd, "idemlint", &mut std::io::stdout());
            Ok(0)
        }
    }
}

fn config_choice(config: Option<PathBuf>, isolated: bool) -> ConfigChoice {
    if isolated {
        ConfigChoice::Isolated
    } else if let Some(c) = config {
        ConfigChoice::File(c)
    } else {
        ConfigChoice::Discover
    }
}

/// `check`: run, then write the baseline, the fixes or the reports, and map
/// the outcome to an exit code.
fn check(args: &CheckArgs) -> Result<u8, String> {
    let outputs = outputs(args)?;
    match check_outputs(args, &outputs) {
        Ok(code) => Ok(code),
        Err(message) => {
            // A SARIF file still records that the analysis failed, so an
            // upload shows a failed run rather than a clean one.
            for o in &outputs {
                if let (OutputFormat::Sarif, Destination::File(path)) = (o.format, &o.to) {
                    let _ = std::fs::write(path, render::sarif::render_failure(&message) + "\n");
                }
            }
            Err(message)
        }
    }
}

/// The text of standard input and the name to report it under, when `-`
/// is a path and the run allows it.
fn read_stdin(args: &CheckArgs, reads_stdin: bool) -> Result<Option<(String, String)>, String> {
    if !reads_stdin {
        return Ok(None);
    }
    if args.staged || args.changed_since.is_some() || args.rev.is_some() {
        return Err(
            "`-` (standard input) cannot be read with --staged, --changed-since or --rev".into(),
        );
    }
    if args.fix {
        return Err("--fix cannot write standard input; use --diff".into());
    }
    let name = args
        .stdin_filename
        .clone()
        .ok_or("reading `-` needs --stdin-filename NAME")?;
    let mut text = String::new();
    std::io::stdin()
        .read_to_string(&mut text)
        .map_err(|e| format!("standard input: {e}"))?;
    Ok(Some((name, text)))
}

/// Where the files of a check come from.
fn mode_of(args: &CheckArgs) -> files::Mode {
    if let Some(rev) = &args.rev {
        files::Mode::Revision(rev.clone())
    } else if args.staged {
        files::Mode::Staged
    } else if let Some(rev) = &args.changed_since {
        files::Mode::ChangedSince(rev.clone())
    } else {
        files::Mode::WorkTree
    }
}

/// Render the outcome to every output.
fn render_outputs(
    args: &CheckArgs,
    outputs: &[Output],
    outcome: &idemlint::Outcome,
) -> Result<(), String> {
    let report = render::Report {
        diagnostics: &outcome.diagnostics,
        suppressed: if args.show_suppressed
            || outputs.iter().any(|o| o.format == OutputFormat::Sarif)
        {
            &outcome.suppressed
        } else {
            &[]
        },
        sources: &outcome.sources,
        summary: &outcome.summary,
        unparsed: args.verbose.then_some(outcome.unparsed.as_slice()),
        not_read: args.verbose.then_some(outcome.not_read.as_slice()),
    };
    for o in outputs {
        let human = render::human::Options {
            color: o.color(args.color),
            quiet: args.quiet,
            statistics: args.statistics,
            show_suppressed: args.show_suppressed,
            width: None,
        };
        let mut buf = Vec::new();
        render::write(o.format, &report, &human, &mut buf)
            .map_err(|e| format!("rendering output: {e}"))?;
        match &o.to {
            Destination::File(path) => {
                if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
                    std::fs::create_dir_all(dir)
                        .map_err(|e| format!("{}: cannot write: {e}", path.display()))?;
                }
                fix::write_atomically(path, &buf)
                    .map_err(|e| format!("{}: cannot write: {e}", path.display()))?
            }
            Destination::Stdout => print_or_broken_pipe(&String::from_utf8_lossy(&buf))?,
            Destination::Stderr => {
                let _ = std::io::stderr().write_all(&buf);
            }
        }
    }
    Ok(())
}

/// A run that read nothing is no clean bill of health: an error, unless
/// the run asked for staged or changed files and there are none.
fn nothing_to_check(mode: &files::Mode, summary: &render::Summary) -> Result<(), String> {
    if summary.files_scanned != 0 {
        return Ok(());
    }
    // Nothing read is no clean bill of health. With --staged or
    // --changed-since an empty selection is what was asked for.
    let what = match mode {
        files::Mode::Staged => Some("no staged file"),
        files::Mode::ChangedSince(_) => Some("no changed file"),
        files::Mode::WorkTree | files::Mode::Revision(_) => None,
    };
    if let Some(what) = what {
        eprintln!("idemlint: nothing to check: {what} is of a kind idemlint reads");
    } else {
        return Err(
            "nothing to check: no file under the given paths is of a kind idemlint reads (Rust, SQL, YAML, JSON, TOML, Terraform, .env, Redis and nginx configs, other source text), or every one is excluded (`exclude` in the config, .gitignore)".into(),
        );
    }
    Ok(())
}

/// The severity at which the run fails: `--fail-on`, else the config's.
fn fail_on(arg: Option<FailOnArg>, config: &idemlint::config::Config) -> FailOn {
    match arg {
        Some(FailOnArg::Error) => FailOn::Error,
        Some(FailOnArg::Warning) => FailOn::Warning,
        Some(FailOnArg::Note) => FailOn::Note,
        Some(FailOnArg::Never) => FailOn::Never,
        None => config.fail_on.unwrap_or(FailOn::Warning),
    }
}

fn check_outputs(args: &CheckArgs, outputs: &[Output]) -> Result<u8, String> {
    let reads_stdin = args.paths.iter().any(|p| p.as_os_str() == "-");
    if !reads_stdin && args.stdin_filename.is_some() {
        return Err(
            "--stdin-filename names standard input, which is read only when `-` is a path: `idemlint check - --stdin-filename NAME`".into(),
        );
    }
    binary_paths(&args.paths)?;
    let stdin = read_stdin(args, reads_stdin)?;
    let opts = Options {
        paths: args.paths.clone(),
        stdin,
        config: config_choice(args.config.clone(), args.isolated),
        no_suppressions: args.no_suppressions,
        include_tests: args.include_tests,
        parse_timeout: args.parse_timeout,
    };
    let mode = mode_of(args);
    let gate = || -> Result<Gate, String> {
        let cwd = std::env::current_dir().map_err(|e| e.to_string())?;
        let paths: Vec<PathBuf> = args
            .paths
            .iter()
            .filter(|p| p.as_os_str() != "-")
            .cloned()
            .collect();
        Ok(Gate {
            files: files::Selection::resolve(&mode, &paths, &cwd).map_err(|e| e.to_string())?,
            baseline: match &args.baseline {
                Some(p) => Some(Baseline::load(p).map_err(|e| e.to_string())?),
                None => None,
            },
            exhaustive: args.exhaustive,
        })
    };
    let gate_now = gate()?;
    if let Some(r) = gate_now.files.revision() {
        eprintln!(
            "idemlint: checking commit {} ({}, {}): {}",
            r.commit, r.rev, r.date, r.subject
        );
    }
    if args.timings || idemlint::timings::from_env() {
        idemlint::timings::walks::enable();
    }
    let mut outcome = idemlint::check_with(&opts, &gate_now).map_err(|e| e.to_string())?;
    if !reads_stdin {
        nothing_to_check(&mode, &outcome.summary)?;
    }
    if let Some(path) = &args.write_baseline {
        if !outcome.crashed.is_empty() {
            return Err(format!(
                "no baseline written: idemlint crashed reading {} (a bug to report)",
                outcome.crashed.join(", ")
            ));
        }
        let b = Baseline::of(&outcome.diagnostics, &outcome.sources);
        b.save(path).map_err(|e| e.to_string())?;
        eprintln!(
            "idemlint: wrote {} to {}",
            plural(b.findings.len(), "finding"),
            path.display()
        );
        return Ok(0);
    }
    if args.diff {
        let plan = fix::plan(&outcome.diagnostics, &outcome.sources);
        print_or_broken_pipe(&plan.diff())?;
        eprintln!(
            "idemlint: {} to fix in {}",
            plural(plan.fixed.len(), "finding"),
            plural(plan.files.len(), "file")
        );
        return Ok(u8::from(!plan.fixed.is_empty()));
    }
    let mut fixed = None;
    if args.fix {
        let plan = fix::plan(&outcome.diagnostics, &outcome.sources);
        plan.apply().map_err(|e| format!("writing a fix: {e}"))?;
        if !plan.fixed.is_empty() {
            // Spans after a fix moved: what remains is what a new run finds.
            outcome = idemlint::check_with(&opts, &gate()?).map_err(|e| e.to_string())?;
        }
        fixed = Some(plan.fixed.len());
    }

    let render_started = std::time::Instant::now();
    render_outputs(args, outputs, &outcome)?;
    if args.timings || idemlint::timings::from_env() {
        eprint!("{}", outcome.timings.report(render_started.elapsed()));
        eprint!("{}", idemlint::timings::walks::report());
    }
    if let Some(n) = fixed {
        eprintln!(
            "idemlint: fixed {}, {} remain",
            plural(n, "finding"),
            outcome.diagnostics.len()
        );
    }
    let fail_on = fail_on(args.fail_on, &outcome.config);
    if !outcome.crashed.is_empty() {
        // A file's facts are missing for a reason that is idemlint's own:
        // the findings above are reported, but the run is not trusted.
        eprintln!(
            "idemlint: error: crashed reading {}; the other files were checked (a bug to report)",
            plural(outcome.crashed.len(), "file")
        );
        return Ok(2);
    }
    let code = u8::from(outcome.fails(fail_on));
    // The process ends with this command: the model, the texts and the
    // facts are left to the operating system instead of being freed one
    // allocation at a time (on one thread, after the output is written).
    std::mem::forget(outcome);
    Ok(code)
}

/// A file named on the command line that is binary (a NUL byte in its
/// first 8 KiB) is a mistaken path, not a file to skip: the run stops
/// (exit 2). Found by a directory walk, such a file is only reported.
fn binary_paths(paths: &[PathBuf]) -> Result<(), String> {
    for p in paths.iter().filter(|p| p.as_os_str() != "-" && p.is_file()) {
        let mut head = [0u8; 8192];
        let n = std::fs::File::open(p)
            .and_then(|mut f| f.read(&mut head))
            .unwrap_or(0);
        if memchr_nul(&head[..n]) {
            return Err(format!(
                "{}: a binary file (a NUL byte), not text idemlint can check",
                p.display()
            ));
        }
    }
    Ok(())
}

fn memchr_nul(bytes: &[u8]) -> bool {
    bytes.contains(&0)
}

/// A report to a file (written whole) or to standard output.
fn write_report(path: Option<&Path>, text: &str) -> Result<(), String> {
    match path {
        Some(p) => fix::write_atomically(p, text.as_bytes())
            .map_err(|e| format!("{}: cannot write: {e}", p.display())),
        None => print_or_broken_pipe(text),
    }
}

fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        format!("{n} {word}")
    } else {
        format!("{n} {word}s")
    }
}

fn print_or_broken_pipe(text: &str) -> Result<(), String> {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|_| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(format!("writing output: {e}")),
        _ => Ok(()),
    }
}

enum Destination {
    Stdout,
    Stderr,
    File(PathBuf),
}

struct Output {
    format: OutputFormat,
    to: Destination,
}

impl Output {
    fn color(&self, choice: ColorChoice) -> bool {
        match choice {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => {
                std::env::var_os("NO_COLOR").is_none()
                    && match self.to {
                        Destination::Stdout => std::io::stdout().is_terminal(),
                        Destination::Stderr => std::io::stderr().is_terminal(),
                        Destination::File(_) => false,
                    }
            }
        }
    }
}

/// Where each format goes: the `--format` values, or the default (human;
/// github annotations with human on standard error in GitHub Actions).
fn outputs(args: &CheckArgs) -> Result<Vec<Output>, String> {
    if args.format.is_empty() {
        if std::env::var("GITHUB_ACTIONS").is_ok_and(|v| v == "true") {
            return Ok(vec![
                Output {
                    format: OutputFormat::Github,
                    to: Destination::Stdout,
                },
                Output {
                    format: OutputFormat::Human,
                    to: Destination::Stderr,
                },
            ]);
        }
        return Ok(vec![Output {
            format: OutputFormat::Human,
            to: Destination::Stdout,
        }]);
    }
    if args.format.iter().filter(|f| f.path.is_none()).count() > 1 {
        return Err(
            "at most one --format can go to standard output; send the others to files with FORMAT=FILE"
                .into(),
        );
    }
    Ok(args
        .format
        .iter()
        .map(|f| Output {
            format: f.format,
            to: f
                .path
                .clone()
                .map_or(Destination::Stdout, Destination::File),
        })
        .collect())
}

/// `init`: write the starter config, never over an existing one unless forced.
fn init(dir: &Path, force: bool) -> Result<u8, String> {
    if !dir.is_dir() {
        return Err(format!("{}: not a directory", dir.display()));
    }
    let target = dir.join("idemlint.toml");
    if !force {
        for name in idemlint::config::CONFIG_NAMES {
            let existing = dir.join(name);
            if existing.exists() {
                return Err(format!(
                    "{} already exists; `idemlint init --force` overwrites it",
                    existing.display()
                ));
            }
        }
    }
    // The stores as idemlint finds them on its own, not as an old config
    // declares them.
    let opts = Options {
        paths: vec![dir.to_path_buf()],
        stdin: None,
        config: ConfigChoice::Isolated,
        no_suppressions: false,
        include_tests: false,
        parse_timeout: None,
    };
    let outcome = idemlint::check(&opts).map_err(|e| e.to_string())?;
    let cwd = std::env::current_dir().map_err(|e| e.to_string())?;
    let base = idemlint::walk::display_path(dir, &cwd);
    let (text, stores) = idemlint::init::starter(&outcome, &base);
    fix::write_atomically(&target, text.as_bytes())
        .map_err(|e| format!("{}: cannot write: {e}", target.display()))?;
    eprintln!(
        "idemlint: wrote {} with {}; confirm or correct each counterparty",
        target.display(),
        plural(stores, "store")
    );
    Ok(0)
}

/// `baseline prune`: the entries no current finding matches.
fn prune(file: &Path, opts: &Options, write: bool) -> Result<u8, String> {
    let baseline = Baseline::load(file).map_err(|e| e.to_string())?;
    let outcome = idemlint::check(opts).map_err(|e| e.to_string())?;
    let stale = baseline.stale(&outcome.diagnostics);
    let mut text = String::new();
    for e in &stale {
        text.push_str(&format!(
            "{}: {}: {} ({})\n",
            e.path, e.rule, e.message, e.fingerprint
        ));
    }
    print_or_broken_pipe(&text)?;
    if write && !stale.is_empty() {
        baseline
            .without(&stale)
            .save(file)
            .map_err(|e| e.to_string())?;
        eprintln!(
            "idemlint: removed {} from {}",
            plural(stale.len(), "stale entry").replace("entrys", "entries"),
            file.display()
        );
        return Ok(0);
    }
    eprintln!(
        "idemlint: {} of {} no longer match a finding",
        stale.len(),
        plural(baseline.findings.len(), "baseline entry").replace("entrys", "entries")
    );
    Ok(u8::from(!stale.is_empty() && !write))
}

fn print_rules(format: Format) {
    let all = catalogue::all();
    match format {
        Format::Json => {
            let rows: Vec<serde_json::Value> = all
                .iter()
                .map(|m| {
                    serde_json::json!({
                        "name": m.name,
                        "default_severity": m.default_severity,
                        "status": m.status(),
                        "summary": m.summary,
                    })
                })
                .collect();
            println!(
                "{}",
                serde_json::to_string_pretty(&rows).unwrap_or_default()
            );
        }
        Format::Human => {
            let width = all.iter().map(|m| m.name.len()).max().unwrap_or(0);
            for m in all {
                let status = if m.is_built() { "" } else { "  (planned)" };
                println!(
                    "{:width$}  {:7}  {}{}",
                    m.name, m.default_severity, m.summary, status
                );
            }
        }
    }
}
