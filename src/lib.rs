//! idemlint finds idempotency-key mistakes in payment codebases.
//!
//! The pipeline, top to bottom: walk → read + prefilter → front ends (in
//! parallel) → project model → rules → suppressions → sort + fingerprint.
//! Rendering and exit codes belong to the caller (`main.rs`).

pub mod audit;
pub mod baseline;
pub mod catalogue;
pub mod cli;
pub mod config;
pub mod diagnostic;
pub(crate) mod duration;
pub mod files;
pub mod fix;
pub(crate) mod frontend;
#[doc(hidden)]
pub mod fuzzing;
pub(crate) mod header_names;
pub mod horizons;
pub mod init;
pub mod inventory;
pub mod knowledge;
pub(crate) mod lex;
pub mod model;
pub(crate) mod prefilter;
pub mod render;
pub mod rule_id;
pub mod rules;
pub mod size;
pub mod source;
pub(crate) mod store_lines;
mod supervise;
pub(crate) mod suppress;
pub(crate) mod test_code;
pub mod timings;
pub mod walk;

use config::{Config, FailOn};
use diagnostic::{Diagnostic, Severity};
use rayon::prelude::*;
use render::Summary;
use source::{FileKind, SourceFile, SourceMap, Span};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use walk::Candidate;

/// Files larger than this are reported and not parsed.
pub const MAX_FILE_BYTES: u64 = 16 * 1024 * 1024;

/// The start of the `parse-error` message of a file past its time bound.
pub(crate) const GAVE_UP: &str = "gave up on this file after";

/// A work-tree file larger than this is read again by the worker that
/// parses it (`load_text`), so that the big files still waiting their turn
/// hold no text: medusa's peak median 62.3 -> 59.8 MiB (10 paired runs,
/// 2026-12-03).
const BIG_FILE_BYTES: usize = 1024 * 1024;

/// Parses estimated to hold more than this ([`parse_weight`]) run
/// [`BIG_FILES_AT_ONCE`] at a time, so that peak memory is that many big
/// parses plus small ones, whatever the number of threads: a YAML or JSON
/// file of 1 MiB, a Rust file of 164 KiB.
const BIG_PARSE_BYTES: usize = 9 * BIG_FILE_BYTES;

/// The bytes a front end holds at once while it parses `len` bytes of a
/// file, estimated. A YAML or JSON tree takes about nine times its text
/// while it is built (before it is cut to what the model reads); a syn tree
/// with its token buffer about 56 times (measured 2026-12-03, peak RSS over
/// an empty run's: sqlparser's 915 KiB `parser/mod.rs` 53 MiB, its 450 KiB
/// `ast/mod.rs` 24 MiB). Reading only a Rust file's constants parses one
/// item at a time, and so does reading a Rust file over
/// [`frontend::rust::BY_ITEMS_BYTES`], each item tokenized alone: about
/// nine times its text too (`parser/mod.rs`, 2026-12-05: 8.4 MB), so it is
/// no big parse and waits for no turn.
fn parse_weight(kind: FileKind, consts_only: bool, len: usize) -> usize {
    let per_byte = match kind {
        FileKind::Rust if !consts_only && len <= frontend::rust::BY_ITEMS_BYTES => 56,
        _ => 9,
    };
    len.saturating_mul(per_byte)
}

/// A parse estimated to hold more than this ([`parse_weight`]: a Rust file
/// of 585 KiB, a YAML or JSON file of 3.5 MiB) gives the memory its tree
/// held back to the system when it is done ([`give_back_free_memory`]).
/// Freed, that memory stays in the arena of the thread that parsed the
/// file, and the other thread's arena grows beside it. Measured on the
/// cargo registry (bench/run's tree; one file passes, sqlparser's 915 KiB
/// `parser/mod.rs`, about 53 MiB of tree), 2026-12-04, two series of 10
/// paired runs: peak median 93.2 and 94.3 MiB without, 83.5 and 83.4 with;
/// wall 1.23 and 1.33 s without, 1.30 and 1.38 s with (the freed pages are
/// faulted in again as later files reuse them). Giving back after every
/// big parse (over 9 MiB) took the peak to 79 to 83 MiB but cost a fifth
/// more time. No other tree of bench/run has a parse this large: medusa
/// and the hyperswitch fork kept their time and peak. That file is now
/// read one item at a time, each tokenized alone (`frontend::rust`, over
/// 768 KiB), and weighs nine times its text: no file of the registry
/// passes (2026-12-05, its peak 43 to 45 MiB).
const GIVE_BACK_BYTES: usize = 32 * BIG_FILE_BYTES;

