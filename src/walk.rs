//! Discovery (the `ignore` crate: .gitignore honoured, hidden files skipped,
//! symlinks not followed) and classification by path and content: which
//! files a run considers, and what kind each is. Which of them are worth
//! reading, and how much, is the prefilter's decision (`prefilter`, beside
//! this module in the reading layer; neither asks the other). Not for
//! parsing.

use crate::source::{Dialect, FileKind};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// A file to consider: where it is, how to show it, what kind it is.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Candidate {
    pub display: String,
    pub path: PathBuf,
    pub kind: FileKind,
    /// Named on the command line (always read, whatever its name).
    pub explicit: bool,
}

#[derive(Debug, thiserror::Error)]
pub enum WalkError {
    #[error("{0}: no such file or directory")]
    NotFound(String),
}

/// Extensions of other source languages whose string literals the text
/// front end reads (header names only).
const TEXT_EXTENSIONS: &[&str] = &[
    "go", "java", "rb", "kt", "kts", "cs", "php", "scala", "swift", "ex", "exs",
];

/// Classify by path; `None` means the file is not read. `.conf` files are
/// settled by content later ([`refine_kind`]).
pub fn classify(path: &Path) -> Option<FileKind> {
    let name = path.file_name()?.to_str()?.to_ascii_lowercase();
    // `secrets.env.template`, `app.env.example`: dotenv files to copy, not YAML.
    let env_template = [".env.template", ".env.example", ".env.sample"]
        .iter()
        .any(|s| name.ends_with(s));
    if name == ".env" || name.starts_with(".env.") || name.ends_with(".env") || env_template {
        return Some(FileKind::Env);
    }
    if is_line_manifest(&name) {
        return Some(FileKind::Manifest);
    }
    if name == "redis.conf" || name == "valkey.conf" {
        return Some(FileKind::RedisConf);
    }
    if name == "nginx.conf" {
        return Some(FileKind::Text);
    }
    // Lock files are package data, large and full of words like `dedupe`
    // and `webhook`; they hold no idempotency configuration. pnpm's, in
    // YAML, names `@sentry-internal/replay` and `dedupe-*` packages: novu's
    // (2.9 MB) was parsed whole for them. Other managers' lock files
    // (`yarn.lock`, `Cargo.lock`, `poetry.lock`) have no extension read.
    if matches!(
        name.as_str(),
        "package-lock.json" | "npm-shrinkwrap.json" | "pnpm-lock.yaml"
    ) {
        return None;
    }
    let ext = name.rsplit_once('.').map(|(_, e)| e)?;
    Some(match ext {
        "rs" => FileKind::Rust,
        "sql" => FileKind::Sql,
        "prisma" => FileKind::Prisma,
        // protoc's Python output: generated messages, nested hundreds deep.
        "py" if name.ends_with("_pb2.py") || name.ends_with("_pb2_grpc.py") => return None,
        "py" => FileKind::Python,
        "yaml" | "yml" => FileKind::Yaml,
        "toml" => FileKind::Toml,
        "json" | "jsonc" | "json5" => FileKind::Json,
        "tf" | "tfvars" | "hcl" => FileKind::Hcl,
        // A template of another file (`trigger.config.ts.template`,
        // `values.yaml.template`, `index.html.template`) is that file's kind,
        // or not read; otherwise CloudFormation's own extension: YAML or
        // JSON, settled by content.
        "template" => {
            let inner = &name[..name.len() - ".template".len()];
            match inner.rsplit_once('.') {
                // A template of code (`trigger.config.ts.template`) holds
                // placeholders no parser reads: its strings only.
                Some((_, e)) if !e.is_empty() => {
                    return match classify(Path::new(inner)) {
                        Some(FileKind::Script(_)) => Some(FileKind::Text),
                        k => k,
                    }
                }
                _ => FileKind::Yaml,
            }
        }
        "conf" => FileKind::Text,
        // Declaration files hold types only; a bundle is build output.
        "ts" | "mts" | "cts" if is_declaration(&name) => return None,
        "ts" | "mts" | "cts" => FileKind::Script(Dialect::Ts),
        "tsx" => FileKind::Script(Dialect::Tsx),
        "js" | "mjs" | "cjs" | "jsx" if name.contains(".min.") => return None,
        "js" | "mjs" | "cjs" | "jsx" => FileKind::Script(Dialect::Js),
        // Vendored modules are others' code; `*.pb.go` is protoc's output.
        "go" if name.ends_with(".pb.go")
            || path.components().any(|c| c.as_os_str() == "vendor") =>
        {
            return None
        }
        "go" => FileKind::Go,
        e if TEXT_EXTENSIONS.contains(&e) => FileKind::Text,
        _ => return None,
    })
}

