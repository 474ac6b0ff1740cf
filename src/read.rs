//! discover → read: the run's files found, read (the work tree's while it is
//! walked), and judged by the prefilter, in parallel. What comes out is the
//! files kept for the run ([`Loaded`], in file-id order), each with how its
//! front end is to read it, and why every other file was not kept
//! (`--verbose`).

use crate::config::Config;
use crate::facts::Problem;
use crate::prefilter;
use crate::prefilter::reading::Reading;
use crate::run::{Run, RunError, TestRoots, MAX_FILE_BYTES};
use crate::source::{self, FileKind, SourceFile, SourceMap, Span};
use crate::walk::{self, Candidate};
use crate::{files, frontend, render, timings};
use rayon::prelude::*;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A work-tree file larger than this is read again by the worker that
/// parses it (`load_text`), so that the big files still waiting their turn
/// hold no text: medusa's peak median 62.3 -> 59.8 MiB (10 paired runs,
/// 2026-12-03).
pub(crate) const BIG_FILE_BYTES: usize = 1024 * 1024;

/// The files of a run as read.
pub(crate) struct Read {
    /// The files kept for the run, in file-id order (standard input last).
    pub(crate) kept: Vec<Loaded>,
    /// Every file scanned and not kept, with the reason (`--verbose`).
    pub(crate) not_read: Vec<render::NotRead>,
    /// Every file scanned, kept or not.
    pub(crate) files_scanned: usize,
    /// The packages among every file scanned.
    pub(crate) packages: source::Packages,
}

impl Read {
    /// The source map of the kept files, in file-id order: the texts held
    /// now (a deferred file's is set when its worker reads it).
    pub(crate) fn sources(&self) -> SourceMap {
        let mut sources = SourceMap {
            packages: self.packages.clone(),
            ..SourceMap::default()
        };
        for l in &self.kept {
            let mut src = SourceFile::new(l.display.clone(), l.kind, "");
            src.set_text(l.text.clone(), l.bom);
            sources.files.push(src);
        }
        sources
    }
}

/// Discover the run's files and read them, with standard input last. The
/// run's prefilter, and with it the name judgements its read threads made,
/// is let go at the end: the threads live on through the parse.
pub(crate) fn discover_and_read(
    run: &Run,
    timings: &mut timings::Timings,
) -> Result<Read, RunError> {
    let extra = config_keywords(&run.config);
    let walks_while_reading = run.gate.files.reads_work_tree();
    let (candidates, read, keywords) = if walks_while_reading {
        walk_while_reading(run, &extra)?
    } else {
        walk_then_read(run, &extra, timings)?
    };
    let files_scanned = candidates.len() + usize::from(run.opts.stdin.is_some());
    for (c, (len, _)) in candidates.iter().zip(&read) {
        timings.scanned(c.kind, *len);
    }
    let manifests = crate::knowledge::package_manifests();
    let packages = source::Packages::of_manifests(
        candidates
            .iter()
            .map(|c| c.display.as_str())
            .filter(|d| manifests.is_manifest(d.rsplit('/').next().unwrap_or(d))),
    );
    let mut not_read: Vec<render::NotRead> = Vec::new();
    let mut kept: Vec<Loaded> = Vec::with_capacity(read.len());
    for (c, (_, l)) in candidates.iter().zip(read) {
        match l {
            Ok(l) => kept.push(l),
            Err(reason) => not_read.push(render::NotRead::new(&c.display, reason)),
        }
    }
    if let Some((name, text)) = &run.opts.stdin {
        let kind = walk::classify(Path::new(name)).unwrap_or(FileKind::Text);
        timings.scanned(kind, text.len() as u64);
        match load_text(
            name.clone(),
            Path::new(name),
            kind,
            text.as_bytes().to_vec(),
            &keywords,
            (false, &|| run.roots.test_path(name)),
        ) {
            Ok(l) => kept.push(l),
            Err(reason) => not_read.push(render::NotRead::new(name, reason)),
        }
    }
    drop(keywords);
    for l in kept.iter().filter(|l| l.reading.first_pass()) {
        timings.admitted(l.kind, l.len as u64, l.reading == Reading::ConstantsOnly);
    }
    // Every file the walk found (10,163 paths and names on a payment
    // switch): not read again, so not held to the end of the run.
    drop(candidates);
    timings.phase(if walks_while_reading {
        "walk+read+prefilter"
    } else {
        "read+prefilter"
    });
    Ok(Read {
        kept,
        not_read,
        files_scanned,
        packages,
    })
}

/// The candidates found, each with its size and what is kept of it, and the
/// run's prefilter.
type Found = (Vec<Candidate>, Vec<(u64, Kept)>, prefilter::Keywords);

/// The work tree, read while it is walked: the walker's threads hand each
/// file to the pool as they find it, and the pool reads it.
fn walk_while_reading(run: &Run, extra: &[String]) -> Result<Found, RunError> {
    let file_paths = run.file_paths();
    let keywords = prefilter::Keywords::new(extra, prefilter::files_expected(&file_paths))
        .judging_tests(run.judges_tests)
        .exhaustive(run.exhaustive);
    let (tx, rx) = std::sync::mpsc::channel::<Candidate>();
    let (fp, exclude, cwd) = (&file_paths, &run.config.exclude, &run.cwd);
    let (walked, mut read) = std::thread::scope(|s| {
        let walker = s.spawn(move || {
            walk::discover_each(fp, cwd, exclude, &|c| {
                // The reader stops taking files only when the run is over.
                let _ = tx.send(c);
            })
        });
        let read: Vec<(Candidate, (u64, Kept))> = run.pool.install(|| {
            rx.into_iter()
                .par_bridge()
                .map(|c| {
                    let r = read_candidate(&c, &keywords, &run.gate.files, &run.roots);
                    (c, r)
                })
                .collect()
        });
        (walker.join(), read)
    });
    walked.map_err(|_| RunError::Internal("the walk of the files failed".into()))??;
    read.sort_by(|a, b| a.0.cmp(&b.0));
    read.dedup_by(|a, b| a.0.display == b.0.display);
    let (candidates, read) = read.into_iter().unzip();
    Ok((candidates, read, keywords))
}

