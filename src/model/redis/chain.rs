//! Which Redis a crate's keys go to, by where its client points: the
//! client that the crate writing store keys builds (`redis::Client::open`
//! of `env::var("REDIS_URL")` or `settings.redis.url`), the value that
//! setting takes in the project's configuration (`.env`, a compose
//! service's `environment:`, a Kubernetes or Helm `env:` item, the config
//! file the settings struct reads), and the instance that value's host
//! names. Also the chains that need no code parser: a setting named for
//! the keys that falls back to a generic one (read from the text of any
//! language), and a known server's cache that its settings put in Redis
//! (`rules/redis.toml` `[[server_cache]]`). Not for links by name:
//! `super::RedisModel::link` keeps those.

use super::claims::crate_root;
use super::{normalise, points_at, Endpoint, Instance, Link, Owner};
use crate::facts::retention::ClientSetting;
use crate::facts::FileFacts;
use crate::model::settings::{join_key, nested_env_key};
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
        .filter_map(|f| Some((f.file, f.code.as_ref()?)))
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
                    weak: false,
                    library: None,
                    file: c.file,
                    span: c.setting.span,
                    reason: format!(
                        "holds idempotency keys: `{}` builds the Redis client from `{shown}` here, in the code that writes `{prefix}` keys",
                        c.setting.call
                    ),
                };
                let value_link = Link {
                    weak: false,
                    library: None,
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
                    weak: false,
                    library: None,
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

/// A setting named for the keys' Redis that falls back to a generic one
/// when unset: `REQUEST_IDEMPOTENCY_REDIS_HOST` read as `v ??
/// process.env.REDIS_HOST`, `os.getenv("IDEMPOTENCY_REDIS_URL") or
/// os.getenv("REDIS_URL")`, `${IDEMPOTENCY_REDIS_URL:-${REDIS_URL}}`. The
/// generic name is the named one's own tail (`…_REDIS_HOST` → `REDIS_HOST`),
/// so a schema that declares both settings side by side is no fallback.
#[derive(Debug)]
pub(super) struct Fallback {
    pub file: FileId,
    /// The generic setting where the fallback reads it.
    pub span: Span,
    pub named: String,
    pub generic: String,
}

/// Lines after the named setting's that its statement may run on
/// (`z.string()` / `.optional()` / `.transform(v => v ?? …)`).
const FALLBACK_LINES: usize = 4;

/// Every fallback of non-test source and config text. A file is looked at
/// only when it holds `_REDIS_` or `_VALKEY_` (in either case): a named
/// setting has a prefix before its Redis word.
pub(super) fn fallbacks(files: &[FileFacts], sources: &SourceMap) -> Vec<Fallback> {
    let words = &crate::knowledge::redis().link_words;
    let mut out = Vec::new();
    for f in files.iter().filter(|f| !f.test_path) {
        // Every file is looked at: a text let go after its parse is read
        // for this look only, never kept (the cargo registry's peak went
        // from 61-67 to 78-93 MB when this kept them all).
        let text = sources.peek_text(f.file);
        if !named_finders()
            .iter()
            .any(|g| g.find(text.as_bytes()).is_some())
            || !words.may_match_within(&text)
        {
            continue;
        }
        for (at, named, generic) in fallbacks_in(&text) {
            out.push(Fallback {
                file: f.file,
                span: Span::new(at, at + generic.len()),
                named,
                generic,
            });
        }
    }
    out
}

/// The identifiers of a line with their offsets.
fn idents(line: &str) -> impl Iterator<Item = (usize, &str)> {
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    line.char_indices()
        .filter(move |&(i, c)| ident(c) && !line[..i].ends_with(ident))
        .map(move |(i, _)| {
            let len = line[i..]
                .find(|c: char| !ident(c))
                .unwrap_or(line.len() - i);
            (i, &line[i..i + len])
        })
}

/// The generic tail of a setting named for the keys' Redis
/// (`REQUEST_IDEMPOTENCY_REDIS_HOST` → `REDIS_HOST`): a host or URL
/// setting (`super::host_of`'s words) after a prefix that the link words
/// match.
fn generic_tail(name: &str) -> Option<&str> {
    let lower = name.to_ascii_lowercase();
    let at = ["_redis_", "_valkey_"].iter().find_map(|w| lower.find(w))?;
    let (prefix, tail) = (&name[..at], &name[at + 1..]);
    let t = tail.to_ascii_lowercase();
    let host_like = ["host", "url", "addr", "dsn", "endpoint", "server"]
        .iter()
        .any(|w| t.ends_with(w));
    (host_like && crate::knowledge::redis().link_words.matches(prefix)).then_some(tail)
}

/// Whether a line starts a setting of its own (`NAME: …`, `NAME = …`,
/// `"name": …`): the named setting's statement has ended.
fn starts_setting(line: &str) -> bool {
    let t = line.trim_start().trim_start_matches(['"', '\'']);
    let len = t
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(t.len());
    let rest = t[len..].trim_start_matches(['"', '\'']).trim_start();
    len > 0 && (rest.starts_with(':') || rest.starts_with('=')) && !rest.starts_with("==")
}

/// The byte searchers of a named setting's Redis word: `_REDIS_` and
/// `_VALKEY_` in either case.
fn named_finders() -> &'static [memchr::memmem::Finder<'static>] {
    static F: std::sync::OnceLock<Vec<memchr::memmem::Finder<'static>>> =
        std::sync::OnceLock::new();
    F.get_or_init(|| {
        ["_REDIS_", "_redis_", "_VALKEY_", "_valkey_"]
            .iter()
            .map(|w| memchr::memmem::Finder::new(w.as_bytes()).into_owned())
            .collect()
    })
}

