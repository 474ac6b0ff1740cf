//! Source files, byte spans and the line index that turns spans into lines and
//! columns at render time. Not for parsing: front ends own that.

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

/// A half-open byte range into one file's text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Span {
    pub start: usize,
    pub end: usize,
}

impl Span {
    pub fn new(start: usize, end: usize) -> Self {
        Span {
            start,
            end: end.max(start),
        }
    }

    /// A span shifted by `offset` bytes (for text found inside a larger file).
    pub fn shift(self, offset: usize) -> Self {
        Span::new(self.start + offset, self.end + offset)
    }

    pub fn len(self) -> usize {
        self.end - self.start
    }

    pub fn is_empty(self) -> bool {
        self.start == self.end
    }
}

/// What a file is, by its path (`walk::classify`; docs/files.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FileKind {
    Rust,
    Sql,
    RedisConf,
    Yaml,
    Toml,
    Json,
    Hcl,
    Env,
    /// A dependency manifest read line by line (`Gemfile`, `Gemfile.lock`,
    /// `requirements*.txt`, `go.mod`): which libraries the project uses.
    Manifest,
    /// TypeScript or JavaScript, parsed (`frontend::ts`).
    Script(Dialect),
    /// Go, parsed (`frontend::go`).
    Go,
    /// Other source or config text: string literals and header names only.
    Text,
    /// A Prisma schema (`schema.prisma`, `prisma/schema/*.prisma`).
    Prisma,
    /// Python, parsed (`frontend::python`).
    Python,
}

/// Which grammar a TypeScript or JavaScript file is parsed with, by its
/// extension: `.ts`/`.mts`/`.cts` (no JSX: `<T>x` is a cast), `.tsx`, and
/// JavaScript (`.js`, `.jsx`, `.mjs`, `.cjs`, JSX allowed).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Dialect {
    Ts,
    Tsx,
    Js,
}

impl FileKind {
    pub fn name(self) -> &'static str {
        match self {
            FileKind::Rust => "rust",
            FileKind::Sql => "sql",
            FileKind::RedisConf => "redis-conf",
            FileKind::Yaml => "yaml",
            FileKind::Toml => "toml",
            FileKind::Json => "json",
            FileKind::Hcl => "hcl",
            FileKind::Env => "env",
            FileKind::Manifest => "manifest",
            FileKind::Script(_) => "typescript",
            FileKind::Go => "go",
            FileKind::Text => "text",
            FileKind::Prisma => "prisma",
            FileKind::Python => "python",
        }
    }

    /// Source code of a programming language, whose functions and
    /// literals the model reads (Rust, TypeScript, JavaScript, and the
    /// languages read as text).
    pub fn is_code(self) -> bool {
        matches!(
            self,
            FileKind::Rust | FileKind::Script(_) | FileKind::Go | FileKind::Text | FileKind::Python
        )
    }
}

/// Index of a file in the run's [`SourceMap`].
pub type FileId = usize;

/// A file read for this run. `path` is what the user sees: relative to the
/// current directory where possible, with `/` separators.
#[derive(Debug, Clone)]
pub struct SourceFile {
    pub path: String,
    pub kind: FileKind,
    text: Arc<str>,
    /// Set when the text was let go after its front end ran: read again from
    /// the work tree the first time something asks for it.
    reload: Option<Arc<Reload>>,
    /// The file began with a byte-order mark, blanked in `text` as three
    /// spaces so that spans stay byte offsets into the file.
    pub bom: bool,
}

/// Where a let-go text is read again from, and what it was.
#[derive(Debug)]
struct Reload {
    disk: PathBuf,
    len: usize,
    hash: u64,
    text: OnceLock<Arc<str>>,
}

/// How many let-go texts were read again in this process (`--timings`).
static RELOADS: AtomicUsize = AtomicUsize::new(0);

pub fn reloads() -> usize {
    RELOADS.load(Ordering::Relaxed)
}

/// The digest a let-go text is recognised by when it is read again.
pub fn text_hash(text: &str) -> u64 {
    use std::hash::BuildHasher as _;
    foldhash::fast::FixedState::with_seed(0).hash_one(text.as_bytes())
}

impl SourceFile {
    pub fn new(path: impl Into<String>, kind: FileKind, text: impl Into<Arc<str>>) -> Self {
        SourceFile {
            path: path.into(),
            kind,
            text: text.into(),
            reload: None,
            bom: false,
        }
    }

