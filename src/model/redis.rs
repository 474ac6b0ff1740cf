//! Redis instances across the project: each declared instance (compose
//! service, Helm release, Kubernetes workload or ConfigMap, Terraform or
//! CloudFormation resource, redis.conf file, code) with the `maxmemory-policy`
//! settings that apply to it, from its own file, the parameter group it uses
//! or the redis.conf mounted into it, and the reasons to believe it holds
//! idempotency keys. Not for judging the policy: the rule does that.

use super::settings::k8s_env_pairs;
use crate::config::Config;
use crate::facts::config::{ConfEntry, Key, PathSeg};
use crate::facts::redis::{GroupRef, InstanceDecl, InstanceKind, Provider, Surface};
use crate::facts::FileFacts;
use crate::knowledge;
use crate::source::FileKind;
use crate::source::{FileId, SourceMap, Span};
use crate::store_lines::{lines_at, store_callee};

mod chain;
mod claims;
mod libraries;

/// A `maxmemory-policy` that applies to an instance.
#[derive(Debug, Clone)]
pub struct Setting {
    pub file: FileId,
    pub span: Span,
    /// As written.
    pub value: String,
    pub surface: Surface,
}

/// Connection settings shown as labels for one instance; the rest are counted.
const MAX_ENDPOINT_LABELS: usize = 3;

/// Why an instance is believed to hold idempotency keys.
#[derive(Debug, Clone)]
pub struct Link {
    pub file: FileId,
    pub span: Span,
    /// "holds idempotency keys: ..." text for a label.
    pub reason: String,
    /// Inferred from deployment config alone, the value it follows
    /// computed by a template (a chart's only Redis): an instance linked
    /// by such links only is reported as a note.
    pub weak: bool,
    /// Set when the link is a dependency on a library that keeps dedup
    /// keys or locks in Redis: its index in `rules/redis.toml`
    /// `[[dedup_library]]`, so the rule can say which library and cap a
    /// general lock at a warning.
    pub library: Option<usize>,
}

#[derive(Debug, Clone)]
pub struct Instance {
    pub file: FileId,
    pub kind: InstanceKind,
    /// Name as shown in messages (from the file path for values and conf files).
    pub name: String,
    /// Every name it answers to, lower-cased: name, aliases, and for values,
    /// conf files and code the names in its path.
    pub names: Vec<String>,
    /// Whether `names` come from the file's path rather than the file's content.
    pub named_by_path: bool,
    pub span: Span,
    pub provider: Provider,
    pub resource_type: Option<String>,
    pub settings: Vec<Setting>,
    /// Where the settings came from when not the instance's own file
    /// (its parameter group, its mounted redis.conf).
    pub via: Option<(FileId, Span, String)>,
    /// A managed instance whose parameter group cannot be read here (a name
    /// from elsewhere, a variable): its policy is unknown, not the default.
    pub opaque_group: bool,
    pub links: Vec<Link>,
}

impl Instance {
    /// The setting Redis runs with: a command-line flag overrides a config
    /// file (Redis appends `--` options after it), and a later line an earlier.
    pub fn effective(&self) -> Option<&Setting> {
        let rank = |s: &Setting| match s.surface {
            Surface::Code => 3,
            Surface::CommandLine => 2,
            _ => 1,
        };
        self.settings
            .iter()
            .enumerate()
            .max_by_key(|(i, s)| (rank(s), *i))
            .map(|(_, s)| s)
    }

    pub fn is_managed(&self) -> bool {
        self.provider != Provider::SelfRun
    }
}

#[derive(Debug, Default)]
pub struct RedisModel {
    pub instances: Vec<Instance>,
}

/// File stems that name no release (`values.yaml`, `redis.conf`): the
/// directory names it instead.
fn generic_stem(stem: &str) -> bool {
    matches!(
        stem,
        "values"
            | "redis"
            | "valkey"
            | "redis-server"
            | "master"
            | "replica"
            | "config"
            | "configmap"
    )
}

/// (display name, names) derived from a path: `deploy/idem-redis/values.yaml`
/// → `idem-redis`.
fn names_from_path(path: &str) -> (String, Vec<String>) {
    // A Helm chart's templates are named by the chart:
    // `charts/idem-redis/templates/master/statefulset.yaml` → `idem-redis`.
    let chart = format!("/{path}")
        .rsplit_once("/templates/")
        .and_then(|(c, _)| c.rsplit('/').next().map(str::to_string))
        .filter(|c| !c.is_empty());
    if let Some(c) = chart {
        return (c.clone(), vec![c.to_ascii_lowercase()]);
    }
    let mut parts = path.rsplit('/');
    let file = parts.next().unwrap_or(path);
    let dir = parts.next().unwrap_or("");
    let stem = file.split('.').next().unwrap_or(file);
    let shown = if generic_stem(stem) && !dir.is_empty() && dir != "." {
        dir.to_string()
    } else {
        stem.to_string()
    };
    let mut names = vec![stem.to_ascii_lowercase()];
    if !dir.is_empty() {
        names.push(dir.to_ascii_lowercase());
    }
    (shown, names)
}

/// `a/b/../c/./d` → `a/c/d`.
fn normalise(path: &str) -> String {
    let mut out: Vec<&str> = Vec::new();
    for p in path.split('/') {
        match p {
            "" | "." => {}
            ".." => {
                out.pop();
            }
            p => out.push(p),
        }
    }
    out.join("/")
}

/// A parameter group, with its aliases and its label.
type Group = (Instance, Vec<String>, String);
/// An instance, the parameter group it names, and the paths mounted into it.
type Decl = (Instance, Option<GroupRef>, Vec<String>);
/// An `include` line of a conf file: the including decl's index, the
/// resolved path, the line's offset.
type Include = (usize, String, usize);

/// Every file's declarations, with their settings: the parameter groups,
/// the instances, and the `include` lines of conf files (decl index,
/// resolved path, offset).
fn declarations(files: &[FileFacts], sources: &SourceMap) -> (Vec<Group>, Vec<Decl>, Vec<Include>) {
    // Declarations, and their settings, per file.
    let mut groups: Vec<Group> = Vec::new();
    let mut decls: Vec<Decl> = Vec::new();
    // `include` lines of conf files: (decl index, resolved path, offset).
    let mut includes: Vec<Include> = Vec::new();
    for f in files {
        let path = sources
            .files
            .get(f.file)
            .map(|s| s.path.as_str())
            .unwrap_or("");
        for (i, d) in f.redis.instances.iter().enumerate() {
            let settings: Vec<Setting> = f
                .redis
                .settings
                .iter()
                .filter(|s| s.instance == Some(i))
                .map(|s| Setting {
                    file: f.file,
                    span: s.span,
                    value: s.value.clone(),
                    surface: s.surface,
                })
                .collect();
            let inst = instance(f.file, path, d, settings);
            if d.is_group {
                groups.push((inst, d.aliases.clone(), d.name.clone()));
            } else {
                let mounts = d
                    .mounts
                    .iter()
                    .map(|m| normalise(&format!("{}/{}", dir_of(path), m)))
                    .collect();
                if d.kind == InstanceKind::ConfFile {
                    // Followed only inside the repository: a relative
                    // path, resolved against the including file.
                    for inc in f.redis.includes.iter().filter(|i| !i.path.starts_with('/')) {
                        let to = normalise(&format!("{}/{}", dir_of(path), inc.path));
                        includes.push((decls.len(), to, inc.span.start));
                    }
                }
                decls.push((inst, d.group.clone(), mounts));
            }
        }
    }
    (groups, decls, includes)
}

/// Fold conf files into what takes them (an `include` line, a mount into a
/// compose service); the ones folded.
fn absorb(decls: &mut [Decl], includes: Vec<Include>, sources: &SourceMap) -> Vec<bool> {
    // An included conf file's lines take the place of the `include` line.
    let mut absorbed = vec![false; decls.len()];
    for (i, to, at) in includes {
        let Some(j) = decls.iter().position(|(d, _, _)| {
            d.kind == InstanceKind::ConfFile && normalise(sources.path(d.file)) == to
        }) else {
            continue;
        };
        if i == j {
            continue;
        }
        let included = decls[j].0.settings.clone();
        let own = &mut decls[i].0.settings;
        let pos = own.iter().take_while(|s| s.span.start < at).count();
        own.splice(pos..pos, included);
        absorbed[j] = true;
    }

    // A redis.conf mounted into a compose service (as a file, or inside a
    // mounted directory) is that service's config; replicas may share it.
    let included = absorbed.clone();
    for i in 0..decls.len() {
        if decls[i].2.is_empty() {
            continue;
        }
        for j in 0..decls.len() {
            if i == j || included[j] || decls[j].0.kind != InstanceKind::ConfFile {
                continue;
            }
            let conf_path = normalise(sources.path(decls[j].0.file));
            let mounted = decls[i].2.iter().any(|m| {
                *m == conf_path || (!m.is_empty() && conf_path.starts_with(&format!("{m}/")))
            });
            if mounted {
                let conf = decls[j].0.clone();
                let target = &mut decls[i].0;
                target.settings.splice(0..0, conf.settings);
                target.via = Some((
                    conf.file,
                    Span::new(0, 0),
                    format!(
                        "`{}` is mounted into this service",
                        conf_path.rsplit('/').next().unwrap_or(&conf_path)
                    ),
                ));
                absorbed[j] = true;
            }
        }
    }
    absorbed
}

fn dir_of(path: &str) -> &str {
    path.rsplit_once('/').map(|(d, _)| d).unwrap_or("")
}

impl RedisModel {
    pub fn build(files: &[FileFacts], sources: &SourceMap, config: &Config) -> Self {
        let mut model = RedisModel::default();
        let (groups, mut decls, includes) = declarations(files, sources);
        let absorbed = absorb(&mut decls, includes, sources);
        // Parameter groups give their settings to the clusters that use them.
        let mut group_used = vec![false; groups.len()];
        let mut instances: Vec<Instance> = Vec::new();
        for (k, (mut inst, group, _)) in decls.into_iter().enumerate() {
            if absorbed[k] {
                continue;
            }
            if inst.kind == InstanceKind::Code {
                instances.push(inst);
                continue;
            }
            match &group {
                Some(GroupRef::Name(n)) if n.starts_with("default.") => {}
                Some(GroupRef::Unknown) => inst.opaque_group = true,
                Some(r) => {
                    let found = groups.iter().position(|(g, aliases, label)| match r {
                        GroupRef::Resource(x) => label == x && same_stack(g, &inst, sources),
                        GroupRef::Name(n) => aliases.iter().any(|a| a == n),
                        GroupRef::Unknown => false,
                    });
                    match found {
                        Some(gi) => {
                            group_used[gi] = true;
                            let g = &groups[gi].0;
                            inst.settings.extend(g.settings.iter().cloned());
                            inst.via = Some((
                                g.file,
                                g.span,
                                format!("parameter group `{}` used by `{}`", g.name, inst.name),
                            ));
                        }
                        None => inst.opaque_group = true,
                    }
                }
                None => {}
            }
            instances.push(inst);
        }
        // A group no cluster here uses stands for the clusters elsewhere.
        for (gi, (g, _, _)) in groups.into_iter().enumerate() {
            if !group_used[gi] {
                instances.push(g);
            }
        }

        // `CONFIG SET` in code configures the repository's only Redis, when
        // there is one; otherwise the code's own connection.
        let declared = instances
            .iter()
            .filter(|i| i.kind != InstanceKind::Code)
            .count();
        if declared == 1 {
            let code: Vec<Setting> = instances
                .iter()
                .filter(|i| i.kind == InstanceKind::Code)
                .flat_map(|i| i.settings.clone())
                .collect();
            instances.retain(|i| i.kind != InstanceKind::Code);
            if let Some(only) = instances.first_mut() {
                only.settings.extend(code);
            }
        }

        model.instances = instances;
        model.link(files, sources, config);
        model
    }

