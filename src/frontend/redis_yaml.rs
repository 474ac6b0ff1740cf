//! Redis facts from YAML and JSON trees: docker-compose services, Kubernetes
//! workloads and ConfigMaps, Helm values (`extraFlags`, `args`,
//! `commonConfiguration`), and CloudFormation ElastiCache resources. Reads the
//! flattened tree the YAML front end built; redis.conf text inside a value is
//! read with the redis.conf tokenizer and its spans mapped back into the file.

use super::redis_conf;
use crate::facts::config::{content_span, ConfEntry, ConfValue, PathSeg, ScalarStyle};
use crate::facts::redis::{
    GroupRef, InstanceDecl, InstanceKind, PolicySetting, Provider, RedisFacts, Surface,
};
use crate::facts::FileFacts;
use crate::source::Span;
use std::collections::HashMap;

const FLAG: &str = "--maxmemory-policy";
const DIRECTIVE: &str = "maxmemory-policy";

/// Kubernetes kinds that run containers.
const WORKLOAD_KINDS: &[&str] = &[
    "Deployment",
    "StatefulSet",
    "DaemonSet",
    "ReplicaSet",
    "Pod",
    "Job",
    "CronJob",
];

/// CloudFormation types of Redis clusters that take a parameter group.
const CFN_CLUSTERS: &[&str] = &[
    "AWS::ElastiCache::ReplicationGroup",
    "AWS::ElastiCache::CacheCluster",
];
const CFN_GROUP: &str = "AWS::ElastiCache::ParameterGroup";

/// What a YAML document is, which decides who owns its settings.
enum Flavor {
    Compose,
    Kubernetes {
        kind: String,
    },
    CloudFormation,
    /// Helm values or an app config: the file is one release.
    Values,
}

pub fn extract(text: &str, facts: &mut FileFacts) {
    if !may_hold_redis(text) {
        return;
    }
    let Some(doc) = facts.conf.take() else {
        return;
    };
    // Entries come in document order: one pass over each document.
    for chunk in doc.entries.chunk_by(|a, b| a.doc == b.doc) {
        let entries: Vec<&ConfEntry> = chunk.iter().collect();
        extract_doc(text, &entries, &mut facts.redis);
    }
    facts.conf = Some(doc);
    set_aside_holes(&facts.holes, &mut facts.redis);
}

/// A Helm template's `name: {{ include "x.fullname" . }}` names nothing
/// here (the instance is named by its chart's path instead), and
/// `--maxmemory-policy {{ .Values.policy }}` sets a policy computed
/// elsewhere, not the placeholder's text.
fn set_aside_holes(holes: &[Span], redis: &mut RedisFacts) {
    if holes.is_empty() {
        return;
    }
    let in_hole = |s: Span| {
        let i = holes.partition_point(|h| h.end <= s.start);
        holes
            .get(i)
            .is_some_and(|h| h.start < s.end.max(s.start + 1))
    };
    for st in &mut redis.settings {
        if in_hole(st.span) {
            st.value = "computed".to_string();
        }
    }
    for inst in &mut redis.instances {
        if !inst.name.is_empty() && in_hole(inst.span) {
            inst.name.clear();
        }
    }
}

fn key_is(seg: Option<&PathSeg>, k: &str) -> bool {
    matches!(seg, Some(PathSeg::Key(x)) if x == k)
}

fn top_scalar<'a>(entries: &[&'a ConfEntry], key: &str) -> Option<&'a ConfEntry> {
    entries
        .iter()
        .find(|e| e.path.len() == 1 && key_is(e.path.first(), key) && e.scalar().is_some())
        .copied()
}

fn flavor(entries: &[&ConfEntry]) -> Flavor {
    let has_top_map = |k: &str| {
        entries
            .iter()
            .any(|e| e.path.len() == 1 && key_is(e.path.first(), k) && e.value == ConfValue::Map)
    };
    if top_scalar(entries, "AWSTemplateFormatVersion").is_some()
        || entries.iter().any(|e| {
            e.path.len() == 3
                && key_is(e.path.first(), "Resources")
                && key_is(e.path.get(2), "Type")
                && e.scalar().is_some_and(|t| t.starts_with("AWS::"))
        })
    {
        return Flavor::CloudFormation;
    }
    if let (Some(_), Some(kind)) = (
        top_scalar(entries, "apiVersion"),
        top_scalar(entries, "kind"),
    ) {
        return Flavor::Kubernetes {
            kind: kind.scalar().unwrap_or("").to_string(),
        };
    }
    if has_top_map("services") {
        return Flavor::Compose;
    }
    Flavor::Values
}

fn extract_doc(text: &str, entries: &[&ConfEntry], redis: &mut RedisFacts) {
    match flavor(entries) {
        Flavor::Compose => compose(text, entries, redis),
        Flavor::Kubernetes { kind } => kubernetes(text, entries, &kind, redis),
        Flavor::CloudFormation => cloudformation(text, entries, redis),
        Flavor::Values => values(text, entries, redis),
    }
}

