//! What a live audit read: plain data, saved by `audit --save` and read
//! back by `inventory --live`. It holds no password and no key value beyond
//! its store's prefix: targets are redacted URLs, Redis keys are counted and
//! timed, never listed.

use serde::{Deserialize, Serialize};

/// The record of one audit (`--save FILE`).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Record {
    pub version: u32,
    /// Seconds since the Unix epoch when the audit started.
    pub read_at: u64,
    pub postgres: Vec<PgDatabase>,
    pub redis: Vec<RedisInstance>,
}

/// One PostgreSQL database as read.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct PgDatabase {
    /// `postgres://host:port/db`, without user or password.
    pub target: String,
    pub server_version: String,
    /// A standby (`pg_is_in_recovery()`).
    pub standby: bool,
    pub extensions: Vec<String>,
    pub tables: Vec<LiveTable>,
    /// Model stores with no live table of their name.
    pub absent: Vec<String>,
    /// What could not be read, and why.
    pub unreadable: Vec<String>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct LiveColumn {
    pub name: String,
    #[serde(rename = "type")]
    pub ty: String,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct LiveIndex {
    pub name: String,
    /// `pg_get_indexdef`.
    pub definition: String,
    pub unique: bool,
    pub primary: bool,
    /// `indisvalid`: false after a failed `CREATE INDEX CONCURRENTLY`.
    pub valid: bool,
    /// `indisready`.
    pub ready: bool,
    /// Key columns in order (`(expression)` for an expression).
    pub columns: Vec<String>,
    /// A partial index's predicate (`pg_get_expr(indpred, indrelid)`).
    pub predicate: Option<String>,
}

impl LiveIndex {
    /// Guards every row: unique, valid, ready and not partial.
    pub fn guards(&self) -> bool {
        self.unique && self.valid && self.ready && self.predicate.is_none()
    }
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct LivePartitioning {
    /// `range`, `list` or `hash`.
    pub strategy: String,
    pub columns: Vec<String>,
    /// Partition name and bound (`FOR VALUES FROM (...) TO (...)`).
    pub partitions: Vec<(String, String)>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Oldest {
    pub column: String,
    /// Age of the oldest row read, in seconds; `None` for an empty table.
    pub age_seconds: Option<f64>,
    /// `index` (ORDER BY ... LIMIT 1 through an index leading with the
    /// column), `whole table` (a small table) or `sample of N rows`.
    pub method: String,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct LiveSize {
    pub table_bytes: i64,
    pub index_bytes: i64,
    pub toast_bytes: i64,
    pub live_tuples: Option<i64>,
    pub dead_tuples: Option<i64>,
    pub last_vacuum: Option<String>,
    pub last_autovacuum: Option<String>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct CronJob {
    pub jobid: i64,
    pub schedule: String,
    pub command: String,
    pub active: bool,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct LiveTable {
    /// `schema.table`.
    pub name: String,
    /// The model's store of this name; `None` for a live table with a
    /// store's name that no migration read defines.
    pub store: Option<String>,
    pub columns: Vec<LiveColumn>,
    pub indexes: Vec<LiveIndex>,
    pub partitioning: Option<LivePartitioning>,
    pub oldest: Option<Oldest>,
    pub size: Option<LiveSize>,
    pub cron_jobs: Vec<CronJob>,
    /// pg_partman's `part_config` row, summarised.
    pub partman: Option<String>,
    pub unreadable: Vec<String>,
}

impl LiveTable {
    pub fn bare_name(&self) -> &str {
        self.name.rsplit('.').next().unwrap_or(&self.name)
    }
}

/// One Redis instance (or cluster) as read.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct RedisInstance {
    /// `redis://host:port` or `rediss://host:port`, without credentials.
    pub target: String,
    pub tls: bool,
    pub version: Option<String>,
    /// `master` or `slave` (`INFO replication`).
    pub role: Option<String>,
    /// Cluster primaries read (`host:port`), empty outside cluster mode.
    pub cluster_primaries: Vec<String>,
    pub maxmemory: Option<u64>,
    pub policy: Option<String>,
    /// `CONFIG GET` or `INFO memory`.
    pub policy_from: Option<String>,
    pub evicted_keys: Option<u64>,
    pub expired_keys: Option<u64>,
    pub prefixes: Vec<PrefixSample>,
    pub unreadable: Vec<String>,
}

/// The keys under one store prefix, sampled with `SCAN ... MATCH`.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct PrefixSample {
    /// The `MATCH` pattern.
    pub pattern: String,
    /// The model's store (its prefix as the code writes it).
    pub store: String,
    pub sampled: u64,
    /// Keys with no TTL (`PTTL` -1).
    pub no_ttl: u64,
    /// Longest and shortest remaining TTL among the keys that have one, ms.
    pub longest_ms: Option<i64>,
    pub shortest_ms: Option<i64>,
    /// The SCAN went round the whole keyspace.
    pub complete: bool,
    /// Why the sample stopped early (`the cap of 1000 keys`, `the time limit`).
    pub stopped_by: Option<String>,
}