    /// Find the reasons each instance holds idempotency keys, in the
    /// numbered steps of [`Linker`].
    fn link(&mut self, files: &[FileFacts], sources: &SourceMap, config: &Config) {
        let only_one = self.instances.len() == 1;
        // Generic settings (`REDIS_URL`) that code named for idempotency
        // reads: `IdempotencyStore::new(env::var("REDIS_URL")?)`.
        let (generic, endpoints) = endpoints(files, sources);
        let l = Linker {
            files,
            sources,
            config,
            used: used_by_store_code(&generic, files, sources),
            generic,
            endpoints,
            writers: key_writers(files, sources),
            contexts: build_contexts(files, sources),
        };
        let (generic, endpoints, writers, contexts) =
            (&l.generic, &l.endpoints, &l.writers, &l.contexts);
        let claims = claims::claims(files);
        // 0. Where the client of the code that writes store keys points.
        let all: Vec<&Endpoint> = generic.iter().chain(endpoints).collect();
        let chained =
            chain::link_chains(&mut self.instances, files, sources, &all, writers, contexts);
        // 0b. A setting named for the keys that falls back to a generic
        // one. Added to the others: the generic setting may serve other
        // code too, so it does not rule out the guesses below.
        chain::link_fallbacks(&mut self.instances, files, sources, generic, &all, contexts);
        // 0c. A known server's cache that holds its idempotency entries.
        chain::link_server_caches(&mut self.instances, files, sources, &all);
        for inst in &mut self.instances {
            l.declared(inst);
        }
        l.by_service_env(&mut self.instances, chained);
        l.by_cache_backend(&mut self.instances, chained);
        // 3e. The application's Redis settings in its config file, when
        // code claims keys with a conditional set and nothing above said
        // which Redis holds keys.
        let decided = chained || self.instances.iter().any(|i| !i.links.is_empty());
        if let (false, Some(claim)) = (decided, claims.first()) {
            for (n, link) in app_config_links(generic, &self.instances, claim, files, sources) {
                if let Some(inst) = self.instances.get_mut(n) {
                    inst.links.extend(link);
                }
            }
        }
        l.by_own_code(&mut self.instances, &claims);
        // 6. Libraries the project's apps depend on that keep dedup keys or
        // locks in Redis (`activejob-uniqueness`, `redlock`), in the Redis
        // the app's settings point at.
        for (n, l) in libraries::library_links(&self.instances, files, sources, &all, contexts) {
            if let Some(inst) = self.instances.get_mut(n) {
                inst.links.push(l);
            }
        }
        if only_one {
            l.only_redis(&mut self.instances);
        }
    }
}

/// What the steps of [`RedisModel::link`] read: the facts and the config,
/// the Redis settings found in them, and the code that writes store keys.
/// Steps 0 to 0c link the instances the code's clients point at; then,
/// for each instance, 1. the config, 2. its name, 3. the settings named
/// for the keys that point at it, 3b. a generic setting read by code named
/// for idempotency; 3c. the environment of the service whose code writes
/// store keys; 3d. a cache with a Redis backend; 3e. the application's
/// config file; 4. code that sets the policy and writes keys itself;
/// 6. libraries that keep keys in Redis; 5. the repository's only Redis.
struct Linker<'a> {
    files: &'a [FileFacts],
    sources: &'a SourceMap,
    config: &'a Config,
    /// Generic settings (`REDIS_URL`).
    generic: Vec<Endpoint>,
    /// Settings named for the keys.
    endpoints: Vec<Endpoint>,
    /// Generic settings read by code named for idempotency.
    used: Vec<Used>,
    writers: Vec<(FileId, Span, String)>,
    contexts: Vec<(FileId, String, String)>,
}

impl Linker<'_> {
    /// Steps 1 to 3b, for one instance; none when the config says it
    /// holds no store.
    fn declared(&self, inst: &mut Instance) {
        let words = &knowledge::redis().link_words;
        let Linker { config, used, .. } = self;
        let declared_none = config.store.iter().any(|s| {
            !s.store
                && s.redis
                    .as_deref()
                    .is_some_and(|r| inst.names.contains(&r.to_ascii_lowercase()))
        });
        if declared_none {
            return;
        }
        // 1. idemlint.toml `[[store]] redis = "<name>"`.
        for s in config.store.iter().filter(|s| s.store) {
            let Some(r) = s.redis.as_deref() else {
                continue;
            };
            if inst.names.contains(&r.to_ascii_lowercase()) {
                let what = match (&s.key_prefix, &s.table) {
                    (Some(p), _) => format!("keys `{p}`"),
                    (None, Some(t)) => format!("store `{t}`"),
                    _ => "a store".to_string(),
                };
                inst.links.push(Link {
                    weak: false,
                    library: None,
                    file: inst.file,
                    span: inst.span,
                    reason: format!(
                        "holds idempotency keys: the idemlint config puts {what} in `{r}`"
                    ),
                });
            }
        }
        // 2. Its name.
        if let Some(n) = inst.names.iter().find(|n| words.matches(n)) {
            inst.links.push(Link {
                weak: false,
                library: None,
                file: inst.file,
                span: inst.span,
                reason: if inst.named_by_path {
                    format!("holds idempotency keys: its path names them (`{n}`)")
                } else {
                    format!(
                        "holds idempotency keys: {} `{}` is named for them",
                        inst.kind.describe(),
                        inst.name
                    )
                },
            });
        }
        self.by_settings(inst);
        // 3b. A generic setting that points at it, read by code named
        // for idempotency.
        if let Some(u) = used.iter().find(|u| points_at(inst, &u.endpoint.host)) {
            inst.links.push(Link {
                weak: false,
                library: None,
                file: u.file,
                span: u.span,
                reason: format!(
                    "holds idempotency keys: `{}` is read here by `{}`, and `{}` points at {} `{}`",
                    u.endpoint.key,
                    u.callee,
                    u.endpoint.key,
                    inst.kind.describe(),
                    inst.name
                ),
            });
        }
    }

    /// Step 3: connection settings that name the instance (a few are
    /// reason enough; a generated manifest may hold thousands).
    fn by_settings(&self, inst: &mut Instance) {
        let endpoints = &self.endpoints;
        let mut more = 0usize;
        // NOTE: a Kubernetes host carries its namespace
        // (`redis.payments.svc.cluster.local`): its first label names the
        // Service. Only a Helm release names services by prefix
        // (release `idem` → `idem-redis-master`); a compose service or
        // workload `redis` is not `redis-sessions`.
        for ep in endpoints {
            let hit = points_at(inst, &ep.host);
            if hit && more >= MAX_ENDPOINT_LABELS {
                more += 1;
            } else if hit {
                more += 1;
                inst.links.push(Link {
                    weak: false,
                    library: None,
                    file: ep.file,
                    span: ep.span,
                    reason: format!(
                        "holds idempotency keys: `{}` points at {} `{}`",
                        ep.key,
                        inst.kind.describe(),
                        inst.name
                    ),
                });
            }
        }
        if more > MAX_ENDPOINT_LABELS {
            if let Some(last) = inst.links.last_mut() {
                last.reason.push_str(&format!(
                    " (and {} more settings)",
                    more - MAX_ENDPOINT_LABELS
                ));
            }
        }
    }

    /// Step 3c, unless the code's clients linked an instance.
    fn by_service_env(&self, instances: &mut [Instance], chained: bool) {
        let Linker {
            sources,
            generic,
            endpoints,
            writers,
            contexts,
            ..
        } = self;
        // 3c. A generic setting in the environment of the service or
        // workload whose code writes store keys.
        // NOTE: a service that talks to two Redis (`REDIS_ADDR` and
        // `SESSION_REDIS_URL`) does not say which holds the keys: neither is
        // linked this way (the demo project's `api` does).
        let targets = |ep: &Endpoint, all: &[Instance]| {
            all.iter()
                .filter(|i| points_at(i, &ep.host))
                .map(|i| (i.file, i.span))
                .collect::<Vec<_>>()
        };
        let mut single: Vec<bool> = Vec::new();
        for ep in generic {
            let mut seen: Vec<(FileId, Span)> = Vec::new();
            // Every Redis setting of the service counts, named for a store
            // or not: `IDEMPOTENCY_REDIS_URL` beside `SESSION_REDIS_URL`
            // already says which is which, and the generic one is not it.
            for other in generic
                .iter()
                .chain(endpoints)
                .filter(|o| o.file == ep.file && o.owner.is_some() && o.owner == ep.owner)
            {
                for t in targets(other, instances) {
                    if !seen.contains(&t) {
                        seen.push(t);
                    }
                }
            }
            single.push(seen.len() == 1);
        }
        for inst in instances.iter_mut() {
            if !inst.links.is_empty() || chained {
                continue;
            }
            let hit = generic.iter().zip(&single).find_map(|(ep, one)| {
                if !*one || !points_at(inst, &ep.host) {
                    return None;
                }
                writer_for(ep, writers, contexts, sources).map(|w| (ep, w))
            });
            if let Some((ep, (_, _, prefix))) = hit {
                let who = match &ep.owner {
                    Some(Owner::Compose(s)) => format!("compose service `{s}`"),
                    Some(Owner::Workload(w)) => format!("workload `{w}`"),
                    None => continue,
                };
                inst.links.push(Link {
                    weak: false,
                    library: None,
                    file: ep.file,
                    span: ep.span,
                    reason: format!(
                        "holds idempotency keys: `{}` points {who} at {} `{}`, and its code writes `{prefix}` keys",
                        ep.key,
                        inst.kind.describe(),
                        inst.name
                    ),
                });
            }
        }
    }

    /// Step 3d, unless the code's clients linked an instance.
    fn by_cache_backend(&self, instances: &mut [Instance], chained: bool) {
        let Linker {
            files,
            sources,
            generic,
            endpoints,
            ..
        } = self;
        // 3d. A cache abstraction: the idempotency code keeps its keys in a
        // cache with a Redis backend, and the config of the same service
        // selects that backend (`cache_type = "redis"`) or names the cache's
        // Redis (`cache_dsn`).
        if let Some(cs) = cache_store(files).filter(|_| !chained) {
            let selections = cache_selections(files, sources);
            let all: Vec<&Endpoint> = generic.iter().chain(endpoints).collect();
            let shared: &[Instance] = instances;
            let mut found: Vec<(usize, Link)> = Vec::new();
            for (n, inst) in shared.iter().enumerate() {
                if !inst.links.is_empty() {
                    continue;
                }
                let hit = all.iter().find_map(|ep| {
                    if !points_at(inst, &ep.host) || is_test_file(files, ep.file) {
                        return None;
                    }
                    let same = |f: FileId, o: &Option<Owner>| f == ep.file && *o == ep.owner;
                    let here: Vec<&Selection> =
                        selections.iter().filter(|x| same(x.file, &x.owner)).collect();
                    let cache_named = knowledge::name_words(&ep.key).iter().any(|w| w == "cache");
                    let pick = here.iter().find(|x| x.redis);
                    if pick.is_none() && (!cache_named || !here.is_empty()) {
                        return None;
                    }
                    // A generic setting (`REDIS_URL`) says which Redis only
                    // when the service's settings point at one instance.
                    if !cache_named {
                        let mut targets: Vec<usize> = Vec::new();
                        for o in all.iter().filter(|o| same(o.file, &o.owner)) {
                            for (i, x) in shared.iter().enumerate() {
                                if points_at(x, &o.host) && !targets.contains(&i) {
                                    targets.push(i);
                                }
                            }
                        }
                        if targets.len() != 1 {
                            return None;
                        }
                    }
                    let selected = pick
                        .map(|x| format!(", which `{}` selects", x.key))
                        .unwrap_or_default();
                    Some(Link {
                        weak: false,
                        library: None,
                        file: ep.file,
                        span: ep.span,
                        reason: format!(
                            "holds idempotency keys: `{}` points at {} `{}`, the Redis backend of the `{}` that `{}` keeps its keys in{selected}",
                            ep.key,
                            inst.kind.describe(),
                            inst.name,
                            cs.cache,
                            cs.owner
                        ),
                    })
                });
                if let Some(l) = hit {
                    found.push((n, l));
                }
            }
            for (n, l) in found {
                if let Some(inst) = instances.get_mut(n) {
                    inst.links.push(l);
                }
            }
        }
    }

    /// Step 4, for the instances of code that no step linked.
    fn by_own_code(&self, instances: &mut [Instance], claims: &[claims::Claim]) {
        let Linker {
            files,
            sources,
            writers,
            ..
        } = self;
        // 4. Code that sets the policy and writes store keys itself, or
        // whose crate does (through the same client): store keys, claims
        // taken with a conditional set, the idempotency cache.
        let cache_owner =
            cache_store(files).and_then(|cs| claims::cache_owner_at(files, &cs.owner));
        for inst in instances
            .iter_mut()
            .filter(|i| i.kind == InstanceKind::Code && i.links.is_empty())
        {
            let write = files.iter().filter(|f| f.file == inst.file).find_map(|f| {
                f.redis_writes
                    .iter()
                    .find_map(|w| f.store_prefix(w).map(|p| (w.span, p.to_string())))
            });
            if let Some((span, prefix)) = write {
                inst.links.push(Link {
                    weak: false,
                    library: None,
                    file: inst.file,
                    span,
                    reason: format!(
                        "holds idempotency keys: the same code writes `{prefix}` keys to it"
                    ),
                });
            } else if let Some(l) =
                claims::same_crate(inst.file, sources, writers, claims, cache_owner.clone())
            {
                inst.links.push(l);
            }
        }
    }

    /// Step 5: code that writes store keys, when the repository has one
    /// Redis.
    fn only_redis(&self, instances: &mut [Instance]) {
        let (files, sources) = (self.files, self.sources);
        let write = files.iter().find_map(|f| {
            f.redis_writes
                .iter()
                .find_map(|w| f.store_prefix(w).map(|p| (f.file, w.span, p.to_string())))
        });
        if let (Some((file, span, prefix)), Some(inst)) = (write, instances.first_mut()) {
            inst.links.push(Link {
                weak: false,
                library: None,
                file,
                span,
                reason: format!(
                    "holds idempotency keys: code writes `{prefix}` keys to Redis, and this is the repository's only Redis"
                ),
            });
        } else if let (Some((file, span, prefix)), Some(inst)) =
            (key_prefix_literal(files, sources), instances.first_mut())
        {
            inst.links.push(Link {
                weak: false,
                library: None,
                file,
                span,
                reason: format!(
                    "holds idempotency keys: code builds `{prefix}` keys, and this is the repository's only Redis"
                ),
            });
        }
    }
}

