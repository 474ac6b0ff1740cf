//! The live facts judged by the rules `check` runs (`missing-unique-key-
//! constraint`, `unique-guard-split-by-partition`, `ttl-below-replay-
//! horizon`, `evicting-key-store`) and by `live-schema-drift`. A live finding
//! points into a text that describes the object read (one line per table,
//! index, prefix), filed under the object's redacted URL, so every renderer
//! shows it as it shows a file; the migration or code it contradicts is a
//! label.

use super::facts::{LiveIndex, LiveTable, PgDatabase, PrefixSample, RedisInstance};
use super::human_duration;
use crate::diagnostic::{Diagnostic, RuleId, Severity};
use crate::facts::store::KeyKind;
use crate::inventory::{Inventory, Kind, Store as InvStore};
use crate::model::schema::{Guarding, Table};
use crate::model::ProjectModel;
use crate::source::{FileId, FileKind, SourceFile, SourceMap, Span};
use std::collections::HashMap;

pub const DRIFT: RuleId = RuleId::LiveSchemaDrift;

/// The text of one live object (a database or an instance), built line by
/// line, with the span of each named line.
pub struct Described {
    pub path: String,
    text: String,
    spans: HashMap<String, Span>,
}

impl Described {
    pub fn new(path: &str, title: &str) -> Self {
        Described {
            path: path.to_string(),
            text: format!("{title}\n"),
            spans: HashMap::new(),
        }
    }

    pub fn line(&mut self, id: &str, text: &str) {
        let start = self.text.len();
        self.text.push_str(text.trim_end());
        self.spans
            .insert(id.to_string(), Span::new(start, self.text.len()));
        self.text.push('\n');
    }

    fn span(&self, id: &str) -> Span {
        self.spans.get(id).copied().unwrap_or(Span::new(0, 0))
    }

    pub fn text(&self) -> &str {
        &self.text
    }
}

/// What the judges read besides the live facts.
pub struct Context<'a> {
    pub model: &'a ProjectModel,
    pub inventory: &'a Inventory,
    pub margin: u64,
}

impl Context<'_> {
    fn store(&self, name: &str, kind: Kind) -> Option<&InvStore> {
        self.inventory
            .stores
            .iter()
            .find(|s| s.kind == kind && s.name == name)
    }

    /// (horizon, floor, counterparty's name) of a store.
    fn window(&self, s: &InvStore) -> (u64, u64, String) {
        match &s.counterparty {
            Some(c) => (c.horizon_seconds, c.floor_seconds, c.name.clone()),
            None => (
                s.default_horizon_seconds,
                s.default_horizon_seconds + self.margin,
                "the default horizon".to_string(),
            ),
        }
    }
}

/// Add `d` to the sources and return its file id.
pub fn file(sources: &mut SourceMap, d: &Described) -> FileId {
    sources.files.push(SourceFile::new(
        d.path.clone(),
        FileKind::Text,
        d.text.clone(),
    ));
    sources.files.len() - 1
}

fn index_line(i: &LiveIndex) -> String {
    let mut s = format!("index {}: {}", i.name, i.definition);
    if !i.valid {
        s.push_str("  -- INVALID (indisvalid = false)");
    } else if !i.ready {
        s.push_str("  -- not ready (indisready = false)");
    }
    s
}

/// Describe a database: one line per table, index and reading.
pub fn describe_pg(db: &PgDatabase) -> Described {
    let mut d = Described::new(
        &db.target,
        &format!("-- live schema, PostgreSQL {}", db.server_version),
    );
    for t in &db.tables {
        let cols: Vec<String> = t
            .columns
            .iter()
            .map(|c| format!("{} {}", c.name, c.ty))
            .collect();
        let mut line = format!("table {} ({})", t.name, cols.join(", "));
        if let Some(p) = &t.partitioning {
            line.push_str(&format!(
                " PARTITION BY {} ({}): {} partitions",
                p.strategy.to_ascii_uppercase(),
                p.columns.join(", "),
                p.partitions.len()
            ));
        }
        d.line(&format!("table:{}", t.name), &line);
        for i in &t.indexes {
            d.line(&format!("index:{}:{}", t.name, i.name), &index_line(i));
        }
        if let Some(o) = &t.oldest {
            let age = o.age_seconds.map_or("no rows".to_string(), |a| {
                format!("{} old", human_duration(a))
            });
            d.line(
                &format!("oldest:{}", t.name),
                &format!(
                    "oldest row of {} by {}: {} (read {})",
                    t.name, o.column, age, o.method
                ),
            );
        }
    }
    d
}

