//! Where a run's files come from, ahead of the walk: the work tree, the git
//! index (`--staged`) or a commit; and which of them have their findings
//! reported (`--staged`, `--changed-since`). The rest of the pipeline lists
//! candidates with [`Selection::discover`], reads them with
//! [`Selection::read`] and never knows which origin it reads.
//!
//! Git is read through the `git` binary, not a library: the index and object
//! formats (split index, sparse checkouts, SHA-256 repositories, partial
//! clones that fetch on demand) are whatever the user's own git reads, and a
//! hook runs where git is installed by definition.

use crate::prefilter::Keywords;
use crate::walk::{self, Candidate, WalkError};
use sha2::Digest as _;
use std::collections::{BTreeSet, HashMap};
use std::io::{BufRead, BufReader, Read as _, Write as _};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Mutex, OnceLock};

#[derive(Debug, thiserror::Error)]
pub enum FilesError {
    #[error("{flag} needs a git repository: {message}")]
    NotARepository { flag: &'static str, message: String },
    #[error("{flag}: {message}")]
    Git { flag: &'static str, message: String },
}

/// Which files a run reads and reports.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Mode {
    /// The work tree, every file reported (a plain `check`).
    #[default]
    WorkTree,
    /// The blobs in the git index; findings in the files staged for commit.
    Staged,
    /// The work tree; findings in the files changed since the merge base
    /// with the revision (committed, uncommitted or untracked).
    ChangedSince(String),
    /// A commit, read without touching the work tree; every file reported.
    Revision(String),
}

impl Mode {
    fn flag(&self) -> &'static str {
        match self {
            Mode::WorkTree => "check",
            Mode::Staged => "--staged",
            Mode::ChangedSince(_) => "--changed-since",
            Mode::Revision(_) => "--rev",
        }
    }
}

/// The commit a `--rev` run reads, for the report to name.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Revision {
    /// As given (`HEAD~1`).
    pub rev: String,
    pub commit: String,
    /// The committer date, ISO 8601.
    pub date: String,
    pub subject: String,
}

/// What a candidate's bytes turned out to be.
pub enum Read {
    Bytes(Vec<u8>),
    /// Over the size limit; `matches` says whether it holds a keyword.
    TooLarge {
        len: u64,
        matches: bool,
    },
    Failed(String),
}

/// One file of the index or of a commit.
#[derive(Debug, Clone)]
struct Entry {
    /// Relative to the repository root, `/`-separated.
    path: String,
    oid: String,
}

#[derive(Debug, Default)]
enum Origin {
    #[default]
    WorkTree,
    /// The index or a commit, listed when the selection was resolved.
    Git(Vec<Entry>),
}

/// The files of one run: where they come from and which are reported.
#[derive(Debug, Default)]
pub struct Selection {
    origin: Origin,
    /// The repository root as a path relative to the current directory
    /// (`.`, `../..`), so display paths match the walk's.
    root: Option<PathBuf>,
    /// The repository root, where git runs.
    workdir: PathBuf,
    /// Display paths whose findings are reported; `None` reports all. Set
    /// by [`Selection::settle`] when git is still listing them.
    reported: OnceLock<Option<BTreeSet<String>>>,
    /// The git commands listing the changed files, started at resolve and
    /// read by [`Selection::settle`]: git works while the files are read.
    pending: Mutex<Option<Pending>>,
    /// The candidates' blob ids, listed by `discover`.
    oids: Mutex<HashMap<PathBuf, String>>,
    /// The `git cat-file --batch` that reads the blobs the work tree does
    /// not hold, started at the first of them.
    cat_file: Mutex<Option<Result<CatFile, String>>>,
    /// The commit read, in a revision mode.
    revision: Option<Revision>,
}

/// Changed files still being listed: the running git commands (their
/// outputs are one NUL-separated list) and what turns a path into a
/// reported display path.
#[derive(Debug)]
struct Pending {
    flag: &'static str,
    children: Vec<Child>,
    root: PathBuf,
    cwd: PathBuf,
    under: Vec<String>,
}