/// The instances that one Redis section of an application config file
/// points at (`[redis] host = "redis-standalone"` and its `cluster_urls`),
/// each with the links that say why it holds the claims code takes. Only
/// settings outside a service's or workload's environment (those are
/// judged by the code that runs there), outside test files, and only a
/// file whose Redis settings sit in one section: `[redis]` beside
/// `[cache_redis]` does not say which holds the claims. Settings of no
/// section (`.env`) count when they point at one instance.
fn app_config_links(
    generic: &[Endpoint],
    instances: &[Instance],
    claim: &claims::Claim,
    files: &[FileFacts],
    sources: &SourceMap,
) -> Vec<(usize, Vec<Link>)> {
    let section = |key: &str| key.rsplit_once('.').map_or("", |(p, _)| p).to_string();
    let mut out: Vec<(usize, Vec<Link>)> = Vec::new();
    // Only what the prefilter reads whatever else the file holds
    // (`rules/prefilter.toml`): a `redis://` URL, a key that names a Redis
    // host (`REDIS_HOST`), a TOML file with a `[redis]` table.
    let admitted = |e: &Endpoint| {
        e.names_redis
            || knowledge::redis().app_setting.names_a_host(&e.key)
            || (sources.files.get(e.file).map(|s| s.kind) == Some(FileKind::Toml)
                && knowledge::contains_ignore_ascii_case(sources.text(e.file), "[redis"))
    };
    let mut by_file: Vec<FileId> = generic
        .iter()
        .filter(|e| e.owner.is_none() && admitted(e) && !is_test_file(files, e.file))
        .map(|e| e.file)
        .collect();
    by_file.dedup();
    for file in by_file {
        // (section, endpoint, instance) for every setting that names one.
        let hits: Vec<(String, &Endpoint, usize)> = generic
            .iter()
            .filter(|e| e.file == file && e.owner.is_none() && admitted(e))
            .flat_map(|e| {
                instances
                    .iter()
                    .enumerate()
                    .filter(|(_, i)| points_at(i, &e.host))
                    .map(move |(n, _)| (section(&e.key), e, n))
            })
            .collect();
        let Some((first, _, _)) = hits.first() else {
            continue;
        };
        if hits.iter().any(|(s, _, _)| s != first) {
            continue;
        }
        let mut targets: Vec<usize> = hits.iter().map(|(_, _, n)| *n).collect();
        targets.sort_unstable();
        targets.dedup();
        if first.is_empty() && targets.len() != 1 {
            continue;
        }
        for (_, ep, n) in &hits {
            if out.iter().any(|(m, _)| m == n) {
                continue;
            }
            let Some(inst) = instances.get(*n) else {
                continue;
            };
            let value = sources
                .text(ep.file)
                .get(ep.span.start..ep.span.end)
                .unwrap_or(&ep.host);
            let at = Link {
                weak: false,
                library: None,
                file: ep.file,
                span: ep.span,
                reason: format!(
                    "holds idempotency keys: `{}` = `{value}` in the application's config points its Redis client at {} `{}`, and {}",
                    ep.key,
                    inst.kind.describe(),
                    inst.name,
                    claim.describe(sources)
                ),
            };
            let site = Link {
                weak: false,
                library: None,
                file: claim.file,
                span: claim.span,
                reason: "a conditional set (SET NX) claims the key here".to_string(),
            };
            out.push((*n, vec![at, site]));
        }
    }
    out
}

/// Service suffixes the Redis and Valkey charts add to a release's name.
const HELM_ROLES: &[&str] = &[
    "-master",
    "-headless",
    "-replicas",
    "-replica",
    "-primary",
    "-sentinel",
    "-node-0",
];

/// Whether a connection host names the instance: the host itself, or its
/// name label (after an ElastiCache role label such as `master.`), or for a
/// Helm release a service named with the release as prefix.
fn points_at(inst: &Instance, host: &str) -> bool {
    let label = if host.parse::<std::net::Ipv4Addr>().is_ok() {
        host
    } else {
        host.split('.')
            .find(|l| !matches!(*l, "master" | "replica" | "primary" | "clustercfg"))
            .unwrap_or(host)
    };
    let by_prefix = inst.kind == InstanceKind::HelmValues;
    // Helm names a chart's services `<release>-<chart or alias>` and adds a
    // role (`-master`, `-headless`, `-replicas`): a subchart `keystore` of
    // release `payments` answers at `payments-keystore-master`.
    let role_less = HELM_ROLES
        .iter()
        .find_map(|r| label.strip_suffix(r))
        .unwrap_or(label);
    inst.names.iter().any(|n| {
        !n.is_empty()
            && (host == n
                || label == n
                || (by_prefix
                    && (label
                        .strip_prefix(n.as_str())
                        .is_some_and(|rest| rest.starts_with('-'))
                        || role_less == n
                        || role_less
                            .strip_suffix(n.as_str())
                            .is_some_and(|rest| rest.ends_with('-')))))
    })
}

/// A generic connection setting read in code by a call named for
/// idempotency.
struct Used {
    endpoint: Endpoint,
    file: FileId,
    span: Span,
    callee: String,
}

/// Source lines (Rust or another language) that name a generic setting
/// (`REDIS_URL`) inside a call whose callee is named for idempotency or
/// dedup (`IdempotencyStore::new(env::var("REDIS_URL")?)`,
/// `new DedupCache(process.env.REDIS_URL)`). One line is the window: a
/// setting read elsewhere and passed along by a variable is not followed.
fn used_by_store_code(generic: &[Endpoint], files: &[FileFacts], sources: &SourceMap) -> Vec<Used> {
    let words = &knowledge::redis().link_words;
    let mut out: Vec<Used> = Vec::new();
    if generic.is_empty() {
        return out;
    }
    // A key that a file does not hold is on none of its lines: each file's
    // lines are tried against the keys it holds only (one search a key and
    // file, where a search a key and line cost 13% of a payment switch's
    // run). Same endpoints, in the same order.
    let finders: Vec<memchr::memmem::Finder> = generic
        .iter()
        .map(|e| memchr::memmem::Finder::new(e.key.as_bytes()))
        .collect();
    let mut held: Vec<&Endpoint> = Vec::new();
    for f in files {
        let Some(src) = sources.files.get(f.file) else {
            continue;
        };
        if !src.kind.is_code() {
            continue;
        }
        held.clear();
        held.extend(generic.iter().zip(&finders).filter_map(|(e, finder)| {
            let found = |text: &str| finder.find(text.as_bytes()).is_some();
            let holds = match &f.store_code_lines {
                Some(lines) => lines.iter().any(|(_, l)| found(l)),
                None => found(src.text()),
            };
            holds.then_some(e)
        }));
        if held.is_empty() {
            continue;
        }
        let mut look = |start: usize, line: &str| {
            let Some(ep) = held.iter().find(|e| whole_word(line, &e.key).is_some()) else {
                return;
            };
            let Some(callee) = store_callee(line, words) else {
                return;
            };
            if out.iter().any(|u| u.endpoint.host == ep.host) {
                return;
            }
            let at = whole_word(line, &ep.key).unwrap_or(0);
            out.push(Used {
                endpoint: Endpoint {
                    file: ep.file,
                    span: ep.span,
                    key: ep.key.clone(),
                    host: ep.host.clone(),
                    owner: None,
                    names_redis: ep.names_redis,
                },
                file: f.file,
                span: Span::new(start + at, start + at + ep.key.len()),
                callee,
            });
        };
        match &f.store_code_lines {
            // The text was let go; these are its only lines `look` can use.
            Some(lines) => lines.iter().for_each(|(start, line)| look(*start, line)),
            None => lines_at(src.text()).for_each(|(start, line)| look(start, line)),
        }
    }
    out
}

