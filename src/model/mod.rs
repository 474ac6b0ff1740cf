//! The project model: facts from every file joined into one picture of the
//! project's idempotency stores. Rules read it; they never parse. Each domain
//! (headers here; schema, retention and Redis with their issues) keeps its
//! joined view in a submodule built once per run.

pub mod find_or_create;
pub mod flows;
pub mod headers;
mod inherit;
pub mod key_formats;
pub mod lookups;
pub mod migrations;
mod prisma_tests;
pub mod reach;
pub mod redis;
pub mod retention;
pub mod retries;
pub mod row_code;
pub mod schema;
pub(crate) mod settings;
pub mod tenant_guards;
pub mod ts_paths;
pub mod writers;

use crate::config::Config;
use crate::facts::FileFacts;
use crate::source::SourceMap;
use std::collections::HashSet;

/// Keep of a file's config tree only the entries the model reads: the
/// trees are held from parsing until the model is built, and a large
/// OpenAPI or typedoc file is almost all entries no model part looks at.
/// Each condition below is what one reader of `FileFacts::conf` looks for,
/// taken wide (a kept entry no reader wants costs only memory):
///
/// - a list item's `name` and `value` when the item holds both:
///   Kubernetes `env:` items read as name/value pairs (Redis settings,
///   retry settings, `settings::k8s_env_pairs`);
/// - a `name` whose value is a retention name, and any `value` beside such
///   a `name` (`retention::config_retentions`);
/// - a workload's top-level `kind` and its `metadata.name`
///   (`redis::owner_blocks`);
/// - every entry no deeper than the file's deepest `env`/`environment`
///   key: an environment block ends at the next entry at its depth or above
///   (`redis::owner_blocks`); a workload's `metadata.name` is at depth 2;
/// - compose `services` entries down to `build.context`
///   (`redis::build_contexts`);
/// - a path or value that mentions Redis, Valkey or a cache (the screens of
///   `redis::settings` for endpoints and cache selections);
/// - a retention name (`retention::config_retentions`);
/// - a count or duration a retry setting could take, under a section key
///   or an environment name (`settings::may_be_given`).
pub fn keep_model_inputs(facts: &mut FileFacts, text: &str) {
    use crate::facts::config::PathSeg;
    let Some(doc) = &mut facts.conf else { return };
    let is = |seg: Option<&PathSeg>, name: &str| matches!(seg, Some(PathSeg::Key(k)) if k == name);
    let env_depth = doc
        .entries
        .iter()
        .filter(|e| matches!(e.key(), Some("env" | "environment")))
        .map(|e| e.path.len())
        .max()
        .unwrap_or(0);
    let retention_words = crate::knowledge::retention_words();
    // The same few key texts recur through a tree (`type`, `description`),
    // each under its own parent: judge each text once, in a map bounded
    // so that a tree of many distinct keys does not grow it without end.
    let judged = std::cell::RefCell::new(foldhash::HashMap::<Box<str>, bool>::default());
    let is_retention_name = |name: &str| {
        if let Some(&known) = judged.borrow().get(name) {
            return known;
        }
        let holds = retention_words.is_retention_name(name);
        let mut judged = judged.borrow_mut();
        if judged.len() >= 4096 {
            judged.clear();
        }
        judged.insert(name.into(), holds);
        holds
    };
    let mention_words: Vec<&str> = redis::HOST_WORDS.iter().copied().chain(["cache"]).collect();
    let mentions = redis::Mentions::new(&mention_words);
    // Parents (by document and path) of list items' `name` and `value`
    // keys, and the dotted parents of retention-named `name`s. A hash
    // stands for a path: two paths of one hash keep more, never less.
    let parent_hash = |e: &crate::facts::config::ConfEntry| {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        (e.doc, e.parent()).hash(&mut h);
        h.finish()
    };
    let item = settings::in_list_item;
    let mut item_names = std::collections::HashSet::new();
    let mut item_values = std::collections::HashSet::new();
    let mut retention_parents = std::collections::HashSet::new();
    for e in &doc.entries {
        match e.key() {
            Some("name") => {
                if item(e) {
                    item_names.insert(parent_hash(e));
                }
                if e.scalar().is_some_and(is_retention_name) {
                    retention_parents.insert(e.parent_dotted());
                }
            }
            Some("value") if item(e) => {
                item_values.insert(parent_hash(e));
            }
            _ => {}
        }
    }
    let pair_part = |e: &crate::facts::config::ConfEntry| match e.key() {
        Some("name") => {
            (item(e) && item_values.contains(&parent_hash(e)))
                || e.scalar().is_some_and(is_retention_name)
                || (e.path.len() == 2 && is(e.path.first(), "metadata"))
        }
        Some("value") => {
            (item(e) && item_names.contains(&parent_hash(e)))
                || (!retention_parents.is_empty() && retention_parents.contains(&e.parent_dotted()))
        }
        Some("kind") => e.path.len() == 1,
        _ => false,
    };
    doc.entries.retain(|e| {
        pair_part(e)
            || ts_paths::setting(&e.path)
            || e.path.len() <= env_depth
            || (is(e.path.first(), "services") && e.path.len() <= 4)
            || mentions.any(e)
            || e.key().is_some_and(is_retention_name)
            || settings::may_be_given(e, text)
    });
    // The room the dropped entries took was written, so it is resident.
    doc.entries.shrink_to_fit();
}

