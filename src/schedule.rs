//! The parse scheduler: which kept file's front end runs when, and how much
//! of the file it reads. The pipeline calls [`parse`] once; these are its
//! steps, in order, each a method of [`Scheduler`]:
//!
//! 1. **first pass** ([`Scheduler::first_pass`]): the front ends, in
//!    parallel, each file within its time bound (`supervise`), as the
//!    first decision ([`prefilter::reading::first`], on [`Loaded::reading`])
//!    says: the files read whole or for their constants, and the big Rust
//!    files read only around their words ([`Reading::Around`]). Files
//!    held back for their retries ([`Reading::Held`]) wait.
//! 2. **read whole** ([`Scheduler::read_whole`]): the model's first parts
//!    ([`model::Joins`]) are built from the facts so far and say what a
//!    file can reach a finding through ([`model::Joins::reach`]): the
//!    functions that touch a store or send a keyed request, their callers
//!    and callees, their crates. Each held file and each big file is then
//!    decided on its own ([`prefilter::reading::after_first_pass`]): read
//!    whole, or left as it is. Those read whole may reach more, so this
//!    runs to a fixed point; the first parts of the last round are handed
//!    on to the model (they were built on every file parsed so far).
//! 3. **schema pass** ([`Scheduler::schema_pass`]): SQL files and Prisma
//!    schemas held back for the schema ([`Reading::Schema`]) that name a
//!    table the parsed files hold as a store or a key carrier, to a fixed
//!    point (a rename or a new table may name more). A file read here makes
//!    the first parts stale.
//!
//! What the scheduler decides of memory: a deferred file's text is read by
//! the worker that parses it ([`Reread`]), and a Rust file's is let go
//! after its front end, its suppressions scanned by that worker (letting go
//! and reading again to show a line are the source store's:
//! `SourceFile::let_go`, `SourceFile::text`); big parses run one at a time
//! ([`BIG_FILES_AT_ONCE`]) and give the memory their tree held back to the
//! system ([`GIVE_BACK_BYTES`]), both decided by a parse's size.
//! `--timings` gets the phases `parse`, then `model-first` and `parse-held`
//! (step 2), and `parse-schema`.

use crate::facts::{FileFacts, Problem};
use crate::prefilter::reading::Reading;
use crate::read::{self, Loaded};
use crate::run::{self, Run, RunError, GAVE_UP, PARSER_STACK_BYTES};
use crate::source::{self, FileKind, SourceMap, Span};
use crate::{
    frontend, model, prefilter, render, store_lines, supervise, suppress, test_code, timings,
};
use std::sync::{Arc, OnceLock};

/// What the front ends gave, in file order, and what the schedule settled.
pub(crate) struct Parsed {
    /// Each kept file's facts (empty for a file not parsed).
    pub(crate) facts: Vec<FileFacts>,
    /// The files given up on (id, crashed), by id.
    pub(crate) given_up: Vec<(usize, bool)>,
    /// The suppressions of the files whose text was let go, which their
    /// worker scanned.
    pub(crate) early_suppressions: Vec<Option<Vec<suppress::Suppression>>>,
    /// The model's first parts, when the first look built them and nothing
    /// was read after.
    pub(crate) joins: Option<model::Joins>,
    /// How many files were parsed.
    pub(crate) files_parsed: usize,
    /// Every file kept and not parsed, with the reason (`--verbose`).
    pub(crate) not_read: Vec<render::NotRead>,
    /// By file id: nothing of the file was read (binary, too big,
    /// unreadable).
    pub(crate) unread: Vec<bool>,
}

