//! Python: `.py` files (stubs, `.pyi`, hold types only and are not read).
//!
//! The text front end's readings run first, as they do for any other
//! language's source (string literals and the headers they name, SQL in
//! strings, key formats); then Ruff's parser reads the module into a
//! typed tree, and the passes lower it into the facts every language
//! shares (`crate::facts`): the module's duration constants (`consts`),
//! Redis and Django cache writes with their expiry (`redis`, through
//! `walk`), the keys of header dicts (`headers`), keys made fresh inside code that retries (`retry`), the
//! tables that Django, SQLAlchemy and Alembic declare (`schema`), and the
//! ORM calls that lean on their unique guards (`orm`, and the lookups
//! followed by an insert of `lookup`).

mod apps;
mod consts;
mod depth;
mod headers;
mod keys;
mod lookup;
mod orm;
mod purge;
mod redis;
mod retry;
mod schema;
mod syntax;
mod walk;

use crate::facts::{FileFacts, Problem};
use crate::source::Span;
pub use apps::label_apps;
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
    purge::read(&module.body, &mut code.retention);
    let mut w = walk::Walk::new();
    for s in &module.body {
        w.visit_stmt(s);
    }
    headers::read(&module.body, facts);
    let code = facts.code.get_or_insert_with(Default::default);
    code.retry.fresh = std::mem::take(&mut w.fresh);
    code.retry.minters = std::mem::take(&mut w.minters);
    crate::frontend::key_writes::lower(w.writes, "a set-if-absent", facts);
    facts.sql = schema::read(&module.body, text);
    let orm = orm::read(&module.body);
    facts.conflict_targets.extend(orm.conflicts);
    // A data migration's find-or-create runs once, at deploy, on its
    // revision's historical model (`apps.get_model(..)`): no request races
    // it, and the schema it sees is its revision's, not the last one.
    if !is_migration(&module.body) {
        facts.find_or_create = orm.find_or_create;
        facts.find_or_create.extend(lookup::read(&module.body));
    }
}

/// Whether a module is a migration: a Django `class Migration(..)`, or an
/// Alembic revision's `def upgrade()`.
fn is_migration(body: &[ruff_python_ast::Stmt]) -> bool {
    use ruff_python_ast::Stmt;
    body.iter().any(|s| match s {
        Stmt::ClassDef(c) => {
            c.name.id.as_str() == "Migration"
                && c.arguments
                    .iter()
                    .flat_map(|a| a.args.iter())
                    .filter_map(syntax::path_of)
                    .any(|b| b.last().is_some_and(|l| l == "Migration"))
        }
        Stmt::FunctionDef(f) => f.name.id.as_str() == "upgrade",
        _ => false,
    })
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

#[cfg(test)]
mod tests;
