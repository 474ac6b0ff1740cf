//! TypeScript and JavaScript: `.ts`, `.tsx`, `.mts`, `.cts`, `.js`, `.jsx`,
//! `.mjs`, `.cjs` (declaration files and minified bundles are not read).
//!
//! The text front end's readings run first, as they do for any other
//! language's source (string literals and the headers they name, SQL in
//! strings, key formats); then oxc parses the file into one arena, freed
//! when the file's facts are built, and the passes lower the tree into the
//! facts every language shares (`crate::facts`): each function a trace of
//! steps (`flow`), and the tables an ORM declares in code (`orm`).

mod answers;
mod consts;
mod flow;
mod key_scope;
mod key_source;
mod orm;
mod redis;
mod retry;
mod scopes;
mod syntax;

#[cfg(test)]
pub use flow::CONDITIONAL_SET_NAMES;

use crate::facts::{FileFacts, Problem};
use crate::source::{Dialect, Span};
use oxc_allocator::Allocator;
use oxc_span::SourceType;

/// A line longer than this in a file whose lines are mostly this long is
/// a minified bundle: build output, not the project's code.
const MINIFIED_LINE: usize = 1000;

/// Lower one TypeScript or JavaScript file.
pub fn parse(text: &str, dialect: Dialect, facts: &mut FileFacts) {
    super::text::parse(text, facts);
    facts.table_uses = super::text::table_uses(text);
    facts.conflict_targets = super::text::conflict_targets(text);
    facts.key_formats = super::key_format::in_text(text);
    if is_minified(text) {
        facts.problems.push(Problem {
            reported: false,
            ..Problem::new(
                Span::new(0, 0),
                "minified JavaScript (build output); not parsed",
            )
        });
        return;
    }
    if let Some(p) = super::too_deep(text) {
        facts.problems.push(p);
        return;
    }
    let alloc = Allocator::default();
    let ret = oxc_parser::Parser::new(&alloc, text, source_type(dialect)).parse();
    if ret.panicked {
        let at = ret
            .diagnostics
            .first()
            .and_then(|d| d.labels.first().map(|l| l.offset() as usize))
            .unwrap_or(0);
        let detail = ret
            .diagnostics
            .first()
            .map(|d| d.to_string())
            .unwrap_or_else(|| "the parser gave up".to_string());
        let mut problem = Problem::invalid(Span::new(at, at), language(dialect), detail);
        if let Some(what) = not_code(text, dialect) {
            // A code generator's input, not the project's code: counted.
            problem.message = what.to_string();
            problem.reported = false;
        }
        facts.problems.push(problem);
        return;
    }
    let program = ret.program;
    consts::read(&program, facts);
    let answered = if redis::may_write(text) {
        let answered = answers::answered(&program);
        redis::read(&program, &answered, facts);
        answered
    } else {
        Vec::new()
    };
    if retry::may_retry(text) {
        retry::read(&program, facts);
    }
    let code = facts.code.get_or_insert_with(Default::default);
    code.flow = flow::read(&program, text, &answered);
    code.flow.structs = flow::type_defs(&program);
    if crate::knowledge::contains_ignore_ascii_case(text, "idempot") {
        code.dropped_callers = key_scope::dropped(&program, text);
    }
    facts.sql = orm::schema(&program);
}

/// Read only the module's constants (`consts`): a file no word of the
/// prefilter let through whole but that may define time constants.
pub fn parse_consts(text: &str, dialect: Dialect, facts: &mut FileFacts) {
    if is_minified(text) || super::too_deep(text).is_some() {
        return;
    }
    let alloc = Allocator::default();
    let ret = oxc_parser::Parser::new(&alloc, text, source_type(dialect)).parse();
    if !ret.panicked {
        consts::read(&ret.program, facts);
    }
}

fn source_type(dialect: Dialect) -> SourceType {
    match dialect {
        Dialect::Ts => SourceType::ts(),
        Dialect::Tsx => SourceType::tsx(),
        Dialect::Js => SourceType::jsx(),
    }
}

fn language(dialect: Dialect) -> &'static str {
    match dialect {
        Dialect::Ts | Dialect::Tsx => "TypeScript",
        Dialect::Js => "JavaScript",
    }
}

/// What a file oxc refused is when it is no program of its own: a
/// template (`{% if %}`, `<%= %>` placeholders), or a class body's
/// fragment that a code generator pastes into a class (svix's
/// `codegen/templates`), which parses once wrapped in one.
fn not_code(text: &str, dialect: Dialect) -> Option<&'static str> {
    if ["{%", "%}", "<%"].iter().any(|m| text.contains(m)) {
        return Some(
            "template (`{% … %}` or `<% … %>` placeholders) that does not read as TypeScript",
        );
    }
    let wrapped = format!("class Fragment {{\n{text}\n}}");
    let alloc = Allocator::default();
    let ret = oxc_parser::Parser::new(&alloc, &wrapped, source_type(dialect)).parse();
    (!ret.panicked && ret.diagnostics.is_empty())
        .then_some("a class body's fragment (a code generator's template), not a module")
}

/// Whether most of the text sits on lines over [`MINIFIED_LINE`] bytes.
fn is_minified(text: &str) -> bool {
    if text.len() < MINIFIED_LINE {
        return false;
    }
    let long: usize = text
        .split('\n')
        .filter(|l| l.len() > MINIFIED_LINE)
        .map(str::len)
        .sum();
    long * 2 > text.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn problems(text: &str) -> Vec<Problem> {
        let mut facts = FileFacts::default();
        parse(text, Dialect::Ts, &mut facts);
        facts.problems
    }

    #[test]
    fn broken_code_is_a_parse_error_and_a_generators_input_is_counted() {
        let p = problems("export async function f( {\n  await redis.set(k, 1);\n");
        assert!(p.len() == 1 && p[0].reported, "{p:?}");
        let p = problems("{% if imports %}import type { A } from './a';{% endif %}\n");
        assert!(p.len() == 1 && !p[0].reported, "{p:?}");
        let p = problems(
            "public getOrCreate(\n  app: App,\n): Promise<App> {\n  return this.create(app);\n}\n",
        );
        assert!(p.len() == 1 && !p[0].reported, "{p:?}");
        assert!(problems("export const a = 1;\n").is_empty());
    }
}