/// The line of `text` that holds byte `at`: (start, line with its ending).
fn line_at(text: &str, at: usize) -> (usize, &str) {
    let start = text[..at].rfind('\n').map_or(0, |n| n + 1);
    let end = text[at..].find('\n').map_or(text.len(), |n| at + n + 1);
    (start, &text[start..end])
}

/// (offset of the generic name, named, generic) for each fallback of a
/// text. Only the lines that hold a named setting's Redis word are read,
/// with the lines after them that continue their statement.
fn fallbacks_in(text: &str) -> Vec<(usize, String, String)> {
    let comment = |l: &str| {
        let t = l.trim_start();
        t.starts_with("//") || t.starts_with('#') || t.starts_with("/*") || t.starts_with('*')
    };
    let mut starts: Vec<usize> = named_finders()
        .iter()
        .flat_map(|f| f.find_iter(text.as_bytes()))
        .map(|at| line_at(text, at).0)
        .collect();
    starts.sort_unstable();
    starts.dedup();
    let mut out: Vec<(usize, String, String)> = Vec::new();
    for start in starts {
        let (_, line) = line_at(text, start);
        if comment(line) {
            continue;
        }
        for (i, named) in idents(line) {
            let Some(generic) = generic_tail(named) else {
                continue;
            };
            if out.iter().any(|(_, k, _)| k == named) {
                continue;
            }
            let after = i + named.len();
            let mut window = vec![(start + after, &line[after..])];
            let mut next = start + line.len();
            while window.len() <= FALLBACK_LINES && next < text.len() {
                let (at, l) = line_at(text, next);
                next = at + l.len();
                if starts_setting(l) {
                    break;
                }
                if !comment(l) {
                    window.push((at, l));
                }
            }
            let hit = window.into_iter().find_map(|(o, l)| {
                idents(l)
                    .find(|(_, w)| w.eq_ignore_ascii_case(generic))
                    .map(|(j, w)| (o + j, w.to_string()))
            });
            if let Some((at, g)) = hit {
                out.push((at, named.to_string(), g));
            }
        }
    }
    out
}

