//! Go: `.go` files (not `*.pb.go`, protoc's output, nor anything under a
//! `vendor/` directory; `_test.go` files are test code by their name).
//!
//! The text front end's readings run first, as for any source (string
//! literals and the headers they name, SQL in strings, key formats); then
//! tree-sitter's Go grammar parses the file and the passes lower the tree
//! into the facts every language shares (`crate::facts`): constants
//! (`consts`), each function a trace of steps with its go-redis writes and
//! fresh keys (`walk`, `calls`, `keys`, `fresh`), and the struct types the
//! model follows a receiver's fields through.

mod calls;
mod consts;
mod ent;
mod fresh;
mod headers;
mod keys;
mod owners;
mod restate;
mod rows;
mod state;
mod stripe;
mod syntax;
mod viper;
mod walk;

use crate::facts::flow::{FlowFacts, TypeDef};
use crate::facts::{FileFacts, Problem};
use crate::knowledge;
use crate::source::Span;
use state::{File, KeyWrite, Walk};
use std::collections::HashMap;
use syntax::{named, span, string_value, text};
use tree_sitter::{Node, Parser, Tree};

/// Lower one Go file.
pub fn parse(text: &str, facts: &mut FileFacts) {
    super::text::parse(text, facts);
    facts.table_uses = super::text::table_uses(text);
    facts.conflict_targets = super::text::conflict_targets(text);
    facts.key_formats = super::key_format::in_text(text);
    if let Some(p) = super::too_deep(text) {
        facts.problems.push(p);
        return;
    }
    let Some(tree) = tree_of(text) else {
        facts.problems.push(Problem::invalid(
            Span::new(0, 0),
            "Go",
            "the parser gave up",
        ));
        return;
    };
    let root = tree.root_node();
    if root.has_error() {
        facts.problems.push(syntax_problem(root, text));
    }
    // A header constant says `header` in its name or type, a tag in its key.
    if knowledge::contains_ignore_ascii_case(text, "header") {
        headers::declared(root, text, facts);
    }
    if let Some(sql) = ent::read(root, text) {
        facts.sql = Some(sql);
    }
    if let Some(conf) = viper::read(root, text) {
        facts.conf = Some(conf);
    }
    let consts = consts::read(root, text);
    let file = File {
        src: text,
        consts: &consts,
        imports: imports(root, text),
    };
    let code = facts.code.get_or_insert_with(Default::default);
    code.retention.defs = consts.durations.clone();
    let mut flow = FlowFacts::default();
    let mut writes = Vec::new();
    let mut sends = Vec::new();
    for f in named(root) {
        if let Some((t, w, fresh, sent)) = function(&file, f) {
            flow.functions.push(t);
            writes.extend(w);
            flow.fresh_keys.extend(fresh);
            sends.extend(sent);
        }
        if f.kind() == "type_declaration" {
            flow.structs.extend(structs(f, text));
        }
    }
    code.ownerless = owners::read(root, text, &flow.structs);
    code.dropped_callers = owners::dropped(root, text);
    code.rows = rows::read(root, text);
    if text.contains("WithIdempotency") {
        let (retentions, keys) = restate::read(root, text);
        code.retention.pending.extend(retentions);
        code.handler_keys = keys;
    }
    code.flow = flow;
    if text.contains("WithMaxRetryDuration") {
        code.retry.sites = restate::runs(root, text);
    }
    if text.contains("SetIdempotencyKey") {
        let fresh: Vec<Span> = sends.iter().flat_map(|s| [s.at, s.sent]).collect();
        code.retry.requests = stripe::keyed_requests(&file, root, &fresh);
    }
    code.retry.fresh = sends;
    if text.contains("MaxNetworkRetries") {
        code.retry.clients = stripe::clients(&file, root);
    }
    crate::frontend::key_writes::lower(writes, "`SetNX`", facts);
}

fn tree_of(text: &str) -> Option<Tree> {
    let mut p = Parser::new();
    p.set_language(&tree_sitter_go::LANGUAGE.into()).ok()?;
    p.parse(text, None)
}

