//! `idemlint inventory`: every idempotency store of a run, one entry each,
//! with what the project model knows of it (definition, unique guard, scope,
//! fingerprint, in-flight state, retention and its mechanism, counterparty
//! with horizon, floor and coverage, Redis instance and eviction policy,
//! writers, size at the floor) and the findings of the normal check that
//! concern it. Built from an [`Outcome`]; it decides nothing the rules do
//! not. Rendering is in `render` (terminal, markdown, JSON) and `html`.

pub mod html;
pub mod render;

use crate::diagnostic::{Diagnostic, Severity};
use crate::facts::retention::StoreRef;
use crate::files::Revision;
use crate::horizons::Catalogue;
use crate::knowledge::{self, Direction};
use crate::model::flows::{StepKind, StoreKey};
use crate::model::retention::{attribute, Attribution, Retention};
use crate::model::schema::{Guarding, Table};
use crate::source::{FileId, LineIndex, Span};
use crate::Outcome;
use serde::Serialize;

/// The JSON shape's version (`inventory --format json`).
pub const VERSION: u32 = 1;

#[derive(Debug, Clone, Serialize)]
pub struct Inventory {
    pub version: u32,
    pub tool: Tool,
    /// The commit read with `--rev`; `None` for the work tree.
    pub revision: Option<Revision>,
    /// The write rate given with `--rate`, in writes a second.
    pub rate: Option<f64>,
    pub stores: Vec<Store>,
    /// The findings of the run not tied to any store (a misspelt header,
    /// a parse error), so the report lists every finding.
    pub other_findings: Vec<Finding>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Tool {
    pub name: &'static str,
    pub version: &'static str,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    /// A SQL table.
    SqlTable,
    /// A Redis key prefix.
    RedisPrefix,
    /// A config key or constant that sets a store's retention, when no
    /// table or prefix it belongs to is known.
    Setting,
}

impl Kind {
    pub fn describe(self) -> &'static str {
        match self {
            Kind::SqlTable => "SQL table",
            Kind::RedisPrefix => "Redis key prefix",
            Kind::Setting => "retention setting",
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct Guard {
    /// `present`, `missing`, `partial`, `split-by-partition`, `atomic-claim`
    /// (Redis `SET NX`), `none` (a Redis write without NX), `unknown`.
    pub state: &'static str,
    /// What guards it, as written (`PRIMARY KEY (key)`, `SET NX`).
    pub text: Option<String>,
    pub at: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct RetentionInfo {
    pub seconds: u64,
    /// `path:line` where the duration is written.
    pub at: String,
    /// `DELETE job`, `TTL`, `partition drop`, `column default`, `config setting`, `constant`.
    pub mechanism: String,
    /// How it was found.
    pub via: String,
    /// A bare number whose unit was read as seconds.
    pub unit_assumed: bool,
}

#[derive(Debug, Clone, Serialize)]
pub struct WindowInfo {
    pub covers: String,
    pub what: String,
    pub seconds: u64,
    pub source: String,
    pub read: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct CounterpartyInfo {
    pub id: String,
    pub name: String,
    /// `declared` (idemlint.toml) or the name it was inferred from.
    pub attributed_by: String,
    pub horizon_seconds: u64,
    pub margin_seconds: u64,
    pub floor_seconds: u64,
    /// Its published inbound windows, shortest first.
    pub windows: Vec<WindowInfo>,
}

#[derive(Debug, Clone, Serialize)]
pub struct RedisInfo {
    pub instance: String,
    pub at: String,
    /// The `maxmemory-policy` it runs with, as written or the provider's default.
    pub policy: Option<String>,
    /// `written` or `provider default` or `unknown`.
    pub policy_from: &'static str,
    /// `none`, `allkeys`, `volatile`, or `unknown`.
    pub evicts: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct Writer {
    pub function: String,
    pub at: String,
    /// `insert`, `upsert`, `SET NX`, ...
    pub what: &'static str,
}

#[derive(Debug, Clone, Serialize)]
pub struct SizeInfo {
    pub bytes_per_key: f64,
    /// Bytes at the replay floor for each write a second.
    pub bytes_at_floor_per_write_per_second: u64,
    /// Bytes at the floor at `--rate`.
    pub bytes_at_floor: Option<u64>,
    pub floor_days: f64,
    /// Columns whose size was assumed.
    pub assumed: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Finding {
    pub rule: crate::diagnostic::RuleId,
    pub severity: Severity,
    pub message: String,
    pub at: String,
    pub suppressed: bool,
    /// The suppression comment's reason.
    pub reason: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Store {
    pub name: String,
    pub kind: Kind,
    pub defined_at: Option<String>,
    /// `PostgreSQL table`, `partitioned by RANGE (created_at)`, `Redis`.
    pub backing: String,
    pub key_columns: Vec<String>,
    pub unique_guard: Guard,
    pub scope: Vec<String>,
    pub fingerprint: Option<String>,
    pub in_flight: Option<String>,
    pub retention: Option<RetentionInfo>,
    pub counterparty: Option<CounterpartyInfo>,
    /// Retention ÷ horizon, at most 1.
    pub coverage: Option<f64>,
    /// The horizon assumed when no counterparty is known.
    pub default_horizon_seconds: u64,
    pub redis: Vec<RedisInfo>,
    /// The functions that write it; `None` when no Rust code was read.
    pub writers: Option<Vec<Writer>>,
    pub size: Option<SizeInfo>,
    pub findings: Vec<Finding>,
    /// What `audit --save` read of this store (`inventory --live FILE`),
    /// beside what the code says.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub live: Vec<LiveLine>,
    /// How long the deployed store keeps keys as read (the oldest row's age,
    /// the longest remaining TTL), for the timeline.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub live_kept_seconds: Option<f64>,
}

/// One fact read from a deployed store, named by where it was read.
#[derive(Debug, Clone, Serialize)]
pub struct LiveLine {
    /// `guard`, `retention`, `size`, `expiry`, `keys`, `eviction`, `table`.
    pub what: &'static str,
    /// The database or instance (`postgres://host:port/db`).
    pub target: String,
    pub text: String,
}

impl Store {
    /// The horizon and floor the store is judged against: its
    /// counterparty's, else the default horizon plus the margin.
    pub fn floor_seconds(&self, margin: u64) -> u64 {
        match &self.counterparty {
            Some(c) => c.floor_seconds,
            None => self.default_horizon_seconds + margin,
        }
    }
}

/// What to show besides the model.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Show the findings suppression comments hide, with their reasons.
    pub suppressed: bool,
    pub rate: Option<f64>,
    pub revision: Option<Revision>,
}

struct Where<'a> {
    outcome: &'a Outcome,
    indexes: std::cell::RefCell<std::collections::HashMap<FileId, LineIndex>>,
}

impl Where<'_> {
    fn at(&self, file: FileId, offset: usize) -> String {
        let sources = &self.outcome.sources;
        let text = sources.text(file);
        let mut idx = self.indexes.borrow_mut();
        let index = idx.entry(file).or_insert_with(|| LineIndex::new(text));
        let lc = sources.get(file).line_col(index, offset);
        format!("{}:{}", sources.path(file), lc.line)
    }
}

fn bare(name: &str) -> String {
    name.rsplit('.')
        .next()
        .unwrap_or(name)
        .trim_matches('"')
        .to_ascii_lowercase()
}

fn mechanism(r: &Retention) -> String {
    let via = r.via.as_str();
    match &r.target {
        StoreRef::RedisPrefix(_) => "TTL".to_string(),
        StoreRef::ConfigPath(_) => "config setting".to_string(),
        StoreRef::Constant(_) => "constant".to_string(),
        StoreRef::Table(_) if via.contains("DELETE") => "DELETE job".to_string(),
        StoreRef::Table(_) if via.contains("partman") => "partition drop".to_string(),
        StoreRef::Table(_) if via.starts_with("default of") => "expiry column default".to_string(),
        StoreRef::Table(_) => via.to_string(),
    }
}

/// The shortest of several retentions is the one that loses keys first.
fn shortest<'a>(items: impl Iterator<Item = &'a Retention>) -> Option<&'a Retention> {
    items.min_by_key(|r| r.duration)
}

/// Build the inventory of a finished run.
pub fn build(outcome: &Outcome, opts: &Options) -> Inventory {
    let mut b = Builder::new(outcome, opts);
    let mut stores: Vec<Store> = b
        .outcome
        .model
        .schema
        .stores()
        .map(|(t, s)| b.table(t, &s))
        .collect();
    let instances: Vec<RedisInfo> = outcome
        .model
        .redis
        .instances
        .iter()
        .filter(|i| !i.links.is_empty())
        .map(|i| redis_info(&b.w, i))
        .collect();
    for (p, file, span, nx) in redis_prefixes(&outcome.model) {
        let entry = b.prefix(p, (file, span), nx, &instances);
        stores.push(entry);
    }
    stores.extend(b.settings(&instances));
    stores.sort_by(|a, b| (a.kind as u8, &a.name).cmp(&(b.kind as u8, &b.name)));
    let other_findings = other_findings(outcome, &b.w, opts, &stores);
    Inventory {
        version: VERSION,
        tool: Tool {
            name: "idemlint",
            version: env!("CARGO_PKG_VERSION"),
        },
        revision: opts.revision.clone(),
        rate: opts.rate,
        stores,
        other_findings,
    }
}

/// What building the inventory's stores shares: the run, the counterparty
/// catalogue, and which retention settings a store has taken.
struct Builder<'a> {
    outcome: &'a Outcome,
    opts: &'a Options,
    w: Where<'a>,
    catalogue: Catalogue,
    margin: u64,
    used: Vec<bool>,
}

impl<'a> Builder<'a> {
    fn new(outcome: &'a Outcome, opts: &'a Options) -> Self {
        let catalogue = Catalogue::with_config(&outcome.config);
        Builder {
            outcome,
            opts,
            w: Where {
                outcome,
                indexes: Default::default(),
            },
            margin: catalogue.margin.secs,
            catalogue,
            used: vec![false; outcome.model.retention.items.len()],
        }
    }