/// The byte offset of `word` in `line` as a whole identifier.
fn whole_word(line: &str, word: &str) -> Option<usize> {
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    line.match_indices(word)
        .map(|(i, _)| i)
        .find(|&i| !line[..i].ends_with(ident) && !line[i + word.len()..].starts_with(ident))
}

/// A string literal in another language's source (or Rust's) shaped like a
/// Redis key prefix that names a store: `"idempotency:"`,
/// `` `webhookdedupe:${id}` ``, `"dedup:%s"`. No whitespace, a `:`
/// separator before any placeholder, not a URL.
fn key_prefix_literal(files: &[FileFacts], sources: &SourceMap) -> Option<(FileId, Span, String)> {
    let stores = knowledge::stores();
    files.iter().find_map(|f| {
        let kind = sources.files.get(f.file)?.kind;
        if !kind.is_code() {
            return None;
        }
        f.strings.iter().find_map(|s| {
            let v = s.value.as_str();
            if v.len() > 200 || v.contains(char::is_whitespace) || v.contains("://") {
                return None;
            }
            let end = v.find(['{', '%', '#', '$']).unwrap_or(v.len());
            let prefix = &v[..end];
            let colon = prefix.rfind(':')?;
            let prefix = &prefix[..=colon];
            let shaped = prefix
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, ':' | '_' | '-' | '.'));
            (shaped && prefix.len() > 1 && stores.is_store_prefix(prefix))
                .then(|| (f.file, s.span, prefix.to_string()))
        })
    })
}

/// Whether a parameter group and a cluster belong to one stack: both
/// Terraform (one module directory) or both in one CloudFormation template.
fn same_stack(group: &Instance, user: &Instance, sources: &SourceMap) -> bool {
    match (group.kind, user.kind) {
        // NOTE: modules name their resources alike (`this`, `main`), so a
        // reference only reaches the group of its own module directory.
        (InstanceKind::Terraform, InstanceKind::Terraform) => {
            dir_of(sources.path(group.file)) == dir_of(sources.path(user.file))
        }
        (InstanceKind::CloudFormation, InstanceKind::CloudFormation) => group.file == user.file,
        _ => false,
    }
}

fn instance(file: FileId, path: &str, d: &InstanceDecl, settings: Vec<Setting>) -> Instance {
    let mut names: Vec<String> = Vec::new();
    let mut shown = d.name.clone();
    let named_by_path = d.name.is_empty();
    if named_by_path {
        let (s, n) = names_from_path(path);
        shown = if d.kind == InstanceKind::Code {
            path.rsplit('/').next().unwrap_or(path).to_string()
        } else {
            s
        };
        names.extend(n);
    } else {
        names.push(d.name.to_ascii_lowercase());
    }
    names.extend(d.aliases.iter().map(|a| a.to_ascii_lowercase()));
    names.retain(|n| !n.is_empty());
    names.dedup();
    Instance {
        file,
        kind: d.kind,
        name: shown,
        names,
        named_by_path,
        span: d.span,
        provider: d.provider,
        resource_type: d.resource_type.clone(),
        settings,
        via: None,
        opaque_group: false,
        links: Vec::new(),
    }
}

/// A connection setting whose name speaks of a store and whose value names
/// a host: `IDEMPOTENCY_REDIS_URL=redis://idem-redis:6379/0`.
#[derive(Debug)]
struct Endpoint {
    file: FileId,
    span: Span,
    key: String,
    host: String,
    /// The service or workload whose environment sets it, for a generic
    /// setting (`REDIS_ADDR`).
    owner: Option<Owner>,
    /// Its value is a Redis URL (`redis://kv:6379`), not only a host: a
    /// word of the prefilter, so its file is read whatever its kind.
    names_redis: bool,
}

/// Every (key, value, value span) setting of a config file whose entry
/// mentions one of `words` (lowercase) in a key of its path or in its value:
/// plain keys, compose `KEY=value` items and Kubernetes `name:`/`value:`
/// pairs. The screen runs before any string is built, so a large file whose
/// entries name none of the words costs a byte scan.
fn settings<'a>(
    entries: &'a [ConfEntry],
    text: &'a str,
    words: &'a [&'a str],
) -> impl Iterator<Item = (String, String, Span)> + 'a {
    let mentions = std::rc::Rc::new(Mentions::new(words));
    let pair_mentions = std::rc::Rc::clone(&mentions);
    let pairs = k8s_env_pairs(entries)
        .into_iter()
        .filter(move |(n, v)| pair_mentions.any(n) || pair_mentions.any(v))
        .filter_map(move |(n, v)| {
            Some((
                n.scalar()?.to_string(),
                v.scalar()?.to_string(),
                scalar_span(text, v),
            ))
        });
    entries
        .iter()
        .filter(move |e| mentions.any(e))
        .filter_map(move |e| setting_of(e, text))
        .chain(pairs)
}

/// Whether a key of an entry's path or its scalar value holds one of
/// `words` (lowercase), ignoring ASCII case. The entries of a tree come in
/// document order, so a path mostly starts with the keys of the one asked
/// about before it: those are not judged again. An OpenAPI file's
/// `components`, `schemas`, `properties` head tens of thousands of paths.
pub(super) struct Mentions<'w> {
    words: &'w [&'w str],
    /// The keys of the last path asked about, by position, with their
    /// judgement. Holding a key keeps its address its own, so the same
    /// address is the same key.
    last: std::cell::RefCell<Vec<Option<(Key, bool)>>>,
}

impl<'w> Mentions<'w> {
    pub(super) fn new(words: &'w [&'w str]) -> Self {
        Mentions {
            words,
            last: Default::default(),
        }
    }

    pub(super) fn any(&self, e: &ConfEntry) -> bool {
        if e.scalar().is_some_and(|s| self.holds(s)) {
            return true;
        }
        let mut last = self.last.borrow_mut();
        for (i, seg) in e.path.iter().enumerate() {
            let PathSeg::Key(k) = seg else { continue };
            let known = last
                .get(i)
                .and_then(Option::as_ref)
                .filter(|(held, _)| held.id() == k.id())
                .map(|(_, holds)| *holds);
            let holds = known.unwrap_or_else(|| {
                let holds = self.holds(k);
                if last.len() <= i {
                    last.resize(i + 1, None);
                }
                last[i] = Some((k.clone(), holds));
                holds
            });
            if holds {
                return true;
            }
        }
        false
    }

    fn holds(&self, s: &str) -> bool {
        self.words
            .iter()
            .any(|w| knowledge::contains_ignore_ascii_case(s, w))
    }
}

/// What a setting that names a Redis host mentions: a `redis://` or
/// `valkey://` URL, or a key that speaks of Redis (see `host_of`).
pub(super) const HOST_WORDS: &[&str] = &["redis", "valkey"];

/// The Redis endpoints the configuration files set, in one pass: those set
/// under a generic name (`REDIS_URL`), and those whose name speaks of
/// idempotency (`IDEMPOTENCY_REDIS_URL`).
fn endpoints(files: &[FileFacts], sources: &SourceMap) -> (Vec<Endpoint>, Vec<Endpoint>) {
    let words = &knowledge::redis().link_words;
    let stores = knowledge::stores();
    let (mut generic, mut speaking) = (Vec::new(), Vec::new());
    for f in files {
        let Some(doc) = &f.conf else { continue };
        let text = sources.files.get(f.file).map(|s| s.text()).unwrap_or("");
        let (g0, s0) = (generic.len(), speaking.len());
        let sections = redis_sections(&doc.entries);
        for (key, value, span) in settings(&doc.entries, text, HOST_WORDS) {
            // The host first: most settings name none, and it is cheaper
            // to see than what the name speaks of.
            let mut hosts = hosts_of(&key, &value);
            if hosts.is_empty() && !sections.is_empty() {
                hosts = section_hosts(&sections, &key, &value);
            }
            if hosts.is_empty() {
                continue;
            }
            let speaks = words.matches(&key) || stores.redis_prefix.matches(&key);
            let out = if speaks { &mut speaking } else { &mut generic };
            for host in hosts {
                out.push(Endpoint {
                    file: f.file,
                    span,
                    key: key.clone(),
                    host,
                    owner: None,
                    names_redis: ["redis://", "rediss://", "redis+sentinel"]
                        .iter()
                        .any(|w| knowledge::contains_ignore_ascii_case(&value, w)),
                });
            }
        }
        if generic.len() > g0 || speaking.len() > s0 {
            let blocks = owner_blocks(&doc.entries, text);
            for ep in generic[g0..].iter_mut().chain(&mut speaking[s0..]) {
                ep.owner = owner_at(&blocks, ep.span);
            }
        }
    }
    (generic, speaking)
}

/// The sections of a config that a sibling says are Redis: `dedupe: {driver:
/// redis, config: {address: …}}`, `cache: {type: redis, host: …}`.
fn redis_sections(entries: &[ConfEntry]) -> Vec<String> {
    entries
        .iter()
        .filter(|e| {
            matches!(
                e.key(),
                Some("driver" | "type" | "backend" | "kind" | "provider" | "adapter")
            ) && e.scalar().is_some_and(|v| {
                let v = v.to_ascii_lowercase();
                v.starts_with("redis") || v.starts_with("valkey")
            })
        })
        .map(|e| e.parent_dotted())
        .filter(|p| !p.is_empty())
        .collect()
}

/// The hosts of a connection setting inside such a section, whose own name
/// does not say Redis (`dedupe.config.address: redis:6379`).
fn section_hosts(sections: &[String], key: &str, value: &str) -> Vec<String> {
    let Some((parent, last)) = key.rsplit_once('.') else {
        return Vec::new();
    };
    let inside = sections.iter().any(|s| {
        parent == s
            || parent
                .strip_prefix(s.as_str())
                .is_some_and(|r| r.starts_with('.'))
    });
    if !inside {
        return Vec::new();
    }
    hosts_of(&format!("redis_{last}"), value)
}