/// Whether `text` holds a word without which nothing here is found: an
/// instance is a Redis image or command, an ElastiCache resource, or a
/// `maxmemory-policy` setting. Most JSON and YAML files (OpenAPI specs,
/// Postman collections, translations) hold none and skip the extraction.
fn may_hold_redis(text: &str) -> bool {
    use std::sync::OnceLock;
    static WORDS: OnceLock<Option<aho_corasick::AhoCorasick>> = OnceLock::new();
    let words = WORDS.get_or_init(|| {
        aho_corasick::AhoCorasick::builder()
            .ascii_case_insensitive(true)
            .build(["redis", "valkey", "keydb", "maxmemory", "elasticache"])
            .ok()
    });
    words.as_ref().is_none_or(|w| w.is_match(text))
}

fn mentions_redis(s: &str) -> bool {
    let l = s.to_ascii_lowercase();
    l.contains("redis") || l.contains("valkey") || l.contains("keydb")
}

fn compose(text: &str, entries: &[&ConfEntry], redis: &mut RedisFacts) {
    let services: Vec<(&str, Span)> = entries
        .iter()
        .filter(|e| e.path.len() == 2 && key_is(e.path.first(), "services"))
        .filter_map(|e| match (&e.path[1], e.key_span) {
            (PathSeg::Key(name), Some(span)) => Some((name.as_str(), span)),
            _ => None,
        })
        .collect();
    for (name, span) in services {
        let own: Vec<&ConfEntry> = entries
            .iter()
            .filter(|e| e.path.len() > 2 && key_is(e.path.get(1), name))
            .copied()
            .collect();
        let field = |k: &str| {
            own.iter()
                .find(|e| e.path.len() == 3 && key_is(e.path.get(2), k))
                .and_then(|e| e.scalar())
        };
        let is_redis = field("image").is_some_and(mentions_redis)
            || own.iter().any(|e| {
                key_is(e.path.get(2), "command") && e.scalar().is_some_and(mentions_redis)
            });
        let before = redis.settings.len();
        let idx = redis.instances.len();
        // `<<: *redis-defaults`: the service merges an anchored mapping, whose
        // command counts unless the service writes its own.
        let own_command = own.iter().any(|e| {
            ["command", "entrypoint", "environment"]
                .iter()
                .any(|k| key_is(e.path.get(2), k))
        });
        if !own_command {
            let merged: Vec<&ConfEntry> = own
                .iter()
                .filter(|e| key_is(e.path.get(2), "<<") && e.value == ConfValue::Alias)
                .flat_map(|a| anchored(text, entries, a))
                .collect();
            scan_settings(text, &merged, Some(idx), Surface::CommandLine, redis);
        }
        scan_settings(text, &own, Some(idx), Surface::CommandLine, redis);
        if !is_redis && redis.settings.len() == before {
            continue;
        }
        let mut inst = InstanceDecl::new(InstanceKind::ComposeService, name, span);
        inst.aliases.extend(
            ["hostname", "container_name"]
                .iter()
                .filter_map(|k| field(k).map(str::to_string)),
        );
        for e in own.iter().filter(|e| key_is(e.path.get(2), "volumes")) {
            let Some(v) = e.scalar() else { continue };
            let short = e.path.len() == 4;
            let long_source = e.path.len() == 5 && key_is(e.path.get(4), "source");
            if short {
                if let Some((src, _)) = v.split_once(':') {
                    inst.mounts.push(src.to_string());
                }
            } else if long_source {
                inst.mounts.push(v.to_string());
            }
        }
        redis.instances.push(inst);
    }
}

/// The entries under the mapping that `alias` (`*name`) refers to: the
/// mapping whose key is followed by `&name` in the text. Aliases are never
/// expanded by the tree builder (no alias bombs); this reads one level.
fn anchored<'a>(text: &str, entries: &[&'a ConfEntry], alias: &ConfEntry) -> Vec<&'a ConfEntry> {
    let raw = text
        .get(alias.value_span.start..alias.value_span.end)
        .unwrap_or("");
    let Some(name) = raw.trim().strip_prefix('*') else {
        return Vec::new();
    };
    let name_char = |c: char| c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.';
    let name = &name[..name.find(|c| !name_char(c)).unwrap_or(name.len())];
    if name.is_empty() {
        return Vec::new();
    }
    let root = entries.iter().find(|e| {
        e.value == ConfValue::Map
            && e.key_span.is_some_and(|k| {
                let after = text.get(k.end..).unwrap_or("");
                let after = after.trim_start_matches(['"', '\'']).trim_start();
                after
                    .strip_prefix(':')
                    .map(str::trim_start)
                    .and_then(|r| r.strip_prefix('&'))
                    .and_then(|r| r.strip_prefix(name))
                    .is_some_and(|r| !r.starts_with(name_char))
            })
    });
    let Some(root) = root else {
        return Vec::new();
    };
    entries
        .iter()
        .filter(|e| {
            e.doc == root.doc && e.path.len() > root.path.len() && e.path.starts_with(&root.path)
        })
        .copied()
        .collect()
}