    /// The shortest retention whose target `pred` takes, each taken marked
    /// as used.
    fn retention_of(&mut self, pred: &dyn Fn(&StoreRef) -> bool) -> Option<&'a Retention> {
        let items = &self.outcome.model.retention.items;
        let mine: Vec<usize> = items
            .iter()
            .enumerate()
            .filter(|(_, r)| pred(&r.target))
            .map(|(i, _)| i)
            .collect();
        for i in &mine {
            self.used[*i] = true;
        }
        shortest(mine.iter().map(|i| &items[*i]))
    }

    /// An SQL table the schema holds as a store.
    fn table(&mut self, t: &Table, s: &crate::model::schema::Store) -> Store {
        let key = bare(&t.name);
        let r = self.retention_of(&|target| matches!(target, StoreRef::Table(n) if bare(n) == key));
        let attribution = match r.map(|r| &r.attribution) {
            Some(a) if *a != Attribution::Unknown => a.clone(),
            _ => attribute(
                &[
                    t.name.clone(),
                    self.outcome.sources.path(t.created.file).to_string(),
                ],
                &self.catalogue,
            ),
        };
        let guard = guard(&self.w, s.guarding(t));
        let backing = match &t.partition_by {
            Some((p, _)) => format!(
                "PostgreSQL table partitioned by {} ({})",
                format!("{:?}", p.method).to_ascii_uppercase(),
                p.columns.join(", ")
            ),
            None => "SQL table".to_string(),
        };
        let stores_k = knowledge::stores();
        let fingerprint = if s.digest {
            s.key.first().map(|k| format!("{k} (the key is a digest)"))
        } else {
            t.columns
                .iter()
                .find(|c| {
                    !c.name.starts_with("response") && stores_k.fingerprint_column.matches(&c.name)
                })
                .map(|c| c.name.clone())
        };
        let in_flight = t
            .columns
            .iter()
            .find(|c| {
                !s.key.contains(&c.name)
                    && !stores_k.response_column.matches(&c.name)
                    && stores_k.in_flight_column.matches(&c.name)
            })
            .map(|c| c.name.clone());
        let mut entry = Store {
            name: t.name.clone(),
            kind: Kind::SqlTable,
            defined_at: Some(self.w.at(t.created.file, t.created.span.start)),
            backing,
            key_columns: s.key.clone(),
            unique_guard: guard,
            scope: s.scope.clone(),
            fingerprint,
            in_flight,
            retention: r.map(|r| retention_info(&self.w, r)),
            counterparty: None,
            coverage: None,
            default_horizon_seconds: self.catalogue.default_horizon.secs,
            redis: Vec::new(),
            writers: writers(
                self.outcome,
                &self.w,
                &|k| matches!(k, StoreKey::Table(n) if bare(n) == key),
            ),
            size: None,
            findings: Vec::new(),
            live: Vec::new(),
            live_kept_seconds: None,
        };
        set_counterparty(&mut entry, &attribution, &self.catalogue);
        entry.size = size_info(t, &entry, self.margin, self.opts.rate);
        entry.findings = findings(
            self.outcome,
            &self.w,
            self.opts,
            &entry.name,
            &origins_of_table(t, r),
        );
        entry
    }

