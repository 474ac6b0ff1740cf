//! The constants of a TypeScript module: top-level `const`s (exported or
//! not) whose value is an integer expression (`60 * 60 * 24`, `86_400`,
//! `DAY * 35`, `ms('1d')`), as `DurDef`s the model folds across files, the
//! members of a constant object literal (`TTL.DEDUP`), and `const`s whose
//! value is a string literal, as `str_consts`. Not for bindings inside
//! functions: those are the passes' own (`redis`, `retry`).

use super::syntax::{bare, const_expr, key_name, span_of, string_value};
use crate::facts::retention::{
    refs_of, ConstExpr, DurDef, LetGoDefs, PendingRetention, StoreRef, LET_GO_DEFS,
};
use crate::facts::{FileFacts, StringConst};
use oxc_allocator::Allocator;
use oxc_ast::ast::{
    BindingPattern, Declaration, Expression, ObjectPropertyKind, Program, Statement,
    VariableDeclaration, VariableDeclarationKind,
};

/// Deepest object literal whose members are read as constants.
const MAX_OBJECT_DEPTH: usize = 4;

/// Read the module's constants into `facts.code`.
pub(super) fn read(program: &Program, facts: &mut FileFacts) {
    let mut defs = Vec::new();
    let mut strings = Vec::new();
    let mut named = Vec::new();
    let store_module = names_a_store(program);
    for (name, value) in top_level_consts(program) {
        if string_value(value).is_some() {
            strings.push((name, span_of(value)));
            continue;
        }
        named.extend(named_retention(&name, value, store_module));
        defs_of(&name, value, 0, &mut defs);
    }
    if !named.is_empty() {
        let code = facts.code.get_or_insert_with(Default::default);
        code.retention.pending.extend(named);
    }
    let str_consts: Vec<StringConst> = strings
        .into_iter()
        .filter_map(|(name, span)| {
            // The text front end's literal: its span is inside the quotes.
            let string = facts
                .strings
                .iter()
                .position(|s| span.start < s.span.start && s.span.end < span.end)?;
            Some(StringConst { name, string })
        })
        .collect();
    let code = facts.code.get_or_insert_with(Default::default);
    code.str_consts.extend(str_consts);
    if defs.len() >= LET_GO_DEFS {
        code.retention.let_go = Some(LetGoDefs::new(&defs, read_again));
    } else {
        code.retention.defs.extend(defs);
    }
}

/// The definitions of a file that let them go, read again from its text.
fn read_again(text: &str) -> Vec<DurDef> {
    let alloc = Allocator::default();
    let ret = oxc_parser::Parser::new(&alloc, text, oxc_span::SourceType::tsx()).parse();
    let mut defs = Vec::new();
    for (name, value) in top_level_consts(&ret.program) {
        if string_value(value).is_none() {
            defs_of(&name, value, 0, &mut defs);
        }
    }
    defs
}

/// `const NAME = value` at the top of the module, exported or not.
fn top_level_consts<'b, 'a>(program: &'b Program<'a>) -> Vec<(String, &'b Expression<'a>)> {
    let mut out = Vec::new();
    for st in &program.body {
        let decl: Option<&VariableDeclaration> = match st {
            Statement::VariableDeclaration(d) => Some(&**d),
            Statement::ExportDeclaration(e) => match &e.declaration {
                Declaration::VariableDeclaration(d) => Some(d),
                _ => None,
            },
            _ => None,
        };
        let Some(decl) = decl.filter(|d| d.kind == VariableDeclarationKind::Const) else {
            continue;
        };
        for d in &decl.declarations {
            if let (BindingPattern::BindingIdentifier(id), Some(init)) = (&d.id, &d.init) {
                out.push((id.name.to_string(), init));
            }
        }
    }
    out
}

/// A constant whose name speaks of an idempotency store's retention
/// (`IDEMPOTENCY_CACHE_TTL`, `DEDUP_TTL_SECONDS`, or any retention name in
/// a module whose class is named for one), found on its own, as the
/// Rust reader finds one: the store's retention wherever it is used. Its
/// unit is its name's (`_SECONDS`, `Ms`), else the arithmetic it is written
/// in: `60 * 60 * 24` counts seconds, `24 * 60 * 60 * 1000` milliseconds.
/// A bare number with no unit in its name is left out.
fn named_retention(name: &str, value: &Expression, store_module: bool) -> Option<PendingRetention> {
    let (words, stores) = (
        crate::knowledge::retention_words(),
        crate::knowledge::stores(),
    );
    if !(words.is_retention_name(name) && (store_module || stores.is_store_table(name))) {
        return None;
    }
    let expr = duration_expr(value);
    if expr == ConstExpr::Unknown {
        return None;
    }
    let unit_ms = match crate::duration::key_suffix_unit(name) {
        Some(secs) => (secs * 1000.0) as u64,
        None => arithmetic_unit(&expr)?,
    };
    let mut context = vec![name.to_string()];
    context.extend(refs_of(&expr));
    Some(PendingRetention {
        span: span_of(value),
        expr,
        unit_ms: Some(unit_ms),
        target: StoreRef::Constant(name.to_string()),
        via: format!("`{name}`"),
        context,
        site: None,
        direct_ref: None,
        standalone: true,
        labels: Vec::new(),
    })
}