impl Selection {
    /// Resolve a mode in the current directory `cwd`. `paths`, when given
    /// with a git mode, narrow the files reported; the project model is
    /// always built from the whole repository.
    pub fn resolve(mode: &Mode, paths: &[PathBuf], cwd: &Path) -> Result<Selection, FilesError> {
        if *mode == Mode::WorkTree {
            return Ok(Selection::default());
        }
        let flag = mode.flag();
        // The repository of the first path given (the current one without).
        let start = match paths.first() {
            Some(p) if p.is_dir() => p.clone(),
            Some(p) => p
                .parent()
                .filter(|d| !d.as_os_str().is_empty())
                .map_or_else(|| PathBuf::from("."), Path::to_path_buf),
            None => PathBuf::from("."),
        };
        let cdup = git(&cwd.join(&start), &["rev-parse", "--show-cdup"]).map_err(|message| {
            FilesError::NotARepository {
                flag,
                message: message
                    .trim_start_matches("fatal: ")
                    .trim_end_matches('.')
                    .to_string(),
            }
        })?;
        let root = lexical(&start.join(cdup.trim_end_matches(['\n', '/'])));
        let err = |message: String| FilesError::Git { flag, message };
        let in_root = |args: &[&str]| git(&cwd.join(&root), args).map_err(err);
        let mut revision = None;
        let spawn = |args: &[&str]| spawn_git(&cwd.join(&root), args).map_err(err);
        let (origin, changed) = match mode {
            Mode::WorkTree => unreachable!("handled above"),
            Mode::Staged => {
                // listed while the index is read below, and read at settle
                let changed = spawn(&[
                    "diff",
                    "--cached",
                    "--name-only",
                    "-z",
                    "--diff-filter=ACMR",
                ])?;
                let listing = in_root(&["ls-files", "--stage", "-z"])?;
                (Origin::Git(index_entries(&listing)), Some(vec![changed]))
            }
            Mode::ChangedSince(rev) => {
                let base = git(&cwd.join(&root), &["merge-base", rev, "HEAD"]).map_err(|e| {
                    FilesError::Git {
                        flag,
                        message: format!("no merge base of `{rev}` and HEAD: {e}"),
                    }
                })?;
                let base = base.trim();
                let committed = spawn(&["diff", "--name-only", "-z", "--diff-filter=ACMR", base])?;
                let untracked = spawn(&["ls-files", "--others", "--exclude-standard", "-z"])?;
                (Origin::WorkTree, Some(vec![committed, untracked]))
            }
            Mode::Revision(rev) => {
                let commit = format!("{rev}^{{commit}}");
                in_root(&["rev-parse", "--verify", "--quiet", &commit]).map_err(|_| {
                    FilesError::Git {
                        flag,
                        message: format!("`{rev}` is not a commit of this repository"),
                    }
                })?;
                let shown = in_root(&["show", "-s", "--format=%H%x00%cI%x00%s", &commit])?;
                let mut f = shown.trim_end_matches('\n').splitn(3, '\0');
                revision = Some(Revision {
                    rev: rev.clone(),
                    commit: f.next().unwrap_or_default().to_string(),
                    date: f.next().unwrap_or_default().to_string(),
                    subject: f.next().unwrap_or_default().to_string(),
                });
                let listing = in_root(&["ls-tree", "-r", "-z", "--full-tree", rev])?;
                (Origin::Git(tree_entries(&listing)), None)
            }
        };
        let under: Vec<String> = paths.iter().map(|p| walk::display_path(p, cwd)).collect();
        let reported = OnceLock::new();
        let pending = match changed {
            Some(children) => Some(Pending {
                flag,
                children,
                root: root.clone(),
                cwd: cwd.to_path_buf(),
                under,
            }),
            None => {
                // A revision narrowed to some paths: report what lies under them.
                let shown = match &origin {
                    Origin::Git(entries) if !under.is_empty() => Some(
                        entries
                            .iter()
                            .map(|e| walk::display_path(&root.join(&e.path), cwd))
                            .filter(|d| narrowed(&under, d))
                            .collect(),
                    ),
                    _ => None,
                };
                let _ = reported.set(shown);
                None
            }
        };
        Ok(Selection {
            origin,
            workdir: cwd.join(&root),
            root: Some(root),
            reported,
            pending: Mutex::new(pending),
            oids: Mutex::new(HashMap::new()),
            cat_file: Mutex::new(None),
            revision,
        })
    }

