//! Small readings of oxc's tree shared by the TypeScript passes: spans,
//! literal values and prefixes, member paths, the parts of a call as a
//! [`CallSite`] names them, object properties, and integer expressions.

use crate::facts::flow::CallSite;
use crate::facts::retention::ConstExpr;
use crate::knowledge::Name;
use crate::source::Span;
use oxc_ast::ast::{
    Argument, BinaryOperator, CallExpression, Expression, ObjectExpression, ObjectPropertyKind,
    PropertyKey, Statement,
};
use oxc_span::GetSpan;
use thin_vec::ThinVec;

/// An oxc span as the run's byte span.
pub fn span(s: oxc_span::Span) -> Span {
    Span::new(s.start as usize, s.end as usize)
}

/// The span of any node.
pub fn span_of(node: &impl GetSpan) -> Span {
    span(node.span())
}

/// `e` without what does not change its value: parentheses, `as T`,
/// `satisfies T`, `<T>e`, `e!`.
pub fn bare<'b, 'a>(e: &'b Expression<'a>) -> &'b Expression<'a> {
    e.get_inner_expression()
}

/// An argument that is an expression (not `...spread`).
pub fn arg<'b, 'a>(call: &'b CallExpression<'a>, i: usize) -> Option<&'b Expression<'a>> {
    call.arguments.get(i).and_then(Argument::as_expression)
}

/// The value of a string literal or of a template with no `${}`.
pub fn string_value(e: &Expression) -> Option<String> {
    match bare(e) {
        Expression::StringLiteral(s) => Some(s.value.to_string()),
        Expression::TemplateLiteral(t) if t.expressions.is_empty() => {
            t.quasis.first()?.value.cooked.map(|c| c.to_string())
        }
        _ => None,
    }
}

/// The literal text a string-valued expression starts with: a literal
/// whole, a template up to its first `${`, a concatenation's left side
/// (`"stripe:evt:" + id`). `None` when it starts with no literal text.
pub fn literal_prefix(e: &Expression) -> Option<String> {
    match bare(e) {
        Expression::StringLiteral(s) => Some(s.value.to_string()),
        Expression::TemplateLiteral(t) => {
            let first = t.quasis.first()?.value.cooked?.to_string();
            (!first.is_empty()).then_some(first)
        }
        Expression::BinaryExpression(b) if b.operator == BinaryOperator::Addition => {
            literal_prefix(&b.left)
        }
        _ => None,
    }
}

/// `a.b.c` as `["a", "b", "c"]`; `this.x` as `["this", "x"]`; `a?.b` as
/// `["a", "b"]`. `None` for anything but names and static members.
pub fn path_of(e: &Expression) -> Option<Vec<String>> {
    match bare(e) {
        Expression::Identifier(id) => Some(vec![id.name.to_string()]),
        Expression::ThisExpression(_) => Some(vec!["this".to_string()]),
        Expression::StaticMemberExpression(m) => {
            let mut p = path_of(&m.object)?;
            p.push(m.property.name.to_string());
            Some(p)
        }
        Expression::ChainExpression(c) => c.expression.as_member_expression().and_then(|m| {
            let mut p = path_of(m.object())?;
            p.push(m.static_property_name()?.to_string());
            Some(p)
        }),
        _ => None,
    }
}

/// The root name of an expression: `a` of `a.b.c(..).d`, `this` of
/// `this.x`.
pub fn root_name(e: &Expression) -> Option<String> {
    match bare(e) {
        Expression::Identifier(id) => Some(id.name.to_string()),
        Expression::ThisExpression(_) => Some("this".to_string()),
        Expression::AwaitExpression(a) => root_name(&a.argument),
        Expression::CallExpression(c) => root_name(&c.callee),
        Expression::ChainExpression(c) => match &c.expression {
            oxc_ast::ast::ChainElement::CallExpression(call) => root_name(&call.callee),
            other => other
                .as_member_expression()
                .and_then(|m| root_name(m.object())),
        },
        e => e.as_member_expression().and_then(|m| root_name(m.object())),
    }
}

fn names(v: impl IntoIterator<Item = String>) -> ThinVec<Name> {
    v.into_iter().map(|s| Name::from(s.as_str())).collect()
}