    /// A Redis key prefix, written by code at `at` (`nx`: claimed with
    /// `SET NX`) or given a retention there.
    fn prefix(
        &mut self,
        p: String,
        (file, span): (FileId, Span),
        nx: bool,
        instances: &[RedisInfo],
    ) -> Store {
        let r = self.retention_of(&|target| matches!(target, StoreRef::RedisPrefix(q) if *q == p));
        let attribution = match r.map(|r| &r.attribution) {
            Some(a) if *a != Attribution::Unknown => a.clone(),
            _ => attribute(
                &[p.clone(), self.outcome.sources.path(file).to_string()],
                &self.catalogue,
            ),
        };
        let mut entry = Store {
            name: format!("{p}*"),
            kind: Kind::RedisPrefix,
            defined_at: Some(self.w.at(file, span.start)),
            backing: "Redis".to_string(),
            key_columns: Vec::new(),
            unique_guard: if nx {
                Guard {
                    state: "atomic-claim",
                    text: Some("SET NX".to_string()),
                    at: None,
                }
            } else {
                Guard {
                    state: "none",
                    text: Some("plain SET, no NX".to_string()),
                    at: None,
                }
            },
            scope: Vec::new(),
            fingerprint: None,
            in_flight: None,
            retention: r.map(|r| retention_info(&self.w, r)),
            counterparty: None,
            coverage: None,
            default_horizon_seconds: self.catalogue.default_horizon.secs,
            redis: instances.to_vec(),
            writers: writers(
                self.outcome,
                &self.w,
                &|k| matches!(k, StoreKey::Redis(q) if q.starts_with(p.as_str())),
            ),
            size: None,
            findings: Vec::new(),
            live: Vec::new(),
            live_kept_seconds: None,
        };
        set_counterparty(&mut entry, &attribution, &self.catalogue);
        let mut origins = vec![(file, span)];
        if let Some(r) = r {
            origins.push((r.file, r.span));
        }
        entry.findings = findings(self.outcome, &self.w, self.opts, &p, &origins);
        entry
    }

