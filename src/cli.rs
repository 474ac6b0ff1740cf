//! Command-line definitions (clap). No behaviour here.

use crate::render::Format;
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
    },
}

#[derive(Parser, Debug, Clone)]
pub struct CheckArgs {
    /// Files or directories to check; `-` reads standard input.
    pub paths: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value = "human")]
    pub format: Format,
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