/// Link the instances a fallback's generic setting points at, in the
/// service or workload that does not set the named one (there the named
/// setting decides). A value a chart's template computes
/// (`{{ include "app.redis.host" . }}`) links the chart's only Redis, and
/// weakly: the template may point elsewhere. Returns whether a fallback
/// was followed to a named host.
pub(super) fn link_fallbacks(
    instances: &mut [Instance],
    files: &[FileFacts],
    sources: &SourceMap,
    generic: &[Endpoint],
    all: &[&Endpoint],
    contexts: &[(FileId, String, String)],
) -> bool {
    let mut followed = false;
    if generic.is_empty() {
        return followed;
    }
    for fb in fallbacks(files, sources) {
        // Only what the prefilter reads whatever else the file holds
        // (`rules/prefilter.toml`): a `redis://` URL or a key that names a
        // Redis host, so that a run that reads every file finds the same.
        let admitted = |ep: &Endpoint| {
            ep.names_redis || crate::knowledge::redis().app_setting.names_a_host(&ep.key)
        };
        let eps = generic.iter().filter(|ep| {
            admitted(ep)
                && ep.key.eq_ignore_ascii_case(&fb.generic)
                && !files.iter().any(|f| f.file == ep.file && f.test_path)
                && !all.iter().any(|o| {
                    o.file == ep.file
                        && o.owner == ep.owner
                        && o.key.eq_ignore_ascii_case(&fb.named)
                })
                && reaches(ep, fb.file, contexts, sources)
        });
        for ep in eps {
            let templated = files.iter().find(|f| f.file == ep.file).is_some_and(|f| {
                f.holes
                    .iter()
                    .any(|h| h.start <= ep.span.start && ep.span.end <= h.end)
            });
            let value = sources
                .text(ep.file)
                .get(ep.span.start..ep.span.end)
                .unwrap_or(&ep.host)
                .to_string();
            // `REDIS_HOST=localhost` in an app's own `.env`: the app runs on
            // this machine, against the compose Redis that publishes the
            // port. Weak: another Redis may listen there instead.
            let loopback = is_loopback(&ep.host) && ep.owner.is_none();
            let port = loopback.then(|| port_of(&value)).flatten();
            let targets: Vec<usize> = if templated {
                chart_only_redis(instances, sources, ep.file)
                    .into_iter()
                    .collect()
            } else if let Some(port) = port {
                publishing(instances, files, port)
            } else {
                pointed_at(instances, ep)
            };
            for i in targets {
                let inst = &mut instances[i];
                let (named, g) = (&fb.named, &ep.key);
                let reason = if let Some(port) = port {
                    format!(
                        "holds idempotency keys, by inference: `{g}={value}` is this machine, where {} `{}` publishes port {port}; `{named}`, the setting named for the keys, falls back to `{g}`",
                        inst.kind.describe(),
                        inst.name
                    )
                } else if templated {
                    format!(
                        "holds idempotency keys, by inference: `{g}` is set from the chart's template here, and the chart's only Redis is {} `{}`; `{named}`, the setting named for the keys, falls back to `{g}`",
                        inst.kind.describe(),
                        inst.name
                    )
                } else {
                    followed = true;
                    format!(
                        "holds idempotency keys: `{g}={value}` points at {} `{}`, and `{named}`, the setting named for the keys, falls back to `{g}` when unset",
                        inst.kind.describe(),
                        inst.name
                    )
                };
                let weak = templated || port.is_some();
                let at = Link {
                    weak,
                    library: None,
                    file: ep.file,
                    span: ep.span,
                    reason,
                };
                let site = Link {
                    weak,
                    library: None,
                    file: fb.file,
                    span: fb.span,
                    reason: format!("`{named}` falls back to `{g}` here"),
                };
                for l in [at, site] {
                    if !inst
                        .links
                        .iter()
                        .any(|o| o.file == l.file && o.span == l.span)
                    {
                        inst.links.push(l);
                    }
                }
            }
        }
    }
    followed
}

/// Whether a host is this machine.
pub(super) fn is_loopback(host: &str) -> bool {
    matches!(host, "localhost" | "127.0.0.1" | "::1" | "0.0.0.0")
}

/// The port a loopback connection value names (`localhost:6380`,
/// `redis://127.0.0.1:6380/0`), else Redis's default, 6379.
pub(super) fn port_of(value: &str) -> Option<u16> {
    let v = value.trim().trim_matches(['"', '\'']);
    let v = v.split_once("://").map_or(v, |(_, r)| r);
    let v = v.rsplit_once('@').map_or(v, |(_, h)| h);
    let hostport = v.split(['/', '?']).next().unwrap_or(v);
    match hostport.rsplit_once(':') {
        Some((_, p)) => p.parse().ok(),
        None => Some(6379),
    }
}

/// `${VAR:-6379}` as its default; anything else as written.
fn default_of(v: &str) -> &str {
    v.strip_prefix("${")
        .and_then(|r| r.split_once(":-"))
        .map_or(v, |(_, d)| d.strip_suffix('}').unwrap_or(d))
}

/// The host port a compose `ports:` item publishes (`"6379:6379"`,
/// `"${REDIS_PORT:-6379}:6379"`, `"127.0.0.1:6379:6379/tcp"`); none for a
/// container port alone, which Docker publishes on a random port.
fn published_port(item: &str) -> Option<u16> {
    let item = item.trim();
    // The variable's default first: its `:-` is not a separator.
    let (host_part, rest) = if let Some(r) = item.strip_prefix("${") {
        let end = r.find('}')?;
        (default_of(&item[..end + 3]), &r[end + 1..])
    } else {
        let parts: Vec<&str> = item.split(':').collect();
        match parts.as_slice() {
            [h, _] => (*h, ""),
            [_, h, _] => (*h, ""),
            _ => return None,
        }
    };
    if item.starts_with("${") && !rest.starts_with(':') {
        return None;
    }
    host_part.split('-').next()?.parse().ok()
}

