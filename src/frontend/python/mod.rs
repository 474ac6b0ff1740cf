//! Python: `.py` files (stubs, `.pyi`, hold types only and are not read).
//!
//! The text front end's readings run first, as they do for any other
//! language's source (string literals and the headers they name, SQL in
//! strings, key formats); then Ruff's parser reads the module into a
//! typed tree, and the passes lower it into the facts every language
//! shares (`crate::facts`): the module's duration constants (`consts`),
//! Redis and Django cache writes with their expiry (`redis`, through
//! `walk`), keys made fresh inside code that retries (`retry`), and the
//! tables that Django, SQLAlchemy and Alembic declare (`schema`).

mod consts;
mod depth;
mod keys;
mod redis;
mod retry;
mod schema;
mod syntax;
mod walk;

use crate::facts::redis::RedisKeyWrite;
use crate::facts::retention::REQUEST_KEY_CONTEXT;
use crate::facts::retention::{fold_duration, refs_of, ConstExpr, PendingRetention, StoreRef};
use crate::facts::{FileFacts, Problem};
use crate::knowledge;
use crate::source::Span;
use ruff_python_ast::visitor::Visitor;

/// Lower one Python file.
pub fn parse(text: &str, facts: &mut FileFacts) {
    super::text::parse(text, facts);
    facts.table_uses = super::text::table_uses(text);
    facts.conflict_targets = super::text::conflict_targets(text);
    facts.key_formats = super::key_format::in_text(text);
    if let Some(p) = super::too_deep(text).or_else(|| depth::too_deep(text)) {
        facts.problems.push(p);
        return;
    }
    let parsed = ruff_python_parser::parse_module(text);
    let module = match parsed {
        Ok(p) => p.into_syntax(),
        Err(e) => {
            let at = e.location.start().to_usize();
            let mut p = Problem::invalid(Span::new(at, at), "Python", e.error.to_string());
            // Counted, not reported: a Python 2 script, or a code
            // generator's template with `{% .. %}` placeholders.
            if is_template(text) {
                p.message =
                    "template (`{% … %}` or `{{ … }}` placeholders) that does not read as Python"
                        .to_string();
                p.reported = false;
            } else {
                // Python 2 modules vendored into a tree (novu's `ipaddr.py`)
                // hold the prefilter's words too.
                p.reported = false;
            }
            facts.problems.push(p);
            return;
        }
    };
    facts.test_regions = test_regions(&module.body);
    let code = facts.code.get_or_insert_with(Default::default);
    consts::read(&module.body, &mut code.retention.defs);
    let mut w = walk::Walk::new();
    for s in &module.body {
        w.visit_stmt(s);
    }
    code.retry.fresh = std::mem::take(&mut w.fresh);
    finish(w.writes, facts);
    facts.sql = schema::read(&module.body, text);
}

/// The writes with their TTLs folded by the file's constants, and the
/// retentions of those that keep a store.
fn finish(writes: Vec<walk::Write>, facts: &mut FileFacts) {
    let code = facts.code.get_or_insert_with(Default::default);
    let defs = code.retention.defs.clone();
    let stores = knowledge::stores();
    let words = knowledge::retention_words();
    for w in writes {
        let folded = w.ttl.as_ref().and_then(|(e, s, unit)| {
            let lookup = |n: &str| defs.iter().find(|d| d.name == n).map(|d| &d.expr);
            fold_duration(e, Some(*unit), &lookup).map(|d| (d, *s))
        });
        facts.redis_writes.push(RedisKeyWrite {
            span: w.at,
            key_prefix: w.prefix.clone(),
            ttl: folded,
            nx: w.nx,
        });
        let by_name = w
            .prefix
            .as_deref()
            .is_some_and(|p| stores.is_store_prefix(p));
        if let (Some(p), Some(src), false) = (&w.prefix, &w.source, by_name) {
            if !facts.derived_prefixes.iter().any(|(d, _)| d == p) {
                facts.derived_prefixes.push((p.clone(), src.what.clone()));
            }
        }
        let via = via(&w);
        let Some((expr, ttl_span, unit)) = w.ttl else {
            continue;
        };
        let refs = refs_of(&expr);
        // `lock:{id}` for 30 s: a claim's lifetime, not a store's.
        let is_lock = w.prefix.iter().chain(&refs).any(|c| words.is_excluded(c));
        if !(by_name || w.source.is_some() || w.claim) || is_lock || expr == ConstExpr::Unknown {
            continue;
        }
        let claim_only = w.claim && !by_name && w.source.is_none();
        let mut context: Vec<String> = w.prefix.iter().filter(|_| !claim_only).cloned().collect();
        if let Some(src) = &w.source {
            context.extend(src.context.iter().cloned());
            if !src.event {
                context.push(REQUEST_KEY_CONTEXT.to_string());
            }
        }
        context.extend(refs.iter().cloned());
        context.extend(w.fn_name.iter().filter(|_| !claim_only).cloned());
        let direct_ref = match &expr {
            ConstExpr::Ref(n) => Some(n.clone()),
            _ => None,
        };
        code.retention.pending.push(PendingRetention {
            span: ttl_span,
            expr,
            unit_ms: Some(unit),
            target: StoreRef::RedisPrefix(if claim_only {
                String::new()
            } else {
                w.prefix.unwrap_or_default()
            }),
            via,
            context,
            site: Some(w.at),
            direct_ref,
            standalone: false,
            labels: Vec::new(),
        });
    }
}

/// pytest's and unittest's tests in a module: functions named `test_*`
/// and classes named `Test*`, which the rules that spare tests do not judge.
fn test_regions(body: &[ruff_python_ast::Stmt]) -> Vec<Span> {
    use ruff_python_ast::Stmt;
    body.iter()
        .filter_map(|s| match s {
            Stmt::FunctionDef(f) if f.name.id.as_str().starts_with("test_") => {
                Some(syntax::span_of(f))
            }
            Stmt::ClassDef(c) if c.name.id.as_str().starts_with("Test") => Some(syntax::span_of(c)),
            _ => None,
        })
        .collect()
}

/// Whether the text holds a template engine's placeholders (Jinja's).
fn is_template(text: &str) -> bool {
    ["{%", "%}", "{{ "].iter().any(|m| text.contains(m))
}

fn via(w: &walk::Write) -> String {
    let what = if w.cache {
        "cache timeout"
    } else {
        "Redis expiry"
    };
    match (&w.prefix, &w.source) {
        (Some(p), Some(src)) => format!("{what} on `{p}` keys, built from {}", src.what),
        (Some(p), None) if w.claim => {
            format!(
                "{what} on `{p}` keys, claimed with a set-if-absent whose answer skips a duplicate"
            )
        }
        (Some(p), None) => format!("{what} on `{p}` keys"),
        (None, Some(src)) => format!("{what} on keys built from {}", src.what),
        (None, None) => what.to_string(),
    }
}

#[cfg(test)]
mod tests;