pub struct ProjectModel {
    /// Per-file facts, in `FileId` order.
    pub files: Vec<FileFacts>,
    pub headers: headers::HeaderModel,
    pub retention: retention::RetentionModel,
    /// Migration histories replayed into tables; which tables are stores.
    pub schema: schema::SchemaModel,
    /// Redis instances, their eviction settings and what links them to stores.
    pub redis: redis::RedisModel,
    /// Redis key formats of request-key stores that name no caller.
    pub key_formats: key_formats::KeyFormatModel,
    /// Rust functions joined across the crate: events, summaries, traces.
    pub flows: flows::FlowModel,
    /// Retries, their worst-case spans, and the keyed requests they resend.
    pub retries: retries::RetryModel,
    /// The code files of the packages that hold keys, or that code that
    /// touches keys calls ([`prefilter::reading::Reach::judged`]): where a
    /// unit slip, a used-token record or a held-back file's owner-less key
    /// is judged.
    judged: HashSet<crate::source::FileId>,
}

impl ProjectModel {
    /// How many distinct idempotency stores the model holds: tables that are
    /// stores, and every other store a retention or a Redis instance names.
    pub fn store_count(&self) -> usize {
        use crate::facts::retention::StoreRef;
        let mut names: std::collections::BTreeSet<(u8, String)> = self
            .schema
            .stores()
            .map(|(t, _)| (0, t.key.clone()))
            .collect();
        for r in &self.retention.items {
            names.insert(match &r.target {
                StoreRef::Table(t) => (0, t.rsplit('.').next().unwrap_or(t).to_ascii_lowercase()),
                StoreRef::RedisPrefix(p) => (1, p.clone()),
                StoreRef::ConfigPath(p) => (2, p.clone()),
                StoreRef::Constant(c) => (3, c.clone()),
            });
        }
        for i in self.redis.instances.iter().filter(|i| !i.links.is_empty()) {
            names.insert((4, i.name.clone()));
        }
        names.len()
    }

    /// Build the model. The parts that read only the files run side by side
    /// on the current rayon pool (the caller's `install`); the joins that
    /// need another part wait for it.
    pub fn build(files: Vec<FileFacts>, sources: &SourceMap, config: &Config) -> Self {
        let joins = Joins::build(&files, sources, config);
        Self::finish(files, joins, sources, config)
    }

    /// The rest of the model, from the parts built on the same files.
    pub fn finish(
        mut files: Vec<FileFacts>,
        joins: Joins,
        sources: &SourceMap,
        config: &Config,
    ) -> Self {
        use rayon::prelude::*;
        let judged = joins.judged_files(&files, sources);
        let Joins {
            headers,
            retention,
            schema,
            redis,
            settings,
        } = joins;
        let ts_paths = ts_paths::TsPaths::build(&files, sources);
        // Config trees and string literals have no reader past this point:
        // free them before the flow model, the largest part, is built.
        files.par_iter_mut().for_each(FileFacts::release_extracted);
        let (key_formats, flows) = rayon::join(
            || key_formats::KeyFormatModel::build_with(&files, config, &judged),
            || flows::FlowModel::build(&files, sources, config, &schema, &ts_paths),
        );
        let retries = retries::RetryModel::build(&files, sources, settings, config, &flows);
        ProjectModel {
            files,
            headers,
            retention,
            schema,
            redis,
            key_formats,
            flows,
            retries,
            judged,
        }
    }
}

/// The parts of the model that read only the files (no other part), built
/// first and side by side. A run whose prefilter held files back
/// (`prefilter::Admission::Late`) builds them before it decides whether
/// to parse those files.
pub struct Joins {
    pub headers: headers::HeaderModel,
    pub retention: retention::RetentionModel,
    pub schema: schema::SchemaModel,
    pub redis: redis::RedisModel,
    settings: retries::Settings,
}

