//! Redis and cache writes in Python and the retention they give a store:
//! redis-py and `redis.asyncio` (`set(name, value, ex=, px=, nx=)`,
//! `setex(name, time, value)`, `psetex`, `setnx`, `expire`, `pexpire`;
//! `ex` and `time` are seconds or a `timedelta`), and Django's cache API
//! (`cache.set(key, value, timeout)`, `cache.add(..)`: set only if absent,
//! `cache.touch(key, timeout)`; seconds). A receiver counts when its name
//! says Redis or cache (`r`, `redis_client`, `self.redis`, `cache`,
//! `caches["default"]`) or the module binds it to a client's constructor
//! (`redis.Redis(..)`, `Redis.from_url(..)`, `get_redis_connection()`);
//! never any `.set`.
//! Not here: keys and TTLs passed in from another function, a cache's
//! default timeout (Django's `CACHES[..]["TIMEOUT"]`), dogpile and
//! cachetools regions.

use super::syntax::{arg, duration_expr, is_true, kwarg, path_of, span_of, SECS};
use crate::facts::retention::ConstExpr;
use crate::source::Span;
use ruff_python_ast::{Expr, ExprCall};

const MILLIS: u64 = 1;

/// What a receiver is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Client {
    /// redis-py, `redis.asyncio`, django-redis's raw connection.
    Redis,
    /// Django's cache API (<https://docs.djangoproject.com/en/5.1/topics/cache/#basic-usage>).
    Cache,
}

/// Constructors and factories (the last name of the called path) that
/// build a Redis client: redis-py's `Redis`, `StrictRedis`, `from_url`
/// (<https://redis.readthedocs.io/en/stable/connections.html>),
/// django-redis's `get_redis_connection`.
const BUILDERS: &[&str] = &[
    "Redis",
    "StrictRedis",
    "RedisCluster",
    "from_url",
    "get_redis_connection",
];

/// The client an expression builds.
pub fn built(e: &Expr) -> Option<Client> {
    let e = match e {
        Expr::Await(a) => &a.value,
        e => e,
    };
    let Expr::Call(c) = e else { return None };
    let p = path_of(&c.func)?;
    let last = p.last()?;
    let redisy = p.iter().any(|s| s.to_ascii_lowercase().contains("redis"));
    (BUILDERS.contains(&last.as_str()) && (redisy || last != "from_url")).then_some(Client::Redis)
}

/// What a receiver's last name says it is.
pub fn by_name(last: &str) -> Option<Client> {
    let lower = last.to_ascii_lowercase();
    if lower == "cache" || lower == "caches" || lower.ends_with("_cache") {
        Some(Client::Cache)
    } else if lower.contains("redis") || lower.contains("valkey") || lower == "r" {
        Some(Client::Redis)
    } else {
        None
    }
}

/// A write as read from its call: key, TTL expression and span, unit, NX.
pub struct Read<'a> {
    pub key: &'a Expr,
    pub ttl: Option<(ConstExpr, Span, u64)>,
    pub nx: bool,
}

/// Read `c`, a call of `method` on a receiver that is `client`.
pub fn read<'a>(c: &'a ExprCall, method: &str, client: Client) -> Option<Read<'a>> {
    let ttl = |e: &Expr, unit: u64| Some((duration_expr(e), span_of(e), unit));
    let key = kwarg(c, "name")
        .or_else(|| kwarg(c, "key"))
        .or_else(|| arg(c, 0))?;
    let (ttl, nx) = match (client, method) {
        (Client::Redis, "set") => {
            let t = kwarg(c, "ex")
                .and_then(|e| ttl(e, SECS))
                .or_else(|| kwarg(c, "px").and_then(|e| ttl(e, MILLIS)))
                // `set(name, value, ex, px, nx)` positionally.
                .or_else(|| arg(c, 2).and_then(|e| ttl(e, SECS)));
            let nx = kwarg(c, "nx").is_some_and(is_true) || arg(c, 4).is_some_and(is_true);
            (t, nx)
        }
        (Client::Redis, "setex") => (
            kwarg(c, "time").or(arg(c, 1)).and_then(|e| ttl(e, SECS)),
            false,
        ),
        (Client::Redis, "psetex") => (
            kwarg(c, "time_ms")
                .or(arg(c, 1))
                .and_then(|e| ttl(e, MILLIS)),
            false,
        ),
        (Client::Redis, "expire") => (
            kwarg(c, "time").or(arg(c, 1)).and_then(|e| ttl(e, SECS)),
            false,
        ),
        (Client::Redis, "pexpire") => (
            kwarg(c, "time").or(arg(c, 1)).and_then(|e| ttl(e, MILLIS)),
            false,
        ),
        (Client::Redis, "setnx") => (None, true),
        (Client::Cache, "set" | "add") => {
            let t = kwarg(c, "timeout").or(arg(c, 2));
            // `timeout=None` keeps the key for ever.
            let t = t.filter(|e| !matches!(e, Expr::NoneLiteral(_)));
            (t.and_then(|e| ttl(e, SECS)), method == "add")
        }
        (Client::Cache, "touch") => (
            kwarg(c, "timeout").or(arg(c, 1)).and_then(|e| ttl(e, SECS)),
            false,
        ),
        _ => return None,
    };
    Some(Read { key, ttl, nx })
}