/// The compose Redis services that publish `port` on the host.
pub(super) fn publishing(instances: &[Instance], files: &[FileFacts], port: u16) -> Vec<usize> {
    use crate::facts::config::PathSeg;
    use crate::facts::redis::InstanceKind;
    (0..instances.len())
        .filter(|&i| {
            let inst = &instances[i];
            let Some(doc) = (inst.kind == InstanceKind::ComposeService)
                .then(|| files.iter().find(|f| f.file == inst.file))
                .flatten()
                .and_then(|f| f.conf.as_ref())
            else {
                return false;
            };
            let of = |s: &str, n: &str, p: &str| {
                s == "services" && p == "ports" && n.eq_ignore_ascii_case(&inst.name)
            };
            doc.entries.iter().any(|e| {
                let Some(v) = e.scalar() else {
                    return false;
                };
                let published = match e.path.as_slice() {
                    // `- "6379:6379"`
                    [PathSeg::Key(s), PathSeg::Key(n), PathSeg::Key(p), PathSeg::Index(_)]
                        if of(s, n, p) =>
                    {
                        published_port(v)
                    }
                    // `- target: 6379` / `published: "6379"`
                    [PathSeg::Key(s), PathSeg::Key(n), PathSeg::Key(p), PathSeg::Index(_), PathSeg::Key(k)]
                        if of(s, n, p) && k == "published" =>
                    {
                        default_of(v).parse().ok()
                    }
                    _ => None,
                };
                published == Some(port)
            })
        })
        .collect()
}

/// Whether an instance is one a setting can reach by its name: a compose
/// service's environment reaches the services of its own file (another
/// file is another project, whose `redis` is another Redis).
fn same_project(ep: &Endpoint, inst: &Instance) -> bool {
    !matches!(ep.owner, Some(Owner::Compose(_))) || inst.file == ep.file
}

/// The Redis instances an endpoint's host names, in its project.
pub(super) fn pointed_at(instances: &[Instance], ep: &Endpoint) -> Vec<usize> {
    (0..instances.len())
        .filter(|&i| same_project(ep, &instances[i]) && points_at(&instances[i], &ep.host))
        .collect()
}

/// The one Redis declared by the values of the chart a template belongs to
/// (`chart/templates/app.yaml` → `chart/values*.yaml`).
fn chart_only_redis(
    instances: &[Instance],
    sources: &SourceMap,
    template: FileId,
) -> Option<usize> {
    let path = normalise(sources.path(template));
    let chart = format!("/{path}")
        .rsplit_once("/templates/")
        .map(|(c, _)| c.trim_start_matches('/').to_string())?;
    let found: Vec<usize> = (0..instances.len())
        .filter(|&i| {
            let p = normalise(sources.path(instances[i].file));
            let dir = p.rsplit_once('/').map_or("", |(d, _)| d);
            dir == chart && instances[i].kind == crate::facts::redis::InstanceKind::HelmValues
        })
        .collect();
    // The chart's defaults (`values.yaml`) are what it deploys; another
    // values file beside them is an example or an override.
    let defaults = found.iter().copied().find(|&i| {
        let p = sources.path(instances[i].file);
        p.ends_with("/values.yaml") || p.ends_with("/values.yml")
    });
    match found.as_slice() {
        [one] => Some(*one),
        _ => defaults,
    }
}