/// Describe an instance: its policy, counters and each prefix sampled.
pub fn describe_redis(r: &RedisInstance) -> Described {
    let mut d = Described::new(
        &r.target,
        &format!(
            "# live Redis {}{}",
            r.version.as_deref().unwrap_or("(version unknown)"),
            r.role
                .as_deref()
                .map(|x| format!(", role {x}"))
                .unwrap_or_default()
        ),
    );
    d.line(
        "policy",
        &format!(
            "maxmemory-policy {} maxmemory {} (from {})",
            r.policy.as_deref().unwrap_or("unknown"),
            r.maxmemory.map_or("unknown".to_string(), |m| m.to_string()),
            r.policy_from.as_deref().unwrap_or("nowhere: not readable")
        ),
    );
    d.line(
        "stats",
        &format!(
            "evicted_keys {} expired_keys {}",
            r.evicted_keys.map_or("unknown".into(), |n| n.to_string()),
            r.expired_keys.map_or("unknown".into(), |n| n.to_string())
        ),
    );
    for p in &r.prefixes {
        d.line(&format!("prefix:{}", p.pattern), &prefix_line(p));
    }
    d
}

pub fn prefix_line(p: &PrefixSample) -> String {
    let ttl = |ms: Option<i64>| ms.map_or("-".to_string(), |m| human_duration(m as f64 / 1000.0));
    format!(
        "prefix {}: {} keys sampled{}, {} without TTL, remaining TTL longest {} shortest {}",
        p.pattern,
        p.sampled,
        if p.complete {
            " (the whole keyspace scanned)".to_string()
        } else {
            format!(
                " (stopped by {})",
                p.stopped_by.as_deref().unwrap_or("an error")
            )
        },
        p.no_ttl,
        ttl(p.longest_ms),
        ttl(p.shortest_ms)
    )
}

/// Whether a live unique index guards `key` in `t`, and how.
enum LiveGuarding<'a> {
    Guarded,
    Split(&'a LiveIndex, Vec<String>),
    Partial(&'a LiveIndex),
    Invalid(&'a LiveIndex),
    Missing,
}

fn live_guarding<'a>(t: &'a LiveTable, key: &[String]) -> LiveGuarding<'a> {
    let is_time = |c: &str| {
        t.columns
            .iter()
            .find(|x| x.name == c)
            .is_some_and(|x| x.ty.contains("time") || x.ty == "date")
    };
    let parts: Vec<String> = t
        .partitioning
        .as_ref()
        .map(|p| p.columns.clone())
        .unwrap_or_default();
    let (mut split, mut partial, mut invalid) = (None, None, None);
    for i in t.indexes.iter().filter(|i| i.unique) {
        if !key.iter().all(|k| i.columns.contains(k)) {
            continue;
        }
        let extra: Vec<String> = i
            .columns
            .iter()
            .filter(|c| !key.contains(c) && is_time(c))
            .cloned()
            .collect();
        if !i.valid || !i.ready {
            invalid.get_or_insert(i);
        } else if i.predicate.is_some() {
            partial.get_or_insert(i);
        } else if extra.is_empty() {
            return LiveGuarding::Guarded;
        } else if extra.iter().all(|c| parts.contains(c)) {
            split.get_or_insert((i, extra));
        }
    }
    if let Some((i, cols)) = split {
        return LiveGuarding::Split(i, cols);
    }
    match (invalid, partial) {
        (Some(i), _) => LiveGuarding::Invalid(i),
        (None, Some(i)) => LiveGuarding::Partial(i),
        _ => LiveGuarding::Missing,
    }
}

