//! A call in a Go function's walk: a go-redis command, a statement sent
//! through database/sql, sqlx or pgx, a transaction's start or end, or any
//! other call (which the model matches against the effect catalogue or
//! resolves to a function of the project).

use super::state::{is_tx_begin, sql_of, KeyWrite, Walk};
use super::syntax::{args, bare, named, span, text};
use crate::facts::flow::{CallSite, RedisKey, RedisOp, StepKind};
use crate::source::Span;
use tree_sitter::Node;

/// go-redis commands: (method, op, where the expiry argument is, NX).
/// Every command takes a `context.Context` first
/// (<https://pkg.go.dev/github.com/redis/go-redis/v9#Client>).
const REDIS: &[(&str, RedisOp, Option<usize>, bool)] = &[
    ("Set", RedisOp::Set, Some(3), false),
    ("SetEx", RedisOp::Set, Some(3), false),
    ("SetNX", RedisOp::SetNx, Some(3), true),
    ("SetArgs", RedisOp::Set, None, false),
    ("Expire", RedisOp::Expire, Some(2), false),
    ("PExpire", RedisOp::Expire, Some(2), false),
    ("Get", RedisOp::Get, None, false),
    ("GetDel", RedisOp::Get, None, false),
    ("Exists", RedisOp::Exists, None, false),
    ("Del", RedisOp::Del, None, false),
];

/// Walk a call: its callee and arguments (a retry wrapper's closure as a
/// retried scope), then the call itself.
pub(super) fn call(w: &mut Walk, n: Node, depth: usize) {
    let site = w.call_site(n);
    if let Some(f) = n.child_by_field_name("function") {
        w.visit(f, depth + 1);
    }
    let retry = w.is_retry(&site);
    if retry {
        let f = n.child_by_field_name("function").map_or(span(n), span);
        let what = site
            .path
            .iter()
            .map(|s| s.as_str())
            .collect::<Vec<_>>()
            .join(".");
        w.scopes.push((f, format!("`{what}` retry")));
    }
    if let Some(a) = n.child_by_field_name("arguments") {
        w.visit(a, depth + 1);
    }
    if retry {
        w.scopes.pop();
    }
    super::fresh::sent_by_call(w, n, &site);
    record(w, n, site);
}

fn record(w: &mut Walk, n: Node, site: CallSite) {
    let at = span(n);
    if let Some(m) = site.method.clone() {
        if redis(w, n, &site, &m) {
            return;
        }
        if let Some(sql) = sql_of(w, n, &m) {
            let conn = site.receiver.last().map(|r| r.to_string());
            for dml in crate::frontend::sql::dml::classify(&sql) {
                w.push(
                    at,
                    StepKind::Sql {
                        dml,
                        conn: conn.clone(),
                    },
                );
            }
            return;
        }
        if is_tx_begin(&m) {
            return w.push(at, StepKind::TxBegin { var: None });
        }
        if (m == "Commit" || m == "Rollback") && site.receiver.len() == 1 {
            let var = site.receiver.first().map(|r| r.to_string());
            return w.push(
                at,
                StepKind::TxEnd {
                    var,
                    commit: m == "Commit",
                },
            );
        }
    }
    w.push(at, StepKind::Call(site));
}

/// A go-redis command: a step, and for a write the key's prefix and
/// expiry. The receiver is a client by its name (`rdb`, `redis`, `cache`)
/// or because the file imports go-redis, and the first argument is a
/// context.
fn redis(w: &mut Walk, n: Node, site: &CallSite, method: &str) -> bool {
    let Some((_, op, ttl_at, nx)) = REDIS.iter().find(|(m, ..)| *m == method) else {
        return false;
    };
    let a = args(n);
    let (Some(ctx), Some(key)) = (a.first(), a.get(1)) else {
        return false;
    };
    let ctx = text(*ctx, w.src());
    if !(ctx.contains("ctx") || ctx.contains("Context") || ctx.contains("context")) {
        return false;
    }
    let named_for = site.receiver.last().is_some_and(|r| {
        let r = r.to_ascii_lowercase();
        ["redis", "rdb", "valkey", "cache", "dragonfly"]
            .iter()
            .any(|x| r.contains(x))
            || r == "kv"
    });
    if !(named_for || w.file.imports_redis()) || site.receiver.is_empty() {
        return false;
    }
    let at = span(n);
    let prefix = w.prefix(*key);
    let source = super::keys::source(w, *key);
    let from_header = source.as_ref().is_some_and(|s| !s.event);
    let (mut op, mut nx) = (*op, *nx);
    let mut ttl = ttl_at
        .and_then(|i| a.get(i))
        .map(|t| (super::syntax::duration_expr(*t, w.src(), 0), span(*t)));
    if method == "SetArgs" {
        if let Some(opts) = a.get(3) {
            let (t, x) = set_args(w, *opts);
            ttl = t;
            nx = x;
            if nx {
                op = RedisOp::SetNx;
            }
        }
    }
    let key_text: Box<str> = text(*key, w.src()).into();
    w.push(
        at,
        StepKind::Redis {
            op,
            key: RedisKey {
                prefix: prefix.clone(),
                text: key_text,
                derived: source.is_some(),
                from_header,
                decides: false,
            },
            conn: site.receiver.last().map(|r| r.to_string()),
        },
    );
    if matches!(op, RedisOp::Set | RedisOp::SetNx | RedisOp::Expire) {
        let fn_name = w.fn_name.clone();
        w.writes.push(KeyWrite {
            at,
            prefix,
            // A bare number is nanoseconds in Go: not read as a duration.
            ttl: ttl.map(|(e, s)| (e, s, None)),
            nx,
            source,
            fn_name: Some(fn_name),
            via: "Redis expiry",
            claim: false,
        });
    }
    true
}

/// `redis.SetArgs{Mode: "NX", TTL: d}`: the expiry and whether it is NX.
fn set_args(w: &Walk, opts: Node) -> (Option<(crate::facts::retention::ConstExpr, Span)>, bool) {
    let opts = bare(opts);
    let Some(body) = opts.child_by_field_name("body") else {
        return (None, false);
    };
    let (mut ttl, mut nx) = (None, false);
    for el in named(body)
        .into_iter()
        .filter(|e| e.kind() == "keyed_element")
    {
        let (Some(k), Some(v)) = (
            el.child_by_field_name("key"),
            el.child_by_field_name("value"),
        ) else {
            continue;
        };
        match text(k, w.src()) {
            "Mode" => {
                nx = super::syntax::string_value(v, w.src())
                    .is_some_and(|m| m.eq_ignore_ascii_case("nx"))
            }
            "TTL" => ttl = Some((super::syntax::duration_expr(v, w.src(), 0), span(bare(v)))),
            _ => {}
        }
    }
    (ttl, nx)
}