/// Milliseconds per unit of a product of literals written as time
/// arithmetic: with a factor 60 and no 1000, seconds; with 1000,
/// milliseconds.
fn arithmetic_unit(e: &ConstExpr) -> Option<u64> {
    fn factors(e: &ConstExpr, out: &mut Vec<u64>) -> bool {
        match e {
            ConstExpr::Int(n) => {
                out.push(*n);
                true
            }
            ConstExpr::Mul(l, r) => factors(l, out) && factors(r, out),
            _ => false,
        }
    }
    let mut f = Vec::new();
    if !factors(e, &mut f) || f.len() < 2 {
        return None;
    }
    if f.contains(&1000) {
        Some(1)
    } else if f.contains(&60) {
        Some(1000)
    } else {
        None
    }
}

/// Whether the module declares a class named for an idempotency store
/// (`class RequestIdempotencyService`): its retention constants are that
/// store's whatever they are called (`DEFAULT_TTL_IN_MS`).
fn names_a_store(program: &Program) -> bool {
    let stores = crate::knowledge::stores();
    program.body.iter().any(|st| {
        let class = match st {
            Statement::ClassDeclaration(c) => Some(&**c),
            Statement::ExportDeclaration(e) => match &e.declaration {
                Declaration::ClassDeclaration(c) => Some(&**c),
                _ => None,
            },
            _ => None,
        };
        class
            .and_then(|c| c.id.as_ref())
            .is_some_and(|id| stores.is_store_table(id.name.as_str()))
    })
}

/// `name`'s definition, or its members' for an object literal.
fn defs_of(name: &str, value: &Expression, depth: usize, out: &mut Vec<DurDef>) {
    if let Expression::ObjectExpression(o) = bare(value) {
        if depth >= MAX_OBJECT_DEPTH {
            return;
        }
        for p in &o.properties {
            if let ObjectPropertyKind::ObjectProperty(p) = p {
                if let Some(k) = key_name(&p.key) {
                    defs_of(&format!("{name}.{k}"), &p.value, depth + 1, out);
                }
            }
        }
        return;
    }
    let expr = duration_expr(value);
    if expr != ConstExpr::Unknown {
        out.push(DurDef {
            name: name.to_string(),
            expr,
            span: span_of(value),
        });
    }
}

/// An integer expression as [`const_expr`] reads it, with the `ms`
/// package's strings (`ms('1d')`, a count of milliseconds) read too.
pub(super) fn duration_expr(e: &Expression) -> ConstExpr {
    match bare(e) {
        Expression::CallExpression(c) => ms_call(c).map_or(ConstExpr::Unknown, ConstExpr::Int),
        Expression::BinaryExpression(b) => {
            let (l, r) = (duration_expr(&b.left), duration_expr(&b.right));
            match (const_expr(e), l, r) {
                (ConstExpr::Unknown, ..) => ConstExpr::Unknown,
                (ConstExpr::Add(..), l, r) => ConstExpr::Add(Box::new(l), Box::new(r)),
                (ConstExpr::Sub(..), l, r) => ConstExpr::Sub(Box::new(l), Box::new(r)),
                (ConstExpr::Mul(..), l, r) => ConstExpr::Mul(Box::new(l), Box::new(r)),
                (ConstExpr::Div(..), l, r) => ConstExpr::Div(Box::new(l), Box::new(r)),
                (other, ..) => other,
            }
        }
        _ => const_expr(e),
    }
}

/// `ms('1d')`, `ms("24h")`: the milliseconds of the `ms` package's
/// duration string (<https://github.com/vercel/ms#examples>).
fn ms_call(c: &oxc_ast::ast::CallExpression) -> Option<u64> {
    let Expression::Identifier(f) = bare(&c.callee) else {
        return None;
    };
    if f.name != "ms" || c.arguments.len() != 1 {
        return None;
    }
    let text = string_value(super::syntax::arg(c, 0)?)?;
    let d = crate::duration::parse(&text, None)?;
    d.secs.checked_mul(1000)
}

#[cfg(test)]
mod tests {
    use crate::facts::retention::{eval, Value};
    use crate::source::{Dialect, FileKind};

    fn defs(src: &str) -> Vec<(String, Option<u128>)> {
        let f = crate::frontend::parse(0, FileKind::Script(Dialect::Ts), src);
        let code = f.code.unwrap_or_default();
        let defs = code.retention.defs.clone();
        let lookup = |n: &str| defs.iter().find(|d| d.name == n).map(|d| &d.expr);
        code.retention
            .defs
            .iter()
            .map(|d| {
                let mut steps = 0;
                let v = match eval(&d.expr, &lookup, &mut steps, 0) {
                    Some(Value::Int(n)) => Some(n),
                    _ => None,
                };
                (d.name.clone(), v)
            })
            .collect()
    }

    #[test]
    fn top_level_and_exported_integer_constants_fold() {
        let d = defs(
            "import ms from 'ms';\n\
             const DAY = 86_400;\n\
             export const DEDUP_TTL = DAY * 35;\n\
             export const TTL_MS = 24 * 60 * 60 * 1000;\n\
             const LOCK = ms('30s');\n\
             export const TTL = { EVENT: 60 * 60 * 24 } as const;\n\
             const NAME = 'Idempotency-Key';\n\
             function f() { const LOCAL = 5; }\n",
        );
        assert_eq!(
            d,
            [
                ("DAY".to_string(), Some(86_400)),
                ("DEDUP_TTL".to_string(), Some(86_400 * 35)),
                ("TTL_MS".to_string(), Some(86_400_000)),
                ("LOCK".to_string(), Some(30_000)),
                ("TTL.EVENT".to_string(), Some(86_400)),
            ]
        );
    }
}
