//! The function a walk is in, for the passes that read code per function
//! (`redis`, `retry`): its name and name span (`function f`, `const f = () =>`,
//! a class method or field), the key sources of its bindings
//! (`key_source::Sources`) and the values of its `const`s. A closure is a
//! frame of its own that starts from its function's bindings and keeps its
//! name. Not a scope analysis: shadowing in inner blocks is not modelled.

use super::key_source::Sources;
use super::syntax::{bare, key_name, literal_prefix, span};
use crate::facts::retention::ConstExpr;
use crate::source::Span;
use oxc_ast::ast::{BindingPattern, Expression, Program, Statement, VariableDeclarator};
use oxc_ast::AstKind;
use std::collections::HashMap;

/// One function being walked.
#[derive(Debug, Clone, Default)]
pub(super) struct Frame {
    pub name: Option<String>,
    /// The name's span (the function's whole span when it has none).
    pub name_span: Span,
    pub sources: Sources,
    /// `const x = <expr>` bindings, as the passes read a name's value
    /// (a key's prefix, a TTL).
    pub lets: HashMap<String, Let>,
}

/// What a binding's value is, read when it is bound.
#[derive(Debug, Clone)]
pub(super) struct Let {
    /// The literal text its value starts with (`stripe:event:`).
    pub prefix: Option<String>,
    /// Its value as an integer expression.
    pub expr: ConstExpr,
}

/// The stack of functions a walk is in.
#[derive(Debug, Default)]
pub(super) struct Frames {
    stack: Vec<Frame>,
    /// The name the next function takes (`const f = async () => ..`).
    next_name: Option<(String, Span)>,
    /// The module's string constants (`const HEADER = 'Idempotency-Key'`).
    pub consts: HashMap<String, String>,
    /// Webhook libraries the module imports (`key_source::WEBHOOK_LIBS`).
    libs: Vec<String>,
}

impl Frames {
    pub fn new(program: &Program) -> Self {
        let mut consts = HashMap::new();
        let mut libs = Vec::new();
        for st in &program.body {
            if let Statement::ImportDeclaration(i) = st {
                let from = i.source.value.as_str();
                libs.extend(
                    super::key_source::WEBHOOK_LIBS
                        .iter()
                        .filter(|l| from.contains(*l))
                        .map(|l| l.to_string()),
                );
            }
            let decl = match st {
                Statement::VariableDeclaration(d) => d,
                Statement::ExportDeclaration(e) => match &e.declaration {
                    oxc_ast::ast::Declaration::VariableDeclaration(d) => d,
                    _ => continue,
                },
                _ => continue,
            };
            for d in &decl.declarations {
                if let (BindingPattern::BindingIdentifier(id), Some(init)) = (&d.id, &d.init) {
                    if let Some(v) = super::syntax::string_value(init) {
                        consts.insert(id.name.to_string(), v);
                    }
                }
            }
        }
        Frames {
            consts,
            libs,
            ..Frames::default()
        }
    }

    /// The innermost function, if any.
    pub fn top(&self) -> Option<&Frame> {
        self.stack.last()
    }

    /// Call from `enter_node`.
    pub fn enter(&mut self, kind: &AstKind) {
        let (own, whole) = match kind {
            AstKind::Function(f) => (
                f.id.as_ref().map(|id| (id.name.to_string(), span(id.span))),
                span(f.span),
            ),
            AstKind::ArrowFunctionExpression(a) => (None, span(a.span)),
            _ => return,
        };
        let named = own.or_else(|| self.next_name.take());
        let mut frame = self.stack.last().cloned().unwrap_or_else(|| {
            let mut f = Frame::default();
            f.sources.libs = self.libs.clone();
            f
        });
        if let Some((n, s)) = named {
            frame.name = Some(n);
            frame.name_span = s;
        } else if self.stack.is_empty() {
            frame.name_span = whole;
        }
        frame.sources.fn_name = frame.name.clone();
        self.stack.push(frame);
    }

    /// Call from `leave_node`.
    pub fn leave(&mut self, kind: &AstKind) {
        if matches!(
            kind,
            AstKind::Function(_) | AstKind::ArrowFunctionExpression(_)
        ) {
            self.stack.pop();
        }
    }

    /// Call before walking a declarator: a function it binds takes its name.
    pub fn name_next(&mut self, d: &VariableDeclarator) {
        if let (BindingPattern::BindingIdentifier(id), Some(init)) = (&d.id, &d.init) {
            if is_function(init) {
                self.next_name = Some((id.name.to_string(), span(id.span)));
            }
        }
    }

    /// Call before walking a class method or field, or an object's
    /// property, whose value may be a function.
    pub fn name_member(&mut self, key: &oxc_ast::ast::PropertyKey, value_is_fn: bool) {
        if value_is_fn {
            if let Some(k) = key_name(key) {
                self.next_name = Some((k, span(oxc_span::GetSpan::span(key))));
            }
        }
    }

    /// Call after walking an assignment `name = value`.
    pub fn assign(&mut self, a: &oxc_ast::ast::AssignmentExpression) {
        let oxc_ast::ast::AssignmentTarget::AssignmentTargetIdentifier(id) = &a.left else {
            return;
        };
        let consts = &self.consts;
        if let Some(frame) = self.stack.last_mut() {
            frame.sources.assign(&id.name, &a.right, consts);
        }
    }

    /// Call after walking a declarator: its bindings.
    pub fn bind(&mut self, d: &VariableDeclarator) {
        let Some(init) = &d.init else { return };
        let consts = &self.consts;
        let Some(frame) = self.stack.last_mut() else {
            return;
        };
        frame.sources.bind(&d.id, init, consts);
        if let BindingPattern::BindingIdentifier(id) = &d.id {
            frame.lets.insert(
                id.name.to_string(),
                Let {
                    prefix: literal_prefix(init),
                    expr: super::consts::duration_expr(init),
                },
            );
        }
    }
}

/// A function or arrow function expression.
pub(super) fn is_function(e: &Expression) -> bool {
    matches!(
        bare(e),
        Expression::ArrowFunctionExpression(_) | Expression::FunctionExpression(_)
    )
}