    /// The file's text (read again from disk if it was let go).
    pub fn text(&self) -> &str {
        match &self.reload {
            None => &self.text,
            Some(r) => r.text.get_or_init(|| r.read(&self.path)),
        }
    }

    /// The file's text for one look: the text held or already read again,
    /// else read from disk for this call only and not kept, so that a scan
    /// over every file holds one let-go text at a time.
    pub fn peek_text(&self) -> Arc<str> {
        match &self.reload {
            None => Arc::clone(&self.text),
            Some(r) => r.text.get().cloned().unwrap_or_else(|| r.read(&self.path)),
        }
    }

    /// The text as the parse saw it.
    pub fn set_text(&mut self, text: Arc<str>, bom: bool) {
        self.text = text;
        self.reload = None;
        self.bom = bom;
    }

    /// Let the text go: nothing read it after the front end but renderers,
    /// which read it again from `disk`, where it was `len` bytes with digest
    /// `hash` ([`text_hash`]).
    pub fn let_go(&mut self, disk: PathBuf, len: usize, hash: u64, bom: bool) {
        self.text = Arc::from("");
        self.reload = Some(Arc::new(Reload {
            disk,
            len,
            hash,
            text: OnceLock::new(),
        }));
        self.bom = bom;
    }

    /// Line and column of a byte offset in this file; a blanked byte-order
    /// mark counts as the one character it was.
    pub fn line_col(&self, index: &LineIndex, offset: usize) -> LineCol {
        let mut lc = index.line_col(self.text(), offset);
        if self.bom && lc.line == 1 && offset >= 3 {
            // A let-go text that could not be read again is empty.
            lc.column = lc.column.saturating_sub(2).max(1);
        }
        lc
    }
}

impl Reload {
    /// The text again, decoded as at the first read. A file that changed
    /// since, or cannot be read, gives no text and is said so on stderr:
    /// its findings stand, as they were made from the first read, but
    /// neither its lines nor a fix (which checks the text under each edit)
    /// can be taken from another text.
    fn read(&self, shown: &str) -> Arc<str> {
        RELOADS.fetch_add(1, Ordering::Relaxed);
        match std::fs::read(&self.disk) {
            Ok(bytes) => {
                let text = decode(bytes).0;
                if text.len() == self.len && text_hash(&text) == self.hash {
                    return Arc::from(text);
                }
                eprintln!(
                    "idemlint: warning: {shown} changed while it was checked; its lines are not shown"
                );
            }
            Err(e) => {
                eprintln!("idemlint: warning: cannot read {shown} again to show its lines: {e}");
            }
        }
        Arc::from("")
    }
}

/// A file's bytes as text: invalid UTF-8 replaced (the byte offset where it
/// began is returned), a byte-order mark blanked with spaces of the same
/// length (`true`) so that spans stay byte-exact and parsers see no stray
/// character.
pub fn decode(bytes: Vec<u8>) -> (String, bool, Option<usize>) {
    let (mut text, invalid_at) = match String::from_utf8(bytes) {
        Ok(s) => (s, None),
        Err(e) => {
            let at = e.utf8_error().valid_up_to();
            (String::from_utf8_lossy(e.as_bytes()).into_owned(), Some(at))
        }
    };
    let bom = text.starts_with('\u{feff}');
    if bom {
        text.replace_range(0..3, "   ");
    }
    (text, bom, invalid_at)
}

/// All files whose text the run kept (the ones that were parsed), by [`FileId`].
#[derive(Debug, Default)]
pub struct SourceMap {
    pub files: Vec<SourceFile>,
    /// The packages the walk found, every file of the run counted (not
    /// only the kept ones).
    pub packages: Packages,
}

/// The packages of a run: the directories that hold a package manifest
/// (`Cargo.toml`, `package.json`, `go.mod`, ...; the list is
/// `rules/packages.toml`), as display paths (`""` for the checked
/// directory itself).
#[derive(Debug, Default, Clone)]
pub struct Packages {
    dirs: std::collections::HashSet<String>,
}

impl Packages {
    /// The packages whose manifests are at these display paths.
    pub fn of_manifests<'p>(manifests: impl IntoIterator<Item = &'p str>) -> Self {
        let dirs = manifests
            .into_iter()
            .map(|m| m.rsplit_once('/').map_or("", |(dir, _)| dir).to_string())
            .collect();
        Packages { dirs }
    }

    /// The package a file or directory belongs to: the outermost directory
    /// above it that holds a manifest (a workspace's root, not its
    /// member's), or `""` for the files of no package, which count as one.
    pub fn of<'p>(&self, path: &'p str) -> &'p str {
        if self.dirs.contains("") {
            return "";
        }
        path.match_indices('/')
            .map(|(i, _)| &path[..i])
            .find(|dir| self.dirs.contains(*dir))
            .unwrap_or("")
    }
}

