//! Links from a dependency on a library that keeps dedup keys or locks in
//! Redis (`rules/redis.toml` `[[dedup_library]]`: activejob-uniqueness,
//! sidekiq-unique-jobs, redlock, …) to the Redis the app points at. The app
//! is the directory of its manifest (one app of a monorepo). Not for judging
//! the policy, nor for what the app's own code writes (the other links).

use super::chain::{is_loopback, pointed_at, port_of, publishing};
use super::{dir_of, Endpoint, Instance, Link, Owner};
use crate::facts::redis::InstanceKind;
use crate::facts::FileFacts;
use crate::knowledge::{self, DedupLibrary};
use crate::source::{FileId, SourceMap, Span};

/// One dependency of one app: the first manifest line that names it.
struct Use<'k> {
    index: usize,
    library: &'k DedupLibrary,
    file: FileId,
    span: Span,
    package: String,
    app: String,
}

/// The dependencies of the project's apps on catalogued libraries, outside
/// test code, one per (library, app): `Gemfile` and `Gemfile.lock` name the
/// same gem.
fn uses<'k>(files: &[FileFacts], sources: &SourceMap) -> Vec<Use<'k>> {
    let catalogue: &'k [DedupLibrary] = &knowledge::redis().dedup_library;
    let mut out: Vec<Use<'k>> = Vec::new();
    for f in files.iter().filter(|f| !f.test_path) {
        for d in &f.dedup_deps {
            let Some(library) = catalogue.get(d.library) else {
                continue;
            };
            let app = dir_of(sources.path(f.file)).to_string();
            if out.iter().any(|u| u.index == d.library && u.app == app) {
                continue;
            }
            out.push(Use {
                index: d.library,
                library,
                file: f.file,
                span: d.span,
                package: d.package.clone(),
                app,
            });
        }
    }
    out
}

/// Whether `path` lies in directory `dir` (the root holds everything).
fn within(path: &str, dir: &str) -> bool {
    dir.is_empty() || path == dir || path.starts_with(&format!("{dir}/"))
}

/// Whether an endpoint is a setting the app reads for this library: the
/// library's documented setting (`REDIS_URL`) where it has one, else the
/// app's generic Redis setting (`REDIS_HOST`, `REDIS_URL`); a setting named
/// for another Redis (`CACHE_REDIS_URL`) is not the one. Set in the app's
/// own files or, for the documented setting, in a file of a directory
/// above the app (a monorepo's root `.env`), or in the environment of a
/// compose service whose `build:` context holds the app.
fn serves(
    ep: &Endpoint,
    u: &Use<'_>,
    contexts: &[(FileId, String, String)],
    sources: &SourceMap,
) -> bool {
    let key = ep.key.to_ascii_lowercase();
    let name = key.rsplit(['.', ':']).next().unwrap_or(&key);
    let name = name.rsplit("__").next().unwrap_or(name);
    let wanted = match u.library.setting.as_deref() {
        Some(s) => name.eq_ignore_ascii_case(s),
        None => knowledge::redis().app_setting.is_generic(name),
    };
    if !wanted {
        return false;
    }
    match &ep.owner {
        Some(Owner::Compose(svc)) => contexts
            .iter()
            .find(|(f, s, _)| *f == ep.file && s == svc)
            .is_some_and(|(_, _, c)| within(&u.app, c)),
        Some(Owner::Workload(_)) => false,
        None => {
            let dir = dir_of(sources.path(ep.file));
            within(dir, &u.app) || (u.library.setting.is_some() && within(&u.app, dir))
        }
    }
}

/// What the manifest line says, for the label at it.
fn evidence(u: &Use<'_>, sources: &SourceMap) -> String {
    let reads = u
        .library
        .setting
        .as_deref()
        .map(|s| format!(" (it reads `{s}` for its Redis)"))
        .unwrap_or_default();
    format!(
        "holds {}: `{}` depends on `{}`, which keeps {} in Redis{reads}",
        u.library.keeps,
        sources.path(u.file),
        u.package,
        u.library.keeps
    )
}

/// The links each instance gets from the libraries the project's apps
/// depend on: (instance, links). An app's setting that points at a host
/// links the instances of that name (weakly for a redis.conf file, which
/// answers to a host by its path only); `localhost` in the app's own
/// settings links, weakly, the compose Redis that publishes the port.
/// Where no setting of the app points at a Redis, the project's only Redis
/// is linked.
pub(super) fn library_links(
    instances: &[Instance],
    files: &[FileFacts],
    sources: &SourceMap,
    all: &[&Endpoint],
    contexts: &[(FileId, String, String)],
) -> Vec<(usize, Link)> {
    let mut out: Vec<(usize, Link)> = Vec::new();
    let test = |f: FileId| files.iter().any(|x| x.file == f && x.test_path);
    for u in uses(files, sources) {
        let mut found: Vec<(usize, Link)> = Vec::new();
        for ep in all.iter().filter(|ep| !test(ep.file)) {
            if !serves(ep, &u, contexts, sources) {
                continue;
            }
            let value = sources
                .text(ep.file)
                .get(ep.span.start..ep.span.end)
                .unwrap_or(&ep.host)
                .to_string();
            let port = (is_loopback(&ep.host) && ep.owner.is_none())
                .then(|| port_of(&value))
                .flatten();
            let targets: Vec<(usize, bool)> = match port {
                Some(port) => publishing(instances, files, port)
                    .into_iter()
                    .map(|i| (i, true))
                    .collect(),
                None if is_loopback(&ep.host) => Vec::new(),
                None => pointed_at(instances, ep)
                    .into_iter()
                    .map(|i| {
                        let conf = instances[i].kind == InstanceKind::ConfFile
                            && instances[i].named_by_path;
                        (i, conf)
                    })
                    .collect(),
            };
            for (i, weak) in targets {
                let inst = &instances[i];
                let reason = match port {
                    Some(p) => format!(
                        "`{}={value}` is this machine, where {} `{}` publishes port {p}",
                        ep.key,
                        inst.kind.describe(),
                        inst.name
                    ),
                    None if weak => format!(
                        "`{}` names host `{}`, which {} `{}` answers to by its path only",
                        ep.key,
                        ep.host,
                        inst.kind.describe(),
                        sources.path(inst.file)
                    ),
                    None => format!(
                        "`{}` points at {} `{}`",
                        ep.key,
                        inst.kind.describe(),
                        inst.name
                    ),
                };
                found.push((
                    i,
                    Link {
                        file: ep.file,
                        span: ep.span,
                        reason,
                        weak,
                        library: Some(u.index),
                    },
                ));
            }
        }
        if found.is_empty() && instances.len() == 1 {
            found.push((
                0,
                Link {
                    file: instances[0].file,
                    span: instances[0].span,
                    reason: "the project's only Redis".to_string(),
                    weak: false,
                    library: Some(u.index),
                },
            ));
        }
        let mut linked: Vec<usize> = Vec::new();
        for (i, l) in found {
            if !linked.contains(&i) {
                linked.push(i);
                out.push((
                    i,
                    Link {
                        file: u.file,
                        span: u.span,
                        reason: evidence(&u, sources),
                        weak: l.weak,
                        library: Some(u.index),
                    },
                ));
            }
            if !out
                .iter()
                .any(|(j, o)| *j == i && o.file == l.file && o.span == l.span)
            {
                out.push((i, l));
            }
        }
    }
    out
}
