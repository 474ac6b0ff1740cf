//! `--fix` and `--diff`: the safe fixes of a run, applied in place or shown
//! as a unified diff. A fix is safe when each of its edits replaces text on
//! one line with text of one line (a header's spelling, an eviction policy's
//! value); a fix that overlaps one already taken is left for the next run.
//! Files are written whole, through a temporary file in the same directory
//! renamed over the original, with the original's permissions.

use crate::diagnostic::{Diagnostic, Edit};
use crate::source::{FileId, SourceMap};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;

/// The fixes of a run that can be applied together.
#[derive(Debug, Default)]
pub struct Plan {
    /// New text by file, for the files some fix changes.
    pub files: BTreeMap<String, FileChange>,
    /// Indexes (into the run's diagnostics) of the findings the plan fixes.
    pub fixed: Vec<usize>,
}

#[derive(Debug)]
pub struct FileChange {
    pub before: String,
    pub after: String,
}

fn is_safe(e: &Edit, sources: &SourceMap) -> bool {
    let text = sources.snippet(e.file, e.span);
    sources.text(e.file).get(e.span.start..e.span.end).is_some()
        && !text.contains(['\n', '\r'])
        && !e.replacement.contains(['\n', '\r'])
}

fn overlaps(a: &Edit, b: &Edit) -> bool {
    a.file == b.file
        && (a.span.start < b.span.end && b.span.start < a.span.end || a.span.start == b.span.start)
}

/// Choose the fixes to apply: safe ones, in output order, skipping any that
/// overlaps a fix already chosen, and any in a file whose bytes on disk no
/// longer match what was checked (or that is not on disk: standard input,
/// a file read from git).
pub fn plan(diags: &[Diagnostic], sources: &SourceMap) -> Plan {
    let mut chosen: Vec<Edit> = Vec::new();
    let mut fixed = Vec::new();
    let mut on_disk: BTreeMap<FileId, Option<String>> = BTreeMap::new();
    for (i, d) in diags.iter().enumerate() {
        let Some(fix) = &d.fix else { continue };
        if fix.edits.is_empty() || !fix.edits.iter().all(|e| is_safe(e, sources)) {
            continue;
        }
        let fresh: Vec<&Edit> = fix.edits.iter().filter(|e| !chosen.contains(e)).collect();
        if fresh.iter().any(|e| chosen.iter().any(|c| overlaps(c, e))) {
            continue;
        }
        let matches_disk = fix.edits.iter().all(|e| {
            let disk = on_disk
                .entry(e.file)
                .or_insert_with(|| std::fs::read_to_string(sources.path(e.file)).ok());
            disk.as_deref()
                .and_then(|t| t.get(e.span.start..e.span.end))
                == Some(sources.snippet(e.file, e.span))
        });
        if !matches_disk {
            continue;
        }
        chosen.extend(fresh.into_iter().cloned());
        fixed.push(i);
    }
    let mut by_file: BTreeMap<FileId, Vec<&Edit>> = BTreeMap::new();
    for e in &chosen {
        by_file.entry(e.file).or_default().push(e);
    }
    let mut files = BTreeMap::new();
    for (file, mut edits) in by_file {
        let Some(Some(before)) = on_disk.remove(&file) else {
            continue;
        };
        edits.sort_by_key(|e| std::cmp::Reverse(e.span.start));
        let mut after = before.clone();
        for e in edits {
            after.replace_range(e.span.start..e.span.end, &e.replacement);
        }
        files.insert(sources.path(file).to_string(), FileChange { before, after });
    }
    Plan { files, fixed }
}

impl Plan {
    /// Write every changed file; the first failure stops and is returned.
    pub fn apply(&self) -> std::io::Result<()> {
        for (path, change) in &self.files {
            write_atomically(Path::new(path), change.after.as_bytes())
                .map_err(|e| std::io::Error::new(e.kind(), format!("{path}: {e}")))?;
        }
        Ok(())
    }

    /// The unified diff of every change (`--- a/path`, `+++ b/path`).
    pub fn diff(&self) -> String {
        self.files
            .iter()
            .map(|(path, c)| unified_diff(path, &c.before, &c.after))
            .collect()
    }
}

/// Write `bytes` to `path` through a temporary file in the same directory,
/// renamed over it: a reader sees the old file or the new one, never half.
/// An existing file keeps its permissions.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let permissions = std::fs::metadata(path).ok().map(|m| m.permissions());
    let mut n = 0u32;
    let (tmp, mut file) = loop {
        let tmp = dir.join(format!(".{name}.idemlint-{}-{n}.tmp", std::process::id()));
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)
        {
            Ok(f) => break (tmp, f),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && n < 100 => n += 1,
            Err(e) => return Err(e),
        }
    };
    let written = file
        .write_all(bytes)
        .and_then(|_| file.sync_all())
        .and_then(|_| match permissions {
            Some(p) => std::fs::set_permissions(&tmp, p),
            None => Ok(()),
        })
        .and_then(|_| std::fs::rename(&tmp, path));
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written
}