/// Each compose service's and Kubernetes workload's environment block.
fn owner_blocks(entries: &[ConfEntry], text: &str) -> Vec<(Span, Owner)> {
    let mut owners: Vec<(Span, Owner)> = Vec::new();
    let workload = |doc: usize| {
        let kind = entries
            .iter()
            .find(|e| e.doc == doc && e.path.len() == 1 && e.key() == Some("kind"))?;
        let kind = kind.scalar()?;
        if ![
            "Deployment",
            "StatefulSet",
            "DaemonSet",
            "Job",
            "CronJob",
            "Pod",
        ]
        .contains(&kind)
        {
            return None;
        }
        entries
            .iter()
            .find(|e| {
                e.doc == doc
                    && e.path.len() == 2
                    && matches!(&e.path[0], PathSeg::Key(k) if k == "metadata")
                    && e.key() == Some("name")
            })
            .and_then(|e| e.scalar())
            .map(str::to_string)
    };
    for e in entries {
        let env_at = e
            .path
            .iter()
            .position(|p| matches!(p, PathSeg::Key(k) if k == "environment" || k == "env"));
        let Some(at) = env_at else { continue };
        if e.path.len() != at + 1 {
            continue;
        }
        let owner = match (e.path.first(), e.path.get(1)) {
            (Some(PathSeg::Key(s)), Some(PathSeg::Key(svc))) if s == "services" && at == 2 => {
                Some(Owner::Compose(svc.to_string()))
            }
            _ => workload(e.doc).map(Owner::Workload),
        };
        let Some(owner) = owner else { continue };
        // The env block runs from its key to the next entry at its depth or
        // above, which the scalar spans inside it cannot pass.
        let start = e.value_span.start;
        let end = entries
            .iter()
            .filter(|n| {
                n.doc == e.doc && n.value_span.start > start && n.path.len() <= e.path.len()
            })
            .map(|n| n.key_span.map_or(n.value_span.start, |k| k.start))
            .min()
            .unwrap_or(text.len());
        owners.push((Span::new(start, end), owner));
    }
    owners
}

/// The innermost environment block that holds a span: a later document's
/// block starts after an earlier one's, which runs to the end of the file.
fn owner_at(blocks: &[(Span, Owner)], span: Span) -> Option<Owner> {
    blocks
        .iter()
        .filter(|(s, _)| s.start <= span.start && span.end <= s.end)
        .max_by_key(|(s, _)| s.start)
        .map(|(_, o)| o.clone())
}

/// Idempotency code that keeps its keys in a cache type with a Redis
/// backend (`IdempotencyService { cache: Cache }`, `enum Cache { Redis(..) }`).
struct CacheStore {
    /// The idempotency item (`IdempotencyService`).
    owner: String,
    /// The cache type it holds (`Cache`).
    cache: String,
}

fn cache_store(files: &[FileFacts]) -> Option<CacheStore> {
    let code = || {
        files
            .iter()
            .filter(|f| !f.test_path)
            .filter_map(|f| f.code.as_ref())
    };
    let backends: Vec<&(String, String)> =
        code().flat_map(|r| r.cache.redis_backends.iter()).collect();
    // The cache type held, or its Redis implementation held directly.
    code()
        .flat_map(|r| r.cache.store_uses.iter())
        .find_map(|u| {
            u.types.iter().find_map(|t| {
                backends
                    .iter()
                    .find(|(c, b)| c == t || b == t)
                    .map(|_| CacheStore {
                        owner: u.owner.clone(),
                        cache: t.clone(),
                    })
            })
        })
}

/// A setting that selects a cache's backend (`cache_type = "redis"`,
/// `SVIX_CACHE_TYPE=memory`), with the service whose environment sets it.
struct Selection {
    file: FileId,
    key: String,
    redis: bool,
    owner: Option<Owner>,
}

fn cache_selections(files: &[FileFacts], sources: &SourceMap) -> Vec<Selection> {
    let backend = &knowledge::redis().cache_backend;
    let mut out = Vec::new();
    for f in files.iter().filter(|f| !f.test_path) {
        let Some(doc) = &f.conf else { continue };
        let text = sources.files.get(f.file).map(|s| s.text()).unwrap_or("");
        let mut blocks = None;
        // `selects` wants a key with the word `cache`.
        for (key, value, span) in settings(&doc.entries, text, &["cache"]) {
            let Some(redis) = backend.selects(&key, &value) else {
                continue;
            };
            let blocks = blocks.get_or_insert_with(|| owner_blocks(&doc.entries, text));
            out.push(Selection {
                file: f.file,
                key,
                redis,
                owner: owner_at(blocks, span),
            });
        }
    }
    out
}

fn is_test_file(files: &[FileFacts], file: FileId) -> bool {
    files.iter().any(|f| f.file == file && f.test_path)
}

/// Who an environment setting is set for.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Owner {
    Compose(String),
    Workload(String),
}

/// Code that writes store keys to Redis (a Rust write with a store prefix,
/// or a key-prefix literal in another language), by file.
fn key_writers(files: &[FileFacts], sources: &SourceMap) -> Vec<(FileId, Span, String)> {
    let mut out = Vec::new();
    for f in files {
        if f.test_path {
            continue;
        }
        let write = f
            .redis_writes
            .iter()
            .find_map(|w| f.store_prefix(w).map(|p| (f.file, w.span, p.to_string())));
        if let Some(w) = write.or_else(|| key_prefix_literal(std::slice::from_ref(f), sources)) {
            out.push(w);
        }
    }
    out
}

/// The build context of each compose service of a file (`build: ./api`,
/// `build: {context: ./api}`), resolved against the file's directory.
fn build_contexts(files: &[FileFacts], sources: &SourceMap) -> Vec<(FileId, String, String)> {
    let mut out = Vec::new();
    for f in files {
        let Some(doc) = &f.conf else { continue };
        let dir = dir_of(sources.path(f.file));
        for e in &doc.entries {
            let (Some(PathSeg::Key(s)), Some(PathSeg::Key(svc))) = (e.path.first(), e.path.get(1))
            else {
                continue;
            };
            let is_build = match e.path.len() {
                3 => e.key() == Some("build"),
                4 => {
                    matches!(&e.path[2], PathSeg::Key(b) if b == "build")
                        && e.key() == Some("context")
                }
                _ => false,
            };
            if s != "services" || !is_build {
                continue;
            }
            let Some(ctx) = e.scalar() else { continue };
            if ctx.contains("://") || ctx.contains('$') {
                continue;
            }
            out.push((f.file, svc.to_string(), normalise(&format!("{dir}/{ctx}"))));
        }
    }
    out
}

/// The first key writer that runs in the service or workload an endpoint's
/// environment belongs to: code under its compose build context, or under a
/// directory named for the workload.
fn writer_for<'w>(
    ep: &Endpoint,
    writers: &'w [(FileId, Span, String)],
    contexts: &[(FileId, String, String)],
    sources: &SourceMap,
) -> Option<&'w (FileId, Span, String)> {
    let under = |dir: &str, file: FileId| {
        let p = normalise(sources.path(file));
        dir.is_empty() || p.starts_with(&format!("{dir}/"))
    };
    match ep.owner.as_ref()? {
        Owner::Compose(svc) => {
            let (_, _, ctx) = contexts
                .iter()
                .find(|(f, s, _)| *f == ep.file && s == svc)?;
            writers.iter().find(|(f, _, _)| under(ctx, *f))
        }
        Owner::Workload(name) => writers.iter().find(|(f, _, _)| {
            let p = sources.path(*f);
            dir_of(p).split('/').any(|d| d.eq_ignore_ascii_case(name))
        }),
    }
}

/// The (name, value, value span) of a connection setting: a scalar under a
/// key (`.env`, app config; the whole path counts, `idempotency.redis_url`),
/// a compose `environment:` list item `KEY=value`, or a Kubernetes env item
/// `{name: KEY, value: v}` (read from its `value` entry).
fn setting_of(e: &ConfEntry, text: &str) -> Option<(String, String, Span)> {
    let value = e.scalar()?;
    let span = scalar_span(text, e);
    let parent = e.path.len().checked_sub(2).and_then(|i| e.path.get(i));
    match e.path.last()? {
        PathSeg::Index(_) if matches!(parent, Some(PathSeg::Key(k)) if k == "environment") => {
            let (k, v) = value.split_once('=')?;
            let off = k.len() + 1;
            Some((
                k.to_string(),
                v.to_string(),
                Span::new(span.start + off, span.end.max(span.start + off)),
            ))
        }
        PathSeg::Key(k) if k == "value" => None, // read through its `name` sibling below
        PathSeg::Key(k) => {
            // Inside compose `environment:` or Kubernetes `env:` only the
            // variable counts; elsewhere the path (`idempotency.redis.url`).
            let in_env = e
                .path
                .iter()
                .any(|s| matches!(s, PathSeg::Key(x) if x.eq_ignore_ascii_case("environment") || x == "env"));
            let key = if in_env || e.path.len() == 1 {
                k.to_string()
            } else {
                e.dotted()
            };
            if k == "name" && parent.is_some_and(|p| matches!(p, PathSeg::Index(_))) {
                // Kubernetes `- name: KEY` / `value: ...`: the value is a sibling.
                return None;
            }
            Some((key, value.to_string(), span))
        }
        // An application config's node list (`[redis] cluster_urls =
        // ["redis-cluster:6379"]`): read under the list's key. Not in a
        // service or workload, whose lists are commands, ports and mounts.
        PathSeg::Index(_) => {
            let Some(PathSeg::Key(list)) = parent else {
                return None;
            };
            let hosts_list = ["urls", "hosts", "nodes", "addrs", "addresses", "endpoints"]
                .iter()
                .any(|w| list.to_ascii_lowercase().ends_with(w));
            let in_service = e.path.iter().any(|s| {
                matches!(s, PathSeg::Key(x) if matches!(x.as_str(), "services" | "spec" | "containers" | "environment" | "env" | "command" | "args"))
            });
            if !hosts_list || in_service {
                return None;
            }
            let at = e.path.len().checked_sub(1)?;
            Some((
                crate::facts::config::dotted(&e.path[..at]),
                value.to_string(),
                span,
            ))
        }
    }
}

/// A scalar's span without its quotes.
fn scalar_span(text: &str, e: &ConfEntry) -> Span {
    use crate::facts::config::{content_span, ScalarStyle};
    let style = match text.as_bytes().get(e.value_span.start) {
        Some(b'"') => ScalarStyle::DoubleQuoted,
        Some(b'\'') => ScalarStyle::SingleQuoted,
        _ => ScalarStyle::Plain,
    };
    content_span(text, e.value_span, style)
}

/// The hosts a connection value names: one for a URL or `host:port`,
/// several for a Sentinel or Cluster node list
/// (`redis+sentinel://s1:26379,s2:26379/mymaster`, `REDIS_NODES=a:6379,b:6379`).
fn hosts_of(key: &str, value: &str) -> Vec<String> {
    let Some(first) = host_of(key, value) else {
        return Vec::new();
    };
    let v = value.trim();
    let v = v.split_once("://").map_or(v, |(_, r)| r);
    let v = v.rsplit_once('@').map_or(v, |(_, h)| h);
    let list = v.split(['/', '?']).next().unwrap_or(v);
    let mut out = vec![first];
    for part in list.split(',').skip(1) {
        let host: String = part.trim().chars().take_while(|c| *c != ':').collect();
        if !host.is_empty() && !host.contains('$') && !host.contains(char::is_whitespace) {
            out.push(host.to_ascii_lowercase());
        }
    }
    out
}

