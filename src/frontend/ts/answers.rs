//! Redis `SET`s whose answer the code reads as a claim's: the answer of a
//! set with an expiry or condition (`set(k, v, { ex, nx })`, `set(k, v,
//! 'EX', n, 'NX')`) that decides something. It is bound to a name and
//! that name is negated or compared (`!ok`, `res === null`, `r === "OK"`)
//! where the result is kept or returned (`flag = claim !== null`, `return
//! result === "OK"`), or tested by an `if` whose branch leaves (`if (!ok)
//! return ..`). Under `NX` such a set is a dedup claim, the key an
//! idempotency store whatever its prefix; without `NX` its answer is
//! always `OK`, so every replay wins (check-then-insert). An answer only
//! logged (`if (result === null) log(..)`) or handed back bare (a
//! wrapper's `return result`) decides nothing here.
//!
//! Not read: an answer passed to another function, read in a closure
//! other than the set's own function, or kept in an object's field.

use super::syntax::{bare, span, span_of, string_value};
use crate::source::Span;
use oxc_ast::ast::{
    Argument, AssignmentExpression, CallExpression, Expression, IfStatement, Program,
    ReturnStatement, UnaryOperator, VariableDeclarator,
};
use oxc_ast::AstKind;
use oxc_ast_visit::{walk, Visit};

/// A `SET` whose answer decides: the call, and where its answer is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Answered {
    pub set: Span,
    pub read: Span,
}

/// ioredis' tokens after the value that make a `set` Redis's: an expiry
/// or a condition.
const TOKENS: &[&str] = &["EX", "PX", "EXAT", "PXAT", "NX", "KEEPTTL"];

/// Option keys of node-redis and Upstash that do the same.
const OPTIONS: &[&str] = &[
    "EX",
    "ex",
    "PX",
    "px",
    "EXAT",
    "exat",
    "PXAT",
    "pxat",
    "NX",
    "nx",
    "expiration",
    "condition",
    "keepTtl",
    "KEEPTTL",
];

/// Options under which the answer is something else than a claim's: the
/// old value (`GET`), or a set only when the key exists (`XX`).
const OTHER_ANSWERS: &[&str] = &["GET", "get", "XX", "xx"];

/// The Redis `set` call an expression is, awaited or not.
fn set_call<'b, 'a>(e: &'b Expression<'a>) -> Option<&'b CallExpression<'a>> {
    let e = match bare(e) {
        Expression::AwaitExpression(a) => bare(&a.argument),
        e => e,
    };
    let c = match e {
        Expression::CallExpression(c) => c,
        Expression::ChainExpression(ch) => match &ch.expression {
            oxc_ast::ast::ChainElement::CallExpression(c) => c,
            _ => return None,
        },
        _ => return None,
    };
    is_redis_set(c).then_some(&**c)
}

/// `x.set(k, v, ..)` with Redis's expiry or condition after the value, and
/// none that makes its answer another thing than OK or nil.
pub(super) fn is_redis_set(c: &CallExpression) -> bool {
    let method = c
        .callee
        .get_member_expr()
        .and_then(|m| m.static_property_name());
    if !matches!(method, Some("set" | "SET")) {
        return false;
    }
    let rest: Vec<&Expression> = (c.arguments.iter().skip(2))
        .filter_map(Argument::as_expression)
        .collect();
    let token = |e: &Expression, set: &[&str]| {
        string_value(e).is_some_and(|s| set.iter().any(|t| t.eq_ignore_ascii_case(&s)))
    };
    let option = |e: &Expression, set: &[&str]| match bare(e) {
        Expression::ObjectExpression(o) => set.iter().any(|k| super::syntax::prop(o, k).is_some()),
        _ => false,
    };
    let redis = rest.iter().any(|e| token(e, TOKENS) || option(e, OPTIONS));
    let other = rest
        .iter()
        .any(|e| token(e, OTHER_ANSWERS) || option(e, OTHER_ANSWERS));
    redis && !other
}

/// Every `SET` of the file whose answer decides.
pub(super) fn answered(program: &Program) -> Vec<Answered> {
    let mut w = Walk {
        frames: vec![Vec::new()],
        out: Vec::new(),
    };
    w.visit_program(program);
    w.out
}

struct Walk {
    /// Per function: names bound to a set's answer, with the set.
    frames: Vec<Vec<(String, Span)>>,
    out: Vec<Answered>,
}

impl Walk {
    /// The set whose answer `e` is: the set itself or a name bound to one.
    fn answer(&self, e: &Expression) -> Option<Span> {
        if let Some(c) = set_call(e) {
            return Some(span(c.span));
        }
        let Expression::Identifier(id) = bare(e) else {
            return None;
        };
        let names = self.frames.last()?;
        names
            .iter()
            .rev()
            .find(|(n, _)| n == id.name.as_str())
            .map(|(_, s)| *s)
    }

    /// The set an expression decides by: its answer negated, compared, or
    /// the test of a `?:`, of `&&`/`||`.
    fn decided(&self, e: &Expression) -> Option<Span> {
        match bare(e) {
            Expression::UnaryExpression(u) if u.operator == UnaryOperator::LogicalNot => self
                .answer(&u.argument)
                .or_else(|| self.decided(&u.argument)),
            Expression::BinaryExpression(b) if b.operator.is_equality() => {
                self.answer(&b.left).or_else(|| self.answer(&b.right))
            }
            Expression::ConditionalExpression(c) => {
                self.answer(&c.test).or_else(|| self.decided(&c.test))
            }
            Expression::LogicalExpression(l) => self
                .decided(&l.left)
                .or_else(|| self.decided(&l.right))
                .or_else(|| self.answer(&l.left)),
            _ => None,
        }
    }

