//! `evicting-key-store`: a Redis instance that holds idempotency keys under a
//! `maxmemory-policy` that evicts them (`allkeys-*` error, `volatile-*`
//! warning), or a managed Redis holding them with no policy written, which
//! runs with its provider's evicting default. An instance linked to no store
//! is left alone: eviction is right for a cache.

use super::Context;
use crate::diagnostic::{Diagnostic, Edit, RuleId, Severity};
use crate::facts::redis::Surface;
use crate::knowledge::{self, EvictionPolicy, ManagedDefault};
use crate::model::redis::{Instance, Setting};

pub const NAME: RuleId = RuleId::EvictingKeyStore;

pub fn check(ctx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    let catalogue = knowledge::redis();
    for inst in &ctx.model.redis.instances {
        if inst.links.is_empty() {
            continue;
        }
        let libs = libraries_only(inst);
        // A general distributed lock is no key kept over time: a warning
        // at most.
        let cap = |sev: Severity| {
            if !libs.is_empty() && libs.iter().all(|l| l.is_lock()) && sev == Severity::Error {
                Severity::Warning
            } else {
                sev
            }
        };
        let d = match inst.effective() {
            Some(s) => match catalogue.policy(&s.value) {
                Some(p) if p.class == "allkeys" => {
                    evicting_diagnostic(inst, s, p, cap(Severity::Error))
                }
                Some(p) if p.class == "volatile" => {
                    evicting_diagnostic(inst, s, p, cap(Severity::Warning))
                }
                // `noeviction`, or a value computed elsewhere.
                _ => continue,
            },
            None if inst.is_managed() && !inst.opaque_group => {
                let Some(default) = catalogue.provider(inst.provider.id()) else {
                    continue;
                };
                let Some(p) = catalogue.policy(&default.default_policy) else {
                    continue;
                };
                if p.class == "none" {
                    continue;
                }
                default_diagnostic(inst, default, p)
            }
            None => continue,
        };
        out.push(with_links(inferred(of_libraries(d, &libs), inst), inst));
    }
}

/// The libraries behind an instance's links when every link comes from a
/// dependency on one (`rules/redis.toml` `[[dedup_library]]`); empty when
/// any other link says the instance holds idempotency keys.
fn libraries_only(inst: &Instance) -> Vec<&'static knowledge::DedupLibrary> {
    let catalogue = &knowledge::redis().dedup_library;
    let mut out: Vec<&'static knowledge::DedupLibrary> = Vec::new();
    for l in &inst.links {
        let Some(lib) = l.library.and_then(|i| catalogue.get(i)) else {
            return Vec::new();
        };
        if !out.iter().any(|o| std::ptr::eq(*o, lib)) {
            out.push(lib);
        }
    }
    out
}

/// Say what the libraries keep instead of idempotency keys, and why an
/// evicted lock matters.
fn of_libraries(mut d: Diagnostic, libs: &[&knowledge::DedupLibrary]) -> Diagnostic {
    let Some(first) = libs.first() else {
        return d;
    };
    // The headline stays short: one library by what it keeps, more by name.
    let what = match libs {
        [one] => format!("the {} of `{}`", one.keeps, one.name),
        [a, b] => format!("the locks of `{}` and `{}`", a.name, b.name),
        [a, b, ..] => format!("the locks of `{}`, `{}` and others", a.name, b.name),
        [] => return d,
    };
    d.message = d
        .message
        .replace("evict idempotency keys", &format!("evict {what}"));
    // The keys are locks, not replayed requests' keys.
    d.notes.retain(|n| n != REPLAY);
    if let Some(h) = &mut d.help {
        if let Some(at) = h.find(" instead of forgetting keys") {
            h.truncate(at);
            h.push_str(
                " instead of dropping locks, or keep the locks in a Redis of their own that never evicts",
            );
        }
    }
    for n in &mut d.notes {
        if let Some(at) = n.find(", which for idempotency keys") {
            n.truncate(at);
        }
        *n = n
            .replace("idempotency keys", "locks")
            .replace("idempotency key", "lock");
    }
    if libs.iter().all(|l| l.is_lock()) {
        d.with_note(format!(
            "`{}` keeps {} in Redis: a lock evicted while its holder still runs lets a second worker take it and run the same job at the same time; it is no key kept over time, so this is a warning at most",
            first.name, first.keeps
        ))
    } else {
        d.with_note(format!(
            "`{}` keeps {} in Redis to stop a job running twice: an evicted lock lets the same job be enqueued and run again",
            first.name, first.keeps
        ))
    }
}

