//! A caller's identity at hand and left out of an idempotency key built in
//! TypeScript, for `unscoped-idempotency-key` (the Rust form is
//! `rust::scope`): a function that holds the caller in a parameter or a
//! binding (`const user = this.getReqUser(ctx)`, `organizationId`,
//! `tenantId`) and builds a key from the client's idempotency key as a
//! template (`` `${env}-${this.getIdempotencyKey(ctx)}` ``) whose parts
//! name no caller. The key is the same for every caller: one caller's key
//! answers another's request. A template counts as a key when its literal
//! text holds no whitespace (a message does) and it is returned, bound to a
//! name, or passed as an argument; a part counts as the client's key when
//! its text names an idempotency key (`idempotencyKey`,
//! `getIdempotencyKey(..)`, `headers['idempotency-key']`). Environment and
//! prefix parts (`env`, `NODE_ENV`, a constant) are neither. A template
//! whose literal prefix names a store (`` `idempotency:${key}` ``) is left
//! to the key formats (`model::key_formats`), which judge it already.
//!
//! Not read: a key built in one function from a caller held in another,
//! keys hashed before they are formatted, and callers held in fields.

use super::syntax::{span, span_of};
use crate::facts::keys::DroppedCaller;
use crate::source::Span;
use oxc_ast::ast::{
    BindingPattern, Expression, FormalParameter, Program, TemplateLiteral, VariableDeclarator,
};
use oxc_ast::AstKind;
use oxc_ast_visit::{walk, Visit};

/// Names (lower-cased, whole) that hold a caller's identity.
const CALLER_NAMES: &[&str] = &[
    "user",
    "userid",
    "caller",
    "callerid",
    "principal",
    "tenant",
    "tenantid",
    "org",
    "orgid",
    "organization",
    "organizationid",
    "organisationid",
    "account",
    "accountid",
    "merchant",
    "merchantid",
    "customerid",
    "clientid",
    "ownerid",
    "workspaceid",
    "apikey",
];

/// Words whose presence in a part makes it the caller's.
const CALLER_WORDS: &[&str] = &[
    "user",
    "tenant",
    "org",
    "account",
    "merchant",
    "customer",
    "client",
    "owner",
    "workspace",
    "project",
    "caller",
    "principal",
    "apikey",
    "api_key",
];

fn is_caller_name(name: &str) -> bool {
    !name.starts_with('_') && CALLER_NAMES.contains(&name.to_ascii_lowercase().as_str())
}

/// The callers each function holds and the unscoped keys it builds.
pub(super) fn dropped(program: &Program, text: &str) -> Vec<DroppedCaller> {
    let mut w = Walk {
        text,
        frames: Vec::new(),
        out: Vec::new(),
        next_name: None,
    };
    w.visit_program(program);
    w.out
}

#[derive(Default)]
struct Frame {
    name: String,
    span: Span,
    callers: Vec<(String, Span, &'static str)>,
    /// An unscoped key built here, found before the frame closes.
    unscoped: bool,
}

struct Walk<'t> {
    text: &'t str,
    frames: Vec<Frame>,
    out: Vec<DroppedCaller>,
    next_name: Option<(String, Span)>,
}

impl Walk<'_> {
    fn text_of(&self, s: Span) -> &str {
        self.text.get(s.start..s.end).unwrap_or_default()
    }

    /// Whether a key template names the client's key and no caller.
    fn unscoped(&self, t: &TemplateLiteral) -> bool {
        if t.quasis
            .iter()
            .any(|q| q.value.raw.chars().any(char::is_whitespace))
            || t.expressions.is_empty()
        {
            return false;
        }
        // A format whose prefix names a store (`idempotency:${key}`) is the
        // key formats' to judge (`model::key_formats`).
        let prefix = t.quasis.first().map(|q| q.value.raw.as_str()).unwrap_or("");
        if !prefix.is_empty() && crate::knowledge::stores().is_store_prefix(prefix) {
            return false;
        }
        let parts: Vec<String> = (t.expressions.iter())
            .map(|e| self.text_of(span_of(e)).to_ascii_lowercase())
            .collect();
        let keyed = parts.iter().any(|p| p.contains("idempot"));
        let callers = self.frames.last().map(|f| &f.callers[..]).unwrap_or(&[]);
        let scoped = parts.iter().any(|p| {
            CALLER_WORDS.iter().any(|w| p.contains(w))
                || callers
                    .iter()
                    .any(|(n, ..)| p.contains(&n.to_ascii_lowercase()))
        });
        keyed && !scoped
    }

    fn key_template(&mut self, e: &Expression) {
        if let Expression::TemplateLiteral(t) = super::syntax::bare(e) {
            if self.unscoped(t) {
                if let Some(f) = self.frames.last_mut() {
                    f.unscoped = true;
                }
            }
        }
    }

    fn hold(&mut self, name: &str, at: Span, how: &'static str) {
        if let (true, Some(f)) = (is_caller_name(name), self.frames.last_mut()) {
            f.callers.push((name.to_string(), at, how));
        }
    }
}