impl Joins {
    pub fn build(files: &[FileFacts], sources: &SourceMap, config: &Config) -> Self {
        let ((headers, mut retention), ((schema, redis), settings)) = rayon::join(
            || {
                rayon::join(
                    || headers::HeaderModel::build(files),
                    || retention::RetentionModel::build(files, sources, config),
                )
            },
            || {
                rayon::join(
                    || {
                        rayon::join(
                            || {
                                let mut schema = schema::SchemaModel::build(files, sources, config);
                                schema.mark_treated_as_stores(files);
                                schema
                            },
                            || redis::RedisModel::build(files, sources, config),
                        )
                    },
                    // The configuration values retry policies may read, taken now.
                    || retries::Settings::read(files, sources),
                )
            },
        );
        // ORM models' retentions need the schema to say which are stores.
        retention.join_orm(&schema, files, sources, config);
        Joins {
            headers,
            retention,
            schema,
            redis,
            settings,
        }
    }
}

impl ProjectModel {
    /// The unit slips of one purpose, with their files; only in the
    /// packages that hold keys ([`Joins::judged_files`]), whatever was read.
    pub fn unit_slips(
        &self,
        purpose: crate::facts::retention::Purpose,
    ) -> impl Iterator<Item = (crate::source::FileId, &crate::facts::retention::UnitSlip)> {
        self.files
            .iter()
            .filter(|f| self.judged.contains(&f.file))
            .flat_map(move |f| {
                f.code
                    .iter()
                    .flat_map(|r| &r.unit_slips)
                    .filter(move |s| s.purpose == purpose)
                    .map(move |s| (f.file, s))
            })
    }
}

impl ProjectModel {
    /// Used-token records whose expiry is shorter than their token's life
    /// (`facts::tokens`), with the file of each, and a
    /// validation leeway set to more than zero if the project sets one;
    /// only in the packages that hold keys ([`Joins::judged_files`]).
    pub fn token_guards(&self) -> TokenGuards<'_> {
        use crate::facts::tokens::TokenFacts;
        let facts = || {
            self.files
                .iter()
                .filter(|f| self.judged.contains(&f.file))
                .filter_map(|f| f.code.as_ref().map(|r| (f.file, &r.tokens)))
        };
        let leeway = facts()
            .flat_map(|(file, t): (_, &TokenFacts)| t.leeways.iter().map(move |l| (file, l)))
            .find(|(_, l)| !l.zero);
        let expiries = facts()
            .flat_map(|(file, t)| t.expiries.iter().map(move |e| (file, e)))
            .collect();
        TokenGuards { expiries, leeway }
    }
}