/// A call as the model matches it: `stripe.refunds.create(p, o)` is the
/// method `create` on the receiver `stripe.refunds`; `fetch(url)` the path
/// `fetch`; `client.post(url).then(f)` the method `then`, chained after
/// `post`, on the receiver `client`.
pub fn call_site(call: &CallExpression) -> CallSite {
    let mut site = CallSite {
        arg_roots: call
            .arguments
            .iter()
            .map(|a| {
                a.as_expression()
                    .and_then(root_name)
                    .map(|n| Name::from(n.as_str()))
            })
            .collect(),
        args: arg_names(call),
        ..CallSite::default()
    };
    let callee = bare(&call.callee);
    let Some(member) = callee.as_member_expression() else {
        if let Some(p) = path_of(callee) {
            site.path = names(p);
        }
        return site;
    };
    site.method = member.static_property_name().map(Name::from);
    let (chain, root) = chain_of(member.object());
    site.chain = names(chain);
    // `this` is the model's `self`: the method's class.
    let mut root = root.unwrap_or_default();
    if let Some(first) = root.first_mut().filter(|f| *f == "this") {
        *first = "self".to_string();
    }
    site.receiver = names(root);
    site
}

/// The names an effect pattern's `arg_any` matches in a call's arguments:
/// the segments of a path, the keys of an object literal, and the HTTP
/// method an options object gives (`{ method: 'POST' }` names `POST`).
fn arg_names(call: &CallExpression) -> ThinVec<Name> {
    let mut out = ThinVec::new();
    for a in call.arguments.iter().filter_map(Argument::as_expression) {
        match bare(a) {
            Expression::ObjectExpression(o) => {
                for p in &o.properties {
                    if let ObjectPropertyKind::ObjectProperty(p) = p {
                        out.extend(key_name(&p.key).map(|k| Name::from(k.as_str())));
                    }
                }
                if let Some(m) = prop(o, "method").and_then(string_value) {
                    out.push(Name::from(m.to_ascii_uppercase().as_str()));
                }
            }
            Expression::NewExpression(n) => {
                out.extend(
                    path_of(&n.callee)
                        .into_iter()
                        .flatten()
                        .map(|s| Name::from(s.as_str())),
                );
            }
            e => out.extend(
                path_of(e)
                    .into_iter()
                    .flatten()
                    .map(|s| Name::from(s.as_str())),
            ),
        }
    }
    out
}

/// The methods called in a chain before its last call, and the chain's
/// root as a path: `client.post(url).json(b)` gives (`[post, json]`,
/// `[client]`).
fn chain_of(e: &Expression) -> (Vec<String>, Option<Vec<String>>) {
    let mut methods = Vec::new();
    let mut e = bare(e);
    loop {
        match e {
            Expression::CallExpression(c) => {
                let callee = bare(&c.callee);
                match callee.as_member_expression() {
                    Some(m) if path_of(callee).is_none() => {
                        methods.extend(m.static_property_name().map(|n| n.to_string()));
                        e = bare(m.object());
                    }
                    _ => {
                        let p = path_of(callee);
                        if let Some(p) = &p {
                            methods.extend(p.last().cloned());
                        }
                        methods.reverse();
                        return (
                            methods,
                            p.map(|mut p| {
                                p.pop();
                                p
                            }),
                        );
                    }
                }
            }
            Expression::AwaitExpression(a) => e = bare(&a.argument),
            _ => {
                methods.reverse();
                return (methods, path_of(e));
            }
        }
    }
}

/// The value of a property of an object literal, by its static name
/// (`{ ex: 60 }`, `{ "EX": 60 }`, `{ ex }` shorthand).
pub fn prop<'b, 'a>(obj: &'b ObjectExpression<'a>, name: &str) -> Option<&'b Expression<'a>> {
    obj.properties.iter().find_map(|p| match p {
        ObjectPropertyKind::ObjectProperty(p) if key_name(&p.key).as_deref() == Some(name) => {
            Some(&p.value)
        }
        _ => None,
    })
}

/// The static name of a property key.
pub fn key_name(k: &PropertyKey) -> Option<String> {
    k.static_name().map(|n| n.to_string())
}