impl SourceMap {
    pub fn get(&self, id: FileId) -> &SourceFile {
        &self.files[id]
    }

    pub fn path(&self, id: FileId) -> &str {
        &self.files[id].path
    }

    pub fn text(&self, id: FileId) -> &str {
        self.files[id].text()
    }

    /// [`SourceFile::peek_text`] of a file.
    pub fn peek_text(&self, id: FileId) -> Arc<str> {
        self.files[id].peek_text()
    }

    /// The source text under `span`, or "" when the span is out of range.
    pub fn snippet(&self, id: FileId, span: Span) -> &str {
        self.text(id).get(span.start..span.end).unwrap_or("")
    }
}

/// A 1-based line and column; the column counts Unicode scalar values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct LineCol {
    pub line: usize,
    pub column: usize,
}

/// Line starts of one text. `\r\n` and `\n` both end a line; a lone `\r` does
/// not (as in git and most editors).
#[derive(Debug, Clone)]
pub struct LineIndex {
    starts: Vec<usize>,
}

impl LineIndex {
    pub fn new(text: &str) -> Self {
        let mut starts = vec![0];
        starts.extend(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i + 1));
        LineIndex { starts }
    }

    /// 0-based line number of a byte offset.
    pub fn line_of(&self, offset: usize) -> usize {
        match self.starts.binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i.saturating_sub(1),
        }
    }

    pub fn line_start(&self, line: usize) -> usize {
        self.starts.get(line).copied().unwrap_or(usize::MAX)
    }

    pub fn line_count(&self) -> usize {
        self.starts.len()
    }

    /// 1-based line and column of a byte offset; an offset inside a multi-byte
    /// character or past the end is clamped to a valid position.
    pub fn line_col(&self, text: &str, offset: usize) -> LineCol {
        let offset = clamp_to_char_boundary(text, offset);
        let line = self.line_of(offset);
        let start = self.starts[line];
        let column = text[start..offset].chars().count() + 1;
        LineCol {
            line: line + 1,
            column,
        }
    }

    /// The byte range of a 0-based line without its line ending.
    pub fn line_span(&self, text: &str, line: usize) -> Span {
        let start = self.line_start(line).min(text.len());
        let mut end = self
            .starts
            .get(line + 1)
            .map(|s| s - 1)
            .unwrap_or(text.len());
        if end > start && text.as_bytes().get(end - 1) == Some(&b'\r') {
            end -= 1;
        }
        Span::new(start, end.max(start))
    }
}

/// Bytes as lowercase hexadecimal (a digest: a fingerprint, a git object
/// id).
pub fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    bytes
        .iter()
        .fold(String::with_capacity(bytes.len() * 2), |mut s, b| {
            let _ = write!(s, "{b:02x}");
            s
        })
}

pub fn clamp_to_char_boundary(text: &str, offset: usize) -> usize {
    let mut offset = offset.min(text.len());
    while offset > 0 && !text.is_char_boundary(offset) {
        offset -= 1;
    }
    offset
}

/// The first char boundary of `text` at or after `offset` (the text's
/// length past its end).
pub fn ceil_char_boundary(text: &str, offset: usize) -> usize {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset += 1;
    }
    offset
}

/// Maps character indexes (as some parsers report them) to byte offsets.
pub struct CharToByte {
    /// Byte offset of every char, plus the text length; empty for ASCII text.
    offsets: Vec<usize>,
    len: usize,
}

impl CharToByte {
    pub fn new(text: &str) -> Self {
        let offsets = if text.is_ascii() {
            Vec::new()
        } else {
            text.char_indices()
                .map(|(i, _)| i)
                .chain(std::iter::once(text.len()))
                .collect()
        };
        CharToByte {
            offsets,
            len: text.len(),
        }
    }

    pub fn byte(&self, char_index: usize) -> usize {
        if self.offsets.is_empty() {
            char_index.min(self.len)
        } else {
            self.offsets.get(char_index).copied().unwrap_or(self.len)
        }
    }
}