/// Whether a lower-cased `.ts`/`.mts`/`.cts` name is a declaration file
/// (`index.d.ts`, `env.d.mts`): types only, no code that runs.
fn is_declaration(name: &str) -> bool {
    [".d.ts", ".d.mts", ".d.cts"]
        .iter()
        .any(|s| name.ends_with(s))
}

/// Whether a lower-cased file name is a dependency manifest read line by
/// line (`Gemfile`, `Gemfile.lock`, `go.mod`, `requirements*.txt`); which
/// of them a text is, its lines tell the front end (`frontend::manifest`).
fn is_line_manifest(name: &str) -> bool {
    matches!(
        name,
        "gemfile" | "gems.rb" | "gemfile.lock" | "gems.locked" | "go.mod"
    ) || (name.starts_with("requirements") && name.ends_with(".txt"))
}

/// A `.conf` file with Redis directives is a Redis config; nginx and other
/// `.conf` files stay text.
pub fn refine_kind(kind: FileKind, path: &Path, text: &str) -> FileKind {
    if kind == FileKind::Yaml
        && path.extension().and_then(|e| e.to_str()) == Some("template")
        && text.trim_start().starts_with('{')
    {
        return FileKind::Json;
    }
    if kind != FileKind::Text || path.extension().and_then(|e| e.to_str()) != Some("conf") {
        return kind;
    }
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("")
        .to_ascii_lowercase();
    if name.contains("redis") || name.contains("valkey") {
        return FileKind::RedisConf;
    }
    let redis_directive = text.lines().any(|l| {
        let l = l.trim_start();
        l.starts_with("maxmemory") || l.starts_with("appendonly ") || l.starts_with("save ")
    });
    if redis_directive && !text.contains("server {") && !text.contains("http {") {
        FileKind::RedisConf
    } else {
        FileKind::Text
    }
}

/// Show `path` relative to the current directory where it lies below it,
/// with `/` separators and no leading `./`.
pub fn display_path(path: &Path, cwd: &Path) -> String {
    let shown = path.strip_prefix(cwd).unwrap_or(path);
    let s = shown.to_string_lossy().replace('\\', "/");
    let s = s.strip_prefix("./").unwrap_or(&s).to_string();
    if s.is_empty() {
        ".".to_string()
    } else {
        s
    }
}

/// Walk the given paths. Explicit files are always included (with a kind
/// guessed from the name, text when unknown); directories are walked with
/// .gitignore honoured, hidden entries skipped (except `.env` files) and
/// symlinks not followed. `exclude` globs match display paths.
pub fn discover(
    paths: &[PathBuf],
    cwd: &Path,
    exclude: &[String],
) -> Result<Vec<Candidate>, WalkError> {
    let found: Mutex<Vec<Candidate>> = Mutex::new(Vec::new());
    discover_each(paths, cwd, exclude, &|c| lock(&found).push(c))?;
    let mut found = found.into_inner().unwrap_or_else(|e| e.into_inner());
    found.sort();
    found.dedup_by(|a, b| a.display == b.display);
    Ok(found)
}

/// The walk of [`discover`], each file handed to `each` as it is found, from
/// the walker's threads, in no order; a file under two of `paths` is handed
/// twice. A run reads the files while the walk goes on.
pub fn discover_each(
    paths: &[PathBuf],
    cwd: &Path,
    exclude: &[String],
    each: &(dyn Fn(Candidate) + Sync),
) -> Result<(), WalkError> {
    let excluded = exclude_set(exclude);
    for root in paths {
        let meta = std::fs::symlink_metadata(root)
            .map_err(|_| WalkError::NotFound(root.display().to_string()))?;
        let is_dir = if meta.file_type().is_symlink() {
            std::fs::metadata(root).map(|m| m.is_dir()).unwrap_or(false)
        } else {
            meta.is_dir()
        };
        if !is_dir {
            if meta.file_type().is_symlink() && std::fs::metadata(root).is_err() {
                return Err(WalkError::NotFound(root.display().to_string()));
            }
            let kind = classify(root).unwrap_or(FileKind::Text);
            each(Candidate {
                display: display_path(root, cwd),
                path: root.clone(),
                kind,
                explicit: true,
            });
            continue;
        }
        let walker = ignore::WalkBuilder::new(root)
            .hidden(false)
            .follow_links(false)
            .require_git(false)
            .git_ignore(true)
            .git_exclude(true)
            .ignore(true)
            .parents(true)
            // The root itself is always entered.
            .filter_entry(|e| {
                e.depth() == 0 || !is_skipped_hidden(&e.file_name().to_string_lossy())
            })
            .build_parallel();
        walker.run(|| {
            let excluded = &excluded;
            Box::new(move |entry| {
                let Ok(entry) = entry else {
                    return ignore::WalkState::Continue;
                };
                let Some(ft) = entry.file_type() else {
                    return ignore::WalkState::Continue;
                };
                if !ft.is_file() {
                    return ignore::WalkState::Continue;
                }
                let path = entry.path();
                let Some(kind) = classify(path) else {
                    return ignore::WalkState::Continue;
                };
                let display = display_path(path, cwd);
                if excluded.is_match(&display) {
                    return ignore::WalkState::Continue;
                }
                each(Candidate {
                    display,
                    path: path.to_path_buf(),
                    kind,
                    explicit: false,
                });
                ignore::WalkState::Continue
            })
        });
    }
    Ok(())
}