/// Where the file does not read as Go: a `parse-error` when the unread
/// part names idempotency, else only counted (the parser recovered and
/// the rest was read).
fn syntax_problem(root: Node, text: &str) -> Problem {
    let mut first = None;
    let mut last = 0;
    let mut stack = vec![root];
    while let Some(n) = stack.pop() {
        if n.is_error() || n.is_missing() {
            first = Some(first.map_or(n.start_byte(), |f: usize| f.min(n.start_byte())));
            last = last.max(n.end_byte());
        } else if n.has_error() {
            stack.extend(named(n));
            let mut c = n.walk();
            stack.extend(
                n.children(&mut c)
                    .filter(|c| !c.is_named() && c.is_missing()),
            );
        }
    }
    let at = first.unwrap_or(0);
    let end = text[at..].find('\n').map_or(text.len(), |e| at + e);
    // From the start of the first error's line (the name of a function
    // whose parameters do not read) to the end of the last.
    let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let unread = text.get(line_start..last.max(end)).unwrap_or("");
    // Only an unread part that names idempotency can hide what a rule
    // needs; tree-sitter's recovery may wrap a whole function of valid
    // but unfamiliar syntax in one error node (a kratos test file).
    let matters = knowledge::contains_ignore_ascii_case(unread, "idempot");
    Problem {
        reported: matters,
        ..Problem::invalid(
            Span::new(at, end.max(at)),
            "Go",
            "a syntax error the parser read past; the rest of the file was read",
        )
    }
}

/// `import "x/y"` and `import z "x/y"`: alias → path.
fn imports(root: Node, src: &str) -> HashMap<String, String> {
    let mut out = HashMap::new();
    let mut stack: Vec<Node> = named(root)
        .into_iter()
        .filter(|n| n.kind() == "import_declaration")
        .collect();
    while let Some(n) = stack.pop() {
        if n.kind() != "import_spec" {
            stack.extend(named(n));
            continue;
        }
        let Some(path) = n
            .child_by_field_name("path")
            .and_then(|p| string_value(p, src))
        else {
            continue;
        };
        let alias = match n.child_by_field_name("name") {
            Some(a) => text(a, src).to_string(),
            None => import_name(&path),
        };
        out.insert(alias, path);
    }
    out
}

/// The name a package is known by: its path's last element, a major
/// version suffix (`/v9`), a `go-` prefix or a `-go` suffix dropped.
fn import_name(path: &str) -> String {
    let mut parts = path.rsplit('/');
    let mut last = parts.next().unwrap_or(path);
    if last.len() > 1 && last.starts_with('v') && last[1..].chars().all(|c| c.is_ascii_digit()) {
        last = parts.next().unwrap_or(last);
    }
    last.trim_start_matches("go-")
        .trim_end_matches("-go")
        .replace(['-', '.'], "_")
}

type Lowered = (
    crate::facts::flow::FnTrace,
    Vec<KeyWrite>,
    Vec<crate::facts::flow::FreshKey>,
    Vec<crate::facts::retry::FreshSend>,
);

/// A function or method declaration, walked.
fn function(file: &File, f: Node) -> Option<Lowered> {
    let src = file.src;
    let (name, body) = (
        f.child_by_field_name("name")?,
        f.child_by_field_name("body")?,
    );
    let mut owner = None;
    let mut w = Walk::new(file, text(name, src).to_string());
    w.fn_span = span(name);
    match f.kind() {
        "function_declaration" => {}
        "method_declaration" => {
            let recv = f.child_by_field_name("receiver")?;
            for (n, ty) in walk::params_of(recv, src) {
                w.locals.insert(
                    n,
                    state::Local {
                        ty: Some(ty),
                        ..Default::default()
                    },
                );
            }
            let ty = named(recv)
                .into_iter()
                .find_map(|p| p.child_by_field_name("type"))?;
            owner = Some(walk::type_of_node(ty, src));
        }
        _ => return None,
    }
    let params = f
        .child_by_field_name("parameters")
        .map(|p| walk::params_of(p, src))
        .unwrap_or_default();
    for (n, ty) in &params {
        w.locals.insert(
            n.clone(),
            state::Local {
                ty: Some(ty.clone()),
                ..Default::default()
            },
        );
    }
    if retries(src, body) {
        w.find_retried(body);
    }
    w.visit(body, 0);
    let mut lowered = walk::trace(w, name, owner, params);
    lowered.0.plain_claim = plain_claim(&lowered.0.events, src, body);
    Some(lowered)
}

