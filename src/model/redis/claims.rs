//! Keys that code keeps in Redis without a prefix that names a store:
//! claims taken with a conditional set (`SET key v NX EX n`, `SETNX`,
//! `set_nx`, fred's `SetOptions::NX`), usually inside the project's own
//! wrapper (`set_key_if_not_exists_with_expiry`) that the rest of the
//! workspace calls with its lock and duplicate-guard keys. A claim is what
//! an evicting policy breaks: the key that should refuse the duplicate is
//! gone. Which function takes the claim is read from its body, not its
//! name. Also the crate each such write, store-key write or idempotency
//! cache lives in, so that a `CONFIG SET maxmemory-policy` issued by the
//! same crate's client is known to apply to those keys. Not for links by
//! name or by connection setting (`super::RedisModel::link`, `chain`).

use super::Link;
use crate::facts::flow::FnTrace;
use crate::facts::FileFacts;
use crate::source::{FileId, SourceMap, Span};

/// A conditional set in non-test code, with the function it sits in.
// NOTE: its callers are not named: a caller's file need not hold a word of
// the prefilter, and a label must read the same whether or not every file
// was read whole.
#[derive(Debug, Clone)]
pub(super) struct Claim {
    pub file: FileId,
    pub span: Span,
    /// The function that issues it (`set_key_if_not_exists_with_expiry`).
    pub func: Option<String>,
}

impl Claim {
    /// "`fn` in `path` claims keys with a conditional set (SET NX)" as one
    /// phrase for a label.
    pub fn describe(&self, sources: &SourceMap) -> String {
        match &self.func {
            Some(f) => format!(
                "`{f}` in `{}` claims keys with a conditional set (SET NX)",
                sources.path(self.file)
            ),
            None => format!(
                "code in `{}` claims keys with a conditional set (SET NX)",
                sources.path(self.file)
            ),
        }
    }
}

/// The function of `functions` whose name precedes `at` most closely: the
/// one a span in its body belongs to (a nested `fn` item is rare in Redis
/// wrappers).
fn enclosing(functions: &[FnTrace], at: Span) -> Option<&FnTrace> {
    functions
        .iter()
        .filter(|f| f.span.start <= at.start)
        .max_by_key(|f| f.span.start)
}

/// Every conditional set of non-test Rust code, one a function.
pub(super) fn claims(files: &[FileFacts]) -> Vec<Claim> {
    let mut out: Vec<Claim> = Vec::new();
    for f in files.iter().filter(|f| !f.test_path) {
        let functions: &[FnTrace] = f
            .code
            .as_ref()
            .map(|r| r.flow.functions.as_slice())
            .unwrap_or(&[]);
        for w in f.redis_writes.iter().filter(|w| w.nx) {
            if f.test_regions
                .iter()
                .any(|t| t.start <= w.span.start && w.span.end <= t.end)
            {
                continue;
            }
            let func = enclosing(functions, w.span);
            if func.is_some_and(|g| g.test) {
                continue;
            }
            let name = func.map(|g| g.name.clone());
            if out.iter().any(|c| c.file == f.file && c.func == name) {
                continue;
            }
            out.push(Claim {
                file: f.file,
                span: w.span,
                func: name,
            });
        }
    }
    out
}

/// The crate a source file belongs to, by its path: what comes before its
/// `src/` directory (`services/payments/src/main.rs` → `services/payments`).
pub(super) fn crate_root(path: &str) -> Option<&str> {
    if path.starts_with("src/") {
        return Some("");
    }
    path.find("/src/").map(|i| &path[..i])
}

/// Why a `CONFIG SET maxmemory-policy` issued in `code` applies to
/// idempotency keys: the same crate writes store keys, takes claims, or
/// holds the cache idempotency code keeps its keys in. The crate's client
/// is the connection the policy is set on; a crate of the workspace that
/// builds its own client is another crate.
pub(super) fn same_crate(
    code: FileId,
    sources: &SourceMap,
    writers: &[(FileId, Span, String)],
    claims: &[Claim],
    cache_owner: Option<(FileId, Span, String)>,
) -> Option<Link> {
    let root = crate_root(sources.path(code))?;
    let here = |f: FileId| f != code && crate_root(sources.path(f)) == Some(root);
    let shown = if root.is_empty() { "this crate" } else { root };
    if let Some((file, span, prefix)) = writers.iter().find(|(f, _, _)| here(*f)) {
        return Some(Link {
            weak: false,
            library: None,
            file: *file,
            span: *span,
            reason: format!(
                "holds idempotency keys: the policy is set on the Redis client of `{shown}`, which writes `{prefix}` keys here"
            ),
        });
    }
    if let Some(c) = claims.iter().find(|c| here(c.file)) {
        return Some(Link {
            weak: false,
            library: None,
            file: c.file,
            span: c.span,
            reason: format!(
                "holds idempotency keys: the policy is set on the Redis client of `{shown}`, where {}",
                c.describe(sources)
            ),
        });
    }
    let (file, span, owner) = cache_owner.filter(|(f, _, _)| here(*f))?;
    Some(Link {
        weak: false,
        library: None,
        file,
        span,
        reason: format!(
            "holds idempotency keys: the policy is set on the Redis client of `{shown}`, whose `{owner}` keeps its keys in a cache with a Redis backend"
        ),
    })
}

/// Where the idempotency code that keeps its keys in a cache (`owner`)
/// holds it: (file, span of the type, owner).
pub(super) fn cache_owner_at(files: &[FileFacts], owner: &str) -> Option<(FileId, Span, String)> {
    files
        .iter()
        .filter(|f| !f.test_path)
        .filter_map(|f| Some((f.file, f.code.as_ref()?)))
        .find_map(|(file, r)| {
            r.cache
                .store_uses
                .iter()
                .find(|u| u.owner == owner)
                .map(|u| (file, u.span, owner.to_string()))
        })
}