fn kubernetes(text: &str, entries: &[&ConfEntry], kind: &str, redis: &mut RedisFacts) {
    let name = entries.iter().find(|e| {
        e.path.len() == 2 && key_is(e.path.first(), "metadata") && key_is(e.path.get(1), "name")
    });
    let (name, span) = match name {
        Some(e) => (
            e.scalar().unwrap_or("").to_string(),
            content_span(text, e.value_span, style(e)),
        ),
        None => (String::new(), Span::new(0, 0)),
    };
    let inst_kind = match kind {
        "ConfigMap" => InstanceKind::ConfigMap,
        "HelmRelease" => InstanceKind::HelmValues,
        k if WORKLOAD_KINDS.contains(&k) => InstanceKind::Workload,
        _ => return,
    };
    let is_redis = inst_kind == InstanceKind::Workload
        && entries
            .iter()
            .any(|e| e.key() == Some("image") && e.scalar().is_some_and(mentions_redis));
    let before = redis.settings.len();
    let idx = redis.instances.len();
    scan_settings(text, entries, Some(idx), Surface::CommandLine, redis);
    if is_redis || redis.settings.len() > before {
        redis
            .instances
            .push(InstanceDecl::new(inst_kind, name, span));
    }
}

/// Top-level keys of the Redis charts' own values (Bitnami redis/valkey,
/// redis-ha, dandydeveloper): settings under them belong to the release the
/// file configures. Any other top-level key is a subchart alias in an
/// umbrella chart (`idempotency-redis:`, `sessions:`), one release each.
const CHART_KEYS: &[&str] = &[
    "global",
    "master",
    "replica",
    "primary",
    "sentinel",
    "cluster",
    "commonConfiguration",
    "configuration",
    "extraFlags",
    "args",
    "command",
    "config",
    "redis",
    "valkey",
    "haproxy",
];

/// Who owns settings in a values file: a name (empty for the file itself)
/// and where it is declared.
type Owner = (String, Option<Span>);

fn values(text: &str, entries: &[&ConfEntry], redis: &mut RedisFacts) {
    // The release names and top-level keys, indexed once: looking them up
    // per entry made a large values or JSON file quadratic.
    let mut release_names: HashMap<usize, &ConfEntry> = HashMap::new();
    let mut top_keys: HashMap<&str, Option<Span>> = HashMap::new();
    for n in entries {
        match (n.path.len(), n.path.first(), n.path.get(1)) {
            (1, Some(PathSeg::Key(k)), _) => {
                top_keys.entry(k.as_str()).or_insert(n.key_span);
            }
            (3, Some(PathSeg::Key(r)), Some(PathSeg::Index(i)))
                if r == "releases" && key_is(n.path.get(2), "name") =>
            {
                release_names.entry(*i).or_insert(n);
            }
            _ => {}
        }
    }
    // Owner of a path: a helmfile release, a subchart alias, or the file.
    let owner = |e: &ConfEntry| -> Owner {
        match (e.path.first(), e.path.get(1)) {
            (Some(PathSeg::Key(r)), Some(PathSeg::Index(i))) if r == "releases" => {
                let name = release_names.get(i);
                match name.and_then(|n| n.scalar().map(|v| (v, *n))) {
                    Some((v, n)) => (
                        v.to_string(),
                        Some(content_span(text, n.value_span, style(n))),
                    ),
                    None => (String::new(), None),
                }
            }
            (Some(PathSeg::Key(k)), Some(_)) if !CHART_KEYS.contains(&k.as_str()) => {
                (k.to_string(), top_keys.get(k.as_str()).copied().flatten())
            }
            _ => (String::new(), None),
        }
    };
    // Groups in the order their owners first appear.
    let mut groups: Vec<(Owner, Vec<&ConfEntry>)> = Vec::new();
    let mut group_of: HashMap<String, usize> = HashMap::new();
    for e in entries {
        let o = owner(e);
        match group_of.get(&o.0) {
            Some(&g) => groups[g].1.push(e),
            None => {
                group_of.insert(o.0.clone(), groups.len());
                groups.push((o, vec![e]));
            }
        }
    }
    for ((name, span), own) in groups {
        let before = redis.settings.len();
        let idx = redis.instances.len();
        // NOTE: a replica's own policy (`replica.extraFlags`) must not hide
        // the master's: the master evicts and its replicas follow. A
        // replica's evicting policy still counts, since Sentinel promotes a
        // replica to master; its `noeviction` does not make the master safe.
        let (replica, primary): (Vec<&ConfEntry>, Vec<&ConfEntry>) = own.iter().partition(|e| {
            e.path.iter().any(|s| {
                ["replica", "replicas", "slave"]
                    .iter()
                    .any(|r| key_is(Some(s), r))
            })
        });
        scan_settings(text, &primary, Some(idx), Surface::CommandLine, redis);
        let replica_from = redis.settings.len();
        scan_settings(text, &replica, Some(idx), Surface::CommandLine, redis);
        if replica_from > before {
            let catalogue = crate::knowledge::redis();
            let mut i = 0;
            redis.settings.retain(|st| {
                i += 1;
                i <= replica_from
                    || catalogue
                        .policy(&st.value)
                        .is_some_and(|p| p.class != "none")
            });
        }
        if redis.settings.len() == before {
            continue;
        }
        // A file-level release is named from the file's path, in the model.
        let mut inst = InstanceDecl::new(
            InstanceKind::HelmValues,
            name.clone(),
            span.unwrap_or_default(),
        );
        // A file-level release answers to its own overrides; a subchart of
        // an umbrella chart to those under its key (`keystore.fullnameOverride`).
        for k in ["fullnameOverride", "nameOverride"] {
            let set = own.iter().find(|e| {
                e.key() == Some(k)
                    && e.path.len() == if name.is_empty() { 1 } else { 2 }
                    && (name.is_empty() || key_is(e.path.first(), &name))
            });
            let set = if name.is_empty() {
                set.copied().or_else(|| top_scalar(entries, k))
            } else {
                set.copied()
            };
            inst.aliases
                .extend(set.and_then(|e| e.scalar()).map(str::to_string));
        }
        redis.instances.push(inst);
    }
}