/// A note when every link was inferred from deployment config whose value
/// a template computes: the keys may live elsewhere.
fn inferred(d: Diagnostic, inst: &Instance) -> Diagnostic {
    if !inst.links.iter().all(|l| l.weak) {
        return d;
    }
    let mut d = d.with_note(
        "a note, not an error: the link to the keys is inferred, not read (a setting whose value a chart's template computes, `localhost` where a compose Redis publishes the port, or a host that a redis.conf file answers to by its path only), so the keys may live in another Redis",
    );
    d.severity = Severity::Note;
    d
}

fn subject(inst: &Instance) -> String {
    match (&inst.resource_type, inst.kind) {
        (Some(ty), crate::facts::redis::InstanceKind::Terraform) if ty == "module" => {
            format!("Terraform module `module.{}`", inst.name)
        }
        (Some(ty), crate::facts::redis::InstanceKind::Terraform) => {
            format!("Terraform resource `{ty}.{}`", inst.name)
        }
        _ => format!("{} `{}`", inst.kind.describe(), inst.name),
    }
}

const REPLAY: &str =
    "a replay that arrives after its key was evicted, still inside the replay window, is processed a second time";

/// The policy as the surface writes it: a Redis directive or flag, or a
/// provider's attribute (`data_eviction`, `eviction_policy`).
fn written(s: &Setting) -> String {
    match s.surface {
        Surface::Terraform | Surface::ConfigKey => format!("eviction policy `{}`", s.value),
        _ => format!("`maxmemory-policy {}`", s.value),
    }
}

/// How to write `noeviction` where the policy was written.
fn noeviction_in(s: &Setting) -> String {
    let v = noeviction_spelling(&s.value);
    match s.surface {
        Surface::ConfFile | Surface::EmbeddedConf => format!("`maxmemory-policy {v}`"),
        Surface::CommandLine => format!("`--maxmemory-policy {v}`"),
        Surface::Code => format!("`CONFIG SET maxmemory-policy {v}`"),
        Surface::ConfigKey | Surface::Terraform | Surface::CloudFormation => {
            format!("the policy to `{v}`")
        }
    }
}

/// `noeviction` in the spelling of the original (`NoEviction` on Azure).
fn noeviction_spelling(written: &str) -> &'static str {
    if written.chars().any(|c| c.is_ascii_uppercase()) && !written.contains('-') {
        "NoEviction"
    } else {
        "noeviction"
    }
}

fn fail_closed() -> &'static str {
    "the handler must then fail closed: when the key cannot be written (Redis answers OOM), refuse the request with a retryable error instead of processing it unguarded"
}

fn evicting_diagnostic(
    inst: &Instance,
    s: &Setting,
    p: &EvictionPolicy,
    severity: Severity,
) -> Diagnostic {
    let fixed = noeviction_spelling(&s.value);
    Diagnostic::new(
        NAME,
        severity,
        s.file,
        s.span,
        format!("{} lets Redis evict idempotency keys", written(s)),
    )
    .with_primary_label("eviction policy set here")
    .with_note(format!(
        "when memory is full, {} loses keys: Redis takes {}",
        subject(inst),
        p.first
    ))
    .with_note(REPLAY)
    .with_help(format!(
        "set {} so Redis refuses writes instead of forgetting keys; {}",
        noeviction_in(s),
        fail_closed()
    ))
    .with_fix(
        format!("set the policy to `{fixed}`"),
        vec![Edit {
            file: s.file,
            span: s.span,
            replacement: fixed.to_string(),
        }],
    )
}

fn default_diagnostic(inst: &Instance, m: &ManagedDefault, p: &EvictionPolicy) -> Diagnostic {
    Diagnostic::new(
        NAME,
        Severity::Warning,
        inst.file,
        inst.span,
        format!("no `maxmemory-policy` set: {} evicts with `{}`", m.name, m.default_policy),
    )
    .with_primary_label(format!("{}, which holds idempotency keys", subject(inst)))
    .with_note(format!(
        "it runs with the {} default `{}`: when memory is full Redis takes {}",
        m.name, m.default_policy, p.first
    ))
    .with_note(REPLAY)
    .with_note(format!("the default is documented at {}, read {}", m.source, m.read))
    .with_help(format!(
        "write the policy down as `noeviction` (a parameter group or the resource's configuration); {}",
        fail_closed()
    ))
}