/// Link the Redis a known server keeps its idempotency entries in
/// (`rules/redis.toml` `[[server_cache]]`): in a service or workload whose
/// environment selects the Redis backend of its cache
/// (`SVIX_CACHE_TYPE=redis`), the first of its DSN settings set there
/// (`SVIX_CACHE_DSN`, else `SVIX_REDIS_DSN`). A host whose name a chart's
/// template computes (`{{ include "app.fullname" . }}-redis-master`) links
/// the chart's only Redis, weakly.
pub(super) fn link_server_caches(
    instances: &mut [Instance],
    files: &[FileFacts],
    sources: &SourceMap,
    all: &[&Endpoint],
) {
    let servers = &crate::knowledge::redis().server_cache;
    if servers.is_empty() || all.is_empty() {
        return;
    }
    // A tree that sets none of the servers' DSN settings reads no selection.
    let named = |e: &&Endpoint| {
        servers
            .iter()
            .any(|s| s.dsn.iter().any(|d| e.key.eq_ignore_ascii_case(d)))
    };
    if !all.iter().any(named) {
        return;
    }
    let selections = super::cache_selections(files, sources);
    for server in servers {
        for sel in selections
            .iter()
            .filter(|s| s.redis && s.owner.is_some() && s.key.eq_ignore_ascii_case(&server.select))
        {
            let here = |e: &&&Endpoint| e.file == sel.file && e.owner == sel.owner;
            let Some(ep) = server.dsn.iter().find_map(|d| {
                all.iter()
                    .filter(here)
                    .find(|e| e.key.eq_ignore_ascii_case(d))
            }) else {
                continue;
            };
            let templated = ep.host.starts_with('_');
            let targets: Vec<usize> = if templated {
                chart_only_redis(instances, sources, ep.file)
                    .into_iter()
                    .collect()
            } else {
                pointed_at(instances, ep)
            };
            for i in targets {
                let inst = &mut instances[i];
                let whose = if templated {
                    format!(
                        "by inference: `{}` names a host the chart's template computes, and the chart's only Redis is {} `{}`",
                        ep.key,
                        inst.kind.describe(),
                        inst.name
                    )
                } else {
                    format!(
                        "`{}` points at {} `{}`",
                        ep.key,
                        inst.kind.describe(),
                        inst.name
                    )
                };
                let link = Link {
                    weak: templated,
                    library: None,
                    file: ep.file,
                    span: ep.span,
                    reason: format!(
                        "holds idempotency keys, {whose}: `{}=redis` makes {} keep its cache, which holds its idempotency entries, in Redis ({})",
                        sel.key, server.name, server.source
                    ),
                };
                if !inst
                    .links
                    .iter()
                    .any(|o| o.file == link.file && o.span == link.span)
                {
                    inst.links.push(link);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_named_setting_falls_back_to_its_generic_tail() {
        let ts = "const env = z.object({\n  IDEMPOTENCY_REDIS_HOST: z\n    .string()\n    .optional()\n    .transform((v) => v ?? process.env.REDIS_HOST),\n  REDIS_HOST: z.string(),\n});\n";
        let found = fallbacks_in(ts);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].1, "IDEMPOTENCY_REDIS_HOST");
        assert_eq!(&ts[found[0].0..found[0].0 + 10], "REDIS_HOST");
        let py = "DEDUP_REDIS_URL = os.getenv(\"DEDUP_REDIS_URL\") or os.getenv(\"REDIS_URL\")\n";
        assert_eq!(fallbacks_in(py).len(), 1);
        let compose = "      IDEMPOTENCY_REDIS_URL: ${IDEMPOTENCY_REDIS_URL:-${REDIS_URL}}\n";
        assert_eq!(fallbacks_in(compose).len(), 1);
    }

    #[test]
    fn published_ports_and_loopback_ports() {
        assert_eq!(published_port("6379:6379"), Some(6379));
        assert_eq!(
            published_port("${REDIS_HOST_PORT:-16379}:6379"),
            Some(16379)
        );
        assert_eq!(published_port("127.0.0.1:6380:6379/tcp"), Some(6380));
        assert_eq!(published_port("6379"), None);
        assert_eq!(published_port("${REDIS_PORT}:6379"), None);
        assert_eq!(port_of("localhost"), Some(6379));
        assert_eq!(port_of("\"localhost:6380\""), Some(6380));
        assert_eq!(port_of("redis://:pw@127.0.0.1:6381/0"), Some(6381));
        assert!(is_loopback("127.0.0.1") && !is_loopback("redis"));
    }

    #[test]
    fn settings_declared_side_by_side_are_no_fallback() {
        let ts = "  IDEMPOTENCY_REDIS_URL: z.string().optional(),\n  REDIS_URL: z.string(),\n";
        assert!(fallbacks_in(ts).is_empty());
        let env = "IDEMPOTENCY_REDIS_URL=redis://idem:6379\nREDIS_URL=redis://cache:6379\n";
        assert!(fallbacks_in(env).is_empty());
        // Not named for the keys: a session store's fallback.
        let ts = "  SESSION_REDIS_URL: z.string().default(process.env.REDIS_URL),\n";
        assert!(fallbacks_in(ts).is_empty());
        let comment = "  # IDEMPOTENCY_REDIS_URL falls back to REDIS_URL\n";
        assert!(fallbacks_in(comment).is_empty());
    }

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