/// Every finding on one database.
pub fn judge_pg(
    cx: &Context<'_>,
    db: &PgDatabase,
    d: &Described,
    file: FileId,
    out: &mut Vec<Diagnostic>,
) {
    for t in &db.tables {
        let at = d.span(&format!("table:{}", t.name));
        let Some(name) = &t.store else {
            out.push(
                Diagnostic::new(
                    DRIFT,
                    Severity::Note,
                    file,
                    at,
                    format!("live table `{}` has a store's name but no migration read creates it", t.name),
                )
                .with_help("add its migration to the repository (or audit the repository that owns it), so the code and the database can be compared"),
            );
            continue;
        };
        let Some(table) = cx.model.schema.find_table(name) else {
            continue;
        };
        let Some(store) = cx.model.schema.store(table) else {
            continue;
        };
        guard(t, table, &store, d, file, out);
        drift(t, table, d, file, out);
        if let Some(inv) = cx.store(name, Kind::SqlTable) {
            retention(cx, t, inv, d, file, out);
        }
    }
    if db.tables.iter().any(|t| t.store.is_some()) {
        for name in &db.absent {
            let Some(table) = cx.model.schema.find_table(name) else {
                continue;
            };
            out.push(
                Diagnostic::new(
                    DRIFT,
                    Severity::Warning,
                    file,
                    Span::new(0, 0),
                    format!("the migrations create store `{name}`, which the live database does not have"),
                )
                .with_label(table.created.file, table.created.span, "created here")
                .with_help("apply the migration, or check that the audit reads the database the code writes to"),
            );
        }
    }
}

fn guard(
    t: &LiveTable,
    table: &Table,
    store: &crate::model::schema::Store,
    d: &Described,
    file: FileId,
    out: &mut Vec<Diagnostic>,
) {
    if store.key.is_empty() {
        return;
    }
    let key = store.key.join(", ");
    let code_guard = match store.guarding(table) {
        Guarding::Guarded(g) | Guarding::Partial(g) => Some(g),
        Guarding::SplitByPartition { guard, .. } => Some(guard),
        Guarding::Missing => None,
    };
    let labelled = |mut diag: Diagnostic| {
        if let Some(g) = code_guard {
            diag = diag.with_label(g.at.file, g.at.span, "the migrations' guard");
        } else {
            diag = diag.with_label(
                table.created.file,
                table.created.span,
                "the migrations' table",
            );
        }
        diag
    };
    let sev = |s| store.severity(s);
    let table_at = d.span(&format!("table:{}", t.name));
    let diag = match live_guarding(t, &store.key) {
        LiveGuarding::Guarded => return,
        LiveGuarding::Invalid(i) => Diagnostic::new(
            RuleId::MissingUniqueKeyConstraint,
            sev(Severity::Error),
            file,
            d.span(&format!("index:{}:{}", t.name, i.name)),
            format!("live unique index `{}` on `{}` is invalid: it guards nothing", i.name, t.name),
        )
        .with_note("PostgreSQL marks an index invalid when `CREATE INDEX CONCURRENTLY` fails (a duplicate key, a cancelled build): it is kept up to date but never enforces uniqueness")
        .with_help(format!("rebuild it: `DROP INDEX CONCURRENTLY {0}; CREATE UNIQUE INDEX CONCURRENTLY {0} ON {1} ({2});` after removing the duplicates", i.name, t.name, i.columns.join(", "))),
        LiveGuarding::Partial(i) => Diagnostic::new(
            RuleId::MissingUniqueKeyConstraint,
            sev(Severity::Warning),
            file,
            d.span(&format!("index:{}:{}", t.name, i.name)),
            format!("live unique index `{}` on `{}` is partial: it guards `{key}` only where {}", i.name, t.name, i.predicate.as_deref().unwrap_or("")),
        )
        .with_help("a claim outside the predicate is not guarded: make the index cover every row"),
        LiveGuarding::Split(i, cols) => Diagnostic::new(
            RuleId::UniqueGuardSplitByPartition,
            sev(Severity::Error),
            file,
            d.span(&format!("index:{}:{}", t.name, i.name)),
            format!("live unique index `{}` on partitioned `{}` includes the partition column {}", i.name, t.name, cols.iter().map(|c| format!("`{c}`")).collect::<Vec<_>>().join(", ")),
        )
        .with_note("each partition keeps its own index: a replay whose new timestamp lands in another partition inserts a second row")
        .with_help(format!("guard `{key}` in a table that is not partitioned by time (a claim table with a plain UNIQUE ({key}))")),
        LiveGuarding::Missing => Diagnostic::new(
            RuleId::MissingUniqueKeyConstraint,
            sev(Severity::Error),
            file,
            table_at,
            format!("live table `{}` has no unique guard on `{key}`", t.name),
        )
        .with_help(format!("`CREATE UNIQUE INDEX CONCURRENTLY ON {} ({key});` and check that it is valid afterwards", t.name)),
    };
    out.push(labelled(diag));
}