    /// Finish listing the changed files (`--staged`, `--changed-since`):
    /// wait for the git commands started at resolve. Call it before
    /// [`Selection::reports`]; later calls do nothing.
    pub fn settle(&self) -> Result<(), FilesError> {
        let Some(p) = lock(&self.pending).take() else {
            return Ok(());
        };
        let mut files = Vec::new();
        for child in p.children {
            let text = finish_git(child).map_err(|message| FilesError::Git {
                flag: p.flag,
                message,
            })?;
            files.extend(split_z(&text));
        }
        let shown = files
            .iter()
            .map(|f| walk::display_path(&p.root.join(f), &p.cwd))
            .filter(|d| narrowed(&p.under, d))
            .collect();
        let _ = self.reported.set(Some(shown));
        Ok(())
    }

    /// The commit a revision mode reads.
    pub fn revision(&self) -> Option<&Revision> {
        self.revision.as_ref()
    }

    /// The paths to walk: the given ones, or the whole repository in a git mode.
    pub fn roots(&self, given: Vec<PathBuf>) -> Vec<PathBuf> {
        match &self.root {
            Some(root) => vec![root.clone()],
            None => given,
        }
    }

    /// Whether findings in the file shown as `display` are reported.
    pub fn reports(&self, display: &str) -> bool {
        debug_assert!(lock(&self.pending).is_none(), "reports() before settle()");
        self.reported
            .get()
            .and_then(Option::as_ref)
            .is_none_or(|r| r.contains(display))
    }

    /// The candidates of a run: walked in the work tree, or listed from the
    /// index or commit (classified and excluded the same way as a walk).
    pub fn discover(
        &self,
        paths: &[PathBuf],
        cwd: &Path,
        exclude: &[String],
    ) -> Result<Vec<Candidate>, WalkError> {
        let (Origin::Git(entries), Some(root)) = (&self.origin, &self.root) else {
            return walk::discover(paths, cwd, exclude);
        };
        let excluded = walk::exclude_set(exclude);
        let mut out = Vec::new();
        let mut oids = HashMap::new();
        for e in entries {
            if e.path.split('/').any(walk::is_skipped_hidden) {
                continue;
            }
            let path = root.join(&e.path);
            let Some(kind) = walk::classify(&path) else {
                continue;
            };
            let display = walk::display_path(&path, cwd);
            if excluded.is_match(&display) {
                continue;
            }
            oids.insert(path.clone(), e.oid.clone());
            out.push(Candidate {
                display,
                path,
                kind,
                explicit: false,
            });
        }
        *lock(&self.oids) = oids;
        out.sort();
        Ok(out)
    }

    /// Whether the files are the work tree's (a path read twice gives the
    /// same file), not blobs of the index or a commit.
    pub fn reads_work_tree(&self) -> bool {
        matches!(self.origin, Origin::WorkTree)
    }

    /// A candidate's bytes, from the work tree or from git.
    pub fn read(&self, c: &Candidate, max: u64, keywords: &Keywords) -> Read {
        if let Origin::Git(_) = self.origin {
            let Some(oid) = lock(&self.oids).get(&c.path).cloned() else {
                return Read::Failed("not in the listing of git".to_string());
            };
            // The work tree's copy when it is the blob, byte for byte (its
            // object id says so); git's otherwise.
            if let Some(bytes) = same_as_blob(&c.path, &oid, max) {
                return Read::Bytes(bytes);
            }
            let mut cat_file = lock(&self.cat_file);
            return match cat_file.get_or_insert_with(|| CatFile::start(&self.workdir)) {
                Ok(git) => git.read(&oid, max, keywords),
                Err(e) => Read::Failed(e.clone()),
            };
        }
        // One path lookup: the size is read from the open file. A file that
        // does not open is looked up by path, so that an unreadable one too
        // large to parse is still said to be too large.
        let too_large = |len: u64| Read::TooLarge {
            len,
            matches: keywords.stream_matches(&c.path),
        };
        let file = match std::fs::File::open(&c.path) {
            Ok(file) => file,
            Err(e) => {
                return match std::fs::metadata(&c.path) {
                    Ok(m) if m.len() > max => too_large(m.len()),
                    _ => Read::Failed(e.to_string()),
                }
            }
        };
        match file.metadata() {
            Err(e) => Read::Failed(e.to_string()),
            Ok(m) if m.len() > max => too_large(m.len()),
            Ok(m) => match read_all(&file, usize::try_from(m.len()).unwrap_or(0)) {
                Ok(bytes) => Read::Bytes(bytes),
                Err(e) => Read::Failed(e.to_string()),
            },
        }
    }
}