/// The files of a gate (the git index, a revision), found first, then read.
fn walk_then_read(
    run: &Run,
    extra: &[String],
    timings: &mut timings::Timings,
) -> Result<Found, RunError> {
    let candidates = run
        .gate
        .files
        .discover(&run.file_paths(), &run.cwd, &run.config.exclude)?;
    timings.phase("walk");
    let keywords = prefilter::Keywords::new(extra, candidates.len() + 1)
        .judging_tests(run.judges_tests)
        .exhaustive(run.exhaustive);
    let read = run.pool.install(|| {
        candidates
            .par_iter()
            .map(|c| read_candidate(c, &keywords, &run.gate.files, &run.roots))
            .collect()
    });
    Ok((candidates, read, keywords))
}

/// Whether a work-tree file of `kind` is read by its parse worker and its
/// text let go after its front end. A Rust file's facts hold all that the
/// model reads of it, but for the lines that call something named for
/// idempotency (`FileFacts::store_code_lines`, kept) and the rare file that
/// writes a store, whose text the writer model reads again. A config's
/// entries are read with its text, so YAML, JSON and the rest keep theirs.
pub(crate) fn lets_go(kind: FileKind) -> bool {
    kind == FileKind::Rust
}

/// A candidate as read: kept for the run, or why not (`--verbose`).
type Kept = Result<Loaded, String>;

/// A file that is kept for the run: parsed, or reported as unreadable.
pub(crate) struct Loaded {
    pub(crate) display: String,
    pub(crate) kind: FileKind,
    pub(crate) text: Arc<str>,
    /// The text's length in bytes (also when it is deferred).
    pub(crate) len: usize,
    /// A work-tree file whose text its parse worker reads again (`text` is
    /// empty until then): a big one, or a constants-only one.
    pub(crate) deferred: Option<PathBuf>,
    /// How it is read ([`prefilter::reading::first`]), never
    /// [`Reading::Skip`]: the parse scheduler executes it.
    pub(crate) reading: Reading,
    /// A byte-order mark was blanked at the start of `text`.
    pub(crate) bom: bool,
    pub(crate) problems: Vec<Problem>,
}

fn problem_only(display: String, kind: FileKind, message: String) -> Loaded {
    Loaded {
        display,
        kind,
        text: Arc::from(""),
        len: 0,
        deferred: None,
        bom: false,
        problems: vec![Problem::new(Span::new(0, 0), message.clone())],
        reading: Reading::Refused(message),
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

/// Read a file's bytes as the first decision says
/// ([`prefilter::reading::first`]): not kept (why), kept with the problem
/// that refused it, or decoded (its text left to its parse worker when it
/// is deferred) with how it is to be read.
fn load_text(
    display: String,
    path: &Path,
    kind: FileKind,
    bytes: Vec<u8>,
    keywords: &prefilter::Keywords,
    (reads_work_tree, test_path): (bool, &dyn Fn() -> bool),
) -> Result<Loaded, String> {
    let around = frontend::rust::AROUND_WORDS_BYTES + 1..=frontend::rust::MAX_RUST_BYTES;
    let reading = prefilter::reading::first(keywords, kind, path, &bytes, test_path, &around);
    match reading {
        Reading::Skip(why) => {
            files::recycle(bytes);
            return Err(why);
        }
        Reading::Refused(why) => {
            files::recycle(bytes);
            return Ok(problem_only(display, kind, why));
        }
        _ => {}
    }
    let (text, bom, problems) = decode(bytes);
    let kind = walk::refine_kind(kind, path, &text);
    let len = text.len();
    // A big file's text is read again by the worker that parses it, so that
    // the texts of the big files still waiting their turn (they are parsed
    // one at a time) are not all held while the largest tree is built. So is
    // a Rust file's, which its worker then lets go (`schedule::Reread`, [`lets_go`]).
    // A TypeScript file held back is read again only if it is parsed.
    let held_script = reading == Reading::Held && matches!(kind, FileKind::Script(_));
    let deferred = (reads_work_tree && (len > BIG_FILE_BYTES || lets_go(kind) || held_script))
        .then(|| path.to_path_buf());
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
        reading,
        bom,
        problems,
    })
}

/// The problem message of a file that cannot be read, at either read.
pub(crate) fn cannot_read(e: impl std::fmt::Display) -> String {
    format!("cannot read file: {e}")
}

/// A file's bytes as text ([`source::decode`]), invalid UTF-8 said so.
pub(crate) fn decode(bytes: Vec<u8>) -> (String, bool, Vec<Problem>) {
    let (text, bom, invalid_at) = source::decode(bytes);
    let problems = invalid_at
        .map(|at| {
            Problem::new(
                Span::new(at, at),
                format!("invalid UTF-8 at byte {at}; read with replacement characters"),
            )
        })
        .into_iter()
        .collect();
    (text, bom, problems)
}