/// Guards and columns the migrations create that the live table lacks, and
/// the reverse.
fn drift(t: &LiveTable, table: &Table, d: &Described, file: FileId, out: &mut Vec<Diagnostic>) {
    let table_at = d.span(&format!("table:{}", t.name));
    let set = |v: &[String]| {
        let mut s: Vec<String> = v.iter().map(|c| c.to_ascii_lowercase()).collect();
        s.sort();
        s
    };
    let live_unique: Vec<(&LiveIndex, Vec<String>)> = t
        .indexes
        .iter()
        .filter(|i| i.unique)
        .map(|i| (i, set(&i.columns)))
        .collect();
    let mut code_sets = Vec::new();
    for g in table.guards.iter().filter(|g| g.key.kind != KeyKind::Index) {
        let cols: Vec<String> = g
            .key
            .parts
            .iter()
            .flat_map(|p| p.columns())
            .map(str::to_string)
            .collect();
        let cols = set(&cols);
        code_sets.push(cols.clone());
        if !live_unique.iter().any(|(_, s)| *s == cols) {
            out.push(
                Diagnostic::new(
                    DRIFT,
                    Severity::Warning,
                    file,
                    table_at,
                    format!(
                        "the migrations guard `{}` with `{}` ({}), which the live table lacks",
                        t.name,
                        g.key.name,
                        g.key.parts_text()
                    ),
                )
                .with_label(g.at.file, g.at.span, "created here")
                .with_help(
                    "a migration that did not run, or an index dropped by hand: create it again",
                ),
            );
        }
    }
    for (i, s) in &live_unique {
        if !code_sets.contains(s) {
            out.push(
                Diagnostic::new(
                    DRIFT,
                    Severity::Note,
                    file,
                    d.span(&format!("index:{}:{}", t.name, i.name)),
                    format!(
                        "live unique index `{}` on `{}` is in no migration read",
                        i.name, t.name
                    ),
                )
                .with_label(
                    table.created.file,
                    table.created.span,
                    "the migrations' table",
                )
                .with_help("add it to a migration, so a fresh database gets the same guard"),
            );
        }
    }
    for c in &table.columns {
        if !t
            .columns
            .iter()
            .any(|l| l.name.eq_ignore_ascii_case(&c.name))
        {
            out.push(
                Diagnostic::new(
                    DRIFT,
                    Severity::Warning,
                    file,
                    table_at,
                    format!(
                        "the migrations give `{}` a column `{}` that the live table lacks",
                        t.name, c.name
                    ),
                )
                .with_label(
                    table.created.file,
                    table.created.span,
                    "the migrations' table",
                ),
            );
        }
    }
    for c in &t.columns {
        if table.column(&c.name.to_ascii_lowercase()).is_none() {
            out.push(
                Diagnostic::new(
                    DRIFT,
                    Severity::Note,
                    file,
                    table_at,
                    format!(
                        "live column `{}.{}` is in no migration read",
                        t.name, c.name
                    ),
                )
                .with_label(
                    table.created.file,
                    table.created.span,
                    "the migrations' table",
                ),
            );
        }
    }
}

fn coverage(kept: f64, horizon: u64) -> String {
    format!("{:.1}%", (kept / horizon.max(1) as f64 * 100.0).min(100.0))
}