/// A go-redis `SET` without `NX` taken for a claim: the function's only
/// Redis commands are plain sets (no `XX`, no `Get: true`), and after the
/// first it tests for `redis.Nil`, the nil reply only a conditional set
/// gives. A plain `SET` always answers `OK`, so every caller wins.
fn plain_claim(
    steps: &[crate::facts::flow::Step],
    src: &str,
    body: Node,
) -> Option<crate::facts::flow::PlainClaim> {
    use crate::facts::flow::{RedisOp, StepKind};
    let mut set = None;
    for s in steps {
        let StepKind::Redis { op, .. } = &s.kind else {
            continue;
        };
        let call = src.get(s.span.start..s.span.end).unwrap_or("");
        let conditional = ["\"XX\"", "\"xx\"", "Get:", "KeepTTL"]
            .iter()
            .any(|w| call.contains(w));
        if *op != RedisOp::Set || conditional {
            return None;
        }
        set.get_or_insert(s.span);
    }
    let set = set?;
    let rest = src.get(set.end..body.end_byte())?;
    let at = set.end + rest.find("redis.Nil")?;
    Some(crate::facts::flow::PlainClaim {
        set,
        by: Span::new(at, at + "redis.Nil".len()),
        answer: true,
    })
}

/// Whether a body may call a retry wrapper of the catalogue by its
/// package (`backoff.`, `retry.`): a cheap screen before
/// [`Walk::find_retried`].
fn retries(src: &str, body: Node) -> bool {
    let t = text(body, src);
    knowledge::effects()
        .retry
        .iter()
        .filter(|p| p.path.len() >= 2)
        .any(|p| t.contains(&format!("{}.", p.path[0])))
}