/// Parse the kept files, in the steps of the module doc. The texts their
/// workers read go into `sources`.
pub(crate) fn parse(
    run: &Run,
    kept: Vec<Loaded>,
    sources: &mut SourceMap,
    timings: &mut timings::Timings,
) -> Result<Parsed, RunError> {
    let mut s = Scheduler::new(run, kept);
    let split = Split::of(&s.loaded);
    s.first_pass(&split, sources, timings)?;
    let (read_whole, joins) = s.read_whole(&split, sources, timings)?;
    let (schema_read, schema_waiting) = s.schema_pass(&split.schema, sources, timings)?;
    let late_parsed = split.late.iter().filter(|i| read_whole.contains(i)).count();
    Ok(s.finish(
        joins.filter(|_| schema_read == 0),
        &read_whole,
        late_parsed + schema_read,
        &schema_waiting,
    ))
}

/// The kept files by when they are parsed (file ids).
struct Split {
    /// Parsed first.
    now: Vec<usize>,
    /// Big Rust files read around their words ([`Reading::Around`]).
    around: Vec<usize>,
    /// Held back for their retries ([`Reading::Held`]).
    late: Vec<usize>,
    /// SQL files and Prisma schemas held back for the schema
    /// ([`Reading::Schema`]).
    schema: Vec<usize>,
}

impl Split {
    fn of(loaded: &[Loaded]) -> Self {
        let mut split = Split {
            now: Vec::new(),
            around: Vec::new(),
            late: Vec::new(),
            schema: Vec::new(),
        };
        for (i, l) in loaded.iter().enumerate() {
            match l.reading {
                Reading::Schema => &mut split.schema,
                Reading::Held => &mut split.late,
                Reading::Around(_) => &mut split.around,
                _ => &mut split.now,
            }
            .push(i);
        }
        split
    }
}

/// The state the steps share: the kept files, the texts their workers read,
/// and the front ends' output so far.
struct Scheduler<'r> {
    run: &'r Run<'r>,
    loaded: Arc<Vec<Loaded>>,
    reread: Rereads,
    facts: Vec<FileFacts>,
    given_up: Vec<(usize, bool)>,
    early_suppressions: Vec<Option<Vec<suppress::Suppression>>>,
}

impl<'r> Scheduler<'r> {
    fn new(run: &'r Run<'r>, kept: Vec<Loaded>) -> Self {
        let files = kept.len();
        Scheduler {
            run,
            reread: Arc::new(kept.iter().map(|_| OnceLock::new()).collect()),
            loaded: Arc::new(kept),
            facts: (0..files)
                .map(|file| FileFacts {
                    file,
                    ..Default::default()
                })
                .collect(),
            given_up: Vec::new(),
            early_suppressions: (0..files).map(|_| None).collect(),
        }
    }

    /// Run the front ends on `ids` under supervision and take their fates.
    /// `whole`: files read around their words are read whole.
    fn parse_ids(
        &mut self,
        ids: &[usize],
        whole: bool,
        sources: &mut SourceMap,
        timings: &mut timings::Timings,
    ) -> Result<(), RunError> {
        let (fates, _) = supervise::run_holding(
            ParseJob {
                loaded: Arc::clone(&self.loaded),
                reread: Arc::clone(&self.reread),
                ids: ids.to_vec(),
                whole,
            },
            self.run.pool.current_num_threads(),
            PARSER_STACK_BYTES,
            (BIG_PARSE_BYTES, BIG_FILES_AT_ONCE),
            self.run
                .opts
                .parse_timeout
                .map_or(supervise::Bound::DEFAULT, supervise::Bound::fixed),
            (ids.len(), 0),
            &|_| false,
        )
        .map_err(|e| RunError::Internal(format!("cannot start a parser thread: {e}")))?;
        self.settle(fates, ids, sources, timings);
        Ok(())
    }

    /// Step 1: the files admitted in full, and the big ones read around
    /// their words.
    fn first_pass(
        &mut self,
        split: &Split,
        sources: &mut SourceMap,
        timings: &mut timings::Timings,
    ) -> Result<(), RunError> {
        let ids: Vec<usize> = split.now.iter().chain(&split.around).copied().collect();
        self.parse_ids(&ids, false, sources, timings)?;
        timings.phase("parse");
        Ok(())
    }