/// The `exclude` globs of the config as one matcher (invalid globs were
/// refused when the config was read).
pub fn exclude_set(exclude: &[String]) -> globset::GlobSet {
    let mut b = globset::GlobSetBuilder::new();
    for g in exclude {
        if let Ok(g) = globset::Glob::new(g) {
            b.add(g);
        }
    }
    b.build().unwrap_or_else(|_| globset::GlobSet::empty())
}

/// Hidden entries are skipped, except `.env` files.
pub fn is_skipped_hidden(name: &str) -> bool {
    name.starts_with('.') && name != ".env" && !name.starts_with(".env.")
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn classification_by_name() {
        let k = |p: &str| classify(Path::new(p));
        assert_eq!(k("src/a.rs"), Some(FileKind::Rust));
        assert_eq!(k("migrations/1_init.up.sql"), Some(FileKind::Sql));
        assert_eq!(k("deploy/redis.conf"), Some(FileKind::RedisConf));
        assert_eq!(k("values.yaml"), Some(FileKind::Yaml));
        assert_eq!(k(".env.production"), Some(FileKind::Env));
        assert_eq!(k("dev/secrets.env.template"), Some(FileKind::Env));
        assert_eq!(k(".vscode/settings.jsonc"), Some(FileKind::Json));
        assert_eq!(k("main.tf"), Some(FileKind::Hcl));
        assert_eq!(k("cfn/redis.template"), Some(FileKind::Yaml));
        assert_eq!(
            k("templates/trigger.config.ts.template"),
            Some(FileKind::Text)
        );
        assert_eq!(k("app/api/route.ts"), Some(FileKind::Script(Dialect::Ts)));
        assert_eq!(k("src/Checkout.tsx"), Some(FileKind::Script(Dialect::Tsx)));
        assert_eq!(k("lib/redis.mjs"), Some(FileKind::Script(Dialect::Js)));
        assert_eq!(k("types/stripe.d.ts"), None);
        assert_eq!(k("public/vendor.min.js"), None);
        assert_eq!(k("worker.py"), Some(FileKind::Python));
        assert_eq!(k("stubs/redis.pyi"), None);
        assert_eq!(k("wallets/grpc/lightning_pb2.py"), None);
        assert_eq!(k("wallets/grpc/lightning_pb2_grpc.py"), None);
        assert_eq!(k("deploy/values.yaml.template"), Some(FileKind::Yaml));
        assert_eq!(k("web/index.html.template"), None);
        let p = Path::new("cfn/redis.template");
        assert_eq!(
            refine_kind(FileKind::Yaml, p, " {\"Resources\": {}}"),
            FileKind::Json
        );
        assert_eq!(
            refine_kind(FileKind::Yaml, p, "Resources: {}"),
            FileKind::Yaml
        );
        assert_eq!(k("client.go"), Some(FileKind::Go));
        assert_eq!(k("logo.png"), None);
        assert_eq!(k("web/package-lock.json"), None);
        assert_eq!(k("clients/pnpm-lock.yaml"), None);
        assert_eq!(k("clients/pnpm-workspace.yaml"), Some(FileKind::Yaml));
        assert_eq!(k("Gemfile"), Some(FileKind::Manifest));
        assert_eq!(k("app/requirements-prod.txt"), Some(FileKind::Manifest));
        assert_eq!(k("notes.txt"), None);
        assert_eq!(k("Cargo.lock"), None);
    }
}
