//! The Redis reader: read commands only (`INFO`, `CONFIG GET`, `SCAN ...
//! MATCH ... COUNT`, `PTTL`, `CLUSTER NODES`), never `KEYS`, and no key's
//! value. A store prefix is sampled under a cap of keys and a time limit, so
//! a keyspace of millions of keys is never walked whole.

use super::facts::{PrefixSample, RedisInstance};
use super::{Limits, Target};
use redis::{Connection, Value};
use std::collections::HashMap;
use std::time::Instant;

/// Keys a `SCAN` call is asked to look at.
const SCAN_COUNT: u64 = 1000;

/// Read one instance (every primary of a cluster). `Err` only when no
/// session could be opened or the server refuses every read (exit 2).
pub fn read(
    url: &str,
    prefixes: &[(String, String)],
    limits: &Limits,
) -> Result<RedisInstance, String> {
    let target = Target::parse(url);
    let mut con = connect(url, &target, limits)?;
    let mut inst = RedisInstance {
        target: target.display(),
        tls: target.scheme == "rediss",
        ..Default::default()
    };
    let info = read_info(&mut con).map_err(|e| {
        format!(
            "cannot read Redis at {} ({}): {}",
            target.host_port,
            target.display(),
            target.scrub(&e)
        )
    })?;
    inst.version = info.get("redis_version").cloned();
    inst.role = info.get("role").cloned();
    if inst.role.as_deref() == Some("slave") {
        inst.unreadable.push(
            "the server is a replica: its eviction counters are its own, and the primary's policy governs the keys"
                .into(),
        );
    }
    read_policy(&mut con, &info, &target, &mut inst);
    let mut nodes = Vec::new();
    if info.get("cluster_enabled").map(String::as_str) == Some("1") {
        match cluster_primaries(&mut con) {
            Ok(p) => {
                inst.cluster_primaries = p.clone();
                nodes = p;
            }
            Err(e) => inst.unreadable.push(format!(
                "cluster mode, but CLUSTER NODES could not be read ({}): only this node was read",
                target.scrub(&e)
            )),
        }
    }
    let (mut evicted, mut expired) = (num(&info, "evicted_keys"), num(&info, "expired_keys"));
    let mut samples: Vec<PrefixSample> = prefixes
        .iter()
        .map(|(pattern, store)| sample(&mut con, pattern, store, limits))
        .collect();
    // Every other primary of a cluster: its counters and its share of keys.
    for node in nodes.iter().filter(|n| **n != target.host_port) {
        let node_url = url.replacen(&target.host_port, node, 1);
        let mut other = match connect(&node_url, &target, limits) {
            Ok(c) => c,
            Err(e) => {
                inst.unreadable.push(format!("cluster primary {node}: {e}"));
                continue;
            }
        };
        if let Ok(i) = read_info(&mut other) {
            evicted = add(evicted, num(&i, "evicted_keys"));
            expired = add(expired, num(&i, "expired_keys"));
        }
        for (s, (pattern, store)) in samples.iter_mut().zip(prefixes) {
            merge(s, sample(&mut other, pattern, store, limits));
        }
    }
    inst.evicted_keys = evicted;
    inst.expired_keys = expired;
    inst.prefixes = samples;
    Ok(inst)
}

fn add(a: Option<u64>, b: Option<u64>) -> Option<u64> {
    match (a, b) {
        (Some(x), Some(y)) => Some(x + y),
        (x, y) => x.or(y),
    }
}

fn connect(url: &str, target: &Target, limits: &Limits) -> Result<Connection, String> {
    let place = if target.host_port.contains(':') {
        target.host_port.clone()
    } else {
        format!("{}:6379", target.host_port)
    };
    let fail = |e: redis::RedisError| {
        format!(
            "cannot connect to Redis at {place} ({}): {}",
            target.display(),
            target.scrub(&e.to_string())
        )
    };
    let client = redis::Client::open(url).map_err(|e| {
        format!(
            "{}: not a Redis URL: {}",
            target.display(),
            target.scrub(&e.to_string())
        )
    })?;
    let con = client
        .get_connection_with_timeout(limits.connect)
        .map_err(fail)?;
    con.set_read_timeout(Some(limits.statement)).map_err(fail)?;
    con.set_write_timeout(Some(limits.statement))
        .map_err(fail)?;
    Ok(con)
}

/// `INFO` as `field → value` (every section).
fn read_info(con: &mut Connection) -> Result<HashMap<String, String>, String> {
    let text: String = redis::cmd("INFO")
        .arg("everything")
        .query(con)
        .or_else(|_| redis::cmd("INFO").query(con))
        .map_err(|e| e.to_string())?;
    Ok(text
        .lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
        .collect())
}

fn num(info: &HashMap<String, String>, key: &str) -> Option<u64> {
    info.get(key).and_then(|v| v.parse().ok())
}