    fn found(&mut self, set: Span, read: Span) {
        let a = Answered { set, read };
        if !self.out.contains(&a) {
            self.out.push(a);
        }
    }

    fn bind(&mut self, name: &str, value: &Expression) {
        if let (Some(c), Some(f)) = (set_call(value), self.frames.last_mut()) {
            f.push((name.to_string(), span(c.span)));
        } else if let Some(set) = self.decided(value) {
            self.found(set, span_of(value));
        }
    }
}

impl<'a> Visit<'a> for Walk {
    fn enter_node(&mut self, kind: AstKind<'a>) {
        if matches!(
            kind,
            AstKind::Function(_) | AstKind::ArrowFunctionExpression(_)
        ) {
            self.frames.push(Vec::new());
        }
    }

    fn leave_node(&mut self, kind: AstKind<'a>) {
        if matches!(
            kind,
            AstKind::Function(_) | AstKind::ArrowFunctionExpression(_)
        ) && self.frames.len() > 1
        {
            self.frames.pop();
        }
    }

    fn visit_variable_declarator(&mut self, d: &VariableDeclarator<'a>) {
        walk::walk_variable_declarator(self, d);
        if let (Some(id), Some(init)) = (d.id.get_binding_identifier(), &d.init) {
            self.bind(id.name.as_str(), init);
        }
    }

    fn visit_assignment_expression(&mut self, a: &AssignmentExpression<'a>) {
        walk::walk_assignment_expression(self, a);
        match a.left.get_identifier_name() {
            Some(name) => self.bind(name, &a.right),
            None => {
                if let Some(set) = self.decided(&a.right) {
                    self.found(set, span_of(&a.right));
                }
            }
        }
    }

    fn visit_return_statement(&mut self, r: &ReturnStatement<'a>) {
        walk::walk_return_statement(self, r);
        if let Some(e) = &r.argument {
            if let Some(set) = self.decided(e) {
                self.found(set, span_of(e));
            }
        }
    }

    fn visit_if_statement(&mut self, it: &IfStatement<'a>) {
        walk::walk_if_statement(self, it);
        let leaves = super::syntax::leaves(&it.consequent)
            || it.alternate.as_ref().is_some_and(super::syntax::leaves);
        if !leaves {
            return;
        }
        if let Some(set) = self.answer(&it.test).or_else(|| self.decided(&it.test)) {
            self.found(set, span_of(&it.test));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use oxc_allocator::Allocator;

    fn reads(src: &str) -> Vec<String> {
        let alloc = Allocator::default();
        let ret = oxc_parser::Parser::new(&alloc, src, oxc_span::SourceType::ts()).parse();
        answered(&ret.program)
            .iter()
            .map(|a| src[a.read.start..a.read.end].to_string())
            .collect()
    }

    #[test]
    fn an_answer_that_decides_is_read_and_one_only_logged_is_not() {
        let r = reads(
            "async function a(id) {\n\
               const ok = await redis.set(`s:${id}`, 1, { ex: 60, nx: true });\n\
               if (!ok) { return; }\n\
             }\n\
             async function b(id) {\n\
               const claim = await redis.set(`c:${id}`, 1, { ex: 30, nx: true });\n\
               flag = claim !== null;\n\
             }\n\
             async function c(id) {\n\
               const result = await redis.set(k, '1', 'EX', TTL, 'NX');\n\
               return result === 'OK';\n\
             }\n\
             async function d(k, v) {\n\
               const result = await this.client?.set(k, v, 'EX', 60);\n\
               if (result === null) { log('not set'); }\n\
               return result;\n\
             }\n\
             async function e(k) {\n\
               const old = await redis.set(k, 1, { get: true, ex: 5 });\n\
               if (!old) { return; }\n\
               const m = new Map(); const x = m.set(k, 1);\n\
               if (!x) { return; }\n\
             }\n",
        );
        assert_eq!(r, ["!ok", "claim !== null", "result === 'OK'"]);
    }

    #[test]
    fn a_plain_set_read_as_a_claim_marks_its_function() {
        let src = "export async function paid(id: string) {\n\
                     const ok = await redis.set(`sale:${id}`, 1, { ex: 3600 });\n\
                     if (!ok) { return; }\n\
                   }\n\
                   class C { async setCache(k, v, ttl, ifNotExists) {\n\
                     if (ifNotExists) { return await this.cacheService.set(k, v, { ttl }); }\n\
                     await this.cacheService.set(k, v, { ttl });\n\
                   }\n\
                   async setIfNotExist(k, v) { return await this.client?.set(k, v, 'EX', 60); } }\n";
        let f = crate::frontend::parse(
            0,
            crate::source::FileKind::Script(crate::source::Dialect::Ts),
            src,
        );
        let flow = &f.code.expect("code").flow;
        let got: Vec<(String, bool, bool)> = flow
            .functions
            .iter()
            .map(|t| {
                (
                    t.name.clone(),
                    t.plain_claim.is_some_and(|c| c.answer),
                    t.plain_claim.is_some() || t.unconditional_set.is_some(),
                )
            })
            .collect();
        assert_eq!(
            got,
            [
                ("paid".to_string(), true, true),
                ("setCache".to_string(), false, true),
                ("setIfNotExist".to_string(), false, true),
            ]
        );
    }
}