thread_local! {
    /// A reader thread's buffer, handed back by [`recycle`]: most files
    /// read are let go after the prefilter, so their bytes need no
    /// allocation of their own (nor, above glibc's mmap threshold, fresh
    /// pages from the kernel for each).
    static BUFFER: std::cell::Cell<Vec<u8>> = const { std::cell::Cell::new(Vec::new()) };
}

/// How much of a reader's buffer is kept between files, at most.
const KEPT_BUFFER_BYTES: usize = 1 << 20;

/// All of an open file of about `len` bytes, in the thread's buffer when it
/// has one. Read through `take`: std's `read_to_end` on a `File` itself
/// would first ask the file's size and position again (a `statx` and an
/// `lseek`, a third of the system calls of a run that reads 3,500 files),
/// while the generic one reads into the buffer's spare room until a read
/// gives nothing, without zeroing it first.
fn read_all(file: &std::fs::File, len: usize) -> std::io::Result<Vec<u8>> {
    use std::io::Read as _;
    let mut b = BUFFER.take();
    b.clear();
    // One byte more than the size, so that the end is seen in one more
    // read when the file did not grow.
    b.reserve(len + 1);
    match file.take(u64::MAX).read_to_end(&mut b) {
        Ok(_) => Ok(b),
        Err(e) => {
            recycle(b);
            Err(e)
        }
    }
}

/// Hands back the bytes of a file that is not kept, for the thread's next
/// read.
pub fn recycle(bytes: Vec<u8>) {
    if bytes.capacity() <= KEPT_BUFFER_BYTES {
        BUFFER.set(bytes);
    }
}

/// A path with `.` and `dir/..` folded away lexically (`sub/..` is `.`;
/// leading `..` stay), so display paths read as the walk's do.
fn lexical(p: &Path) -> PathBuf {
    use std::path::Component;
    let mut out: Vec<Component> = Vec::new();
    for c in p.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir if matches!(out.last(), Some(Component::Normal(_))) => {
                out.pop();
            }
            c => out.push(c),
        }
    }
    if out.is_empty() {
        PathBuf::from(".")
    } else {
        out.iter().collect()
    }
}

/// Whether a display path lies under one of the paths given (all do
/// when none was given).
fn narrowed(under: &[String], display: &str) -> bool {
    under.is_empty()
        || under.iter().any(|u| match u.as_str() {
            // the current directory: what is shown below it
            "." => !display.starts_with("../") && !display.starts_with('/'),
            u => Path::new(display).starts_with(u),
        })
}

/// Run git in `dir`; its standard output, or its error text.
fn git(dir: &Path, args: &[&str]) -> Result<String, String> {
    finish_git(spawn_git(dir, args)?)
}

/// Start git in `dir`, its output read later by [`finish_git`].
fn spawn_git(dir: &Path, args: &[&str]) -> Result<Child, String> {
    Command::new("git")
        .arg("-c")
        .arg("core.quotePath=false")
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run `git`: {e}"))
}

