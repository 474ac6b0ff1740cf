//! `inventory --live FILE`: what an audit read (its `--save` record), as
//! lines beside each store's code facts.

use super::facts::{LiveSize, LiveTable, PgDatabase, Record, RedisInstance};
use super::human_duration;
use crate::inventory::{Inventory, Kind, LiveLine, Store};
use crate::size::human_bytes;

/// Read a record written by `audit --save`.
pub fn load(path: &std::path::Path) -> Result<Record, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| {
        format!(
            "{}: not a record written by `idemlint audit --save`: {e}",
            path.display()
        )
    })
}

/// Add the live lines of `record` to every store it read.
pub fn attach(inv: &mut Inventory, record: &Record) {
    for s in &mut inv.stores {
        match s.kind {
            Kind::SqlTable => {
                for db in &record.postgres {
                    table_lines(s, db);
                }
            }
            Kind::RedisPrefix => {
                for r in &record.redis {
                    prefix_lines(s, r);
                }
            }
            Kind::Setting => {}
        }
    }
}

fn push(s: &mut Store, what: &'static str, target: &str, text: String) {
    s.live.push(LiveLine {
        what,
        target: target.to_string(),
        text,
    });
}

fn guard_text(t: &LiveTable) -> String {
    let unique: Vec<String> = t
        .indexes
        .iter()
        .filter(|i| i.unique)
        .map(|i| {
            let mut x = format!("`{}` ({})", i.name, i.columns.join(", "));
            if let Some(p) = &i.predicate {
                x.push_str(&format!(" WHERE {p}"));
            }
            if !i.valid {
                x.push_str(" INVALID");
            } else if !i.ready {
                x.push_str(" not ready");
            }
            x
        })
        .collect();
    if unique.is_empty() {
        "no unique index".to_string()
    } else {
        unique.join("; ")
    }
}

fn table_lines(s: &mut Store, db: &PgDatabase) {
    if db.absent.contains(&s.name) {
        push(s, "table", &db.target, "no table of this name".into());
        return;
    }
    let Some(t) = db
        .tables
        .iter()
        .find(|t| t.store.as_deref() == Some(&s.name))
    else {
        return;
    };
    let t = t.clone();
    push(s, "guard", &db.target, guard_text(&t));
    if let Some(o) = &t.oldest {
        let text = match o.age_seconds {
            Some(a) => {
                s.live_kept_seconds = Some(s.live_kept_seconds.map_or(a, |k: f64| k.min(a)));
                format!(
                    "oldest row {} old by `{}` (read {})",
                    human_duration(a),
                    o.column,
                    o.method
                )
            }
            None => "no rows".to_string(),
        };
        push(s, "retention", &db.target, text);
    }
    if let Some(z) = &t.size {
        let text = size_text(z, s.size.as_ref().map(|e| e.bytes_per_key));
        push(s, "size", &db.target, text);
    }
    let mut expiry = Vec::new();
    for j in &t.cron_jobs {
        expiry.push(format!(
            "pg_cron job {} `{}`{}: {}",
            j.jobid,
            j.schedule,
            if j.active { "" } else { " (inactive)" },
            j.command.trim()
        ));
    }
    if let Some(p) = &t.partitioning {
        let first = p
            .partitions
            .first()
            .map(|(n, b)| format!(", first {n} {b}"))
            .unwrap_or_default();
        expiry.push(format!(
            "{} partitions by {} ({}){first}",
            p.partitions.len(),
            p.strategy,
            p.columns.join(", ")
        ));
    }
    if let Some(pm) = &t.partman {
        expiry.push(format!("pg_partman: {pm}"));
    }
    if !expiry.is_empty() {
        push(s, "expiry", &db.target, expiry.join("; "));
    }
}

/// The live size, beside the estimate for as many rows when there is one.
pub fn size_text(z: &LiveSize, bytes_per_key: Option<f64>) -> String {
    let mut text = format!(
        "table {} + indexes {} (TOAST {}), {} live and {} dead rows, last vacuum {}, last autovacuum {}",
        human_bytes(z.table_bytes.max(0) as f64),
        human_bytes(z.index_bytes.max(0) as f64),
        human_bytes(z.toast_bytes.max(0) as f64),
        z.live_tuples.map_or("?".into(), |n| n.to_string()),
        z.dead_tuples.map_or("?".into(), |n| n.to_string()),
        z.last_vacuum.as_deref().unwrap_or("never"),
        z.last_autovacuum.as_deref().unwrap_or("never"),
    );
    if let (Some(per_key), Some(rows)) = (bytes_per_key, z.live_tuples.filter(|n| *n > 0)) {
        let estimate = per_key * rows as f64;
        let live = (z.table_bytes + z.index_bytes) as f64;
        text.push_str(&format!(
            "; the estimate for as many rows is {} ({:+.0}% live against it)",
            human_bytes(estimate),
            (live - estimate) / estimate.max(1.0) * 100.0
        ));
    }
    text
}

fn prefix_lines(s: &mut Store, r: &RedisInstance) {
    let Some(p) = r.prefixes.iter().find(|p| p.store == s.name) else {
        return;
    };
    let p = p.clone();
    push(s, "keys", &r.target, super::judge::prefix_line(&p));
    if let Some(ms) = p.longest_ms {
        let kept = ms as f64 / 1000.0;
        s.live_kept_seconds = Some(s.live_kept_seconds.map_or(kept, |k: f64| k.min(kept)));
    }
    push(
        s,
        "eviction",
        &r.target,
        format!(
            "maxmemory-policy {} (from {}), evicted_keys {}",
            r.policy.as_deref().unwrap_or("unknown"),
            r.policy_from.as_deref().unwrap_or("nowhere"),
            r.evicted_keys.map_or("unknown".into(), |n| n.to_string())
        ),
    );
}