/// `maxmemory` and `maxmemory-policy` from `CONFIG GET`, else from `INFO
/// memory` (managed services disable `CONFIG`), saying which.
fn read_policy(
    con: &mut Connection,
    info: &HashMap<String, String>,
    target: &Target,
    inst: &mut RedisInstance,
) {
    let config = |con: &mut Connection, name: &str| -> Result<Option<String>, String> {
        let pairs: Vec<String> = redis::cmd("CONFIG")
            .arg("GET")
            .arg(name)
            .query(con)
            .map_err(|e| e.to_string())?;
        Ok(pairs.get(1).cloned())
    };
    match (config(con, "maxmemory-policy"), config(con, "maxmemory")) {
        (Ok(policy), Ok(max)) if policy.is_some() => {
            inst.policy = policy;
            inst.maxmemory = max.and_then(|m| m.parse().ok());
            inst.policy_from = Some("CONFIG GET".into());
        }
        (Err(e), _) | (_, Err(e)) => {
            inst.unreadable.push(format!(
                "CONFIG GET is refused ({}): maxmemory and its policy are read from INFO memory",
                target.scrub(e.trim())
            ));
            from_info(info, inst);
        }
        _ => from_info(info, inst),
    }
}

fn from_info(info: &HashMap<String, String>, inst: &mut RedisInstance) {
    inst.policy = info.get("maxmemory_policy").cloned();
    inst.maxmemory = num(info, "maxmemory");
    inst.policy_from = inst.policy.as_ref().map(|_| "INFO memory".to_string());
}

/// The `host:port` of every primary of a cluster (`CLUSTER NODES`).
fn cluster_primaries(con: &mut Connection) -> Result<Vec<String>, String> {
    let text: String = redis::cmd("CLUSTER")
        .arg("NODES")
        .query(con)
        .map_err(|e| e.to_string())?;
    let mut out: Vec<String> = text
        .lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            let flags = f.get(2)?;
            let primary = flags.split(',').any(|x| x == "master")
                && !flags.split(',').any(|x| x == "fail" || x == "noaddr");
            let addr = f.get(1)?.split('@').next()?;
            primary.then(|| addr.to_string())
        })
        .collect();
    out.sort();
    out.dedup();
    Ok(out)
}

/// Sample the keys matching `pattern` with `SCAN`, and `PTTL` each one,
/// until the cap, the time limit, or the end of the keyspace.
fn sample(con: &mut Connection, pattern: &str, store: &str, limits: &Limits) -> PrefixSample {
    let started = Instant::now();
    let mut s = PrefixSample {
        pattern: pattern.to_string(),
        store: store.to_string(),
        ..Default::default()
    };
    let mut cursor: u64 = 0;
    loop {
        let batch: Result<(u64, Vec<Vec<u8>>), _> = redis::cmd("SCAN")
            .arg(cursor)
            .arg("MATCH")
            .arg(pattern)
            .arg("COUNT")
            .arg(SCAN_COUNT)
            .query(con);
        let (next, keys) = match batch {
            Ok(b) => b,
            Err(e) => {
                s.stopped_by = Some(format!("SCAN failed: {e}"));
                return s;
            }
        };
        let room = limits.redis_keys.saturating_sub(s.sampled) as usize;
        let keys = &keys[..keys.len().min(room)];
        if !keys.is_empty() {
            let mut pipe = redis::pipe();
            for k in keys {
                pipe.cmd("PTTL").arg(k.as_slice());
            }
            match pipe.query::<Vec<Value>>(con) {
                Ok(ttls) => ttls.iter().for_each(|v| count_ttl(&mut s, v)),
                Err(e) => {
                    s.stopped_by = Some(format!("PTTL failed: {e}"));
                    return s;
                }
            }
        }
        cursor = next;
        if cursor == 0 {
            s.complete = true;
            return s;
        }
        if s.sampled >= limits.redis_keys {
            s.stopped_by = Some(format!("the cap of {} keys", limits.redis_keys));
            return s;
        }
        if started.elapsed() >= limits.redis_time {
            s.stopped_by = Some(format!(
                "the time limit of {} s",
                limits.redis_time.as_secs_f64()
            ));
            return s;
        }
    }
}

fn count_ttl(s: &mut PrefixSample, v: &Value) {
    let Value::Int(ms) = v else { return };
    match *ms {
        -2 => {} // gone since the SCAN
        -1 => {
            s.sampled += 1;
            s.no_ttl += 1;
        }
        ms => {
            s.sampled += 1;
            s.longest_ms = Some(s.longest_ms.map_or(ms, |l| l.max(ms)));
            s.shortest_ms = Some(s.shortest_ms.map_or(ms, |l| l.min(ms)));
        }
    }
}

fn merge(into: &mut PrefixSample, other: PrefixSample) {
    into.sampled += other.sampled;
    into.no_ttl += other.no_ttl;
    into.longest_ms = into.longest_ms.max(other.longest_ms);
    into.shortest_ms = match (into.shortest_ms, other.shortest_ms) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    };
    into.complete &= other.complete;
    if into.stopped_by.is_none() {
        into.stopped_by = other.stopped_by;
    }
}