/// How many leading directories two paths share.
pub fn shared_dirs(a: &str, b: &str) -> usize {
    fn dir(p: &str) -> &str {
        p.rsplit_once('/').map_or("", |(d, _)| d)
    }
    dir(a)
        .split('/')
        .zip(dir(b).split('/'))
        .take_while(|(x, y)| x == y)
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A let-go text is read once more, on the first ask, with its
    /// byte-order mark blanked as at the first read; a file that changed or
    /// went away since gives no text, never another one or a panic.
    #[test]
    fn a_let_go_text_is_read_again_once_on_the_first_ask() {
        let dir = tempfile::tempdir().unwrap();
        let disk = dir.path().join("consts.rs");
        let first = "\u{feff}pub const DAY: u64 = 86_400;\n";
        std::fs::write(&disk, first).unwrap();
        let (seen, _, _) = decode(first.as_bytes().to_vec());
        let mut f = SourceFile::new("consts.rs", FileKind::Rust, "");
        f.let_go(disk.clone(), seen.len(), text_hash(&seen), true);
        let before = reloads();
        assert_eq!(f.text(), seen);
        assert!(reloads() > before);
        assert!(
            std::ptr::eq(f.text(), f.text()),
            "read again once, then kept"
        );
        assert!(f.text().starts_with("   pub const"));
        // `c` of `const`: the mark counts as one character.
        assert_eq!(f.line_col(&LineIndex::new(f.text()), 7).column, 6);

        let mut changed = SourceFile::new("consts.rs", FileKind::Rust, "");
        changed.let_go(disk.clone(), seen.len(), text_hash(&seen), true);
        std::fs::write(&disk, "pub const DAY: u64 = 1;\n").unwrap();
        assert_eq!(changed.text(), "");
        assert_eq!(changed.line_col(&LineIndex::new(changed.text()), 7).line, 1);

        let mut gone = SourceFile::new("consts.rs", FileKind::Rust, "");
        gone.let_go(disk.clone(), seen.len(), text_hash(&seen), true);
        std::fs::remove_file(&disk).unwrap();
        assert_eq!(gone.text(), "");
        assert_eq!(gone.line_col(&LineIndex::new(gone.text()), 7).line, 1);
    }

    #[test]
    fn crlf_lines_and_unicode_columns() {
        let text = "a\r\nbé c\nd";
        let idx = LineIndex::new(text);
        assert_eq!(idx.line_col(text, 0), LineCol { line: 1, column: 1 });
        let c = text.find('c').unwrap();
        assert_eq!(idx.line_col(text, c), LineCol { line: 2, column: 4 });
        assert_eq!(idx.line_span(text, 0), Span::new(0, 1));
        assert_eq!(idx.line_col(text, text.len()).line, 3);
    }

    #[test]
    fn char_to_byte_handles_multibyte() {
        let m = CharToByte::new("é-x");
        assert_eq!(m.byte(0), 0);
        assert_eq!(m.byte(1), 2);
        assert_eq!(m.byte(3), 4);
        assert_eq!(m.byte(99), 4);
    }

    /// A file's package is the outermost directory above it with a
    /// manifest: a workspace member belongs to its workspace, files under
    /// no manifest to the one package `""`, and a manifest at the checked
    /// directory makes every file one package.
    #[test]
    fn a_file_belongs_to_the_outermost_manifest_above_it() {
        let p = Packages::of_manifests([
            "svc/Cargo.toml",
            "svc/crates/core/Cargo.toml",
            "vendor/redis-1.8/Cargo.toml",
            "/abs/lib/Cargo.toml",
        ]);
        assert_eq!(p.of("svc/crates/core/src/lib.rs"), "svc");
        assert_eq!(p.of("svc/src/main.rs"), "svc");
        assert_eq!(p.of("vendor/redis-1.8/src/client.rs"), "vendor/redis-1.8");
        assert_eq!(p.of("vendor/redis-1.8"), "");
        assert_eq!(p.of("vendor/redis-1.8/"), "vendor/redis-1.8");
        assert_eq!(p.of("/abs/lib/src/a.rs"), "/abs/lib");
        assert_eq!(p.of("migrations/0001.sql"), "");
        assert_eq!(p.of("svcs/src/main.rs"), "");
        let root = Packages::of_manifests(["Cargo.toml", "svc/Cargo.toml"]);
        assert_eq!(root.of("svc/src/main.rs"), "");
        assert_eq!(Packages::default().of("svc/src/main.rs"), "");
    }
}