/// The host a connection value names: `redis://user:pw@host:6379/0`,
/// `host:6379` or `host` under a key that speaks of a host or URL.
fn host_of(key: &str, value: &str) -> Option<String> {
    let mut v = value.trim();
    // `${IDEMPOTENCY_REDIS_URL:-redis://idem-redis:6379}`: the default.
    if let Some((_, default)) = v.strip_prefix("${").and_then(|r| r.split_once(":-")) {
        v = default.strip_suffix('}').unwrap_or(default);
    }
    let rest = if let Some((scheme, rest)) = v.split_once("://") {
        // A URL after a template's placeholder (`{{ if … }}"redis://…"`).
        let scheme = scheme.strip_prefix('_').map_or(scheme, |s| {
            s.trim_start_matches('_').trim_start_matches(['"', '\''])
        });
        if !scheme.to_ascii_lowercase().starts_with("redis")
            && !scheme.eq_ignore_ascii_case("valkey")
        {
            return None;
        }
        rest
    } else {
        let k = key.to_ascii_lowercase();
        if !(k.contains("redis") || k.contains("valkey"))
            || ![
                "host", "url", "addr", "node", "sentinel", "cluster", "endpoint", "server", "dsn",
            ]
            .iter()
            .any(|w| k.contains(w))
        {
            return None;
        }
        v
    };
    let rest = rest.rsplit_once('@').map(|(_, h)| h).unwrap_or(rest);
    let host: String = rest
        .chars()
        .take_while(|c| *c != ':' && *c != '/' && *c != '?' && *c != ',')
        .collect();
    (!host.is_empty() && !host.contains('$')).then(|| host.to_ascii_lowercase())
}

/// Building a model from file texts, for the tests of the model and the rule.
#[cfg(test)]
pub(crate) mod testing {
    use crate::config::Config;
    use crate::facts::FileFacts;
    use crate::frontend;
    use crate::model::ProjectModel;
    use crate::source::{FileKind, SourceFile, SourceMap};
    use std::path::Path;

    pub fn facts(files: &[(&str, &str)]) -> (Vec<FileFacts>, SourceMap) {
        let mut sources = SourceMap::default();
        let mut facts = Vec::new();
        for (id, (path, text)) in files.iter().enumerate() {
            let p = Path::new(path);
            let kind = crate::walk::classify(p).unwrap_or(FileKind::Text);
            let kind = crate::walk::refine_kind(kind, p, text);
            sources.files.push(SourceFile::new(*path, kind, *text));
            facts.push(frontend::parse(id, kind, text));
        }
        (facts, sources)
    }

    pub fn project(files: Vec<FileFacts>, sources: &SourceMap, config: &Config) -> ProjectModel {
        ProjectModel::build(files, sources, config)
    }
}

#[cfg(test)]
mod tests {
    use super::testing::facts;
    use super::*;
    use crate::config::StoreDecl;
    use crate::facts::redis::RedisKeyWrite;
    use crate::store_lines::{store_code_lines, word_lines};

    fn build(files: &[(&str, &str)], config: &Config) -> (RedisModel, SourceMap) {
        let (f, s) = facts(files);
        (RedisModel::build(&f, &s, config), s)
    }