/// Return the free memory of malloc's arenas to the system (glibc's
/// `malloc_trim`).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[allow(unsafe_code)]
fn give_back_free_memory() {
    // SAFETY: `malloc_trim` takes a padding size and releases only memory
    // that malloc already holds free, each arena under its own lock; any
    // thread may call it at any time. It returns whether it released any.
    unsafe {
        libc::malloc_trim(0);
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn give_back_free_memory() {}

/// How many big files are parsed at once: one. Big files go first, largest
/// first, and a worker that finds no turn free parses small files
/// meanwhile, the heaviest first (`supervise`). Measured on medusa (bench/run's tree):
/// 2026-12-02, three runs each: two over 1 MiB at once 0.32 to 0.36 s and
/// 72 to 74 MiB; one over 1 MiB 0.35 to 0.37 s and 65 to 68 MiB; one over
/// 512 KiB 0.39 to 0.48 s and 62 MiB (bench/run: 2.4x ripgrep, over the
/// time target); one over 256 KiB 0.46 to 0.51 s and 58 to 62 MiB.
/// 2026-12-03, with malloc's arenas capped (`src/main.rs`): two at once
/// 0.34 s and 68 to 69 MiB; one at once 0.35 to 0.37 s and 62 to 63 MiB
/// (bench/run, 10 runs: 1.6x ripgrep, 62 MiB), under the 64 MiB target.
const BIG_FILES_AT_ONCE: usize = 1;

/// Stack for parser threads: generous, on top of each front end's depth guard.
const PARSER_STACK_BYTES: usize = 64 * 1024 * 1024;

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

pub struct Outcome {
    pub diagnostics: Vec<Diagnostic>,
    /// Findings that suppression comments hid, with their reasons.
    pub suppressed: Vec<suppress::Suppressed>,
    pub sources: SourceMap,
    pub summary: Summary,
    pub config: Config,
    /// The joined project model the rules read (`init` lists its stores).
    pub model: model::ProjectModel,
    /// What was counted in `files_unparsed`, in file order.
    pub unparsed: Vec<render::Unparsed>,
    /// Every file scanned and not parsed, with the reason, by path
    /// (`--verbose`).
    pub not_read: Vec<render::NotRead>,
    /// Files whose front end crashed (a bug): the run is not to be trusted,
    /// so it exits 2 after reporting the rest.
    pub crashed: Vec<String>,
    /// Where the time went (`check --timings`).
    pub timings: timings::Timings,
}

impl Outcome {
    /// Whether the run fails at the given threshold.
    pub fn fails(&self, fail_on: FailOn) -> bool {
        match fail_on.threshold() {
            None => false,
            Some(t) => self.diagnostics.iter().any(|d| d.severity >= t),
        }
    }
}

/// Whether a diagnostic of a rule that spares test code sits in test code:
/// a test path (relative to the checked directory it was found under) or a
/// Rust test module or function.
fn in_test_code(
    d: &Diagnostic,
    model: &model::ProjectModel,
    sources: &SourceMap,
    roots: &TestRoots,
) -> bool {
    let tests = test_code::test_code();
    if !tests.spares(d.rule) {
        return false;
    }
    // Facts are in file-id order; look further only if that ever changes.
    let facts = model
        .files
        .get(d.file)
        .filter(|f| f.file == d.file)
        .or_else(|| model.files.iter().find(|f| f.file == d.file));
    let in_region = facts.is_some_and(|f| {
        f.test_regions
            .iter()
            .any(|r| r.start <= d.span.start && d.span.end <= r.end)
    });
    in_region || tests.is_test_path(&roots.relative(sources.path(d.file)))
}

/// The directory arguments of a run, absolute and without `.` parts, so a
/// file's path can be taken relative to the one it was found under.
struct TestRoots {
    cwd: PathBuf,
    dirs: Vec<PathBuf>,
}

impl TestRoots {
    fn new(paths: &[PathBuf], cwd: &Path) -> Self {
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
    fn test_path(&self, display: &str) -> bool {
        test_code::test_code().is_test_path(&self.relative(display))
    }

    /// A discovered file's path relative to the directory argument it was
    /// found under (the whole path for a file named on the command line).
    fn relative(&self, display: &str) -> String {
        let file = self.clean(Path::new(display));
        self.dirs
            .iter()
            .filter_map(|r| file.strip_prefix(r).ok())
            .map(|rest| rest.to_string_lossy().replace('\\', "/"))
            .min_by_key(String::len)
            .unwrap_or_else(|| display.replace('\\', "/"))
    }
}

/// Run a check of the work tree.
pub fn check(opts: &Options) -> Result<Outcome, RunError> {
    check_with(opts, &Gate::default())
}

/// Run a check with the files, report scope and baseline of a gate.
pub fn check_with(opts: &Options, gate: &Gate) -> Result<Outcome, RunError> {
    let started = std::time::Instant::now();
    let mut timings = timings::Timings::start();
    let cwd = std::env::current_dir().map_err(|e| RunError::Internal(e.to_string()))?;
    let paths: Vec<PathBuf> = if opts.paths.is_empty() {
        vec![PathBuf::from(".")]
    } else {
        opts.paths.clone()
    };
    let paths = gate.files.roots(paths);
    let config = load_config(&opts.config, &paths)?;

    let file_paths: Vec<PathBuf> = paths
        .iter()
        .filter(|p| p.as_os_str() != "-")
        .cloned()
        .collect();
    let pool = rayon::ThreadPoolBuilder::new()
        .stack_size(PARSER_STACK_BYTES)
        .build()
        .map_err(|e| RunError::Internal(e.to_string()))?;
    let judges_tests = opts.include_tests || config.tests == Some(true);
    let roots = TestRoots::new(&paths, &cwd);
    let extra = config_keywords(&config);
    let exhaustive = gate.exhaustive || exhaustive_from_env();
    let keywords;
    // walk, read + prefilter (in parallel), then give the kept files their
    // ids. The work tree is read while it is walked: the walker's threads
    // hand each file to the pool as they find it, and the pool reads it.
    let walks_while_reading = gate.files.reads_work_tree();
    let (candidates, read): (Vec<Candidate>, Vec<(u64, Kept)>) = if walks_while_reading {
        keywords = prefilter::Keywords::new(&extra, prefilter::files_expected(&file_paths))
            .judging_tests(judges_tests)
            .exhaustive(exhaustive);
        let (tx, rx) = std::sync::mpsc::channel::<Candidate>();
        let (fp, exclude) = (&file_paths, &config.exclude);
        let (walked, mut read) = std::thread::scope(|s| {
            let cwd = &cwd;
            let walker = s.spawn(move || {
                walk::discover_each(fp, cwd, exclude, &|c| {
                    // The reader stops taking files only when the run
                    // is over.
                    let _ = tx.send(c);
                })
            });
            let read: Vec<(Candidate, (u64, Kept))> = pool.install(|| {
                rx.into_iter()
                    .par_bridge()
                    .map(|c| {
                        let r = read_candidate(&c, &keywords, &gate.files, &roots);
                        (c, r)
                    })
                    .collect()
            });
            (walker.join(), read)
        });
        walked.map_err(|_| RunError::Internal("the walk of the files failed".into()))??;
        read.sort_by(|a, b| a.0.cmp(&b.0));
        read.dedup_by(|a, b| a.0.display == b.0.display);
        read.into_iter().unzip()
    } else {
        let candidates = gate.files.discover(&file_paths, &cwd, &config.exclude)?;
        timings.phase("walk");
        keywords = prefilter::Keywords::new(&extra, candidates.len() + 1)
            .judging_tests(judges_tests)
            .exhaustive(exhaustive);
        let read = pool.install(|| {
            candidates
                .par_iter()
                .map(|c| read_candidate(c, &keywords, &gate.files, &roots))
                .collect()
        });
        (candidates, read)
    };
    let files_scanned = candidates.len() + usize::from(opts.stdin.is_some());
    for (c, (len, _)) in candidates.iter().zip(&read) {
        timings.scanned(c.kind, *len);
    }
    // `--verbose`: every file scanned and not parsed, and why.
    let mut not_read: Vec<render::NotRead> = Vec::new();
    let mut loaded: Vec<Loaded> = Vec::with_capacity(read.len());
    for (c, (_, l)) in candidates.iter().zip(read) {
        match l {
            Ok(l) => loaded.push(l),
            Err(reason) => not_read.push(render::NotRead::new(&c.display, reason)),
        }
    }
    if let Some((name, text)) = &opts.stdin {
        let kind = walk::classify(Path::new(name)).unwrap_or(FileKind::Text);
        timings.scanned(kind, text.len() as u64);
        match load_text(
            name.clone(),
            Path::new(name),
            kind,
            text.as_bytes().to_vec(),
            &keywords,
            (false, &|| roots.test_path(name)),
        ) {
            Ok(l) => loaded.push(l),
            Err(reason) => not_read.push(render::NotRead::new(name, reason)),
        }
    }
    pool.broadcast(|_| prefilter::forget_judgements());
    prefilter::forget_judgements();
    for l in loaded.iter().filter(|l| l.parse && !l.late && !l.schema) {
        timings.admitted(l.kind, l.len as u64, l.consts_only);
    }
    // Every file the walk found (10,163 paths and names on a payment
    // switch): not read again, so not held to the end of the run.
    drop(candidates);
    timings.phase(if walks_while_reading {
        "walk+read+prefilter"
    } else {
        "read+prefilter"
    });
    let mut sources = SourceMap::default();
    for l in &loaded {
        let mut src = SourceFile::new(l.display.clone(), l.kind, "");
        src.set_text(l.text.clone(), l.bom);
        sources.files.push(src);
    }

    // front ends, in parallel, each file within its time bound; files the
    // prefilter held back for their retries wait (`Admission::Late`): they
    // are parsed in the same run as soon as one parsed file settles that
    // they are needed, else after it when the model's first parts say so.
    // Big Rust files are read around their words; they are read whole
    // when the files hold a store or a keyed request, as held files are
    // parsed then (`frontend::rust::AROUND_WORDS_BYTES`). They wait until
    // the other files have settled that (deferred): read whole at once
    // when one of them did, else around their words, and whole again only
    // when the model's first parts say so.
    let loaded = Arc::new(loaded);
    let reread: Rereads = Arc::new(loaded.iter().map(|_| OnceLock::new()).collect());
    let settled = Arc::new(AtomicBool::new(false));
    let release = |f: &frontend::FileFacts| {
        let yes = model::settles_late_files(f);
        if yes {
            settled.store(true, Ordering::Relaxed);
        }
        yes
    };
    let parse = |ids: Vec<usize>, holds: (usize, usize), whole: bool| {
        supervise::run_holding(
            ParseJob {
                loaded: Arc::clone(&loaded),
                reread: Arc::clone(&reread),
                ids,
                whole,
                settled: Arc::clone(&settled),
            },
            pool.current_num_threads(),
            PARSER_STACK_BYTES,
            (BIG_PARSE_BYTES, BIG_FILES_AT_ONCE),
            opts.parse_timeout
                .map_or(supervise::Bound::DEFAULT, supervise::Bound::fixed),
            holds,
            &release,
        )
        .map_err(|e| RunError::Internal(format!("cannot start a parser thread: {e}")))
    };
    let (schema_held, now): (Vec<usize>, Vec<usize>) =
        (0..loaded.len()).partition(|&i| loaded[i].schema);
    let (late, now): (Vec<usize>, Vec<usize>) = now.into_iter().partition(|&i| loaded[i].late);
    let (around, now): (Vec<usize>, Vec<usize>) =
        now.into_iter().partition(|&i| loaded[i].around.is_some());
    let mut parsed = Parsed::new(loaded.len());
    let ids: Vec<usize> = now.iter().chain(&around).chain(&late).copied().collect();
    let (fates, late_ran) = parse(ids.clone(), (now.len(), around.len()), false)?;
    let ran = if late_ran {
        &ids[..]
    } else {
        &ids[..now.len() + around.len()]
    };
    parsed.settle(
        fates,
        ran,
        &loaded,
        &reread,
        &roots,
        &mut sources,
        &mut timings,
    );
    timings.phase("parse");
    // Whether the files hold a store or a keyed request: then the held
    // files are parsed, and the big ones read around their words are read
    // whole. Settled during the parse, or by the model's first parts,
    // which are kept when it is not so.
    let mut joins = None;
    let first_look = !(late_ran || late.is_empty() && around.is_empty());
    let needed = late_ran
        || first_look && {
            let j = pool.install(|| model::Joins::build(&parsed.facts, &sources, &config));
            timings.phase("model-first");
            let needed = j.uses_late_files(&parsed.facts);
            if !needed {
                joins = Some(j);
            }
            needed
        };
    let late_parsed = if needed { late.len() } else { 0 };
    if needed {
        for &id in &late {
            let l = &loaded[id];
            timings.admitted(l.kind, l.len as u64, false);
        }
        // When it was settled during the parse, the big files were read
        // whole then.
        let again: Vec<usize> = late
            .iter()
            .chain(&around)
            .filter(|_| !late_ran)
            .copied()
            .collect();
        if !again.is_empty() {
            let (fates, _) = parse(again.clone(), (again.len(), 0), true)?;
            parsed.settle(
                fates,
                &again,
                &loaded,
                &reread,
                &roots,
                &mut sources,
                &mut timings,
            );
        }
    }
    if !late.is_empty() {
        timings.held(late.len(), late_parsed);
    }
    if first_look {
        timings.phase("parse-held");
    } else if late_ran && !around.is_empty() {
        timings.phase("parse-whole");
    }
    if !around.is_empty() {
        timings.around(around.len(), needed);
    }
    // SQL files held back for the schema (`Admission::Schema`): those that
    // name a table the parsed files hold as a store or a key carrier, to a
    // fixed point (a rename or a new table may name more).
    let mut schema_waiting = schema_held;
    let mut schema_read = 0;
    while !schema_waiting.is_empty() {
        let tables = pool.install(|| model::key_tables(&parsed.facts, &sources, &config));
        if tables.is_empty() {
            break;
        }
        let (hit, rest): (Vec<usize>, Vec<usize>) = schema_waiting
            .into_iter()
            .partition(|&i| names_a_table(&loaded[i], &tables));
        schema_waiting = rest;
        if hit.is_empty() {
            break;
        }
        for &id in &hit {
            timings.admitted(loaded[id].kind, loaded[id].len as u64, false);
        }
        let (fates, _) = parse(hit.clone(), (hit.len(), 0), true)?;
        parsed.settle(
            fates,
            &hit,
            &loaded,
            &reread,
            &roots,
            &mut sources,
            &mut timings,
        );
        schema_read += hit.len();
        joins = None;
    }
    if schema_read > 0 {
        timings.phase("parse-schema");
    }
    let Parsed {
        facts,
        mut given_up,
        early_suppressions,
    } = parsed;
    given_up.sort_unstable();
    let files_parsed = loaded
        .iter()
        .filter(|l| l.parse && !l.late && !l.schema)
        .count()
        + late_parsed
        + schema_read;
    not_read.extend(loaded.iter().enumerate().filter_map(|(id, l)| {
        render::NotRead::of_loaded(
            &l.display,
            l.parse,
            l.consts_only,
            l.late && !needed,
            &l.problems,
        )
        .or_else(|| {
            (l.schema && schema_waiting.contains(&id)).then(|| {
                // As a file the prefilter lets go: no table it names is
                // a store or a key carrier.
                render::NotRead::new(
                    &l.display,
                    format!(
                        "no word of the prefilter{}",
                        render::NotRead::outside(l.kind)
                    ),
                )
            })
        })
    }));
    not_read.sort_by(|a, b| a.path.cmp(&b.path));
    let unparsed: Vec<render::Unparsed> = facts
        .iter()
        .flat_map(|f| {
            f.problems
                .iter()
                .filter(|p| !p.reported)
                .map(|p| render::Unparsed {
                    file: f.file,
                    span: p.span,
                    message: p.message.clone(),
                })
        })
        .collect();
    let statements_unparsed = unparsed
        .iter()
        .filter(|u| loaded[u.file].kind == FileKind::Sql)
        .count();
    let mut unparsed_files: Vec<usize> = unparsed.iter().map(|u| u.file).collect();
    unparsed_files.dedup();

    // parse errors become diagnostics before the model takes the facts
    let mut diagnostics: Vec<Diagnostic> = facts
        .iter()
        .flat_map(|f| {
            let whole = given_up.iter().find(|(id, _)| *id == f.file).copied();
            let unread = !loaded[f.file].parse;
            let last = f.problems.len().saturating_sub(1);
            f.problems
                .iter()
                .enumerate()
                .filter(|(_, p)| p.reported)
                .map(move |(n, p)| {
                    // The last problem of a file given up on says why.
                    let (severity, note) = match whole {
                        // Not parsed at all (binary, too big, unreadable).
                        _ if unread => (
                            Severity::Warning,
                            "nothing in this file was read; what it holds is unchecked",
                        ),
                        Some((_, crashed)) if n == last => (
                            if crashed {
                                Severity::Error
                            } else {
                                Severity::Warning
                            },
                            "nothing in this file was checked; the other files were",
                        ),
                        _ => (
                            Severity::Warning,
                            "what it holds is unchecked; the rest of the file was read",
                        ),
                    };
                    let d = Diagnostic::new(
                        diagnostic::RuleId::ParseError,
                        severity,
                        f.file,
                        p.span,
                        p.message.clone(),
                    )
                    .with_note(note);
                    match &p.detail {
                        Some(detail) => d.with_primary_label(detail.clone()),
                        None => d,
                    }
                })
        })
        .collect();
    diagnostics = rules::apply_levels(diagnostics, &sources, &config);

    // model, rules
    let model = pool.install(|| match joins {
        Some(joins) => model::ProjectModel::finish(facts, joins, &sources, &config),
        None => model::ProjectModel::build(facts, &sources, &config),
    });
    timings.phase("model");
    let stores = model.store_count();
    let ctx = rules::Context {
        model: &model,
        sources: &sources,
        config: &config,
    };
    diagnostics.extend(pool.install(|| rules::run(&ctx)));
    timings.phase("rules");

    // suppressions
    let mut suppressed = Vec::new();
    if !opts.no_suppressions {
        let mut sups: Vec<suppress::Suppression> = sources
            .files
            .iter()
            .zip(early_suppressions)
            .enumerate()
            .flat_map(|(id, (f, early))| {
                early.unwrap_or_else(|| suppress::scan(id, f.text(), statements(f.kind)))
            })
            .collect();
        let (hidden, unused) = suppress::apply(
            &mut diagnostics,
            &mut sups,
            &sources,
            config.reason_required(),
        );
        suppressed = hidden;
        diagnostics.extend(rules::apply_levels(unused, &sources, &config));
    }
    // Test code is left out after the suppressions have seen it, so a
    // suppression in a test is not reported as unused.
    if !judges_tests {
        diagnostics.retain(|d| !in_test_code(d, &model, &sources, &roots));
    }

    diagnostic::sort(&mut diagnostics, &sources);
    diagnostics.dedup_by(|a, b| {
        a.rule == b.rule && a.file == b.file && a.span == b.span && a.message == b.message
    });
    diagnostic::assign_fingerprints(&mut diagnostics, &sources);
    suppressed.sort_by(|a, b| diagnostic::order(&a.diagnostic, &b.diagnostic, &sources));
    let mut hidden: Vec<Diagnostic> = suppressed.iter().map(|s| s.diagnostic.clone()).collect();
    diagnostic::assign_fingerprints(&mut hidden, &sources);
    for (s, d) in suppressed.iter_mut().zip(hidden) {
        s.diagnostic.fingerprint = d.fingerprint;
    }

    // a gate reports only the files it selects, and what no baseline records
    gate.files.settle()?;
    diagnostics.retain(|d| gate.files.reports(sources.path(d.file)));
    suppressed.retain(|s| gate.files.reports(sources.path(s.diagnostic.file)));
    let baselined = gate
        .baseline
        .as_ref()
        .map_or(0, |b| b.hide(&mut diagnostics));

    timings.phase("suppress+sort");
    let count = |s: Severity| diagnostics.iter().filter(|d| d.severity == s).count();
    let summary = Summary {
        files_scanned,
        files_parsed,
        diagnostics: diagnostics.len(),
        errors: count(Severity::Error),
        warnings: count(Severity::Warning),
        notes: count(Severity::Note),
        suppressed: suppressed.len(),
        stores,
        baselined,
        statements_unparsed,
        files_unparsed: unparsed_files.len(),
        files_crashed: given_up.iter().filter(|(_, crashed)| *crashed).count(),
        elapsed_ms: started.elapsed().as_millis(),
    };
    let crashed = given_up
        .iter()
        .filter(|(_, crashed)| *crashed)
        .map(|(id, _)| sources.path(*id).to_string())
        .collect();
    Ok(Outcome {
        diagnostics,
        suppressed,
        sources,
        summary,
        config,
        model,
        unparsed,
        not_read,
        crashed,
        timings,
    })
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
fn statements(kind: FileKind) -> bool {
    matches!(kind, FileKind::Sql | FileKind::Rust)
}

/// What the parse worker of a deferred file read, by file id.
type Rereads = Arc<Vec<OnceLock<Reread>>>;

enum Reread {
    /// The text, with whether a byte-order mark was blanked.
    Text(Arc<str>, bool),
    /// A Rust file ([`lets_go`]): nothing reads its text after its front
    /// end but a finding or the inventory that shows a line of it, so it is
    /// let go (`SourceFile::let_go`) with its length, digest and suppression
    /// comments.
    LetGo {
        len: usize,
        hash: u64,
        bom: bool,
        suppressions: Vec<suppress::Suppression>,
    },
}

/// What the front ends gave, in file order: each file's facts (empty until
/// its front end runs), the files given up on (id, crashed), and the
/// suppressions of the files whose text was let go, which their worker
/// scanned.
struct Parsed {
    facts: Vec<frontend::FileFacts>,
    given_up: Vec<(usize, bool)>,
    early_suppressions: Vec<Option<Vec<suppress::Suppression>>>,
}

impl Parsed {
    fn new(files: usize) -> Self {
        Parsed {
            facts: (0..files)
                .map(|file| frontend::FileFacts {
                    file,
                    ..Default::default()
                })
                .collect(),
            given_up: Vec::new(),
            early_suppressions: (0..files).map(|_| None).collect(),
        }
    }

    /// Take the fates of files `ids` (in `ids` order): their facts, marked
    /// as test code by their path; a file given up on keeps its problems
    /// and one that says why. The texts their worker read ([`Reread`]) go
    /// into the source map.
    #[allow(clippy::too_many_arguments)]
    fn settle(
        &mut self,
        fates: Vec<supervise::Fate<frontend::FileFacts>>,
        ids: &[usize],
        loaded: &[Loaded],
        reread: &Rereads,
        roots: &TestRoots,
        sources: &mut SourceMap,
        timings: &mut timings::Timings,
    ) {
        for (fate, &id) in fates.into_iter().zip(ids) {
            let l = &loaded[id];
            // A file read again (whole, after a read around its words)
            // keeps only what the last read says.
            self.given_up.retain(|&(g, _)| g != id);
            let mut f = match fate {
                supervise::Fate::Done(f, took) => {
                    timings.kind(l.kind).parse += took;
                    f
                }
                supervise::Fate::TimedOut(limit) => {
                    timings.kind(l.kind).parse += limit;
                    self.given_up.push((id, false));
                    ParseJob::gave_up(
                        id,
                        l,
                        format!(
                            "{GAVE_UP} {} (the per-file time bound, `--parse-timeout`)",
                            supervise::show(limit)
                        ),
                    )
                }
                supervise::Fate::Panicked(message) => {
                    self.given_up.push((id, true));
                    ParseJob::gave_up(
                        id,
                        l,
                        format!("idemlint crashed reading this file, a bug to report: {message}"),
                    )
                }
            };
            let src = &mut sources.files[id];
            match reread[id].get() {
                Some(Reread::Text(text, bom)) => src.set_text(Arc::clone(text), *bom),
                Some(Reread::LetGo {
                    len,
                    hash,
                    bom,
                    suppressions,
                }) => {
                    if let Some(disk) = &l.deferred {
                        src.let_go(disk.clone(), *len, *hash, *bom);
                    }
                    self.early_suppressions[id] = Some(suppressions.clone());
                }
                None => {}
            }
            f.test_path = test_code::test_code().is_test_path(&roots.relative(sources.path(id)));
            self.facts[id] = f;
        }
    }
}

/// Whether a work-tree file of `kind` is read by its parse worker and its
/// text let go after its front end. A Rust file's facts hold all that the
/// model reads of it, but for the lines that call something named for
/// idempotency (`FileFacts::store_code_lines`, kept) and the rare file that
/// writes a store, whose text the writer model reads again. A config's
/// entries are read with its text, so YAML, JSON and the rest keep theirs.
fn lets_go(kind: FileKind) -> bool {
    kind == FileKind::Rust
}

/// The front ends' work on some of the kept files (`ids`, file ids), for
/// [`supervise::run`].
struct ParseJob {
    loaded: Arc<Vec<Loaded>>,
    reread: Rereads,
    ids: Vec<usize>,
    /// Files read around their words ([`Loaded::around`]) are read whole.
    whole: bool,
    /// Whether a parsed file has settled that the run holds a store or a
    /// keyed request ([`model::settles_late_files`]): files read around
    /// their words are then read whole.
    settled: Arc<AtomicBool>,
}

impl supervise::Job for ParseJob {
    type Output = frontend::FileFacts;

    fn run(&self, i: usize) -> frontend::FileFacts {
        let id = self.ids[i];
        let l = &self.loaded[id];
        let mut reread_problems = Vec::new();
        let text: Arc<str> = match &l.deferred {
            None => Arc::clone(&l.text),
            Some(path) => match std::fs::read(path) {
                Ok(bytes) => {
                    let (text, bom, problems) = decode(bytes);
                    let text: Arc<str> = Arc::from(text);
                    let _ = self.reread[id].set(if lets_go(l.kind) {
                        Reread::LetGo {
                            len: text.len(),
                            hash: source::text_hash(&text),
                            bom,
                            suppressions: suppress::scan(id, &text, statements(l.kind)),
                        }
                    } else {
                        Reread::Text(Arc::clone(&text), bom)
                    });
                    reread_problems = problems;
                    text
                }
                Err(e) => {
                    return frontend::FileFacts {
                        file: id,
                        problems: vec![frontend::Problem::new(Span::new(0, 0), cannot_read(e))],
                        ..Default::default()
                    };
                }
            },
        };
        let mut f = if l.consts_only {
            let mut f = frontend::FileFacts {
                file: id,
                ..Default::default()
            };
            frontend::rust::retention::parse_consts(&text, &mut f);
            f
        } else if l.parse {
            // Anchored in the text read first: the same text.
            let whole = self.whole || self.settled.load(Ordering::Relaxed);
            let mut f = match &l.around {
                Some(anchors) if !whole && text.len() == l.len => {
                    frontend::parse_rust_around(id, &text, anchors)
                }
                _ => frontend::parse(id, l.kind, &text),
            };
            crate::timings::walks::time(crate::timings::walks::Walk::ModelInputs, || {
                model::keep_model_inputs(&mut f, &text)
            });
            f.shrink_to_fit();
            f
        } else {
            frontend::FileFacts {
                file: id,
                ..Default::default()
            }
        };
        if let Some(r) = &mut f.rust {
            r.retention.let_go_defs(l.consts_only);
        }
        if parse_weight(l.kind, l.consts_only, text.len()) > GIVE_BACK_BYTES {
            give_back_free_memory();
        }
        // The lines the Redis model reads of a text that is let go.
        if l.deferred.is_some() && lets_go(l.kind) {
            f.store_code_lines = Some(store_lines::store_code_lines(&text));
        }
        f.problems
            .splice(0..0, l.problems.iter().cloned().chain(reread_problems));
        f
    }

    fn len(&self) -> usize {
        self.ids.len()
    }

    fn size(&self, i: usize) -> usize {
        let l = &self.loaded[self.ids[i]];
        if l.parse || l.consts_only {
            l.len
        } else {
            0
        }
    }

    fn weight(&self, i: usize) -> usize {
        let l = &self.loaded[self.ids[i]];
        parse_weight(l.kind, l.consts_only, self.size(i))
    }
}

impl ParseJob {
    /// The facts of a file whose front end did not finish: its own problems
    /// and one that says why nothing else was read.
    fn gave_up(id: usize, l: &Loaded, message: String) -> frontend::FileFacts {
        let mut problems = l.problems.clone();
        problems.push(frontend::Problem::new(Span::new(0, 0), message));
        frontend::FileFacts {
            file: id,
            problems,
            ..Default::default()
        }
    }
}

/// A candidate as read: kept for the run, or why not (`--verbose`).
type Kept = Result<Loaded, String>;

/// A file that is kept for the run: parsed, or reported as unreadable.
struct Loaded {
    display: String,
    kind: FileKind,
    text: Arc<str>,
    /// The text's length in bytes (also when it is deferred).
    len: usize,
    /// A work-tree file whose text its parse worker reads again (`text` is
    /// empty until then): a big one, or a constants-only one.
    deferred: Option<PathBuf>,
    parse: bool,
    /// A Rust file let through only by the second prefilter tier: only its
    /// `const`/`static` items are read (`rust::retention::parse_consts`).
    consts_only: bool,
    /// A big Rust file read only around these offsets while the run holds
    /// no store and no keyed request, else whole
    /// ([`frontend::rust::AROUND_WORDS_BYTES`]).
    around: Option<Vec<usize>>,
    /// Held back by the prefilter ([`prefilter::Admission::Late`]): parsed after
    /// the others, when they hold something it can matter to.
    late: bool,
    /// An SQL file held back for the schema ([`prefilter::Admission::Schema`]):
    /// parsed when it names a table the others hold as a store or key
    /// carrier.
    schema: bool,
    /// A byte-order mark was blanked at the start of `text`.
    bom: bool,
    problems: Vec<frontend::Problem>,
}

fn problem_only(display: String, kind: FileKind, message: String) -> Loaded {
    Loaded {
        display,
        kind,
        text: Arc::from(""),
        len: 0,
        deferred: None,
        parse: false,
        consts_only: false,
        around: None,
        late: false,
        schema: false,
        bom: false,
        problems: vec![frontend::Problem::new(Span::new(0, 0), message)],
    }
}

/// Names the config declares, which make a file worth parsing although it
/// holds no built-in keyword.
fn config_keywords(config: &Config) -> Vec<String> {
    config
        .store
        .iter()
        .flat_map(|s| {
            [
                s.table.as_deref(),
                s.key_prefix.as_deref(),
                s.redis.as_deref(),
            ]
        })
        .flatten()
        .map(|name| {
            let bare = name.rsplit('.').next().unwrap_or(name);
            bare.trim_matches(|c: char| c == '"' || c == ':' || c == '*')
                .to_string()
        })
        .collect()
}

/// Read one candidate from where the run's files come from: its size in
/// bytes (0 when not known) and what is kept of it, `None` when it cannot
/// matter (no keyword).
fn read_candidate(
    c: &Candidate,
    keywords: &prefilter::Keywords,
    files: &files::Selection,
    roots: &TestRoots,
) -> (u64, Result<Loaded, String>) {
    match files.read(c, MAX_FILE_BYTES, keywords) {
        files::Read::Bytes(bytes) => (
            bytes.len() as u64,
            load_text(
                c.display.clone(),
                &c.path,
                c.kind,
                bytes,
                keywords,
                (files.reads_work_tree(), &|| roots.test_path(&c.display)),
            ),
        ),
        // Too large to parse; it is only worth a diagnostic when it holds a
        // word that can matter (a generated fixture without one is not).
        files::Read::TooLarge {
            matches: false,
            len,
        } => (
            len,
            Err(format!(
                "too big ({:.1} MiB, over the {} MiB limit), and no word of the prefilter in it",
                len as f64 / 1048576.0,
                MAX_FILE_BYTES / 1048576
            )),
        ),
        files::Read::TooLarge { len, .. } => (
            len,
            Ok(problem_only(
                c.display.clone(),
                c.kind,
                format!(
                    "file is {:.1} MiB, over the {} MiB limit; not parsed",
                    len as f64 / 1048576.0,
                    MAX_FILE_BYTES / 1048576
                ),
            )),
        ),
        files::Read::Failed(e) => (
            0,
            Ok(problem_only(c.display.clone(), c.kind, cannot_read(e))),
        ),
    }
}

fn load_text(
    display: String,
    path: &Path,
    kind: FileKind,
    bytes: Vec<u8>,
    keywords: &prefilter::Keywords,
    (reads_work_tree, test_path): (bool, &dyn Fn() -> bool),
) -> Result<Loaded, String> {
    let head = &bytes[..bytes.len().min(8192)];
    if memchr::memchr(0, head).is_some() {
        files::recycle(bytes);
        return Ok(problem_only(
            display,
            kind,
            "binary content (a NUL byte); not parsed".to_string(),
        ));
    }
    if kind == FileKind::Rust && !keywords.reads_all() && prefilter::generated_rust(&bytes) {
        files::recycle(bytes);
        return Err("generated code (a generated-file marker at its top)".into());
    }
    let admission = if keywords.reads_all() {
        prefilter::Admission::Full
    } else {
        keywords.admission_in(kind, path, &bytes, test_path)
    };
    let consts_only = admission == prefilter::Admission::No;
    if consts_only && !(kind == FileKind::Rust && prefilter::rust_constants_prefilter(&bytes)) {
        files::recycle(bytes);
        return Err(
            if kind == FileKind::Rust && !keywords.judges_tests() && test_path() {
                "test code (a test file; `--include-tests` reads it)".into()
            } else {
                format!("no word of the prefilter{}", render::NotRead::outside(kind))
            },
        );
    }
    let around = (kind == FileKind::Rust
        && !keywords.reads_all()
        && admission == prefilter::Admission::Full
        && (frontend::rust::AROUND_WORDS_BYTES + 1..=frontend::rust::MAX_RUST_BYTES)
            .contains(&bytes.len()))
    .then(|| keywords.anchors(&bytes))
    .flatten();
    let (text, bom, problems) = decode(bytes);
    let kind = walk::refine_kind(kind, path, &text);
    let len = text.len();
    // A big file's text is read again by the worker that parses it, so that
    // the texts of the big files still waiting their turn (they are parsed
    // one at a time) are not all held while the largest tree is built. So is
    // a Rust file's, which its worker then lets go ([`Reread`], [`lets_go`]).
    let deferred =
        (reads_work_tree && (len > BIG_FILE_BYTES || lets_go(kind))).then(|| path.to_path_buf());
    let (text, bom, problems) = match deferred {
        Some(_) => {
            files::recycle(text.into_bytes());
            (String::new(), false, Vec::new())
        }
        None => (text, bom, problems),
    };
    Ok(Loaded {
        display,
        kind,
        text: Arc::from(text),
        len,
        deferred,
        parse: true,
        consts_only,
        around,
        late: admission == prefilter::Admission::Late,
        schema: admission == prefilter::Admission::Schema,
        bom,
        problems,
    })
}

/// Whether a held SQL file ([`prefilter::Admission::Schema`]) names one of
/// `tables` (lowered): a file whose text its worker reads again is taken to.
fn names_a_table(l: &Loaded, tables: &[String]) -> bool {
    if l.deferred.is_some() {
        return true;
    }
    let lower = l.text.as_bytes().to_ascii_lowercase();
    tables.iter().any(|t| prefilter::names_table(&lower, t))
}

/// The problem message of a file that cannot be read, at either read.
fn cannot_read(e: impl std::fmt::Display) -> String {
    format!("cannot read file: {e}")
}

/// A file's bytes as text ([`source::decode`]), invalid UTF-8 said so.
fn decode(bytes: Vec<u8>) -> (String, bool, Vec<frontend::Problem>) {
    let (text, bom, invalid_at) = source::decode(bytes);
    let problems = invalid_at
        .map(|at| {
            frontend::Problem::new(
                Span::new(at, at),
                format!("invalid UTF-8 at byte {at}; read with replacement characters"),
            )
        })
        .into_iter()
        .collect();
    (text, bom, problems)
}