fn cloudformation(text: &str, entries: &[&ConfEntry], redis: &mut RedisFacts) {
    let resources: Vec<(&str, Span, &str)> = entries
        .iter()
        .filter(|e| {
            e.path.len() == 3
                && key_is(e.path.first(), "Resources")
                && key_is(e.path.get(2), "Type")
        })
        .filter_map(|e| {
            let PathSeg::Key(id) = &e.path[1] else {
                return None;
            };
            let decl = entries
                .iter()
                .find(|d| d.path.len() == 2 && key_is(d.path.get(1), id))?;
            Some((id.as_str(), decl.key_span?, e.scalar()?))
        })
        .collect();
    for (id, span, ty) in resources {
        let own: Vec<&ConfEntry> = entries
            .iter()
            .filter(|e| e.path.len() > 2 && key_is(e.path.get(1), id))
            .copied()
            .collect();
        let prop = |k: &str| {
            own.iter()
                .find(|e| {
                    e.path.len() == 4
                        && key_is(e.path.get(2), "Properties")
                        && key_is(e.path.get(3), k)
                })
                .copied()
        };
        let mut inst = InstanceDecl::new(InstanceKind::CloudFormation, id, span);
        inst.resource_type = Some(ty.to_string());
        inst.provider = Provider::ElastiCache;
        if ty == CFN_GROUP {
            inst.is_group = true;
            let idx = redis.instances.len();
            scan_settings(text, &own, Some(idx), Surface::CloudFormation, redis);
            if let Some(n) = prop("CacheParameterGroupName").and_then(|e| e.scalar()) {
                inst.aliases.push(n.to_string());
            }
        } else if CFN_CLUSTERS.contains(&ty) {
            let engine = prop("Engine").and_then(|e| e.scalar()).unwrap_or("redis");
            if !mentions_redis(engine) {
                continue;
            }
            inst.group = cfn_group_ref(&own);
            for k in ["ReplicationGroupId", "CacheClusterId"] {
                if let Some(v) = prop(k).and_then(|e| e.scalar()) {
                    inst.aliases.push(v.to_string());
                }
            }
        } else {
            continue;
        }
        redis.instances.push(inst);
    }
}

/// `CacheParameterGroupName: !Ref X`, `{"Ref": "X"}`, or a literal name.
fn cfn_group_ref(own: &[&ConfEntry]) -> Option<GroupRef> {
    let at = |e: &&&ConfEntry| {
        key_is(e.path.get(2), "Properties") && key_is(e.path.get(3), "CacheParameterGroupName")
    };
    for e in own.iter().filter(at) {
        let Some(v) = e.scalar() else { continue };
        if e.path.len() == 4 {
            if e.tag.as_deref().is_some_and(|t| t.ends_with("Ref")) {
                return Some(GroupRef::Resource(v.to_string()));
            }
            if e.tag.is_none() {
                return Some(GroupRef::Name(v.to_string()));
            }
        }
        if e.path.len() == 5 && key_is(e.path.get(4), "Ref") {
            return Some(GroupRef::Resource(v.to_string()));
        }
    }
    None
}

fn style(e: &ConfEntry) -> ScalarStyle {
    match &e.value {
        ConfValue::Scalar { style, .. } => *style,
        _ => ScalarStyle::Plain,
    }
}

/// Every `maxmemory-policy` in `entries`: as a config key, as a
/// `--maxmemory-policy` flag in a command, or as a directive in embedded
/// redis.conf text. `key_surface` is the surface of a plain key (CloudFormation
/// or a values key) and of flags (command line).
fn scan_settings(
    text: &str,
    entries: &[&ConfEntry],
    instance: Option<usize>,
    key_surface: Surface,
    redis: &mut RedisFacts,
) {
    let surface = if key_surface == Surface::CloudFormation {
        Surface::CloudFormation
    } else {
        Surface::ConfigKey
    };
    for (i, e) in entries.iter().enumerate() {
        let key = e.key().unwrap_or("").to_ascii_lowercase();
        let policy_key = key == DIRECTIVE || key == "maxmemory_policy";
        let Some(value) = e.scalar() else {
            // `maxmemory-policy: {"Ref": "Policy"}`: set, but not readable here.
            if policy_key {
                redis.settings.push(PolicySetting {
                    value: "computed".to_string(),
                    span: e.key_span.unwrap_or(e.value_span),
                    surface,
                    instance,
                });
            }
            continue;
        };
        if policy_key {
            // A `!Ref`/`!Sub` value is set, but not a literal policy.
            let value = match &e.tag {
                None => value.to_string(),
                Some(t) => format!("{t} {value}"),
            };
            redis.settings.push(PolicySetting {
                value,
                span: content_span(text, e.value_span, style(e)),
                surface,
                instance,
            });
            continue;
        }
        let lower = value.to_ascii_lowercase();
        if lower.contains(FLAG) {
            flags(text, entries, i, instance, redis);
        } else if lower.contains(DIRECTIVE) {
            embedded(text, e, instance, redis);
        }
    }
}