    fn find<'a>(m: &'a RedisModel, name: &str) -> &'a Instance {
        m.instances
            .iter()
            .find(|i| i.name == name)
            .unwrap_or_else(|| panic!("no instance {name}: {:?}", m.instances))
    }

    /// Judging each distinct key once says what judging every path does,
    /// also for keys that recur under many parents, for entries dropped
    /// from the tree while it is cut, and for an entry of another tree.
    #[test]
    fn mentions_judge_each_key_once_and_say_the_same() {
        let plain = |e: &ConfEntry, words: &[&str]| {
            let holds = |s: &str| {
                words
                    .iter()
                    .any(|w| knowledge::contains_ignore_ascii_case(s, w))
            };
            e.scalar().is_some_and(holds)
                || e.path
                    .iter()
                    .any(|seg| matches!(seg, PathSeg::Key(k) if holds(k)))
        };
        let yaml = "services:\n  api:\n    environment:\n      - REDIS_URL=redis://cache:6379\n      - OTHER=1\n  cache:\n    image: Valkey/valkey:8\n\
            paths:\n  /a: {get: {parameters: [{name: x, schema: {type: string}}]}}\n  /b: {get: {parameters: [{name: RedisKey, schema: {type: string}}]}}\n\
            components:\n  schemas:\n    RedisExpiry: {type: object, properties: {ttl: {type: integer}, redisTtl: {type: integer}}}\n    Other: {type: object, properties: {ttl: {type: integer}}}\n";
        let mut f = FileFacts::default();
        crate::frontend::yaml::parse(yaml, &mut f);
        let mut entries = f.conf.expect("a tree").entries;
        assert!(entries.len() > 20);
        for words in [&["redis", "valkey"][..], &["cache"], &["ttl"], &["absent"]] {
            let m = Mentions::new(words);
            let expected: Vec<bool> = entries.iter().map(|e| plain(e, words)).collect();
            assert!(expected.contains(&true) || words == ["absent"]);
            // Twice: the second pass reads remembered keys only.
            for _ in 0..2 {
                let got: Vec<bool> = entries.iter().map(|e| m.any(e)).collect();
                assert_eq!(got, expected, "{words:?}");
            }
        }
        // As in the tree cut: entries dropped while judged.
        let words = ["redis"];
        let m = Mentions::new(&words);
        let dotted = |es: &[ConfEntry]| es.iter().map(ConfEntry::dotted).collect::<Vec<_>>();
        let expected: Vec<ConfEntry> = entries
            .iter()
            .filter(|e| plain(e, &words))
            .cloned()
            .collect();
        entries.retain(|e| m.any(e));
        assert!(!entries.is_empty());
        let mut other = FileFacts::default();
        crate::frontend::yaml::parse("redisHost: x\nport: 1\n", &mut other);
        let other = other.conf.expect("a tree").entries;
        let got: Vec<bool> = other.iter().map(|e| m.any(e)).collect();
        let judged: Vec<bool> = other.iter().map(|e| plain(e, &words)).collect();
        assert!(judged.contains(&true));
        assert_eq!(got, judged);
        assert_eq!(dotted(&entries), dotted(&expected));
    }

    const COMPOSE: &str = "services:\n  cache:\n    image: redis:7\n    command: redis-server --maxmemory-policy allkeys-lru\n  kv:\n    image: redis:7\n    command: redis-server --maxmemory-policy allkeys-lru\n";

    #[test]
    fn store_declaration_in_config_links_the_named_instance() {
        let config = Config {
            store: vec![StoreDecl {
                key_prefix: Some("pay:".into()),
                redis: Some("kv".into()),
                store: true,
                ..Default::default()
            }],
            ..Default::default()
        };
        let (m, _) = build(&[("docker-compose.yml", COMPOSE)], &config);
        assert!(find(&m, "cache").links.is_empty());
        let kv = find(&m, "kv");
        assert_eq!(kv.links.len(), 1);
        assert!(kv.links[0].reason.contains("puts keys `pay:` in `kv`"));
    }

    #[test]
    fn store_false_in_config_unlinks_an_instance_named_like_a_store() {
        let text = COMPOSE.replace("  kv:", "  dedup-cache:");
        let config = Config {
            store: vec![StoreDecl {
                redis: Some("dedup-cache".into()),
                store: false,
                ..Default::default()
            }],
            ..Default::default()
        };
        let (m, _) = build(&[("docker-compose.yml", &text)], &config);
        assert!(find(&m, "dedup-cache").links.is_empty());
        let (m, _) = build(&[("docker-compose.yml", &text)], &Config::default());
        assert_eq!(find(&m, "dedup-cache").links.len(), 1);
    }

    #[test]
    fn hosts_link_by_their_name_label_not_by_role_or_namespace() {
        let m = build(
            &[
                (
                    "deploy/redis/master.conf",
                    "maxmemory-policy allkeys-lru\n",
                ),
                (
                    "k8s.yaml",
                    "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: kv\nspec:\n  template:\n    spec:\n      containers:\n        - name: redis\n          args: [\"--maxmemory-policy\", \"allkeys-lru\"]\n",
                ),
                (
                    ".env",
                    "IDEMPOTENCY_REDIS_HOST=master.payments-idem.abc123.use1.cache.amazonaws.com\nDEDUP_REDIS_URL=redis://kv.payments.svc.cluster.local:6379\n",
                ),
            ],
            &Config::default(),
        )
        .0;
        assert!(find(&m, "redis").links.is_empty());
        assert_eq!(find(&m, "kv").links.len(), 1);
    }

    #[test]
    fn env_url_naming_a_compose_service_links_it_with_the_url_span() {
        let env =
            "IDEMPOTENCY_REDIS_URL=redis://default:pw@kv:6379/0\nCACHE_URL=redis://cache:6379\n";
        let (m, s) = build(
            &[("docker-compose.yml", COMPOSE), (".env", env)],
            &Config::default(),
        );
        assert!(find(&m, "cache").links.is_empty());
        let l = &find(&m, "kv").links[0];
        assert_eq!(s.snippet(l.file, l.span), "redis://default:pw@kv:6379/0");
        assert!(l
            .reason
            .contains("`IDEMPOTENCY_REDIS_URL` points at compose service `kv`"));
    }

    #[test]
    fn kubernetes_env_item_links_a_helm_release_by_its_service_name() {
        let values = "master:\n  extraFlags: [\"--maxmemory-policy allkeys-lru\"]\n";
        let deploy = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: api\nspec:\n  template:\n    spec:\n      containers:\n        - name: api\n          image: acme/api\n          env:\n            - name: DEDUP_REDIS_HOST\n              value: payments-kv-master.payments.svc\n";
        let (m, s) = build(
            &[
                ("deploy/payments-kv/values.yaml", values),
                ("deploy/api.yaml", deploy),
            ],
            &Config::default(),
        );
        let kv = find(&m, "payments-kv");
        assert_eq!(kv.kind, InstanceKind::HelmValues);
        let l = &kv.links[0];
        assert_eq!(s.snippet(l.file, l.span), "payments-kv-master.payments.svc");
    }

    #[test]
    fn many_connection_settings_give_a_few_labels_and_a_count() {
        let env: String = (0..5)
            .map(|i| format!("IDEM_REDIS_URL_{i}=redis://kv:6379/{i}\n"))
            .collect();
        let (m, _) = build(
            &[("docker-compose.yml", COMPOSE), (".env", &env)],
            &Config::default(),
        );
        let kv = find(&m, "kv");
        assert_eq!(kv.links.len(), MAX_ENDPOINT_LABELS);
        assert!(kv.links[2].reason.ends_with("(and 2 more settings)"));
    }

    #[test]
    fn a_setting_whose_name_speaks_of_no_store_links_nothing() {
        let env = "REDIS_URL=redis://kv:6379/0\n";
        let (m, _) = build(
            &[("docker-compose.yml", COMPOSE), (".env", env)],
            &Config::default(),
        );
        assert!(m.instances.iter().all(|i| i.links.is_empty()));
    }

    fn with_write(files: &[(&str, &str)], prefix: &str) -> RedisModel {
        let (mut f, s) = facts(files);
        let last = f.len() - 1;
        f[last].redis_writes.push(RedisKeyWrite {
            span: Span::new(0, 5),
            key_prefix: Some(prefix.to_string()),
            ttl: None,
            nx: true,
        });
        RedisModel::build(&f, &s, &Config::default())
    }

    #[test]
    fn store_key_writes_link_the_only_redis() {
        let compose = "services:\n  kv:\n    image: redis:7\n    command: redis-server --maxmemory-policy allkeys-lru\n";
        let m = with_write(
            &[("docker-compose.yml", compose), ("src/lib.rs", "fn f() {}")],
            "idem:stripe:",
        );
        let kv = find(&m, "kv");
        assert_eq!(kv.links.len(), 1);
        assert!(kv.links[0].reason.contains("`idem:stripe:` keys"));
        let m = with_write(
            &[("docker-compose.yml", compose), ("src/lib.rs", "fn f() {}")],
            "session:",
        );
        assert!(find(&m, "kv").links.is_empty());
    }

    #[test]
    fn a_generic_setting_links_only_when_code_named_for_idempotency_reads_it() {
        let words = &knowledge::redis().link_words;
        assert_eq!(
            store_callee(
                "let s = IdempotencyStore::connect(&env::var(\"REDIS_URL\")?);",
                words
            )
            .as_deref(),
            Some("IdempotencyStore")
        );
        assert_eq!(
            store_callee("const d = new DedupCache(process.env.REDIS_URL);", words).as_deref(),
            Some("DedupCache")
        );
        assert!(store_callee(
            "let c = redis::Client::open(env::var(\"REDIS_URL\")?);",
            words
        )
        .is_none());
        assert!(store_callee("// IdempotencyStore::connect(REDIS_URL)", words).is_none());
        assert_eq!(
            whole_word("x(MY_REDIS_URL, REDIS_URL)", "REDIS_URL"),
            Some(16)
        );
        assert!(whole_word("REDIS_URLS", "REDIS_URL").is_none());
    }

    /// A file whose text is let go keeps only the lines that call
    /// something named for idempotency; the links made from them are the
    /// ones made from the whole text.
    #[test]
    fn store_code_lines_link_as_the_whole_text() {
        let env = "REDIS_URL=redis://kv:6379/0\nCACHE_URL=redis://cache:6379/0\n";
        let code = "use std::env;\n\
            // IdempotencyStore::connect(&env::var(\"CACHE_URL\")?) in a comment\n\
            pub const POLL_SECS: u64 = 5;\n\
            fn open() { let s = IdempotencyStore::connect(&env::var(\"REDIS_URL\")?); }\n\
            fn other() { let c = redis::Client::open(env::var(\"CACHE_URL\")?); }\n";
        let lines = store_code_lines(code);
        assert_eq!(lines.len(), 1, "{lines:?}");
        assert!(code[lines[0].0..].starts_with("fn open()"));
        assert!(store_code_lines("pub const DAY: u64 = 86_400;\n").is_empty());
        let files = [
            ("docker-compose.yml", COMPOSE),
            (".env", env),
            ("src/consts.rs", code),
        ];
        let (f, s) = facts(&files);
        let whole = RedisModel::build(&f, &s, &Config::default());
        let (mut f, mut s) = facts(&files);
        s.files[2] = crate::source::SourceFile::new("src/consts.rs", FileKind::Rust, "");
        f[2].store_code_lines = Some(lines);
        let let_go = RedisModel::build(&f, &s, &Config::default());
        assert!(!find(&whole, "kv").links.is_empty());
        assert_eq!(format!("{whole:?}"), format!("{let_go:?}"));
    }

    /// Only the lines holding a link word are split into identifiers: the
    /// kept lines are those a scan of every line keeps, on texts with the
    /// words in any case, on the first and last line, with and without a
    /// final newline, and on CRLF lines.
    #[test]
    fn store_code_lines_are_those_every_line_gives() {
        let words = &knowledge::redis().link_words;
        let every = |text: &str| -> Vec<(usize, String)> {
            lines_at(text)
                .filter(|(_, line)| store_callee(line, words).is_some())
                .map(|(start, line)| (start, line.to_string()))
                .collect()
        };
        let lines = [
            "IdempotencyStore::connect(&url)",
            "let s = DEDUP_CACHE.get();",
            "fn f() { ReceiptCache::new(pool) }",
            "let x = idem_keys(1); let y = IdemKeys::new();",
            "// IdempotencyStore::connect(&url)",
            "let replayed = 1;",
            "pub const POLL_SECS: u64 = 5;",
            "let z = other::call(idempotent);",
        ];
        let mut texts = Vec::new();
        for i in 0..lines.len() {
            for j in 0..lines.len() {
                for end in ["", "\n", "\r\n"] {
                    texts.push(format!("{}\n{}{end}", lines[i], lines[j]));
                    texts.push(format!("{}\r\n{}\n{}{end}", lines[j], lines[i], lines[j]));
                }
            }
        }
        for text in &texts {
            assert_eq!(store_code_lines(text), every(text), "{text:?}");
        }
        assert_eq!(
            word_lines("a\nIDEM b idem\nc\nx Receipt"),
            Some(vec![2, 16])
        );
    }

    /// Each file's lines are tried only against the settings it holds
    /// (one search a key and file): a file holding none links nothing, one
    /// holding the second setting links its instance, and a line holding
    /// both takes the first, as a search a key and line did.
    #[test]
    fn each_file_is_tried_against_the_settings_it_holds() {
        let env = "REDIS_URL=redis://kv:6379/0\nCACHE_URL=redis://cache:6379/0\n";
        let neither = "fn f() { let s = IdempotencyStore::connect(&url); }\n";
        let second = "fn g() { let s = IdempotencyStore::connect(&env::var(\"CACHE_URL\")?); }\n";
        let both =
            "fn h() { DedupStore::new(env::var(\"CACHE_URL\")?, env::var(\"REDIS_URL\")?) }\n";
        let linked = |code: &[(&str, &str)]| {
            let mut files = vec![("docker-compose.yml", COMPOSE), (".env", env)];
            files.extend_from_slice(code);
            let (f, s) = facts(&files);
            let m = RedisModel::build(&f, &s, &Config::default());
            ["kv", "cache"].map(|i| !find(&m, i).links.is_empty())
        };
        assert_eq!(linked(&[("src/a.rs", neither)]), [false, false]);
        assert_eq!(
            linked(&[("src/a.rs", neither), ("src/b.rs", second)]),
            [false, true]
        );
        assert_eq!(linked(&[("src/c.rs", both)]), [true, false]);
    }

    #[test]
    fn key_prefix_literals_in_other_languages_link_the_only_redis() {
        let compose = "services:\n  kv:\n    image: redis:7\n    command: redis-server --maxmemory-policy allkeys-lru\n";
        for (code, linked) in [
            ("const k = `webhookdedupe:${id}`;\n", true),
            ("key = \"idempotency:%s\" % key\n", true),
            ("log(\"dedup: skipped\");\n", false),
            ("fetch(\"https://idempotency.example/\");\n", false),
            ("const k = `session:${id}`;\n", false),
        ] {
            let (f, s) = facts(&[("docker-compose.yml", compose), ("src/app.ts", code)]);
            let m = RedisModel::build(&f, &s, &Config::default());
            assert_eq!(!find(&m, "kv").links.is_empty(), linked, "{code}");
        }
    }

    #[test]
    fn store_key_writes_do_not_pick_one_of_two_redis() {
        let m = with_write(
            &[("docker-compose.yml", COMPOSE), ("src/lib.rs", "fn f() {}")],
            "idem:",
        );
        assert!(m.instances.iter().all(|i| i.links.is_empty()));
    }

    #[test]
    fn parameter_group_in_another_file_gives_its_policy_to_the_cluster() {
        let groups = "resource \"aws_elasticache_parameter_group\" \"main\" {\n  name = \"main-redis7\"\n  parameter {\n    name  = \"maxmemory-policy\"\n    value = \"allkeys-lru\"\n  }\n}\n";
        let clusters = "resource \"aws_elasticache_replication_group\" \"idempotency\" {\n  parameter_group_name = aws_elasticache_parameter_group.main.name\n}\nresource \"aws_elasticache_replication_group\" \"dedup\" {\n  parameter_group_name = \"main-redis7\"\n}\nresource \"aws_elasticache_replication_group\" \"replay\" {\n  parameter_group_name = \"default.redis7\"\n}\nresource \"aws_elasticache_replication_group\" \"receipts\" {\n  parameter_group_name = \"shared-redis7\"\n}\n";
        let (m, s) = build(
            &[
                ("infra/groups.tf", groups),
                ("infra/elasticache.tf", clusters),
            ],
            &Config::default(),
        );
        for name in ["idempotency", "dedup"] {
            let i = find(&m, name);
            let e = i.effective().unwrap();
            assert_eq!(s.snippet(e.file, e.span), "allkeys-lru");
            assert_eq!(s.path(e.file), "infra/groups.tf");
        }
        // The group is used, so it is not an instance of its own.
        assert!(m.instances.iter().all(|i| i.name != "main"));
        let replay = find(&m, "replay");
        assert!(replay.settings.is_empty() && !replay.opaque_group);
        let receipts = find(&m, "receipts");
        assert!(receipts.settings.is_empty() && receipts.opaque_group);
    }

    #[test]
    fn a_group_reference_stays_inside_its_terraform_module() {
        let group = |policy: &str| {
            format!("resource \"aws_elasticache_parameter_group\" \"this\" {{\n  parameter {{\n    name  = \"maxmemory-policy\"\n    value = \"{policy}\"\n  }}\n}}\n")
        };
        let cluster = |name: &str| {
            format!("resource \"aws_elasticache_replication_group\" \"{name}\" {{\n  parameter_group_name = aws_elasticache_parameter_group.this.name\n}}\n")
        };
        let (m, _) = build(
            &[
                ("modules/cache/groups.tf", &group("allkeys-lru")),
                ("modules/cache/main.tf", &cluster("cache")),
                ("modules/idem/groups.tf", &group("noeviction")),
                ("modules/idem/main.tf", &cluster("idempotency")),
            ],
            &Config::default(),
        );
        assert_eq!(find(&m, "cache").effective().unwrap().value, "allkeys-lru");
        assert_eq!(
            find(&m, "idempotency").effective().unwrap().value,
            "noeviction"
        );
    }

    #[test]
    fn conf_file_mounted_into_a_compose_service_is_its_config() {
        let compose = "services:\n  guard:\n    image: redis:7\n    volumes:\n      - ./conf/guard.conf:/usr/local/etc/redis/redis.conf\n";
        let conf = "maxmemory-policy allkeys-lru\n";
        let (m, _) = build(
            &[
                ("ops/docker-compose.yml", compose),
                ("ops/conf/guard.conf", conf),
            ],
            &Config::default(),
        );
        assert_eq!(m.instances.len(), 1);
        let g = find(&m, "guard");
        assert_eq!(g.settings[0].value, "allkeys-lru");
        assert!(g
            .via
            .as_ref()
            .unwrap()
            .2
            .contains("`guard.conf` is mounted"));
    }

    #[test]
    fn relative_include_is_followed_in_place_and_absolute_is_not() {
        let main = "include base.conf\nmaxmemory 1gb\n";
        let later = "maxmemory-policy noeviction\ninclude ./base.conf\n";
        let base = "maxmemory-policy allkeys-lru\n";
        let (m, s) = build(
            &[
                ("redis/idem.conf", main),
                ("redis/base.conf", base),
                ("redis/replay.conf", later),
            ],
            &Config::default(),
        );
        assert_eq!(m.instances.len(), 2);
        let e = find(&m, "idem").effective().unwrap();
        assert_eq!(s.path(e.file), "redis/base.conf");
        // Included after its own line, so the included policy wins.
        assert_eq!(find(&m, "replay").effective().unwrap().value, "allkeys-lru");
        let abs = "include /etc/redis/base.conf\nappendonly yes\n";
        let (m, _) = build(
            &[("redis/idem.conf", abs), ("redis/base.conf", base)],
            &Config::default(),
        );
        assert!(find(&m, "idem").settings.is_empty());
    }

    #[test]
    fn config_set_in_code_that_writes_store_keys_is_linked() {
        let code = "fn f() { redis::cmd(\"CONFIG\").arg(\"SET\").arg(\"maxmemory-policy\").arg(\"allkeys-lru\"); }";
        let compose = COMPOSE;
        let m = with_write(
            &[("docker-compose.yml", compose), ("src/boot.rs", code)],
            "idem:",
        );
        let c = find(&m, "boot.rs");
        assert!(c.links[0].reason.contains("same code writes `idem:`"));
    }

    #[test]
    fn compose_environment_list_items_link_by_url() {
        let text = format!(
            "{COMPOSE}  api:\n    image: acme/api\n    environment:\n      - IDEMPOTENCY_REDIS_URL=redis://cache:6379\n"
        );
        let (m, s) = build(&[("docker-compose.yml", &text)], &Config::default());
        let l = &find(&m, "cache").links[0];
        assert_eq!(s.snippet(l.file, l.span), "redis://cache:6379");
        assert!(find(&m, "kv").links.is_empty());
    }

    #[test]
    fn a_conf_in_a_mounted_directory_configures_every_service_that_mounts_it() {
        let compose = "services:\n  primary:\n    image: redis:7\n    volumes: [\"./conf:/usr/local/etc/redis\"]\n  replica:\n    image: redis:7\n    volumes: [\"./conf:/usr/local/etc/redis\"]\n";
        let conf = "maxmemory-policy allkeys-lru\n";
        let (m, _) = build(
            &[("docker-compose.yml", compose), ("conf/redis.conf", conf)],
            &Config::default(),
        );
        assert_eq!(m.instances.len(), 2);
        for name in ["primary", "replica"] {
            assert_eq!(find(&m, name).settings.len(), 1);
        }
    }

    #[test]
    fn command_line_wins_over_the_config_file() {
        let values = "commonConfiguration: |-\n  maxmemory-policy noeviction\nmaster:\n  extraFlags:\n    - --maxmemory-policy volatile-lru\n";
        let (m, _) = build(&[("idem/values.yaml", values)], &Config::default());
        assert_eq!(find(&m, "idem").effective().unwrap().value, "volatile-lru");
    }

    #[test]
    fn config_set_in_code_applies_to_the_only_declared_redis() {
        let compose = "services:\n  idem:\n    image: redis:7\n    command: redis-server --maxmemory-policy noeviction\n";
        let code = "fn f() { redis::cmd(\"CONFIG\").arg(\"SET\").arg(\"maxmemory-policy\").arg(\"allkeys-lru\"); }";
        let (m, _) = build(
            &[("docker-compose.yml", compose), ("src/setup.rs", code)],
            &Config::default(),
        );
        assert_eq!(m.instances.len(), 1);
        assert_eq!(find(&m, "idem").effective().unwrap().value, "allkeys-lru");
    }

    #[test]
    fn hosts_from_urls_and_host_settings() {
        assert_eq!(
            host_of("X", "rediss://user:p@ss@idem.cache:6380/2?tls=1").as_deref(),
            Some("idem.cache")
        );
        assert_eq!(
            host_of("IDEM_REDIS_HOST", "idem-redis:6379").as_deref(),
            Some("idem-redis")
        );
        assert_eq!(host_of("IDEM_TTL", "86400"), None);
        assert_eq!(host_of("X", "postgres://db/idem"), None);
        assert_eq!(host_of("X", "redis://${REDIS_HOST}:6379"), None);
        assert_eq!(
            host_of("X", "${IDEM_URL:-redis://idem-redis:6379/0}").as_deref(),
            Some("idem-redis")
        );
    }

    #[test]
    fn release_names_come_from_the_path() {
        assert_eq!(
            names_from_path("deploy/idem-redis/values.yaml").0,
            "idem-redis"
        );
        assert_eq!(names_from_path("deploy/values-idem.yaml").0, "values-idem");
        assert_eq!(names_from_path("redis/dedup.conf").0, "dedup");
        assert_eq!(normalise("a/./b/../c"), "a/c");
    }

    #[test]
    fn a_generic_setting_of_the_service_whose_code_writes_keys_links_its_redis() {
        let compose = "services:\n  api:\n    build: ./api\n    environment:\n      - REDIS_ADDR=cache:6379\n  web:\n    build:\n      context: ./web\n    environment:\n      REDIS_URL: redis://kv:6379\n  cache:\n    image: redis:7\n    command: redis-server --maxmemory-policy allkeys-lru\n  kv:\n    image: redis:7\n    command: redis-server --maxmemory-policy allkeys-lru\n";
        let code = "k := fmt.Sprintf(\"idem:%s\", key)\n";
        let (m, s) = build(
            &[
                ("docker-compose.yml", compose),
                ("api/claim.go", code),
                ("web/app.ts", "x()\n"),
            ],
            &Config::default(),
        );
        let l = &find(&m, "cache").links[0];
        assert_eq!(s.snippet(l.file, l.span), "cache:6379");
        assert!(l.reason.contains("compose service `api`"), "{}", l.reason);
        assert!(find(&m, "kv").links.is_empty());
        // The same code in the web service's context links `kv` instead.
        let (m, _) = build(
            &[("docker-compose.yml", compose), ("web/claim.go", code)],
            &Config::default(),
        );
        assert!(find(&m, "cache").links.is_empty());
        assert_eq!(find(&m, "kv").links.len(), 1);
    }

    #[test]
    fn a_service_that_points_at_two_redis_links_neither() {
        let compose = "services:\n  api:\n    build: .\n    environment:\n      REDIS_ADDR: cache:6379\n      SESSION_REDIS_URL: redis://kv:6379\n  cache:\n    image: redis:7\n    command: redis-server --maxmemory-policy allkeys-lru\n  kv:\n    image: redis:7\n    command: redis-server --maxmemory-policy allkeys-lru\n";
        let (m, _) = build(
            &[
                ("docker-compose.yml", compose),
                ("claim.go", "k := \"idem:%s\"\n"),
            ],
            &Config::default(),
        );
        assert!(m.instances.iter().all(|i| i.links.is_empty()));
    }

    #[test]
    fn umbrella_subcharts_answer_to_release_prefixed_service_names_and_overrides() {
        let values = "keystore:\n  master:\n    extraFlags: [\"--maxmemory-policy allkeys-lru\"]\nsessions:\n  fullnameOverride: web-sessions\n  master:\n    extraFlags: [\"--maxmemory-policy allkeys-lru\"]\n";
        let env = "DEDUP_REDIS_HOST=payments-keystore-master\nIDEM_REDIS_URL=redis://web-sessions-headless:6379\n";
        let (m, _) = build(
            &[("charts/payments/values.yaml", values), (".env", env)],
            &Config::default(),
        );
        assert_eq!(find(&m, "keystore").links.len(), 1);
        assert!(find(&m, "sessions")
            .names
            .contains(&"web-sessions".to_string()));
        assert_eq!(find(&m, "sessions").links.len(), 1);
        let inst = find(&m, "keystore");
        assert!(!points_at(inst, "payments-keystores-master"));
        assert!(!points_at(inst, "keystorex"));
    }

    #[test]
    fn the_client_of_the_crate_that_writes_keys_links_the_redis_its_setting_names() {
        let compose = "services:\n  api:\n    build: .\n  redis:\n    image: redis:7\n    command: [\"redis-server\", \"--maxmemory-policy\", \"noeviction\"]\n  cache:\n    image: redis:7\n    command: redis-server --maxmemory-policy allkeys-lru\n";
        let toml = "[redis]\nurl = \"redis://cache:6379/0\"\n\n[queue]\nredis_url = \"redis://redis:6379/1\"\n";
        let code = "async fn claim(settings: &Settings, id: &str) {\n    let client = redis::Client::open(settings.redis.url.as_str()).unwrap();\n    let mut con = client.get_multiplexed_async_connection().await.unwrap();\n    let _: () = con.set_ex(format!(\"idem:stripe:{id}\"), 1, 3_024_000).await.unwrap();\n}\n";
        let files = [
            ("docker-compose.yml", compose),
            ("config/base.toml", toml),
            ("src/dedup.rs", code),
        ];
        let (m, _) = build(&files, &Config::default());
        let cache = find(&m, "cache");
        assert!(
            cache.links[0]
                .reason
                .contains("builds the Redis client from `settings.redis.url`"),
            "{:?}",
            cache.links
        );
        assert!(cache.links[1]
            .reason
            .starts_with("`redis.url=redis://cache:6379/0` points at"));
        assert!(find(&m, "redis").links.is_empty());
    }

    #[test]
    fn a_host_in_a_section_whose_driver_is_redis_points_at_the_instance() {
        let compose = "services:\n  redis:\n    image: redis:7\n    command: [\"redis-server\", \"--maxmemory-policy\", \"allkeys-lru\"]\n";
        let config = "ingest:\n  dedupe:\n    enabled: true\n    driver: redis\n    config:\n      address: redis:6379\n      expiration: 768h\n";
        let (m, _) = build(
            &[("docker-compose.yml", compose), ("config.yaml", config)],
            &Config::default(),
        );
        let r = find(&m, "redis");
        assert_eq!(r.links.len(), 1, "{:?}", r.links);
        assert!(r.links[0]
            .reason
            .contains("`ingest.dedupe.config.address` points at"));
        let plain = "cache:\n  driver: memory\n  config:\n    address: redis:6379\n";
        let (m, _) = build(
            &[("docker-compose.yml", compose), ("config.yaml", plain)],
            &Config::default(),
        );
        assert!(find(&m, "redis").links.is_empty());
    }

    #[test]
    fn node_lists_and_sentinel_urls_name_every_host() {
        assert_eq!(
            hosts_of(
                "X",
                "redis+sentinel://:pw@s1:26379,s2:26379,s3:26379/mymaster"
            ),
            vec!["s1", "s2", "s3"]
        );
        assert_eq!(
            hosts_of("IDEM_REDIS_NODES", "idem-0:6379,idem-1:6379"),
            vec!["idem-0", "idem-1"]
        );
        assert!(hosts_of("IDEM_NODES", "a:1,b:2").is_empty());
    }

    #[test]
    fn a_setting_named_for_the_store_beside_a_generic_one_keeps_the_generic_one_unlinked() {
        let compose = "services:\n  api:\n    build: .\n    environment:\n      IDEMPOTENCY_REDIS_URL: redis://kv:6379\n      SESSION_REDIS_URL: redis://cache:6379\n  cache:\n    image: redis:7\n    command: redis-server --maxmemory-policy allkeys-lru\n  kv:\n    image: redis:7\n    command: redis-server --maxmemory-policy allkeys-lru\n";
        let (m, _) = build(
            &[
                ("docker-compose.yml", compose),
                ("claim.go", "k := \"idem:%s\"\n"),
            ],
            &Config::default(),
        );
        assert!(find(&m, "cache").links.is_empty());
        assert_eq!(find(&m, "kv").links.len(), 1);
    }
}