/// What [`ProjectModel::token_guards`] gives.
pub struct TokenGuards<'m> {
    pub expiries: Vec<(crate::source::FileId, &'m crate::facts::tokens::TokenExpiry)>,
    pub leeway: Option<(crate::source::FileId, &'m crate::facts::tokens::Leeway)>,
}

/// The files that hold keys: a keyed request; a Rust function's SQL or
/// Redis step that writes or reads a store; a table the schema makes a
/// store; a retention; a Redis instance that names one, and the files that
/// link it to keys. Files held back by the prefilter for their retries can
/// change what the model says only where there are such files: a retry may
/// resend a keyed request (`retry-outlives-key-retention`), and a held
/// file's functions join the flow model, where they can call the code that
/// records a key. A held file cannot make a store or a keyed request
/// itself: each is named with a word that would have admitted it in full
/// (a store's name, an idempotency header, `RequestStrategy::Idempotent`).
pub(crate) fn key_files(
    schema: &schema::SchemaModel,
    retention: &retention::RetentionModel,
    redis: &redis::RedisModel,
    files: &[FileFacts],
) -> std::collections::HashSet<crate::source::FileId> {
    use crate::facts::flow::StepKind;
    let mut out: std::collections::HashSet<crate::source::FileId> = files
        .iter()
        .filter(|f| {
            f.code.as_ref().is_some_and(|r| {
                !r.retry.requests.is_empty()
                    || r.flow
                        .functions
                        .iter()
                        .flat_map(|f| &f.events)
                        .any(|e| match &e.kind {
                            StepKind::Sql { dml, .. } => schema.is_store_name(&dml.table),
                            StepKind::Redis { key, .. } => flows::redis_store(key).is_some(),
                            _ => false,
                        })
            })
        })
        .map(|f| f.file)
        .collect();
    out.extend(schema.stores().map(|(t, _)| t.created.file));
    // a table code may look a key up by before it creates a row
    out.extend(
        (schema.tables.iter())
            .filter(|t| schema::carries_key(t))
            .map(|t| t.created.file),
    );
    out.extend(retention.items.iter().map(|r| r.file));
    for i in redis.instances.iter().filter(|i| !i.links.is_empty()) {
        out.insert(i.file);
        out.extend(i.links.iter().map(|l| l.file));
    }
    out
}

/// The tables of the schema the parsed files give that are stores or carry
/// a key column ([`schema::SchemaModel::key_table_names`]): an SQL file held
/// back for the schema (`prefilter::Admission::Schema`) that names one
/// is parsed. So are the tables a plain index named as a unique guard
/// names ([`named_guard_tables`]), and the tables an ent schema declares
/// a guard over a key on.
pub fn key_tables(files: &[FileFacts], sources: &SourceMap, config: &Config) -> Vec<String> {
    let mut schema = schema::SchemaModel::build(files, sources, config);
    schema.mark_treated_as_stores(files);
    let mut out = schema.key_table_names();
    out.extend(named_guard_tables(files));
    // an ent schema's guard over a key is judged against its migrations
    // (the schema is the next one)
    out.extend(
        schema
            .tables
            .iter()
            .filter(|t| t.declared_by == Some(crate::facts::store::SchemaCode::Ent))
            .filter(|t| {
                t.guards
                    .iter()
                    .chain(&t.unmigrated)
                    .any(|g| schema::keyed_guard(t, g))
            })
            .map(|t| t.key.rsplit('.').next().unwrap_or(&t.key).to_string()),
    );
    // an `ON CONFLICT (cols)` target is judged against its table's history
    // (a Prisma accessor's, against its model's table)
    for c in files.iter().flat_map(|f| &f.conflict_targets) {
        let table = schema.resolve(&c.table);
        let table = table.rsplit('.').next().unwrap_or(table);
        out.push(table.to_ascii_lowercase());
        out.push(c.table.clone());
        // a model class's name in its declaration (`class ExternalEvent`,
        // Django's `CreateModel(name="IdempotencyKey")`)
        out.push(c.table.replace('_', ""));
    }
    // a find-or-create is judged against its table's definitions
    for c in files.iter().flat_map(|f| &f.find_or_create) {
        let table = schema.resolve(&c.table);
        out.push(table.to_ascii_lowercase());
        out.push(c.table.replace('_', ""));
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// The tables (bare, lowered) on which a parsed file creates a plain index
/// named as a unique guard (`create index record_uniq on store (...)`,
/// `[guard_index_name]` of `rules/stores.toml`). missing-unique-key-constraint
/// judges such an index against every guard of its table's history, so the
/// whole history is read: the migration that creates the table and any that
/// adds a unique guard over the same columns, whatever words they hold.
/// NOTE: a Postgres history that keeps `CREATE TABLE store` and `CREATE
/// INDEX record_uniq ON store` in two files had the index judged only when
/// every file was read whole.
fn named_guard_tables(files: &[FileFacts]) -> impl Iterator<Item = String> + '_ {
    use crate::facts::store::{KeyKind, SchemaChange};
    let words = &crate::knowledge::stores().guard_index_name;
    files
        .iter()
        .filter_map(|f| f.sql.as_ref())
        .flat_map(|s| &s.events)
        .filter_map(move |e| match &e.kind {
            SchemaChange::CreateIndex(ci)
                if ci.key.kind == KeyKind::Index && words.matches(&ci.key.name) =>
            {
                Some(ci.table.bare().to_ascii_lowercase())
            }
            _ => None,
        })
}

/// In-memory files `(path, kind, text)` parsed as a run parses them, for
/// the model's tests: their source map and facts.
#[cfg(test)]
pub(crate) fn parsed(
    files: &[(&str, crate::source::FileKind, &str)],
) -> (SourceMap, Vec<FileFacts>) {
    let mut sources = SourceMap::default();
    let mut facts = Vec::new();
    for (i, (path, kind, text)) in files.iter().enumerate() {
        sources
            .files
            .push(crate::source::SourceFile::new(*path, *kind, *text));
        facts.push(crate::frontend::parse(i, *kind, text));
    }
    (sources, facts)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::FileKind;

    /// Every reader of the config trees finds in the pruned trees what it
    /// finds in the whole ones.
    #[test]
    fn the_model_reads_the_same_from_pruned_trees() {
        let files: &[(&str, FileKind, &str)] = &[
            (
                "deploy/payments.yaml",
                FileKind::Yaml,
                "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: payments\n  labels:\n    app: payments\nspec:\n  replicas: 3\n  template:\n    spec:\n      containers:\n        - name: api\n          image: ghcr.io/acme/payments:1.2\n          env:\n            - name: IDEMPOTENCY_REDIS_URL\n              value: redis://idem-redis:6379\n            - name: IDEMPOTENCY_TTL_SECONDS\n              value: \"86400\"\n            - name: PAYOUT_MAX_RETRIES\n              value: \"50\"\n          ports:\n            - containerPort: 8080\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: idem-redis\ndata:\n  redis.conf: |\n    maxmemory-policy allkeys-lru\n",
            ),
            (
                "docker-compose.yml",
                FileKind::Yaml,
                "services:\n  api:\n    build:\n      context: ./api\n    environment:\n      - CACHE_TYPE=redis\n      - REDIS_URL=redis://cache:6379/0\n      - LOG_LEVEL=info\n    ports:\n      - \"8080:8080\"\n  worker:\n    build: ./worker\n    environment:\n      PAYOUT_RETRY_DELAY: 30s\n  cache:\n    image: redis:7\n    command: redis-server --maxmemory-policy allkeys-lru\n",
            ),
            (
                "config/app.toml",
                FileKind::Toml,
                "[stripe.webhooks]\ndedup_ttl_hours = 24\nendpoint = \"/hooks/stripe\"\n\n[payouts]\nmax_retries = 30\nretry_delay = \"10m\"\n\n[cache]\nbackend = \"redis\"\n",
            ),
            (
                "openapi.json",
                FileKind::Json,
                "{\"openapi\": \"3.0.0\", \"paths\": {\"/payments\": {\"post\": {\"parameters\": [{\"name\": \"Idempotency-Key\", \"in\": \"header\", \"schema\": {\"type\": \"string\", \"maxLength\": 255}}], \"responses\": {\"200\": {\"description\": \"ok\", \"content\": {\"application/json\": {\"schema\": {\"type\": \"object\", \"properties\": {\"id\": {\"type\": \"string\"}, \"amount\": {\"type\": \"integer\", \"example\": 1000}}}}}}}}}}}",
            ),
            (
                "charts/dedup/values.yaml",
                FileKind::Yaml,
                "dedup:\n  window:\n    name: dedup_ttl_seconds\n    value: 7200\n  docs:\n    - name: intro\n      kind: page\n    - name: usage\n",
            ),
            (
                ".env",
                FileKind::Env,
                "REDIS_URL=redis://localhost:6379\nWEBHOOK_DEDUP_TTL=3600\nPAYOUT_MAX_ATTEMPTS=12\nAPP_NAME=payments\n",
            ),
        ];
        let (sources, full) = parsed(files);
        let (_, mut pruned) = parsed(files);
        for (f, (_, _, text)) in pruned.iter_mut().zip(files) {
            keep_model_inputs(f, text);
        }
        let entries = |facts: &[FileFacts]| -> usize {
            facts
                .iter()
                .filter_map(|f| f.conf.as_ref())
                .map(|d| d.entries.len())
                .sum()
        };
        let (before, after) = (entries(&full), entries(&pruned));
        assert!(after < before, "{after} of {before} entries kept");
        let config = Config::default();
        let whole = redis::RedisModel::build(&full, &sources, &config);
        // the idempotency Redis (linked through the workload's env) and the cache
        assert_eq!(whole.instances.len(), 2, "{:?}", whole.instances);
        let redis =
            |f: &[FileFacts]| format!("{:?}", redis::RedisModel::build(f, &sources, &config));
        assert_eq!(redis(&full), redis(&pruned));
        let whole = retention::RetentionModel::build(&full, &sources, &config);
        // Kubernetes env, TOML, a name/value mapping in Helm values and .env
        assert_eq!(whole.items.len(), 4, "{:?}", whole.items);
        let retention = |f: &[FileFacts]| {
            format!(
                "{:?}",
                retention::RetentionModel::build(f, &sources, &config)
            )
        };
        assert_eq!(retention(&full), retention(&pruned));
        let wanted: std::collections::HashSet<String> = [
            "$PAYOUT_MAX_RETRIES",
            "$PAYOUT_MAX_ATTEMPTS",
            "$PAYOUT_RETRY_DELAY",
            "payouts.max_retries",
            "payouts.retry_delay",
        ]
        .iter()
        .filter_map(|r| settings::join_key(r))
        .collect();
        let given = |f: &[FileFacts]| {
            let mut g: Vec<String> = settings::given_settings(f, &sources, &wanted)
                .iter()
                .map(|(k, v)| format!("{k}: {v:?}"))
                .collect();
            g.sort();
            g
        };
        let g = given(&full);
        assert_eq!(g.len(), wanted.len(), "{g:?}");
        assert_eq!(g, given(&pruned));
    }
}