/// Labels: why the instance holds keys, and where it is declared when the
/// policy sits elsewhere (its parameter group, its mounted redis.conf).
fn with_links(mut d: Diagnostic, inst: &Instance) -> Diagnostic {
    let declared_elsewhere = inst.file != d.file || (inst.via.is_some() && inst.span != d.span);
    let named_there = inst
        .links
        .iter()
        .any(|l| l.file == inst.file && l.span == inst.span);
    if declared_elsewhere && !named_there {
        let note = match &inst.via {
            Some((_, _, why)) => why.clone(),
            None => format!("{} declared here", subject(inst)),
        };
        d = d.with_label(inst.file, inst.span, note);
    }
    for l in &inst.links {
        d = d.with_label(l.file, l.span, l.reason.clone());
    }
    d
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;
    use crate::model::redis::testing::{facts, project};
    use crate::source::SourceMap;

    fn run(files: &[(&str, &str)]) -> (Vec<Diagnostic>, SourceMap) {
        let (f, sources) = facts(files);
        let config = Config::default();
        let model = project(f, &sources, &config);
        let ctx = Context {
            model: &model,
            sources: &sources,
            config: &config,
        };
        let mut out = Vec::new();
        check(&ctx, &mut out);
        (out, sources)
    }

    #[test]
    fn allkeys_lru_on_the_idempotency_service_is_an_error_and_the_session_cache_is_not_flagged() {
        let compose = "services:\n  idempotency-redis:\n    image: redis:7\n    command: redis-server --maxmemory-policy allkeys-lru\n  sessions:\n    image: redis:7\n    command: redis-server --maxmemory-policy allkeys-lru\n";
        let (d, s) = run(&[("docker-compose.yml", compose)]);
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].severity, Severity::Error);
        assert_eq!(d[0].span.start, compose.find("allkeys-lru").unwrap_or(0));
        assert_eq!(s.snippet(d[0].file, d[0].span), "allkeys-lru");
        assert!(d[0].notes[0].contains("compose service `idempotency-redis`"));
        assert_eq!(
            s.snippet(d[0].file, d[0].labels[0].span),
            "idempotency-redis"
        );
        let help = d[0].help.as_deref().unwrap_or("");
        assert!(help.contains("`--maxmemory-policy noeviction`") && help.contains("fail closed"));
        let fix = d[0].fix.as_ref().map(|f| f.edits[0].replacement.as_str());
        assert_eq!(fix, Some("noeviction"));
    }

    const LOCKS_COMPOSE: &str = "services:\n  worker:\n    build: .\n    environment:\n      REDIS_URL: redis://jobs:6379/0\n      SESSION_REDIS_URL: redis://sessions:6379/0\n  jobs:\n    image: redis:7\n    command: redis-server --maxmemory-policy allkeys-lru\n  sessions:\n    image: redis:7\n    command: redis-server --maxmemory-policy allkeys-lru\n";

    #[test]
    fn unique_job_gem_makes_its_redis_an_error_naming_the_gem_and_its_manifest_line() {
        let gemfile = "source \"https://rubygems.org\"\ngem \"sidekiq-unique-jobs\"\n";
        let (d, s) = run(&[("Gemfile", gemfile), ("docker-compose.yml", LOCKS_COMPOSE)]);
        assert_eq!(d.len(), 1, "{d:?}");
        assert_eq!(d[0].severity, Severity::Error);
        assert!(d[0]
            .message
            .contains("unique-job locks of `sidekiq-unique-jobs`"));
        assert!(d[0].notes.iter().all(|n| n != REPLAY));
        assert!(d[0]
            .labels
            .iter()
            .any(|l| s.snippet(l.file, l.span) == "sidekiq-unique-jobs"));
    }

    #[test]
    fn two_libraries_are_named_in_a_short_headline_and_a_unique_job_gem_keeps_the_error() {
        let gemfile = "gem \"redlock\"\ngem \"sidekiq-unique-jobs\"\n";
        let env = "REDIS_URL=redis://jobs:6379/0\n";
        let (d, _) = run(&[
            ("Gemfile", gemfile),
            (".env", env),
            ("docker-compose.yml", LOCKS_COMPOSE),
        ]);
        assert_eq!(d.len(), 1, "{d:?}");
        assert_eq!(d[0].severity, Severity::Error);
        assert!(
            d[0].message
                .ends_with("the locks of `redlock` and `sidekiq-unique-jobs`"),
            "{}",
            d[0].message
        );
    }

    #[test]
    fn a_redis_conf_named_by_its_path_for_the_apps_host_is_only_a_note() {
        let gemfile = "gem 'activejob-uniqueness'\n";
        let env = "REDIS_URL=redis://redis:6379\n";
        let conf = "maxmemory 1gb\nmaxmemory-policy allkeys-lru\n";
        let (d, s) = run(&[
            ("api/Gemfile", gemfile),
            (".env", env),
            ("docker/redis.conf", conf),
        ]);
        assert_eq!(d.len(), 1, "{d:?}");
        assert_eq!(d[0].severity, Severity::Note);
        assert!(d[0]
            .labels
            .iter()
            .any(|l| l.message.contains("answers to by its path only")
                && s.snippet(l.file, l.span) == "redis://redis:6379"));
    }

    #[test]
    fn a_general_distributed_lock_is_a_warning_at_most() {
        let package = "{\"name\": \"w\", \"dependencies\": {\"redlock\": \"^5.0.0\"}}";
        let compose = LOCKS_COMPOSE.replace("REDIS_URL: redis://jobs", "REDIS_HOST: jobs");
        let (d, _) = run(&[("package.json", package), ("docker-compose.yml", &compose)]);
        assert_eq!(d.len(), 1, "{d:?}");
        assert_eq!(d[0].severity, Severity::Warning);
        assert!(d[0].message.contains("distributed locks of `redlock`"));
    }

    #[test]
    fn a_dev_dependency_or_a_lock_in_another_ecosystem_links_nothing() {
        let package = "{\"name\": \"w\", \"devDependencies\": {\"redlock\": \"^5.0.0\"}}";
        let cargo = "[package]\nname = \"w\"\n[dependencies]\nredlock = \"2\"\n";
        let (d, _) = run(&[
            ("package.json", package),
            ("Cargo.toml", cargo),
            ("docker-compose.yml", LOCKS_COMPOSE),
        ]);
        assert!(d.is_empty(), "{d:?}");
    }

    #[test]
    fn localhost_in_the_apps_env_links_the_published_compose_redis_as_a_note() {
        let package = "{\"name\": \"api\", \"dependencies\": {\"redlock\": \"5.0.0-beta.2\"}}";
        let env = "REDIS_PORT=6379\nREDIS_HOST=localhost\n";
        let compose = "services:\n  redis:\n    image: redis\n    ports:\n      - \"${REDIS_PORT:-6379}:6379\"\n    command: redis-server --maxmemory-policy allkeys-lru\n";
        let (d, _) = run(&[
            ("apps/api/package.json", package),
            ("apps/api/src/.env.development", env),
            ("docker/local/docker-compose.yml", compose),
        ]);
        assert_eq!(d.len(), 1, "{d:?}");
        assert_eq!(d[0].severity, Severity::Note);
    }

    #[test]
    fn volatile_ttl_and_lrm_policies_are_warnings() {
        for policy in ["volatile-ttl", "volatile-lrm", "volatile-lru"] {
            let conf = format!("maxmemory-policy {policy}\n");
            let (d, s) = run(&[("deploy/idempotency.conf", &conf)]);
            assert_eq!(d.len(), 1, "{policy}");
            assert_eq!(d[0].severity, Severity::Warning);
            assert_eq!(s.snippet(d[0].file, d[0].span), policy);
        }
    }

    #[test]
    fn a_chart_linked_by_its_templated_fallback_is_a_note_and_a_named_host_an_error() {
        let values = "redis:\n  enabled: true\n  commonConfiguration: |-\n    maxmemory-policy allkeys-lru\n";
        let template = "kind: Deployment\nmetadata:\n  name: {{ include \"app.fullname\" . }}-api\n  labels:\n    {{- include \"app.labels\" . | nindent 4 }}\nspec:\n  template:\n    spec:\n      containers:\n        - name: api\n          env:\n            - name: REDIS_URL\n              value: {{ include \"app.redisUrl\" . | quote }}\n";
        let code = "IDEMPOTENCY_REDIS_URL = os.getenv(\"IDEMPOTENCY_REDIS_URL\") or os.getenv(\"REDIS_URL\")\n";
        let (d, _) = run(&[
            ("chart/values.yaml", values),
            ("chart/templates/api.yaml", template),
            ("api/settings.py", code),
        ]);
        assert_eq!(d.len(), 1, "{d:?}");
        assert_eq!(d[0].severity, Severity::Note);
        assert!(d[0]
            .notes
            .iter()
            .any(|n| n.contains("a chart's template computes")));

        let compose = "services:\n  api:\n    image: example/api:1\n    environment:\n      REDIS_URL: redis://kv:6379/0\n  kv:\n    image: redis:7\n    command: redis-server --maxmemory-policy allkeys-lru\n";
        let (d, s) = run(&[("docker-compose.yml", compose), ("api/settings.py", code)]);
        assert_eq!(d.len(), 1, "{d:?}");
        assert_eq!(d[0].severity, Severity::Error);
        assert!(d[0]
            .labels
            .iter()
            .any(|l| s.snippet(l.file, l.span) == "REDIS_URL" && l.message.contains("falls back")));
    }

    #[test]
    fn noeviction_and_unknown_values_are_not_reported() {
        for policy in ["noeviction", "\"${POLICY}\""] {
            let conf = format!("maxmemory-policy {policy}\n");
            let (d, _) = run(&[("deploy/idempotency.conf", &conf)]);
            assert!(d.is_empty(), "{policy}");
        }
    }

    #[test]
    fn managed_redis_without_a_policy_names_the_provider_default_and_its_source() {
        let tf = "resource \"google_redis_instance\" \"idempotency\" {\n  name = \"idempotency\"\n}\nresource \"google_redis_instance\" \"cache\" {\n  name = \"cache\"\n}\n";
        let (d, s) = run(&[("infra/redis.tf", tf)]);
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].severity, Severity::Warning);
        assert_eq!(s.snippet(d[0].file, d[0].span), "idempotency");
        assert!(d[0]
            .message
            .contains("Memorystore evicts with `volatile-lru`"));
        assert!(d[0]
            .notes
            .join(" ")
            .contains("cloud.google.com/memorystore"));
    }

    #[test]
    fn azure_spelling_is_recognised_and_the_fix_keeps_it() {
        let tf = "resource \"azurerm_redis_enterprise_database\" \"dedup\" {\n  eviction_policy = \"AllKeysLRU\"\n}\n";
        let (d, s) = run(&[("infra/azure.tf", tf)]);
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].severity, Severity::Error);
        assert_eq!(s.snippet(d[0].file, d[0].span), "AllKeysLRU");
        let fix = d[0].fix.as_ref().map(|f| f.edits[0].replacement.as_str());
        assert_eq!(fix, Some("NoEviction"));
    }

    #[test]
    fn catalogue_knows_every_policy_and_sources_every_default() {
        let c = knowledge::redis();
        for p in [
            "noeviction",
            "allkeys-lru",
            "allkeys-lfu",
            "allkeys-random",
            "allkeys-lrm",
            "volatile-lru",
            "volatile-lfu",
            "volatile-random",
            "volatile-lrm",
            "volatile-ttl",
        ] {
            let e = c.policy(p).unwrap_or_else(|| panic!("{p} missing"));
            let class = p.split('-').next().unwrap_or("");
            assert!(e.class == class || (p == "noeviction" && e.class == "none"));
            assert!(!e.first.is_empty());
        }
        use crate::facts::redis::Provider;
        for p in [
            Provider::ElastiCache,
            Provider::Memorystore,
            Provider::Azure,
            Provider::RedisCloud,
        ] {
            let d = c
                .provider(p.id())
                .unwrap_or_else(|| panic!("{p:?} missing"));
            assert!(c.policy(&d.default_policy).is_some());
            assert!(d.source.starts_with("https://"));
        }
        assert!(c.link_words.matches("idem-redis") && !c.link_words.matches("identity-redis"));
    }

    #[test]
    fn messages_are_lowercase_without_a_trailing_period() {
        let conf = "maxmemory-policy allkeys-lfu\n";
        let tf = "resource \"aws_elasticache_cluster\" \"receipts\" {\n  engine = \"redis\"\n}\n";
        let (d, _) = run(&[("idem.conf", conf), ("infra/main.tf", tf)]);
        assert_eq!(d.len(), 2);
        for x in &d {
            assert!(x.message.starts_with(|c: char| !c.is_ascii_uppercase()));
            assert!(!x.message.ends_with('.'));
        }
    }
}