/// `type Handler struct { q *db.Queries }`: its fields and their types.
fn structs(decl: Node, src: &str) -> Vec<TypeDef> {
    let mut out = Vec::new();
    for spec in named(decl).into_iter().filter(|s| s.kind() == "type_spec") {
        let (Some(name), Some(ty)) = (
            spec.child_by_field_name("name"),
            spec.child_by_field_name("type"),
        ) else {
            continue;
        };
        if ty.kind() != "struct_type" {
            continue;
        }
        let mut fields = Vec::new();
        let mut stack = named(ty);
        while let Some(n) = stack.pop() {
            if n.kind() != "field_declaration" {
                stack.extend(named(n));
                continue;
            }
            let Some(t) = n.child_by_field_name("type") else {
                continue;
            };
            let t = text(t, src).to_string();
            let mut c = n.walk();
            for f in n.children_by_field_name("name", &mut c) {
                fields.push((text(f, src).to_string(), t.clone()));
            }
        }
        out.push(TypeDef {
            module: Vec::new(),
            name: text(name, src).to_string(),
            fields,
            bounds: Vec::new(),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use crate::facts::FileFacts;
    use crate::source::FileKind;

    fn facts(src: &str) -> FileFacts {
        crate::frontend::parse(0, FileKind::Go, src)
    }

    /// Each write: prefix, expiry in seconds, NX.
    fn writes(src: &str) -> Vec<crate::frontend::key_writes::Seen> {
        crate::frontend::key_writes::seen(&facts(src)).0
    }

    #[test]
    fn go_redis_expiries_are_read_as_durations_through_constants() {
        let w = writes(
            "package p\n\
             import (\"time\"; \"github.com/redis/go-redis/v9\")\n\
             const (\n\tday = 24 * time.Hour\n\tweek = 7 * day\n)\n\
             func f(ctx context.Context, rdb *redis.Client, id string, n int) {\n\
               rdb.SetNX(ctx, \"idem:\"+id, 1, 2*day)\n\
               rdb.Set(ctx, fmt.Sprintf(\"dedup:%s\", id), 1, time.Duration(n)*time.Second)\n\
               rdb.SetArgs(ctx, \"processed:\"+id, 1, redis.SetArgs{Mode: \"NX\", TTL: week})\n\
               rdb.Expire(ctx, \"idem:\"+id, time.Hour*36)\n\
               rdb.Set(ctx, \"idem:\"+id, 1, 3600)\n\
               cache.Set(\"idem:\"+id, 1, time.Hour)\n\
             }\n",
        );
        assert_eq!(
            w,
            [
                ("idem:".to_string(), Some(172_800), true),
                ("dedup:".to_string(), None, false),
                ("processed:".to_string(), Some(604_800), true),
                ("idem:".to_string(), Some(129_600), false),
                // A bare number is nanoseconds: not read.
                ("idem:".to_string(), None, false),
            ]
        );
    }

    #[test]
    fn a_key_from_a_verified_stripe_event_keeps_a_store_whatever_its_prefix() {
        let f = facts(
            "package p\n\
             import \"github.com/stripe/stripe-go/v82/webhook\"\n\
             func h(w http.ResponseWriter, r *http.Request) {\n\
               evt, err := webhook.ConstructEvent(body, sig, secret)\n\
               key := \"seen:\" + evt.ID\n\
               rdb.SetNX(r.Context(), key, 1, 24*time.Hour)\n\
               rdb.SetNX(r.Context(), \"seen:\"+evt.Type, 1, 24*time.Hour)\n\
             }\n",
        );
        let pending = f.code.map(|c| c.retention.pending).unwrap_or_default();
        assert_eq!(pending.len(), 1, "{pending:?}");
        assert_eq!(
            pending[0].via,
            "Redis expiry on `seen:` keys, built from `evt.ID`"
        );
        assert!(pending[0].context.contains(&"stripe".to_string()));
    }

    #[test]
    fn sqlc_methods_are_traces_of_their_statements() {
        let f = facts(
            "package db\n\
             const markProcessed = `-- name: MarkProcessed :exec\n\
             INSERT INTO processed_events (event_id) VALUES ($1)\n`\n\
             func (q *Queries) MarkProcessed(ctx context.Context, id string) error {\n\
               _, err := q.db.ExecContext(ctx, markProcessed, id)\n\
               return err\n\
             }\n",
        );
        let flow = f.code.map(|c| c.flow).unwrap_or_default();
        let t = &flow.functions[0];
        assert_eq!(
            (t.name.as_str(), t.owner.as_deref()),
            ("MarkProcessed", Some("Queries"))
        );
        assert!(
            matches!(&t.events[0].kind, crate::facts::flow::StepKind::Sql { dml, .. } if dml.table == "processed_events"),
            "{:?}",
            t.events
        );
    }

    #[test]
    fn broken_go_is_a_parse_error_only_where_it_matters() {
        let p = facts("}}} package (( func := := {\n").problems;
        assert!(p.len() == 1 && !p[0].reported, "{p:?}");
        let p = facts(
            "package p\n\nfunc ok() int { return 1 }\n\nfunc bad( { x := }\n\nfunc more() {}\nfunc a() {}\nfunc b() {}\nfunc c() {}\n",
        )
        .problems;
        assert!(p.len() == 1 && !p[0].reported, "{p:?}");
        let p = facts("package p\n\nfunc idempotencyKey( { rdb.SetNX(ctx, k, 1, time.Hour }\n\nfunc a() {}\nfunc b() {}\nfunc c() {}\nfunc d() {}\nfunc e() {}\n").problems;
        assert!(p.len() == 1 && p[0].reported, "{p:?}");
        assert!(facts("package p\n\nconst a = 1\n").problems.is_empty());
    }

    #[test]
    fn imports_are_known_by_their_package_names() {
        for (path, name) in [
            ("github.com/redis/go-redis/v9", "redis"),
            ("github.com/avast/retry-go/v4", "retry"),
            ("github.com/stripe/stripe-go/v82", "stripe"),
            ("github.com/cenkalti/backoff/v4", "backoff"),
            ("net/http", "http"),
        ] {
            assert_eq!(super::import_name(path), name);
        }
    }
}
