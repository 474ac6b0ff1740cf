//! Which Redis a crate's keys go to, by where its client points: the
//! client that the crate writing store keys builds (`redis::Client::open`
//! of `env::var("REDIS_URL")` or `settings.redis.url`), the value that
//! setting takes in the project's configuration (`.env`, a compose
//! service's `environment:`, a Kubernetes or Helm `env:` item, the config
//! file the settings struct reads), and the instance that value's host
//! names. Not for links by name: `super::RedisModel::link` keeps those.

use super::claims::crate_root;
use super::{normalise, points_at, Endpoint, Instance, Link, Owner};
use crate::frontend::rust::retention::ClientSetting;
use crate::frontend::FileFacts;
use crate::model::retries::{join_key, nested_env_key};
use crate::source::{FileId, SourceMap, Span};

/// A client built from a setting in the crate that writes store keys.
struct Client<'f> {
    file: FileId,
    setting: &'f ClientSetting,
    /// A store key prefix the crate writes, and where.
    writes: (FileId, Span, String),
}

/// The clients of crates that write store keys: in the writing file when
/// it builds one, else the crate's only setting a client is built from
/// (a crate whose clients read two settings does not say which holds the
/// keys).
fn clients<'f>(
    files: &'f [FileFacts],
    sources: &SourceMap,
    writers: &[(FileId, Span, String)],
) -> Vec<Client<'f>> {
    let built: Vec<(FileId, &str, &ClientSetting)> = files
        .iter()
        .filter(|f| !f.test_path)
        .filter_map(|f| Some((f.file, f.rust.as_ref()?)))
        .flat_map(|(file, r)| r.retention.clients.iter().map(move |c| (file, c)))
        .filter_map(|(file, c)| Some((file, crate_root(sources.path(file))?, c)))
        .collect();
    let mut out: Vec<Client<'f>> = Vec::new();
    for w in writers {
        let Some(root) = crate_root(sources.path(w.0)) else {
            continue;
        };
        let own: Vec<&(FileId, &str, &ClientSetting)> =
            built.iter().filter(|(f, _, _)| *f == w.0).collect();
        let in_crate: Vec<&(FileId, &str, &ClientSetting)> =
            built.iter().filter(|(_, r, _)| *r == root).collect();
        let pick = if own.is_empty() { in_crate } else { own };
        let mut settings: Vec<&str> = pick.iter().map(|(_, _, c)| c.read.as_str()).collect();
        settings.sort_unstable();
        settings.dedup();
        if settings.len() != 1 {
            continue;
        }
        if let Some(&&(file, _, setting)) = pick.first() {
            if !out.iter().any(|c| std::ptr::eq(c.setting, setting)) {
                out.push(Client {
                    file,
                    setting,
                    writes: w.clone(),
                });
            }
        }
    }
    out
}

/// Whether a configuration setting is the one the code reads: an
/// environment variable by its name, a field path by its last two names
/// (`settings.redis.url` and `[redis] url`, or `APP__REDIS__URL`).
fn same_setting(read: &str, key: &str) -> bool {
    if let Some(env) = read.strip_prefix('$') {
        return env == key;
    }
    let Some(want) = join_key(read) else {
        return false;
    };
    let have = if key.contains("__") {
        nested_env_key(key)
    } else {
        join_key(key)
    };
    have.is_some_and(|h| h == want)
}

/// Whether an endpoint's setting can reach the crate: a compose service's
/// environment reaches the code under its build context only.
fn reaches(
    ep: &Endpoint,
    code: FileId,
    contexts: &[(FileId, String, String)],
    sources: &SourceMap,
) -> bool {
    let Some(Owner::Compose(svc)) = &ep.owner else {
        return true;
    };
    let Some((_, _, ctx)) = contexts.iter().find(|(f, s, _)| *f == ep.file && s == svc) else {
        return true;
    };
    let p = normalise(sources.path(code));
    ctx.is_empty() || p.starts_with(&format!("{ctx}/"))
}

/// Link each instance a chain ends at; returns whether any chain was
/// followed to an instance (then it decides over the weaker guesses).
pub(super) fn link_chains(
    instances: &mut [Instance],
    files: &[FileFacts],
    sources: &SourceMap,
    endpoints: &[&Endpoint],
    writers: &[(FileId, Span, String)],
    contexts: &[(FileId, String, String)],
) -> bool {
    let mut followed = false;
    for c in clients(files, sources, writers) {
        let read = c.setting.read.as_str();
        let shown = read.strip_prefix('$').unwrap_or(read);
        for ep in endpoints.iter().filter(|ep| same_setting(read, &ep.key)) {
            if !reaches(ep, c.file, contexts, sources) {
                continue;
            }
            let value = sources
                .text(ep.file)
                .get(ep.span.start..ep.span.end)
                .unwrap_or(&ep.host);
            for inst in instances.iter_mut().filter(|i| points_at(i, &ep.host)) {
                followed = true;
                let (wf, ws, prefix) = &c.writes;
                let code = Link {
                    file: c.file,
                    span: c.setting.span,
                    reason: format!(
                        "holds idempotency keys: `{}` builds the Redis client from `{shown}` here, in the code that writes `{prefix}` keys",
                        c.setting.call
                    ),
                };
                let value_link = Link {
                    file: ep.file,
                    span: ep.span,
                    reason: format!(
                        "`{}={value}` points at {} `{}`",
                        ep.key,
                        inst.kind.describe(),
                        inst.name
                    ),
                };
                let write = Link {
                    file: *wf,
                    span: *ws,
                    reason: format!("`{prefix}` keys are written here"),
                };
                let mut chain = vec![code, value_link];
                if *wf != c.file {
                    chain.push(write);
                }
                // The chain first: it is what says where the keys go.
                chain.retain(|l| {
                    !inst
                        .links
                        .iter()
                        .any(|o| o.span == l.span && o.file == l.file)
                });
                inst.links.splice(0..0, chain);
            }
        }
    }
    followed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crate_roots_are_what_comes_before_src() {
        assert_eq!(crate_root("src/main.rs"), Some(""));
        assert_eq!(crate_root("services/pay/src/lib.rs"), Some("services/pay"));
        assert_eq!(crate_root("build.rs"), None);
    }

    #[test]
    fn settings_meet_by_env_name_or_the_last_two_names() {
        assert!(same_setting("$REDIS_URL", "REDIS_URL"));
        assert!(!same_setting("$REDIS_URL", "QUEUE_REDIS_URL"));
        assert!(same_setting("settings.redis.url", "redis.url"));
        assert!(same_setting("settings.redis.url", "APP__REDIS__URL"));
        assert!(!same_setting("settings.redis.url", "queue.redis.url.extra"));
    }
}