    /// Steps 2 and 3: the model's first parts say what the files parsed
    /// can be reached from ([`model::Joins::reach`]); each held file and
    /// each big file read around its words is read whole when the decision
    /// of [`prefilter::reading`] says so, to a fixed point (a file read may
    /// call or be called by more). The files read whole, and the first
    /// parts, built on every file parsed so far.
    fn read_whole(
        &mut self,
        split: &Split,
        sources: &mut SourceMap,
        timings: &mut timings::Timings,
    ) -> Result<(Vec<usize>, Option<model::Joins>), RunError> {
        if split.late.is_empty() && split.around.is_empty() {
            return Ok((Vec::new(), None));
        }
        let mut waiting: Vec<usize> = split.late.iter().chain(&split.around).copied().collect();
        let mut read = Vec::new();
        let joins = loop {
            let config = &self.run.config;
            let (joins, reach) = self.run.pool.install(|| {
                let joins = model::Joins::build(&self.facts, sources, config);
                let reach = joins.reach(&self.facts, sources);
                (joins, reach)
            });
            timings.phase(if read.is_empty() {
                "model-first"
            } else {
                "parse-held"
            });
            let loaded = &self.loaded;
            let (hit, rest): (Vec<usize>, Vec<usize>) = self.run.pool.install(|| {
                use rayon::prelude::*;
                waiting.par_iter().partition_map(|&id| {
                    if reads_whole(&loaded[id], sources.path(id), &sources.packages, &reach) {
                        rayon::iter::Either::Left(id)
                    } else {
                        rayon::iter::Either::Right(id)
                    }
                })
            });
            if hit.is_empty() {
                break joins;
            }
            for &id in hit
                .iter()
                .filter(|&&id| loaded[id].reading == Reading::Held)
            {
                timings.admitted(loaded[id].kind, loaded[id].len as u64, false);
            }
            self.parse_ids(&hit, true, sources, timings)?;
            read.extend(hit);
            waiting = rest;
        };
        if !split.late.is_empty() {
            let parsed = split.late.iter().filter(|i| read.contains(i)).count();
            timings.held(split.late.len(), parsed);
        }
        if !split.around.is_empty() {
            let whole = split.around.iter().filter(|i| read.contains(i)).count();
            timings.around(split.around.len(), whole);
        }
        Ok((read, Some(joins)))
    }

    /// Step 4: the SQL files held for the schema that name a table the
    /// parsed files hold as a store or a key carrier, to a fixed point.
    /// How many were parsed, and those still waiting.
    fn schema_pass(
        &mut self,
        held: &[usize],
        sources: &mut SourceMap,
        timings: &mut timings::Timings,
    ) -> Result<(usize, Vec<usize>), RunError> {
        let mut waiting = held.to_vec();
        let mut read = 0;
        while !waiting.is_empty() {
            let config = &self.run.config;
            let tables = self
                .run
                .pool
                .install(|| model::key_tables(&self.facts, sources, config));
            if tables.is_empty() {
                break;
            }
            let (hit, rest): (Vec<usize>, Vec<usize>) = waiting
                .into_iter()
                .partition(|&i| names_a_table(&self.loaded[i], &tables));
            waiting = rest;
            if hit.is_empty() {
                break;
            }
            for &id in &hit {
                timings.admitted(self.loaded[id].kind, self.loaded[id].len as u64, false);
            }
            self.parse_ids(&hit, true, sources, timings)?;
            read += hit.len();
        }
        if read > 0 {
            timings.phase("parse-schema");
        }
        Ok((read, waiting))
    }