/// Lines of context around a change in a diff.
const CONTEXT: usize = 3;

/// A unified diff of two texts with the same number of lines (safe fixes
/// never add or remove a line).
fn unified_diff(path: &str, before: &str, after: &str) -> String {
    let old: Vec<&str> = before.split_inclusive('\n').collect();
    let new: Vec<&str> = after.split_inclusive('\n').collect();
    let changed: Vec<usize> = (0..old.len().max(new.len()))
        .filter(|&i| old.get(i) != new.get(i))
        .collect();
    if changed.is_empty() {
        return String::new();
    }
    let mut out = format!("--- a/{path}\n+++ b/{path}\n");
    let mut k = 0;
    while k < changed.len() {
        let first = changed[k];
        let mut last = first;
        while k + 1 < changed.len() && changed[k + 1] <= last + 2 * CONTEXT + 1 {
            k += 1;
            last = changed[k];
        }
        k += 1;
        let start = first.saturating_sub(CONTEXT);
        let end = (last + CONTEXT + 1).min(old.len().max(new.len()));
        let count = |lines: &[&str]| end.min(lines.len()).saturating_sub(start);
        out.push_str(&format!(
            "@@ -{},{} +{},{} @@\n",
            start + 1,
            count(&old),
            start + 1,
            count(&new)
        ));
        for i in start..end {
            match (old.get(i), new.get(i)) {
                (Some(a), Some(b)) if a == b => push_line(&mut out, ' ', a),
                (a, b) => {
                    if let Some(a) = a {
                        push_line(&mut out, '-', a);
                    }
                    if let Some(b) = b {
                        push_line(&mut out, '+', b);
                    }
                }
            }
        }
    }
    out
}

fn push_line(out: &mut String, mark: char, line: &str) {
    out.push(mark);
    out.push_str(line);
    if !line.ends_with('\n') {
        out.push_str("\n\\ No newline at end of file\n");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::diagnostic::Severity;
    use crate::source::{FileKind, SourceFile, Span};

    fn fixing(span: Span, to: &str) -> Diagnostic {
        Diagnostic::new(
            crate::diagnostic::RuleId::MisspelledIdempotencyHeader,
            Severity::Error,
            0,
            span,
            "m",
        )
        .with_fix(
            "f",
            vec![Edit {
                file: 0,
                span,
                replacement: to.to_string(),
            }],
        )
    }

    #[test]
    fn overlapping_and_multi_line_fixes_are_left_and_identical_ones_shared() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.rs");
        let text = "let h = \"Idempotency-Replayed\";\nlet k = 1;\n";
        std::fs::write(&path, text).unwrap();
        let mut sources = SourceMap::default();
        sources.files.push(SourceFile::new(
            path.to_string_lossy(),
            FileKind::Rust,
            text,
        ));
        let word = Span::new(9, 29);
        let diags = vec![
            fixing(word, "Idempotent-Replayed"),
            fixing(word, "Idempotent-Replayed"),
            fixing(Span::new(20, 31), "x"),
            fixing(Span::new(0, 35), "y"),
        ];
        let plan = plan(&diags, &sources);
        assert_eq!(plan.fixed, [0, 1]);
        let change = plan.files.values().next().unwrap();
        assert_eq!(
            change.after,
            text.replace("Idempotency-Replayed", "Idempotent-Replayed")
        );
        // a file changed on disk since it was checked is not touched
        std::fs::write(&path, "changed").unwrap();
        assert!(super::plan(&diags, &sources).fixed.is_empty());
    }

    #[test]
    fn a_diff_shows_the_changed_line_with_context() {
        let before = "a\nb\nc\nd\ne\nf\ng\nh\ni\n";
        let after = "a\nb\nc\nd\nE\nf\ng\nh\ni\n";
        let d = unified_diff("x.rs", before, after);
        assert_eq!(
            d,
            "--- a/x.rs\n+++ b/x.rs\n@@ -2,7 +2,7 @@\n b\n c\n d\n-e\n+E\n f\n g\n h\n"
        );
    }

    #[test]
    fn a_last_line_without_newline_is_marked() {
        let d = unified_diff("x", "a", "b");
        assert_eq!(
            d,
            "--- a/x\n+++ b/x\n@@ -1,1 +1,1 @@\n-a\n\\ No newline at end of file\n+b\n\\ No newline at end of file\n"
        );
    }

    #[cfg(unix)]
    #[test]
    fn an_atomic_write_keeps_permissions() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("run.sh");
        std::fs::write(&p, "old").unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o750)).unwrap();
        write_atomically(&p, b"new").unwrap();
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "new");
        let mode = std::fs::metadata(&p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o750);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }
}