/// Whitespace-separated words of `s` with their byte offsets, quote
/// characters around them stripped (`sh -c 'redis-server --maxmemory-policy x'`).
fn words(s: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in s.char_indices().chain(std::iter::once((s.len(), ' '))) {
        match (c.is_whitespace(), start) {
            (true, Some(st)) => {
                let w = &s[st..i];
                let trimmed = w.trim_start_matches(['"', '\'']);
                let off = st + (w.len() - trimmed.len());
                let trimmed = trimmed.trim_end_matches(['"', '\'', ';']);
                if !trimmed.is_empty() {
                    out.push((off, trimmed));
                }
                start = None;
            }
            (false, None) => start = Some(i),
            _ => {}
        }
    }
    out
}

/// `--maxmemory-policy X` in the scalar `entries[i]`, with X in the same
/// scalar or, in an argv list, in the next element.
fn flags(
    text: &str,
    entries: &[&ConfEntry],
    i: usize,
    instance: Option<usize>,
    redis: &mut RedisFacts,
) {
    let e = entries[i];
    let Some(value) = e.scalar() else { return };
    let ws = words(value);
    for (n, (_, w)) in ws.iter().enumerate() {
        if !w.eq_ignore_ascii_case(FLAG) {
            continue;
        }
        let found = match ws.get(n + 1) {
            Some(&(off, v)) => Some((e, off, v)),
            None => next_element(entries, e).and_then(|next| {
                let v = next.scalar()?;
                let &(off, w) = words(v).first()?;
                Some((next, off, w))
            }),
        };
        if let Some((holder, off, v)) = found {
            // `--maxmemory-policy ${REDIS_POLICY:-allkeys-lru}`: compose
            // runs with the default unless the variable is set.
            let (off, v) = match interpolation_default(v) {
                Some((d_off, d)) => (off + d_off, d),
                None => (off, v),
            };
            redis.settings.push(PolicySetting {
                value: v.to_string(),
                span: locate(text, holder, off, v),
                surface: Surface::CommandLine,
                instance,
            });
        }
    }
}

/// The default of a compose/shell interpolation `${VAR:-default}` or
/// `${VAR-default}`, with its offset in `word`.
fn interpolation_default(word: &str) -> Option<(usize, &str)> {
    let inner = word.strip_prefix("${")?.strip_suffix('}')?;
    let sep = inner.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))?;
    let rest = &inner[sep..];
    let skip = if rest.starts_with(":-") {
        2
    } else if rest.starts_with('-') {
        1
    } else {
        return None;
    };
    let default = &rest[skip..];
    (!default.is_empty()).then_some((2 + sep + skip, default))
}

/// The next element of the sequence that holds `e`.
fn next_element<'a>(entries: &[&'a ConfEntry], e: &ConfEntry) -> Option<&'a ConfEntry> {
    let (Some(PathSeg::Index(n)), parent) = (e.path.last(), e.parent()) else {
        return None;
    };
    entries
        .iter()
        .find(|x| {
            x.path.len() == e.path.len()
                && x.parent() == parent
                && x.path.last() == Some(&PathSeg::Index(n + 1))
        })
        .copied()
}

/// The span in the file of `word`, found at byte `off` of the decoded value of `e`.
fn locate(text: &str, e: &ConfEntry, off: usize, word: &str) -> Span {
    let vs = e.value_span;
    let raw = text.get(vs.start..vs.end).unwrap_or("");
    let decoded = e.scalar().unwrap_or("");
    let exact = |base: usize| Span::new(base + off, base + off + word.len());
    match style(e) {
        ScalarStyle::Plain if raw == decoded => return exact(vs.start),
        ScalarStyle::SingleQuoted | ScalarStyle::DoubleQuoted
            if raw.len() >= 2 && raw.get(1..raw.len() - 1) == Some(decoded) =>
        {
            return exact(vs.start + 1)
        }
        ScalarStyle::Literal => {
            // Line and column of `off` in the decoded text, then the same
            // line of the block in the file.
            let line_no = decoded[..off.min(decoded.len())].matches('\n').count();
            let col = off - decoded[..off].rfind('\n').map(|p| p + 1).unwrap_or(0);
            if let Some(&(host, content)) = block_lines(text, vs).get(line_no) {
                if content.get(col..col + word.len()) == Some(word) {
                    return Span::new(host + col, host + col + word.len());
                }
            }
        }
        _ => {}
    }
    // Escapes or folding changed the text: the word after the flag in the raw text.
    let lower = raw.to_ascii_lowercase();
    let after = lower
        .find(DIRECTIVE)
        .map(|p| p + DIRECTIVE.len())
        .unwrap_or(0);
    match raw.get(after..).and_then(|r| r.find(word)) {
        Some(p) => Span::new(vs.start + after + p, vs.start + after + p + word.len()),
        None => vs,
    }
}