/// The oldest row against the counterparty's horizon and floor.
fn retention(
    cx: &Context<'_>,
    t: &LiveTable,
    inv: &InvStore,
    d: &Described,
    file: FileId,
    out: &mut Vec<Diagnostic>,
) {
    let Some(o) = &t.oldest else { return };
    let Some(age) = o.age_seconds else { return };
    let (horizon, floor, who) = cx.window(inv);
    if age >= floor as f64 {
        return;
    }
    let mut diag = Diagnostic::new(
        RuleId::TtlBelowReplayHorizon,
        Severity::Warning,
        file,
        d.span(&format!("oldest:{}", t.name)),
        format!(
            "the oldest row of live `{}` is {} old, below {}'s replay floor of {}",
            t.name,
            human_duration(age),
            who,
            human_duration(floor as f64)
        ),
    )
    .with_note(format!(
        "if rows are removed at that age, the store covers {} of the {} replay window; a table younger than the window also shows this, hence a warning",
        coverage(age, horizon),
        human_duration(horizon as f64)
    ))
    .with_help(format!("keep keys at least {} (the replay window plus the margin)", human_duration(floor as f64)));
    if let Some(r) = &inv.retention {
        diag = diag.with_note(format!(
            "the code's retention is {} ({} at {})",
            human_duration(r.seconds as f64),
            r.mechanism,
            r.at
        ));
    }
    out.push(diag);
}

/// Every finding on one Redis instance.
pub fn judge_redis(
    cx: &Context<'_>,
    r: &RedisInstance,
    d: &Described,
    file: FileId,
    out: &mut Vec<Diagnostic>,
) {
    let holds_keys = r.prefixes.iter().any(|p| p.sampled > 0);
    if let Some(policy) = &r.policy {
        let sev = if policy.starts_with("allkeys-") {
            Some(Severity::Error)
        } else if policy.starts_with("volatile-") {
            Some(Severity::Warning)
        } else {
            None
        };
        if let (Some(sev), true) = (sev, holds_keys || !r.prefixes.is_empty()) {
            let evicted = r.evicted_keys.unwrap_or(0);
            let mut diag = Diagnostic::new(
                RuleId::EvictingKeyStore,
                sev,
                file,
                d.span("policy"),
                if evicted > 0 {
                    format!("live Redis {} evicts under `{policy}` and has already evicted {evicted} keys", r.target)
                } else {
                    format!("live Redis {} holds idempotency keys under the evicting policy `{policy}`", r.target)
                },
            )
            .with_help("set `maxmemory-policy noeviction` on the instance that holds keys, or keep them in PostgreSQL");
            if evicted > 0 {
                diag = diag.with_label(
                    file,
                    d.span("stats"),
                    "evictions already happened: keys are gone, not at risk",
                );
            }
            if let Some((f, s)) = code_policy(cx) {
                diag = diag.with_label(f, s, "the code's config");
            }
            out.push(diag);
        }
    }
    for p in &r.prefixes {
        ttl(cx, p, d, file, out);
    }
}

/// The first policy the code's configs set for an instance.
fn code_policy(cx: &Context<'_>) -> Option<(FileId, Span)> {
    cx.model
        .redis
        .instances
        .iter()
        .find_map(|i| i.effective().map(|s| (s.file, s.span)))
}

fn ttl(cx: &Context<'_>, p: &PrefixSample, d: &Described, file: FileId, out: &mut Vec<Diagnostic>) {
    let Some(longest) = p.longest_ms else { return };
    let Some(inv) = cx.store(&p.store, Kind::RedisPrefix) else {
        return;
    };
    let (horizon, floor, who) = cx.window(inv);
    let kept = longest as f64 / 1000.0;
    if kept >= floor as f64 {
        return;
    }
    let sev = if kept < horizon as f64 {
        Severity::Error
    } else {
        Severity::Warning
    };
    let mut diag = Diagnostic::new(
        RuleId::TtlBelowReplayHorizon,
        sev,
        file,
        d.span(&format!("prefix:{}", p.pattern)),
        format!(
            "keys under `{}` live at most about {}: below {}'s replay floor of {}",
            p.pattern,
            human_duration(kept),
            who,
            human_duration(floor as f64)
        ),
    )
    .with_note(format!(
        "the longest remaining TTL of {} sampled keys is {}, a lower bound on the TTL written; it covers {} of the {} replay window",
        p.sampled,
        human_duration(kept),
        coverage(kept, horizon),
        human_duration(horizon as f64)
    ))
    .with_help(format!("write the keys with a TTL of at least {}", human_duration(floor as f64)));
    if let Some(r) = &inv.retention {
        diag = diag.with_note(format!(
            "the code's TTL is {} ({})",
            human_duration(r.seconds as f64),
            r.at
        ));
    }
    out.push(diag);
}