impl<'a> Visit<'a> for Walk<'_> {
    fn enter_node(&mut self, kind: AstKind<'a>) {
        let whole = match kind {
            AstKind::Function(f) => {
                if let Some(id) = &f.id {
                    self.next_name
                        .get_or_insert((id.name.to_string(), span(id.span)));
                }
                span(f.span)
            }
            AstKind::ArrowFunctionExpression(a) => span(a.span),
            AstKind::MethodDefinition(m) => {
                if let Some(n) = super::syntax::key_name(&m.key) {
                    self.next_name = Some((n, span_of(&m.key)));
                }
                return;
            }
            _ => return,
        };
        let (name, span) = self
            .next_name
            .take()
            .unwrap_or_else(|| ("<anonymous>".to_string(), whole));
        self.frames.push(Frame {
            name,
            span,
            ..Frame::default()
        });
    }

    fn leave_node(&mut self, kind: AstKind<'a>) {
        if !matches!(
            kind,
            AstKind::Function(_) | AstKind::ArrowFunctionExpression(_)
        ) {
            return;
        }
        let Some(f) = self.frames.pop() else { return };
        if !f.unscoped {
            return;
        }
        if let Some((name, at, how)) = f.callers.first() {
            self.out.push(DroppedCaller {
                span: *at,
                name: name.clone(),
                function: f.name.clone(),
                function_span: f.span,
                how: how.to_string(),
                used: true,
            });
        }
    }

    fn visit_formal_parameter(&mut self, p: &FormalParameter<'a>) {
        if let Some(id) = p.pattern.get_binding_identifier() {
            self.hold(id.name.as_str(), span(id.span), "a parameter");
        }
        walk::walk_formal_parameter(self, p);
    }

    fn visit_variable_declarator(&mut self, d: &VariableDeclarator<'a>) {
        walk::walk_variable_declarator(self, d);
        match &d.id {
            BindingPattern::BindingIdentifier(id) => {
                self.hold(id.name.as_str(), span(id.span), "a binding")
            }
            BindingPattern::ObjectPattern(o) => {
                for p in &o.properties {
                    if let Some(id) = p.value.get_binding_identifier() {
                        self.hold(id.name.as_str(), span(id.span), "a binding");
                    }
                }
            }
            _ => {}
        }
        if let Some(init) = &d.init {
            self.key_template(init);
        }
    }

    fn visit_return_statement(&mut self, r: &oxc_ast::ast::ReturnStatement<'a>) {
        walk::walk_return_statement(self, r);
        if let Some(e) = &r.argument {
            self.key_template(e);
        }
    }

    fn visit_call_expression(&mut self, c: &oxc_ast::ast::CallExpression<'a>) {
        walk::walk_call_expression(self, c);
        for a in c.arguments.iter().filter_map(|a| a.as_expression()) {
            self.key_template(a);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use oxc_allocator::Allocator;

    fn names(src: &str) -> Vec<(String, String)> {
        let alloc = Allocator::default();
        let ret = oxc_parser::Parser::new(&alloc, src, oxc_span::SourceType::ts()).parse();
        dropped(&ret.program, src)
            .into_iter()
            .map(|d| (d.function, d.name))
            .collect()
    }

    #[test]
    fn a_key_without_the_caller_at_hand_is_reported() {
        let d = names(
            "class I {\n\
               private getCacheKey(ctx: Ctx): string {\n\
                 const user = this.getReqUser(ctx);\n\
                 if (user === undefined) { throw new Error('no user'); }\n\
                 const env = process.env.NODE_ENV;\n\
                 return `${env}-${this.getIdempotencyKey(ctx)}`;\n\
               }\n\
               private scoped(ctx: Ctx): string {\n\
                 const user = this.getReqUser(ctx);\n\
                 return `${process.env.NODE_ENV}-${user.organizationId}-${this.getIdempotencyKey(ctx)}`;\n\
               }\n\
               private logged(ctx: Ctx, organizationId: string) {\n\
                 log(`replay of key ${ctx.idempotencyKey}`);\n\
               }\n\
             }\n",
        );
        assert_eq!(d, [("getCacheKey".to_string(), "user".to_string())]);
    }
}