/// An integer expression as far as this file tells it: numbers (`86_400`,
/// `1e3`), names of constants, `+ - * /`. Anything else is `Unknown`.
pub fn const_expr(e: &Expression) -> ConstExpr {
    match bare(e) {
        Expression::NumericLiteral(n) if n.value >= 0.0 && n.value.fract() == 0.0 => {
            ConstExpr::Int(n.value as u64)
        }
        Expression::Identifier(id) => ConstExpr::Ref(id.name.to_string()),
        Expression::StaticMemberExpression(_) => match path_of(e) {
            Some(p) => ConstExpr::Ref(p.join(".")),
            None => ConstExpr::Unknown,
        },
        Expression::BinaryExpression(b) => {
            let (l, r) = (
                Box::new(const_expr(&b.left)),
                Box::new(const_expr(&b.right)),
            );
            match b.operator {
                BinaryOperator::Addition => ConstExpr::Add(l, r),
                BinaryOperator::Subtraction => ConstExpr::Sub(l, r),
                BinaryOperator::Multiplication => ConstExpr::Mul(l, r),
                BinaryOperator::Division => ConstExpr::Div(l, r),
                _ => ConstExpr::Unknown,
            }
        }
        _ => ConstExpr::Unknown,
    }
}

/// Whether a block leaves the function or loop (a `return`, `throw`,
/// `break` or `continue` among its statements).
pub fn leaves(s: &Statement) -> bool {
    match s {
        Statement::BlockStatement(b) => b.body.iter().any(leaves_here),
        s => leaves_here(s),
    }
}

fn leaves_here(s: &Statement) -> bool {
    matches!(
        s,
        Statement::ReturnStatement(_)
            | Statement::ThrowStatement(_)
            | Statement::BreakStatement(_)
            | Statement::ContinueStatement(_)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use oxc_allocator::Allocator;
    use oxc_ast::ast::Statement;

    fn with_expr(src: &str, f: impl FnOnce(&Expression)) {
        let alloc = Allocator::default();
        let r = oxc_parser::Parser::new(&alloc, src, oxc_span::SourceType::ts()).parse();
        let Some(Statement::ExpressionStatement(s)) = r.program.body.first() else {
            panic!("not an expression statement: {src}");
        };
        f(&s.expression);
    }

    #[test]
    fn a_method_call_names_its_method_receiver_and_chain() {
        with_expr(
            "stripe.refunds.create({ charge }, { idempotencyKey: k })",
            |e| {
                let Expression::CallExpression(c) = e else {
                    panic!()
                };
                let s = call_site(c);
                assert_eq!(s.method.as_deref(), Some("create"));
                assert_eq!(
                    s.receiver.iter().map(Name::as_str).collect::<Vec<_>>(),
                    ["stripe", "refunds"]
                );
            },
        );
        with_expr("client.post(url).json(b).send()", |e| {
            let Expression::CallExpression(c) = e else {
                panic!()
            };
            let s = call_site(c);
            assert_eq!(s.method.as_deref(), Some("send"));
            assert_eq!(
                s.chain.iter().map(Name::as_str).collect::<Vec<_>>(),
                ["post", "json"]
            );
            assert_eq!(
                s.receiver.iter().map(Name::as_str).collect::<Vec<_>>(),
                ["client"]
            );
        });
        with_expr("fetch(url, opts)", |e| {
            let Expression::CallExpression(c) = e else {
                panic!()
            };
            let s = call_site(c);
            assert_eq!(
                s.path.iter().map(Name::as_str).collect::<Vec<_>>(),
                ["fetch"]
            );
            assert_eq!(s.arg_roots.len(), 2);
        });
    }

    #[test]
    fn prefixes_and_integers_read_as_written() {
        with_expr("`stripe:evt:${event.id}`", |e| {
            assert_eq!(literal_prefix(e).as_deref(), Some("stripe:evt:"));
        });
        with_expr("'idem:' + key", |e| {
            assert_eq!(literal_prefix(e).as_deref(), Some("idem:"));
        });
        with_expr("60 * 60 * DAYS", |e| {
            let c = const_expr(e);
            assert!(matches!(c, ConstExpr::Mul(..)), "{c:?}");
        });
    }
}