    /// The schedule's outcome: `parsed_after` files parsed after the first
    /// pass (held and schema files), the held and big files `read_whole`, and
    /// the schema files still waiting, as files not read.
    fn finish(
        self,
        joins: Option<model::Joins>,
        read_whole: &[usize],
        parsed_after: usize,
        schema_waiting: &[usize],
    ) -> Parsed {
        let mut given_up = self.given_up;
        given_up.sort_unstable();
        let loaded = &self.loaded;
        let files_parsed = loaded.iter().filter(|l| l.reading.first_pass()).count() + parsed_after;
        let not_read = loaded
            .iter()
            .enumerate()
            .filter_map(|(id, l)| {
                let read_after = match l.reading {
                    Reading::Held => read_whole.contains(&id),
                    Reading::Schema => !schema_waiting.contains(&id),
                    _ => false,
                };
                render::NotRead::of_loaded(&l.display, l.kind, &l.reading, read_after)
            })
            .collect();
        Parsed {
            facts: self.facts,
            given_up,
            early_suppressions: self.early_suppressions,
            joins,
            files_parsed,
            not_read,
            unread: loaded.iter().map(|l| !l.reading.reads()).collect(),
        }
    }

    /// Take the fates of files `ids` (in `ids` order): their facts, marked
    /// as test code by their path; a file given up on keeps its problems
    /// and one that says why. The texts their worker read ([`Reread`]) go
    /// into the source map.
    fn settle(
        &mut self,
        fates: Vec<supervise::Fate<FileFacts>>,
        ids: &[usize],
        sources: &mut SourceMap,
        timings: &mut timings::Timings,
    ) {
        for (fate, &id) in fates.into_iter().zip(ids) {
            let l = &self.loaded[id];
            // A file read again (whole, after a read around its words)
            // keeps only what the last read says.
            self.given_up.retain(|&(g, _)| g != id);
            let mut f = match fate {
                supervise::Fate::Done(f, took) => {
                    timings.parsed(l.kind, &l.display, took);
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
            match self.reread[id].get() {
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
            let relative = self.run.roots.relative(sources.path(id));
            f.test_path = test_code::test_code().is_test_path(&relative);
            if l.kind == FileKind::Python {
                frontend::python::label_apps(&relative, &mut f);
            }
            self.facts[id] = f;
        }
    }
}

/// Parses estimated to hold more than this ([`parse_weight`]) run
/// [`BIG_FILES_AT_ONCE`] at a time, so that peak memory is that many big
/// parses plus small ones, whatever the number of threads: a YAML or JSON
/// file of 1 MiB, a Rust file of 164 KiB.
const BIG_PARSE_BYTES: usize = 9 * read::BIG_FILE_BYTES;

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
const GIVE_BACK_BYTES: usize = 32 * read::BIG_FILE_BYTES;

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

/// What the parse worker of a deferred file read, by file id.
type Rereads = Arc<Vec<OnceLock<Reread>>>;

enum Reread {
    /// The text, with whether a byte-order mark was blanked.
    Text(Arc<str>, bool),
    /// A Rust file ([`read::lets_go`]): nothing reads its text after its front
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

/// The front ends' work on some of the kept files (`ids`, file ids), for
/// [`supervise::run`].
struct ParseJob {
    loaded: Arc<Vec<Loaded>>,
    reread: Rereads,
    ids: Vec<usize>,
    /// Files read around their words ([`Reading::Around`]) are read whole.
    whole: bool,
}

impl supervise::Job for ParseJob {
    type Output = FileFacts;

    fn run(&self, i: usize) -> FileFacts {
        let id = self.ids[i];
        let l = &self.loaded[id];
        let mut reread_problems = Vec::new();
        let text: Arc<str> = match &l.deferred {
            None => Arc::clone(&l.text),
            Some(path) => match std::fs::read(path) {
                Ok(bytes) => {
                    let (text, bom, problems) = read::decode(bytes);
                    let text: Arc<str> = Arc::from(text);
                    let _ = self.reread[id].set(if read::lets_go(l.kind) {
                        Reread::LetGo {
                            len: text.len(),
                            hash: source::text_hash(&text),
                            bom,
                            suppressions: suppress::scan(id, &text, run::statements(l.kind)),
                        }
                    } else {
                        Reread::Text(Arc::clone(&text), bom)
                    });
                    reread_problems = problems;
                    text
                }
                Err(e) => {
                    return FileFacts {
                        file: id,
                        problems: vec![Problem::new(Span::new(0, 0), read::cannot_read(e))],
                        ..Default::default()
                    };
                }
            },
        };
        let consts_only = l.reading == Reading::ConstantsOnly;
        let mut f = if consts_only {
            let mut f = FileFacts {
                file: id,
                ..Default::default()
            };
            match l.kind {
                FileKind::Script(dialect) => frontend::ts::parse_consts(&text, dialect, &mut f),
                _ => frontend::rust::retention::parse_consts(&text, &mut f),
            }
            f
        } else if l.reading.reads() {
            // Anchored in the text read first: the same text.
            let mut f = match &l.reading {
                Reading::Around(anchors) if !self.whole && text.len() == l.len => {
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
            FileFacts {
                file: id,
                ..Default::default()
            }
        };
        if let Some(r) = &mut f.code {
            r.retention.let_go_defs(consts_only);
        }
        if parse_weight(l.kind, consts_only, text.len()) > GIVE_BACK_BYTES {
            give_back_free_memory();
        }
        // The lines the Redis model reads of a text that is let go.
        if l.deferred.is_some() && read::lets_go(l.kind) {
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
        if l.reading.reads() {
            l.len
        } else {
            0
        }
    }

    fn weight(&self, i: usize) -> usize {
        let l = &self.loaded[self.ids[i]];
        let consts_only = l.reading == Reading::ConstantsOnly;
        parse_weight(l.kind, consts_only, self.size(i))
    }
}

impl ParseJob {
    /// The facts of a file whose front end did not finish: its own problems
    /// and one that says why nothing else was read.
    fn gave_up(id: usize, l: &Loaded, message: String) -> FileFacts {
        let mut problems = l.problems.clone();
        problems.push(Problem::new(Span::new(0, 0), message));
        FileFacts {
            file: id,
            problems,
            ..Default::default()
        }
    }
}

/// Whether a held SQL file ([`Reading::Schema`]) names one of
/// `tables` (lowered): a file whose text its worker reads again is taken to.
fn names_a_table(l: &Loaded, tables: &[String]) -> bool {
    if l.deferred.is_some() {
        return true;
    }
    let lower = l.text.as_bytes().to_ascii_lowercase();
    tables.iter().any(|t| prefilter::names_table(&lower, t))
}

/// Whether a held file or a big file read around its words is read whole
/// now ([`prefilter::reading::after_first_pass`]), given what the files
/// parsed can be reached from. Its text is read again when it was let go;
/// one that cannot be read is read whole, so that its parse says why.
fn reads_whole(
    l: &Loaded,
    path: &str,
    packages: &source::Packages,
    reach: &prefilter::reading::Reach,
) -> bool {
    use frontend::rust::{jti, owner_keys, units};
    use prefilter::reading::{after_first_pass, After, Unread};
    if !reach.keys {
        return false;
    }
    let text: std::borrow::Cow<'_, str> = match &l.deferred {
        None => std::borrow::Cow::Borrowed(&l.text),
        Some(disk) => match std::fs::read(disk) {
            Ok(bytes) => std::borrow::Cow::Owned(String::from_utf8_lossy(&bytes).into_owned()),
            Err(_) => return true,
        },
    };
    let package = packages.of(path);
    // The screens matter only where such files are judged.
    let judged_anywhere = reach.judged.contains(package)
        && (units::may_slip(&text) || jti::may_record(&text) || owner_keys::may_hold(&text));
    let file = Unread {
        text: &text,
        crate_key: &model::reach::crate_of(path),
        package,
        judged_anywhere,
        script: matches!(l.kind, FileKind::Script(_)),
    };
    let whole = after_first_pass(&file, reach) == After::Whole;
    if whole && file.script && std::env::var_os("IDEMLINT_DEBUG_HELD").is_some() {
        let why = prefilter::reading::script_why(&text, reach).unwrap_or_default();
        eprintln!("HELD-READ\t{path}\t{}\t{why}", text.len());
    }
    whole
}
