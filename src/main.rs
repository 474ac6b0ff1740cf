//! The `idemlint` binary: parse arguments, call the library, map the outcome
//! to an exit code (0 clean, 1 findings at or above --fail-on, 2 untrusted run).

use clap::Parser;
use idemlint::cli::{Cli, ColorChoice, Command, FailOnArg};
use idemlint::config::FailOn;
use idemlint::render::{self, Format};
use idemlint::{catalogue, ConfigChoice, Options};
use std::io::{IsTerminal, Read, Write};
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => ExitCode::from(code),
        Err(message) => {
            eprintln!("idemlint: error: {message}");
            ExitCode::from(2)
        }
    }
}

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
        Command::Explain { rule } => match catalogue::get(&rule) {
            Some(meta) => {
                print!("{}", meta.render_docs());
                Ok(0)
            }
            None => Err(format!(
                "unknown rule `{rule}`; known rules:\n  {}",
                catalogue::names().join("\n  ")
            )),
        },
        Command::Check(args) => {
            let stdin = if args.paths.iter().any(|p| p.as_os_str() == "-") {
                let name = args
                    .stdin_filename
                    .clone()
                    .ok_or("reading `-` needs --stdin-filename NAME")?;
                let mut text = String::new();
                std::io::stdin()
                    .read_to_string(&mut text)
                    .map_err(|e| format!("standard input: {e}"))?;
                Some((name, text))
            } else {
                None
            };
            let opts = Options {
                paths: args.paths.clone(),
                stdin,
                config: if args.isolated {
                    ConfigChoice::Isolated
                } else if let Some(c) = &args.config {
                    ConfigChoice::File(c.clone())
                } else {
                    ConfigChoice::Discover
                },
                no_suppressions: args.no_suppressions,
                include_tests: args.include_tests,
            };
            let outcome = idemlint::check(&opts).map_err(|e| e.to_string())?;
            let color = match args.color {
                ColorChoice::Always => true,
                ColorChoice::Never => false,
                ColorChoice::Auto => {
                    std::env::var_os("NO_COLOR").is_none() && std::io::stdout().is_terminal()
                }
            };
            let mut out = std::io::stdout().lock();
            let written = match args.format {
                Format::Human => render::human::render(
                    &outcome.diagnostics,
                    &outcome.sources,
                    &outcome.summary,
                    color,
                    &mut out,
                ),
                Format::Json => writeln!(
                    out,
                    "{}",
                    render::json::render(&outcome.diagnostics, &outcome.sources, &outcome.summary)
                ),
            };
            if let Err(e) = written.and_then(|_| out.flush()) {
                if e.kind() != std::io::ErrorKind::BrokenPipe {
                    return Err(format!("writing output: {e}"));
                }
            }
            let fail_on = match args.fail_on {
                Some(FailOnArg::Error) => FailOn::Error,
                Some(FailOnArg::Warning) => FailOn::Warning,
                Some(FailOnArg::Note) => FailOn::Note,
                Some(FailOnArg::Never) => FailOn::Never,
                None => outcome.config.fail_on.unwrap_or(FailOn::Warning),
            };
            Ok(u8::from(outcome.fails(fail_on)))
        }
    }
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
                        "status": if m.is_built() { "built" } else { "planned" },
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
