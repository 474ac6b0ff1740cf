//! What a run is given and what every step of it reads: the options, the
//! gate, the config, the thread pool, the test roots, and the errors that
//! stop a run. Below the pipeline's steps (`read`, `schedule`) and
//! `check_with`, which all take a [`Run`].

use crate::config::{self, Config};
use crate::facts::FileFacts;
use crate::source::{FileKind, SourceMap};
use crate::{baseline, files, model, test_code, walk};
use std::path::{Path, PathBuf};

/// Files larger than this are reported and not parsed.
pub const MAX_FILE_BYTES: u64 = 16 * 1024 * 1024;

/// The start of the `parse-error` message of a file past its time bound.
pub(crate) const GAVE_UP: &str = "gave up on this file after";

/// Stack for parser threads: generous, on top of each front end's depth guard.
pub(crate) const PARSER_STACK_BYTES: usize = 64 * 1024 * 1024;

#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error(transparent)]
    Config(#[from] config::ConfigError),
    #[error(transparent)]
    Walk(#[from] walk::WalkError),
    #[error("standard input: {0}")]
    Stdin(std::io::Error),
    #[error(transparent)]
    Files(#[from] files::FilesError),
    #[error("internal error: {0}")]
    Internal(String),
}

/// How to find the config.
#[derive(Debug, Clone)]
pub enum ConfigChoice {
    Discover,
    File(PathBuf),
    Isolated,
}

#[derive(Debug, Clone)]
pub struct Options {
    pub paths: Vec<PathBuf>,
    /// Text for the path `-`, and the name to report it under.
    pub stdin: Option<(String, String)>,
    pub config: ConfigChoice,
    pub no_suppressions: bool,
    /// Judge test code with every rule (`--include-tests`).
    pub include_tests: bool,
    /// The time a front end may take on any one file (`--parse-timeout`);
    /// `None` is the default bound, which grows with the file's size.
    pub parse_timeout: Option<std::time::Duration>,
}

/// What a CI gate adds to a check: where the files come from (work tree,
/// git index, revision) and which of them are reported, the findings a
/// baseline already records, and whether every file is read whole. The
/// default is a plain check of the work tree.
#[derive(Debug, Default)]
pub struct Gate {
    pub files: files::Selection,
    pub baseline: Option<baseline::Baseline>,
    /// Read every discovered file whole (`check --exhaustive`, also
    /// `IDEMLINT_EXHAUSTIVE=1`): no prefilter, no constants-only or
    /// around-its-words reads, nothing held back. The findings must be the
    /// same as without it; it is the oracle the prefilter is held to
    /// (docs/performance.md).
    pub exhaustive: bool,
}

/// Whether `IDEMLINT_EXHAUSTIVE` asks for the exhaustive reading
/// ([`Gate::exhaustive`]): set, not empty and not `0`.
pub fn exhaustive_from_env() -> bool {
    std::env::var_os("IDEMLINT_EXHAUSTIVE").is_some_and(|v| !v.is_empty() && v != "0")
}

/// The directory arguments of a run, absolute and without `.` parts, so a
/// file's path can be taken relative to the one it was found under.
pub(crate) struct TestRoots {
    cwd: PathBuf,
    dirs: Vec<PathBuf>,
}

impl TestRoots {
    pub(crate) fn new(paths: &[PathBuf], cwd: &Path) -> Self {
        let mut roots = TestRoots {
            cwd: cwd.to_path_buf(),
            dirs: Vec::new(),
        };
        roots.dirs = paths
            .iter()
            .filter(|r| r.is_dir())
            .map(|r| roots.clean(r))
            .collect();
        roots
    }

    fn clean(&self, p: &Path) -> PathBuf {
        self.cwd
            .join(p)
            .components()
            .filter(|c| !matches!(c, std::path::Component::CurDir))
            .collect()
    }

    /// Whether a file is test code by its path.
    pub(crate) fn test_path(&self, display: &str) -> bool {
        test_code::test_code().is_test_path(&self.relative(display))
    }

    /// A discovered file's path relative to the directory argument it was
    /// found under (the whole path for a file named on the command line).
    pub(crate) fn relative(&self, display: &str) -> String {
        let file = self.clean(Path::new(display));
        self.dirs
            .iter()
            .filter_map(|r| file.strip_prefix(r).ok())
            .map(|rest| rest.to_string_lossy().replace('\\', "/"))
            .min_by_key(String::len)
            .unwrap_or_else(|| display.replace('\\', "/"))
    }
}

/// What every step of a run reads: its options and gate, where it runs,
/// its config, and the thread pool its parallel steps share.
pub(crate) struct Run<'a> {
    pub(crate) opts: &'a Options,
    pub(crate) gate: &'a Gate,
    pub(crate) cwd: PathBuf,
    /// The paths checked (`.` when none is given), as the gate takes them.
    pub(crate) paths: Vec<PathBuf>,
    pub(crate) config: Config,
    pub(crate) pool: rayon::ThreadPool,
    pub(crate) roots: TestRoots,
    /// Test code is judged with every rule (`--include-tests`, or
    /// `tests = true` in the config).
    pub(crate) judges_tests: bool,
    /// Every file is read whole ([`Gate::exhaustive`]).
    pub(crate) exhaustive: bool,
}

impl<'a> Run<'a> {
    pub(crate) fn new(opts: &'a Options, gate: &'a Gate) -> Result<Self, RunError> {
        let cwd = std::env::current_dir().map_err(|e| RunError::Internal(e.to_string()))?;
        let paths: Vec<PathBuf> = if opts.paths.is_empty() {
            vec![PathBuf::from(".")]
        } else {
            opts.paths.clone()
        };
        let paths = gate.files.roots(paths);
        let config = load_config(&opts.config, &paths)?;
        let pool = rayon::ThreadPoolBuilder::new()
            .stack_size(PARSER_STACK_BYTES)
            .build()
            .map_err(|e| RunError::Internal(e.to_string()))?;
        Ok(Run {
            opts,
            gate,
            judges_tests: opts.include_tests || config.tests == Some(true),
            roots: TestRoots::new(&paths, &cwd),
            exhaustive: gate.exhaustive || exhaustive_from_env(),
            cwd,
            paths,
            config,
            pool,
        })
    }

    /// The paths to walk: all but standard input's `-`.
    pub(crate) fn file_paths(&self) -> Vec<PathBuf> {
        self.paths
            .iter()
            .filter(|p| p.as_os_str() != "-")
            .cloned()
            .collect()
    }

    /// The project model of the facts, from the first parts the scheduler
    /// built, when it kept them.
    pub(crate) fn model(
        &self,
        facts: Vec<FileFacts>,
        joins: Option<model::Joins>,
        sources: &SourceMap,
    ) -> model::ProjectModel {
        self.pool.install(|| match joins {
            Some(joins) => model::ProjectModel::finish(facts, joins, sources, &self.config),
            None => model::ProjectModel::build(facts, sources, &self.config),
        })
    }
}

/// The config a run uses: none, a named file, or the one discovered from the
/// first path (the current directory when there is none).
pub fn load_config(choice: &ConfigChoice, paths: &[PathBuf]) -> Result<Config, RunError> {
    Ok(match choice {
        ConfigChoice::Isolated => Config::default(),
        ConfigChoice::File(p) => Config::load(p)?,
        ConfigChoice::Discover => {
            let start = paths
                .iter()
                .find(|p| p.as_os_str() != "-")
                .cloned()
                .unwrap_or_else(|| PathBuf::from("."));
            match Config::discover(&start)? {
                Some(p) => Config::load(&p)?,
                None => Config::default(),
            }
        }
    })
}

/// Whether suppression comments in a file of this kind may stand above a
/// statement (not only on the finding's line).
pub(crate) fn statements(kind: FileKind) -> bool {
    matches!(kind, FileKind::Sql | FileKind::Rust)
}