/// The content lines of a block scalar whose node span is `node`: (offset in
/// the file of the line's content after the block indentation, that content
/// without its line ending). The parser's span starts at the `|`/`>`
/// indicator or at the first content character, depending on the input;
/// both are handled.
pub fn block_lines(text: &str, node: Span) -> Vec<(usize, &str)> {
    let start = node.start.min(text.len());
    let line_start = text[..start].rfind('\n').map(|p| p + 1).unwrap_or(0);
    let (mut offset, mut indent, parent_indent) =
        if matches!(text.as_bytes().get(start), Some(b'|' | b'>')) {
            let Some(nl) = text[start..].find('\n') else {
                return Vec::new();
            };
            (start + nl + 1, None, indent_of(&text[line_start..]))
        } else if text[line_start..start].bytes().all(|b| b == b' ') && start > line_start {
            let i = start - line_start;
            (line_start, Some(i), i - 1)
        } else {
            return Vec::new();
        };
    let mut out = Vec::new();
    for raw in text[offset..].split_inclusive('\n') {
        let line = raw.trim_end_matches(['\n', '\r']);
        let blank = line.trim().is_empty();
        let here = indent_of(line);
        let block = match indent {
            None if blank => None,
            None if here <= parent_indent => break,
            None => {
                indent = Some(here);
                indent
            }
            Some(i) if !blank && here < i => break,
            Some(i) => Some(i),
        };
        match block.and_then(|i| line.get(i..).map(|c| (i, c))) {
            Some((i, content)) => out.push((offset + i, content)),
            None => out.push((offset + line.len(), "")),
        }
        offset += raw.len();
    }
    // Trailing blank lines belong to the chomping, not the content.
    while out.last().is_some_and(|(_, l)| l.trim().is_empty()) {
        out.pop();
    }
    out
}

fn indent_of(line: &str) -> usize {
    line.len() - line.trim_start_matches(' ').len()
}