/// Wait for a git started by [`spawn_git`]: its standard output, or its
/// error text.
fn finish_git(child: Child) -> Result<String, String> {
    let out = child
        .wait_with_output()
        .map_err(|e| format!("cannot run `git`: {e}"))?;
    if !out.status.success() {
        return Err(error_text(&String::from_utf8_lossy(&out.stderr)));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

fn error_text(stderr: &str) -> String {
    let line = stderr
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("git failed");
    line.trim().to_string()
}

fn split_z(text: &str) -> Vec<String> {
    text.split('\0')
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect()
}

/// `git ls-files --stage -z`: `<mode> <oid> <stage>\t<path>`. Only regular
/// files at stage 0 (an unmerged file has no single staged content;
/// symlinks and submodules are not followed, as in a walk).
fn index_entries(listing: &str) -> Vec<Entry> {
    entries(listing, |[mode, oid, stage]| {
        (stage == "0" && mode.starts_with("100")).then_some(oid)
    })
}

/// `git ls-tree -r -z`: `<mode> <type> <oid>\t<path>`.
fn tree_entries(listing: &str) -> Vec<Entry> {
    entries(listing, |[mode, kind, oid]| {
        (kind == "blob" && mode.starts_with("100")).then_some(oid)
    })
}

/// NUL-separated `<three fields>\t<path>` records; `pick` returns the
/// object id of a record to keep.
fn entries<'a>(listing: &'a str, pick: impl Fn([&'a str; 3]) -> Option<&'a str>) -> Vec<Entry> {
    listing
        .split('\0')
        .filter_map(|rec| {
            let (meta, path) = rec.split_once('\t')?;
            let mut f = meta.split(' ');
            let oid = pick([f.next()?, f.next()?, f.next()?])?;
            Some(Entry {
                path: path.to_string(),
                oid: oid.to_string(),
            })
        })
        .collect()
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// The work tree's bytes at `path` when they are the blob `oid`: their
/// git object id (SHA-1, or SHA-256 in a repository that uses it) is
/// `oid`. So a staged or committed file that the work tree still holds is
/// read as any file is, and git is asked only for the others; a filter, a
/// line-ending conversion or an `assume-unchanged` file cannot make the
/// work tree pass for the blob.
fn same_as_blob(path: &Path, oid: &str, max: u64) -> Option<Vec<u8>> {
    let meta = std::fs::symlink_metadata(path).ok()?;
    if !meta.is_file() || meta.len() > max {
        return None;
    }
    let bytes = std::fs::read(path).ok()?;
    let header = format!("blob {}\0", bytes.len());
    let id = match oid.len() {
        40 => crate::source::hex(
            &sha1::Sha1::new()
                .chain_update(&header)
                .chain_update(&bytes)
                .finalize(),
        ),
        64 => crate::source::hex(
            &sha2::Sha256::new()
                .chain_update(&header)
                .chain_update(&bytes)
                .finalize(),
        ),
        _ => return None,
    };
    (id == oid).then_some(bytes)
}

/// One `git cat-file --batch`, asked for one blob at a time.
struct CatFile {
    child: Child,
    stdin: Option<std::process::ChildStdin>,
    stdout: BufReader<std::process::ChildStdout>,
}

impl std::fmt::Debug for CatFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CatFile")
            .field("pid", &self.child.id())
            .finish()
    }
}

impl CatFile {
    fn start(dir: &Path) -> Result<CatFile, String> {
        let mut child = Command::new("git")
            .args(["cat-file", "--batch"])
            .current_dir(dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot run `git cat-file`: {e}"))?;
        match (child.stdin.take(), child.stdout.take()) {
            (Some(stdin), Some(stdout)) => Ok(CatFile {
                child,
                stdin: Some(stdin),
                stdout: BufReader::new(stdout),
            }),
            _ => Err("cannot talk to `git cat-file`".to_string()),
        }
    }

    /// The blob `oid`: its bytes, or only its size and whether it holds a
    /// keyword when it is over `max`.
    fn read(&mut self, oid: &str, max: u64, keywords: &Keywords) -> Read {
        let failed = || Read::Failed("git could not read the blob".to_string());
        let Some(stdin) = self.stdin.as_mut() else {
            return failed();
        };
        if writeln!(stdin, "{oid}")
            .and_then(|()| stdin.flush())
            .is_err()
        {
            return failed();
        }
        let mut header = String::new();
        if self.stdout.read_line(&mut header).unwrap_or(0) == 0 {
            return failed();
        }
        // `<oid> blob <size>`, or `<oid> missing` (nothing follows)
        let mut f = header.split_whitespace();
        let Some(size) = (match (f.next(), f.next(), f.next()) {
            (Some(_), Some("blob"), Some(size)) => size.parse::<usize>().ok(),
            _ => None,
        }) else {
            return failed();
        };
        let mut bytes = vec![0; size];
        let mut newline = [0u8; 1];
        if self.stdout.read_exact(&mut bytes).is_err()
            || self.stdout.read_exact(&mut newline).is_err()
        {
            // out of step with git: ask it nothing more
            self.stdin = None;
            return failed();
        }
        if bytes.len() as u64 > max {
            Read::TooLarge {
                len: bytes.len() as u64,
                matches: keywords.matches(&bytes),
            }
        } else {
            Read::Bytes(bytes)
        }
    }
}

impl Drop for CatFile {
    fn drop(&mut self) {
        // git ends when its input closes
        self.stdin = None;
        let _ = self.child.wait();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn index_listing_keeps_regular_files_at_stage_0() {
        let listing = "100644 aaa 0\tsrc/a.rs\x00120000 bbb 0\tlink.rs\x00100644 ccc 2\tconflict.sql\x00160000 ddd 0\tsub\x00100755 eee 0\tbin/run.sh\0";
        let e = index_entries(listing);
        let paths: Vec<&str> = e.iter().map(|e| e.path.as_str()).collect();
        assert_eq!(paths, ["src/a.rs", "bin/run.sh"]);
        assert_eq!(e[0].oid, "aaa");
    }

    #[test]
    fn tree_listing_keeps_blobs() {
        let listing =
            "100644 blob aaa\tmigrations/1.sql\x00040000 tree bbb\tsrc\x00160000 commit ccc\tvendor\0";
        let e = tree_entries(listing);
        assert_eq!(e.len(), 1);
        assert_eq!(e[0].path, "migrations/1.sql");
    }

    /// A file is read whole whatever its size was said to be, and a
    /// reader's buffer, handed back between files, carries nothing of one
    /// file into the next.
    #[test]
    fn a_file_is_read_whole_in_a_reused_buffer() {
        let dir = tempfile::tempdir().unwrap();
        let big: Vec<u8> = (0..20_000u32).map(|i| b'a' + (i % 26) as u8).collect();
        let cases: [(&str, Vec<u8>); 3] = [
            ("big", big.clone()),
            ("small", b"fn main() {}\n".to_vec()),
            ("empty", Vec::new()),
        ];
        for (name, bytes) in &cases {
            let path = dir.path().join(name);
            std::fs::write(&path, bytes).unwrap();
            // The size as read, one that grew since, and one that shrank.
            for len in [bytes.len(), bytes.len() / 3, bytes.len() * 2] {
                let read = read_all(&std::fs::File::open(&path).unwrap(), len).unwrap();
                assert_eq!(&read, bytes, "{name} read with {len} bytes expected");
                recycle(read);
            }
        }
    }

    #[test]
    fn paths_are_folded_lexically() {
        assert_eq!(lexical(Path::new("./sub/..")), PathBuf::from("."));
        assert_eq!(lexical(Path::new("./../..")), PathBuf::from("../.."));
        assert_eq!(lexical(Path::new("/tmp/r/a/../")), PathBuf::from("/tmp/r"));
        assert_eq!(lexical(Path::new("repo/")), PathBuf::from("repo"));
    }

    #[test]
    fn the_work_tree_copy_is_used_only_when_its_object_id_is_the_blobs() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.txt");
        std::fs::write(&path, "hello\n").unwrap();
        // `printf 'hello\n' | git hash-object --stdin`, in a SHA-1 and in a
        // SHA-256 repository
        let sha1 = "ce013625030ba8dba906f756967f9e9ca394464a";
        let sha256 = "2cf8d83d9ee29543b34a87727421fdecb7e3f3a183d337639025de576db9ebb4";
        for oid in [sha1, sha256] {
            assert_eq!(
                same_as_blob(&path, oid, 1024).as_deref(),
                Some(&b"hello\n"[..])
            );
            assert_eq!(same_as_blob(&path, oid, 3), None, "over the size limit");
        }
        assert_eq!(same_as_blob(&path, &sha1.replace('c', "d"), 1024), None);
        assert_eq!(
            same_as_blob(&path, "abc", 1024),
            None,
            "an id of no known length"
        );
        assert_eq!(same_as_blob(&dir.path().join("gone"), sha1, 1024), None);
        assert_eq!(same_as_blob(dir.path(), sha1, 1024), None, "a directory");
    }

    #[test]
    fn a_work_tree_selection_reports_everything() {
        let s = Selection::default();
        assert!(s.reports("any/path.rs"));
        assert_eq!(s.roots(vec![PathBuf::from("src")]), [PathBuf::from("src")]);
    }
}