    /// The retention settings tied to no table or prefix that are worth
    /// listing.
    fn settings(&mut self, instances: &[RedisInfo]) -> Vec<Store> {
        let mut stores = Vec::new();
        let items = &self.outcome.model.retention.items;
        for (i, r) in items.iter().enumerate() {
            if self.used[i] {
                continue;
            }
            if self.used[i] {
                continue;
            }
            let name = match &r.target {
                StoreRef::ConfigPath(n) | StoreRef::Constant(n) | StoreRef::Table(n) => n.clone(),
                StoreRef::RedisPrefix(_) => "Redis keys".to_string(),
            };
            let mut entry = Store {
                name: name.clone(),
                kind: match r.target {
                    StoreRef::Table(_) => Kind::SqlTable,
                    StoreRef::RedisPrefix(_) => Kind::RedisPrefix,
                    _ => Kind::Setting,
                },
                defined_at: None,
                backing: match r.target {
                    StoreRef::Table(_) => "SQL table (no migration defines it)".to_string(),
                    StoreRef::RedisPrefix(_) => "Redis".to_string(),
                    _ => "setting".to_string(),
                },
                key_columns: Vec::new(),
                unique_guard: Guard {
                    state: "unknown",
                    text: None,
                    at: None,
                },
                scope: Vec::new(),
                fingerprint: None,
                in_flight: None,
                retention: Some(retention_info(&self.w, r)),
                counterparty: None,
                coverage: None,
                default_horizon_seconds: self.catalogue.default_horizon.secs,
                redis: if matches!(r.target, StoreRef::RedisPrefix(_)) {
                    instances.to_vec()
                } else {
                    Vec::new()
                },
                writers: None,
                size: None,
                findings: Vec::new(),
                live: Vec::new(),
                live_kept_seconds: None,
            };
            set_counterparty(&mut entry, &r.attribution, &self.catalogue);
            let mut origins = vec![(r.file, r.span)];
            if let Some(s) = r.site {
                origins.push(s);
            }
            entry.findings = findings(self.outcome, &self.w, self.opts, &name, &origins);
            // NOTE: a setting no rule judged, although it is shorter than its
            // floor, is one the check set aside (test code, a timing table
            // keyed by test file names): not a store to list.
            let judged = !findings(
                self.outcome,
                &self.w,
                &Options {
                    suppressed: true,
                    ..self.opts.clone()
                },
                &name,
                &origins,
            )
            .is_empty();
            if judged || r.duration.secs >= entry.floor_seconds(self.margin) {
                stores.push(entry);
            }
        }
        stores
    }
}

/// How a table's unique guard stands.
fn guard(w: &Where<'_>, guarding: Guarding<'_>) -> Guard {
    match guarding {
        Guarding::Guarded(g) => Guard {
            state: "present",
            text: Some(guard_text(g)),
            at: Some(w.at(g.at.file, g.at.span.start)),
        },
        Guarding::Partial(g) => Guard {
            state: "partial",
            text: Some(guard_text(g)),
            at: Some(w.at(g.at.file, g.at.span.start)),
        },
        Guarding::SplitByPartition { guard: g, .. } => Guard {
            state: "split-by-partition",
            text: Some(guard_text(g)),
            at: Some(w.at(g.at.file, g.at.span.start)),
        },
        Guarding::Missing => Guard {
            state: "missing",
            text: None,
            at: None,
        },
    }
}

/// The Redis key prefixes of idempotency stores: written by code (with
/// whether a write claims with `NX`), or given a retention.
fn redis_prefixes(model: &crate::model::ProjectModel) -> Vec<(String, FileId, Span, bool)> {
    let mut prefixes: Vec<(String, FileId, Span, bool)> = Vec::new();
    for f in &model.files {
        for wr in &f.redis_writes {
            let Some(p) = &wr.key_prefix else { continue };
            if !knowledge::stores().is_store_prefix(p) {
                continue;
            }
            match prefixes.iter_mut().find(|(q, ..)| q == p) {
                Some(e) => e.3 |= wr.nx,
                None => prefixes.push((p.clone(), f.file, wr.span, wr.nx)),
            }
        }
    }
    for r in &model.retention.items {
        if let StoreRef::RedisPrefix(p) = &r.target {
            if !p.is_empty() && !prefixes.iter().any(|(q, ..)| q == p) {
                let at = r.site.unwrap_or((r.file, r.span));
                prefixes.push((p.clone(), at.0, at.1, false));
            }
        }
    }
    prefixes
}

/// The findings no store lists, in the run's order.
fn other_findings(
    outcome: &Outcome,
    w: &Where<'_>,
    opts: &Options,
    stores: &[Store],
) -> Vec<Finding> {
    let listed: std::collections::HashSet<(crate::diagnostic::RuleId, &str, &str)> = stores
        .iter()
        .flat_map(|s| &s.findings)
        .map(|f| (f.rule, f.at.as_str(), f.message.as_str()))
        .collect();
    let everything = outcome
        .diagnostics
        .iter()
        .filter(|d| d.rule != crate::diagnostic::RuleId::UnusedSuppression)
        .map(|d| (d, None))
        .chain(
            outcome
                .suppressed
                .iter()
                .filter(|_| opts.suppressed)
                .map(|s| (&s.diagnostic, Some(s.reason.clone()))),
        );
    everything
        .map(|(d, reason)| Finding {
            rule: d.rule,
            severity: d.severity,
            message: d.message.clone(),
            at: w.at(d.file, d.span.start),
            suppressed: reason.is_some(),
            reason: reason.flatten(),
        })
        .filter(|f| !listed.contains(&(f.rule, f.at.as_str(), f.message.as_str())))
        .collect()
}

fn guard_text(g: &crate::model::schema::Guard) -> String {
    use crate::facts::store::KeyKind;
    let what = match g.key.kind {
        KeyKind::PrimaryKey => "PRIMARY KEY".to_string(),
        KeyKind::Unique => format!("UNIQUE `{}`", g.key.name),
        KeyKind::Index => format!("index `{}`", g.key.name),
    };
    let mut s = format!("{what} ({})", g.key.parts_text());
    if let Some(p) = &g.key.predicate {
        s.push_str(&format!(" WHERE {p}"));
    }
    s
}

fn retention_info(w: &Where<'_>, r: &Retention) -> RetentionInfo {
    RetentionInfo {
        seconds: r.duration.secs,
        at: w.at(r.file, r.span.start),
        mechanism: mechanism(r),
        via: r.via.clone(),
        unit_assumed: r.unit_assumed,
    }
}

fn set_counterparty(entry: &mut Store, a: &Attribution, catalogue: &Catalogue) {
    let Some(cp) = a.id().and_then(|id| catalogue.get(id)) else {
        return;
    };
    // Keys this service sends are judged against how long the counterparty
    // keeps them, with no margin of ours on top; keys it receives against
    // the counterparty's replay horizon plus the margin.
    let outbound = matches!(a, Attribution::Outbound { .. });
    let (horizon, margin, direction) = if outbound {
        let Some((_, keeps)) = cp.outbound_key_retention() else {
            return;
        };
        (keeps, 0, Direction::Outbound)
    } else {
        let Some((_, horizon)) = cp.inbound_horizon() else {
            return;
        };
        (horizon, catalogue.margin.secs, Direction::Inbound)
    };
    let mut windows: Vec<WindowInfo> = cp
        .window
        .iter()
        .filter(|w| w.direction == direction)
        .filter_map(|w| {
            w.length().map(|d| WindowInfo {
                covers: w.covers.clone(),
                what: w.what.clone(),
                seconds: d.secs,
                source: w.source.clone(),
                read: w.read.clone(),
            })
        })
        .collect();
    windows.sort_by_key(|w| w.seconds);
    entry.counterparty = Some(CounterpartyInfo {
        id: cp.id.clone(),
        name: cp.name.clone(),
        attributed_by: match a {
            Attribution::Declared(_) => "declared in idemlint.toml".to_string(),
            Attribution::Named { name, .. } => format!("the name `{name}`"),
            Attribution::Writer(w) => format!(
                "the code that {} it: `{}`, which {}",
                if w.writes { "writes" } else { "reads" },
                w.path,
                w.why
            ),
            Attribution::Outbound { name, .. } => {
                format!("keys sent to it, by the name `{name}`")
            }
            Attribution::Unknown => String::new(),
        },
        horizon_seconds: horizon.secs,
        margin_seconds: margin,
        floor_seconds: horizon.secs.saturating_add(margin),
        windows,
    });
    entry.coverage = entry
        .retention
        .as_ref()
        .map(|r| (r.seconds as f64 / horizon.secs.max(1) as f64).min(1.0));
}

fn redis_info(w: &Where<'_>, i: &crate::model::redis::Instance) -> RedisInfo {
    let cat = knowledge::redis();
    let (policy, from) = match i.effective() {
        Some(s) => (Some(s.value.clone()), "written"),
        None if i.is_managed() && !i.opaque_group => match cat.provider(i.provider.id()) {
            Some(d) => (Some(d.default_policy.clone()), "provider default"),
            None => (None, "unknown"),
        },
        // Self-run Redis and Valkey ship with `noeviction`.
        None if !i.is_managed() => (Some("noeviction".to_string()), "Redis default"),
        None => (None, "unknown"),
    };
    let evicts = policy
        .as_deref()
        .and_then(|p| cat.policy(p))
        .map_or("unknown".to_string(), |p| p.class.clone());
    RedisInfo {
        instance: i.name.clone(),
        at: w.at(i.file, i.span.start),
        policy,
        policy_from: from,
        evicts,
    }
}

fn writers(
    outcome: &Outcome,
    w: &Where<'_>,
    mine: &dyn Fn(&StoreKey) -> bool,
) -> Option<Vec<Writer>> {
    let flows = &outcome.model.flows;
    if flows.functions.is_empty() {
        return None;
    }
    let mut out: Vec<Writer> = Vec::new();
    for tr in &flows.traces {
        for step in &tr.steps {
            let StepKind::Write { store, what, .. } = &step.kind else {
                continue;
            };
            if !mine(store) {
                continue;
            }
            // The function the write is in: the nearest one that starts
            // before it in its file (a function's span may be its name only).
            let f = flows
                .functions
                .iter()
                .filter(|f| f.file == step.file && f.span.start <= step.span.start)
                .max_by_key(|f| f.span.start)
                .or_else(|| flows.functions.get(tr.function));
            let Some(f) = f else { continue };
            let function = match &f.owner {
                Some(o) => format!("{o}::{}", f.name),
                None => f.name.clone(),
            };
            let at = w.at(step.file, step.span.start);
            if !out.iter().any(|x| x.function == function && x.at == at) {
                out.push(Writer { function, at, what });
            }
        }
    }
    out.sort_by(|a, b| a.at.cmp(&b.at));
    Some(out)
}

fn size_info(t: &Table, entry: &Store, margin: u64, rate: Option<f64>) -> Option<SizeInfo> {
    let e = crate::size::estimate(t, &Default::default()).ok()?;
    let floor_days = entry.floor_seconds(margin) as f64 / 86_400.0;
    Some(SizeInfo {
        bytes_per_key: e.bytes_per_key,
        bytes_at_floor_per_write_per_second: e.bytes_for(1.0, floor_days),
        bytes_at_floor: rate.map(|r| e.bytes_for(r, floor_days)),
        floor_days,
        assumed: e
            .assumptions()
            .into_iter()
            .map(|(c, b, why)| format!("{c} {b} bytes ({why})"))
            .collect(),
    })
}

/// Where a table's facts are written: its definition, its guards, its
/// retention.
fn origins_of_table(t: &Table, r: Option<&Retention>) -> Vec<(FileId, Span)> {
    let mut out = vec![(t.created.file, t.created.span)];
    for g in &t.guards {
        out.push((g.at.file, g.at.span));
        out.push((g.statement.file, g.statement.span));
    }
    for rm in &t.removed {
        out.push((rm.at.file, rm.at.span));
    }
    if let Some((p, f)) = &t.partition_by {
        out.push((*f, p.span));
    }
    if let Some(r) = r {
        out.push((r.file, r.span));
    }
    out
}

/// Whether a diagnostic is about the store named `name` (a table, or a
/// prefix without its `*`) whose facts are written at `origins`.
fn concerns(d: &Diagnostic, name: &str, origins: &[(FileId, Span)]) -> bool {
    let overlaps = |file: FileId, span: Span| {
        origins
            .iter()
            .any(|(f, s)| *f == file && s.start <= span.end && span.start <= s.end)
    };
    let named = [format!("`{name}`"), format!("`{name}*`")];
    let b = bare(name);
    let bare_named = format!("`{b}`");
    overlaps(d.file, d.span)
        || d.labels.iter().any(|l| overlaps(l.file, l.span))
        || named.iter().any(|n| d.message.contains(n.as_str()))
        || (!b.is_empty() && d.message.to_ascii_lowercase().contains(&bare_named))
}

fn findings(
    outcome: &Outcome,
    w: &Where<'_>,
    opts: &Options,
    name: &str,
    origins: &[(FileId, Span)],
) -> Vec<Finding> {
    let mut out: Vec<Finding> = outcome
        .diagnostics
        .iter()
        .filter(|d| {
            d.rule != crate::diagnostic::RuleId::UnusedSuppression && concerns(d, name, origins)
        })
        .map(|d| Finding {
            rule: d.rule,
            severity: d.severity,
            message: d.message.clone(),
            at: w.at(d.file, d.span.start),
            suppressed: false,
            reason: None,
        })
        .collect();
    if opts.suppressed {
        out.extend(
            outcome
                .suppressed
                .iter()
                .filter(|s| concerns(&s.diagnostic, name, origins))
                .map(|s| Finding {
                    rule: s.diagnostic.rule,
                    severity: s.diagnostic.severity,
                    message: s.diagnostic.message.clone(),
                    at: w.at(s.diagnostic.file, s.diagnostic.span.start),
                    suppressed: true,
                    reason: s.reason.clone(),
                }),
        );
    }
    out
}