/// redis.conf text inside a scalar (`commonConfiguration: |-`, ConfigMap data).
fn embedded(text: &str, e: &ConfEntry, instance: Option<usize>, redis: &mut RedisFacts) {
    let decoded = e.scalar().unwrap_or("");
    let vs = e.value_span;
    let raw = text.get(vs.start..vs.end).unwrap_or("");
    let (directives, _) = match style(e) {
        ScalarStyle::Literal => redis_conf::tokenize_lines(block_lines(text, vs)),
        ScalarStyle::Plain if raw == decoded => redis_conf::tokenize_lines([(vs.start, raw)]),
        ScalarStyle::SingleQuoted | ScalarStyle::DoubleQuoted
            if raw.len() >= 2 && raw.get(1..raw.len() - 1) == Some(decoded) =>
        {
            redis_conf::tokenize_lines([(vs.start + 1, decoded)])
        }
        _ => {
            // Folded or escaped text: read the decoded value, then find each
            // value's text in the file.
            let (mut ds, p) = redis_conf::tokenize(decoded);
            for d in &mut ds {
                for a in &mut d.args {
                    a.span = locate(text, e, a.span.start, &a.value.clone());
                }
            }
            (ds, p)
        }
    };
    redis_conf::collect(&directives, Surface::EmbeddedConf, instance, redis);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts(text: &str) -> FileFacts {
        let mut f = FileFacts::default();
        super::super::yaml::parse(text, &mut f);
        extract(text, &mut f);
        f
    }

    fn values_and_lines(text: &str) -> Vec<(String, usize, String)> {
        let f = facts(text);
        f.redis
            .settings
            .iter()
            .map(|s| {
                (
                    s.value.clone(),
                    text[..s.span.start].matches('\n').count() + 1,
                    text[s.span.start..s.span.end].to_string(),
                )
            })
            .collect()
    }

    #[test]
    fn compose_command_string_span_is_the_value_inside_the_scalar() {
        let text = "services:\n  idem-redis:\n    image: redis:7\n    command: redis-server --maxmemory-policy allkeys-lru --appendonly yes\n";
        assert_eq!(
            values_and_lines(text),
            vec![("allkeys-lru".into(), 4, "allkeys-lru".into())]
        );
        let f = facts(text);
        assert_eq!(f.redis.instances[0].name, "idem-redis");
        assert_eq!(f.redis.settings[0].instance, Some(0));
    }

    #[test]
    fn a_replica_noeviction_does_not_hide_the_master_policy() {
        let text = "architecture: replication\nmaster:\n  extraFlags: [\"--maxmemory-policy\", \"allkeys-lru\"]\nreplica:\n  extraFlags: [\"--maxmemory-policy\", \"noeviction\"]\n";
        let v = values_and_lines(text);
        assert_eq!(
            v,
            vec![("allkeys-lru".to_string(), 3, "allkeys-lru".to_string())]
        );
        let text = "master:\n  configuration: maxmemory-policy noeviction\nreplica:\n  extraFlags: [\"--maxmemory-policy volatile-lru\"]\n";
        let v = values_and_lines(text);
        assert_eq!(v.len(), 2);
        assert_eq!(
            v[1],
            ("volatile-lru".to_string(), 4, "volatile-lru".to_string())
        );
    }

    #[test]
    fn compose_merge_key_brings_the_anchored_command_unless_the_service_has_its_own() {
        let text = "x-r: &r\n  image: redis:7\n  command: redis-server --maxmemory-policy allkeys-lru\nservices:\n  a:\n    <<: *r\n  b:\n    <<: *r\n    command: redis-server --maxmemory-policy noeviction\n";
        let f = facts(text);
        let per_instance: Vec<(String, String)> = f
            .redis
            .settings
            .iter()
            .map(|s| {
                let i = s.instance.unwrap();
                (f.redis.instances[i].name.clone(), s.value.clone())
            })
            .collect();
        assert_eq!(
            per_instance,
            vec![
                ("a".to_string(), "allkeys-lru".to_string()),
                ("b".to_string(), "noeviction".to_string()),
            ]
        );
        assert_eq!(
            &text[f.redis.settings[0].span.start..f.redis.settings[0].span.end],
            "allkeys-lru"
        );
    }

    #[test]
    fn compose_interpolated_policy_reads_its_default() {
        let text = "services:\n  idem-redis:\n    image: redis:7\n    command: redis-server --maxmemory-policy ${REDIS_POLICY:-allkeys-lru}\n  b:\n    image: redis:7\n    command: [\"redis-server\", \"--maxmemory-policy\", \"${POLICY-volatile-lru}\"]\n  c:\n    image: redis:7\n    command: redis-server --maxmemory-policy ${POLICY}\n";
        assert_eq!(
            values_and_lines(text),
            vec![
                ("allkeys-lru".to_string(), 4, "allkeys-lru".to_string()),
                ("volatile-lru".to_string(), 7, "volatile-lru".to_string()),
                ("${POLICY}".to_string(), 10, "${POLICY}".to_string()),
            ]
        );
    }

    #[test]
    fn compose_command_quoted_string_and_list_forms() {
        let text = "services:\n  a:\n    image: redis\n    command: \"redis-server --maxmemory-policy volatile-lru\"\n  b:\n    image: valkey/valkey:8\n    command: [\"valkey-server\", \"--maxmemory-policy\", \"allkeys-lfu\"]\n  c:\n    image: redis\n    command:\n      - redis-server\n      - '--maxmemory-policy volatile-ttl'\n";
        assert_eq!(
            values_and_lines(text),
            vec![
                ("volatile-lru".into(), 4, "volatile-lru".into()),
                ("allkeys-lfu".into(), 7, "allkeys-lfu".into()),
                ("volatile-ttl".into(), 12, "volatile-ttl".into()),
            ]
        );
        let f = facts(text);
        let owners: Vec<_> = f.redis.settings.iter().map(|s| s.instance).collect();
        assert_eq!(owners, vec![Some(0), Some(1), Some(2)]);
    }

    #[test]
    fn bitnami_common_configuration_is_tokenized_with_file_spans() {
        let text = "architecture: standalone\ncommonConfiguration: |-\n  # Enable AOF\n  appendonly yes\n  # maxmemory-policy noeviction\n  maxmemory-policy allkeys-lru\nmaster:\n  extraFlags:\n    - \"--maxmemory-policy volatile-lfu\"\n";
        assert_eq!(
            values_and_lines(text),
            vec![
                ("allkeys-lru".into(), 6, "allkeys-lru".into()),
                ("volatile-lfu".into(), 9, "volatile-lfu".into()),
            ]
        );
        let f = facts(text);
        assert_eq!(f.redis.instances.len(), 1);
        assert_eq!(f.redis.instances[0].kind, InstanceKind::HelmValues);
    }

    #[test]
    fn umbrella_chart_subcharts_and_helmfile_releases_are_separate_instances() {
        let text = "idempotency-redis:\n  master:\n    extraFlags: [\"--maxmemory-policy allkeys-lru\"]\nsessions:\n  master:\n    extraFlags: [\"--maxmemory-policy allkeys-lru\"]\nreleases:\n  - name: dedup\n    chart: bitnami/redis\n    values:\n      - master:\n          configuration: maxmemory-policy volatile-lru\n";
        let f = facts(text);
        let names: Vec<_> = f.redis.instances.iter().map(|i| i.name.as_str()).collect();
        assert_eq!(names, vec!["idempotency-redis", "sessions", "dedup"]);
        let owners: Vec<_> = f.redis.settings.iter().map(|s| s.instance).collect();
        assert_eq!(owners, vec![Some(0), Some(1), Some(2)]);
        let s = &f.redis.settings[2];
        assert_eq!(&text[s.span.start..s.span.end], "volatile-lru");
    }

    #[test]
    fn helm_documentation_comments_produce_nothing() {
        let text = "## @param master.extraFlags Array with additional command line flags\n## e.g:\n## extraFlags:\n##  - \"--maxmemory-policy allkeys-lru\"\n##\nmaster:\n  extraFlags: []\n  configuration: \"\"\n";
        assert!(values_and_lines(text).is_empty());
        assert!(facts(text).redis.instances.is_empty());
    }

    #[test]
    fn kubernetes_args_and_configmap_data() {
        let text = "apiVersion: apps/v1\nkind: StatefulSet\nmetadata:\n  name: dedup-redis\nspec:\n  template:\n    spec:\n      containers:\n        - name: redis\n          image: redis:7.2\n          args: [\"--maxmemory-policy\", \"allkeys-lru\"]\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cache-config\ndata:\n  redis.conf: |\n    maxmemory 1gb\n    maxmemory-policy volatile-lru\n";
        assert_eq!(
            values_and_lines(text),
            vec![
                ("allkeys-lru".into(), 11, "allkeys-lru".into()),
                ("volatile-lru".into(), 20, "volatile-lru".into()),
            ]
        );
        let f = facts(text);
        let names: Vec<_> = f.redis.instances.iter().map(|i| i.name.as_str()).collect();
        assert_eq!(names, vec!["dedup-redis", "cache-config"]);
        assert_eq!(
            &text[f.redis.instances[0].span.start..f.redis.instances[0].span.end],
            "dedup-redis"
        );
    }

    #[test]
    fn cloudformation_parameter_group_and_ref() {
        let text = "AWSTemplateFormatVersion: '2010-09-09'\nResources:\n  IdemParams:\n    Type: AWS::ElastiCache::ParameterGroup\n    Properties:\n      CacheParameterGroupFamily: redis7\n      Properties:\n        maxmemory-policy: \"allkeys-lru\"\n  IdemRedis:\n    Type: AWS::ElastiCache::ReplicationGroup\n    Properties:\n      CacheParameterGroupName: !Ref IdemParams\n";
        assert_eq!(
            values_and_lines(text),
            vec![("allkeys-lru".into(), 8, "allkeys-lru".into())]
        );
        let f = facts(text);
        assert!(f.redis.instances[0].is_group);
        assert_eq!(
            f.redis.instances[1].group,
            Some(GroupRef::Resource("IdemParams".into()))
        );
        assert_eq!(f.redis.settings[0].surface, Surface::CloudFormation);
    }

    #[test]
    fn cloudformation_ref_policy_is_set_but_opaque() {
        let text = "Resources:\n  P:\n    Type: AWS::ElastiCache::ParameterGroup\n    Properties:\n      Properties:\n        maxmemory-policy: !Ref Policy\n  Q:\n    Type: AWS::ElastiCache::ParameterGroup\n    Properties:\n      Properties:\n        maxmemory-policy: {Ref: Policy}\n";
        let f = facts(text);
        let values: Vec<_> = f.redis.settings.iter().map(|s| s.value.as_str()).collect();
        assert_eq!(values, vec!["!Ref Policy", "computed"]);
    }

    #[test]
    fn cloudformation_json_ref_object() {
        let text = "{\"Resources\": {\"G\": {\"Type\": \"AWS::ElastiCache::ParameterGroup\", \"Properties\": {\"Properties\": {\"maxmemory-policy\": \"volatile-lru\"}}},\n \"R\": {\"Type\": \"AWS::ElastiCache::ReplicationGroup\", \"Properties\": {\"CacheParameterGroupName\": {\"Ref\": \"G\"}}}}}\n";
        let mut f = FileFacts::default();
        super::super::json::parse(text, &mut f);
        extract(text, &mut f);
        let s = &f.redis.settings[0];
        assert_eq!(&text[s.span.start..s.span.end], "volatile-lru");
        assert_eq!(
            f.redis.instances[1].group,
            Some(GroupRef::Resource("G".into()))
        );
    }

    #[test]
    fn block_lines_from_indicator_or_first_content() {
        let text = "a: |\n  x 1\n\n  y 2\nb: 3\n";
        let from_indicator = block_lines(text, Span::new(3, 3));
        let content = text.find("x 1").unwrap();
        let from_content = block_lines(text, Span::new(content, content));
        assert_eq!(from_indicator, from_content);
        assert_eq!(from_content[0], (content, "x 1"));
        assert_eq!(from_content[2].1, "y 2");
        assert_eq!(from_content.len(), 3);
    }

    #[test]
    fn odd_yaml_never_panics() {
        for text in [
            "a: |\n  x\n \u{3000}\n  maxmemory-policy allkeys-lru\n",
            "a: >\n  maxmemory-policy\n  allkeys-lru\n",
            "command: \"redis-server --maxmemory-policy \\u00e9\"\n",
            "args: [--maxmemory-policy]\n",
            "c: |2\n   maxmemory-policy allkeys-lru\n",
            "services:\n  r:\n    image: redis\n    volumes: [':', {source: 1}]\n",
            "data:\n  redis.conf: \"maxmemory-policy \\\"allkeys-lru\n\"\n",
        ] {
            let _ = facts(text);
        }
    }

    #[test]
    fn words_strip_shell_quotes() {
        let w = words("sh -c 'redis-server --maxmemory-policy allkeys-lru'");
        assert_eq!(w[3], (20, "--maxmemory-policy"));
        assert_eq!(w[4].1, "allkeys-lru");
    }
}
