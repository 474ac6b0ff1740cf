//! A find-or-create written as two calls, lowered into the same
//! [`FindOrCreate`] fact as Django's `get_or_create`: a read of a model's
//! row by equality on some of its columns, then, later in the same
//! function, the insert of a new row of that model.
//!
//! The read is a SQLAlchemy `.where(M.a == x, M.b == y)` whose every
//! condition is an equality on one model's column, in the function itself
//! or in a method of the same class it calls (`self.get_by_source(..)`, a
//! repository's lookup). The insert is that model's constructor handed to
//! a `create(..)` or `add(..)` (`self.create(M(..))`,
//! `session.add(M(..))`). In Django the read is `M.objects.filter(a=x,
//! b=y).exists()` (every keyword an equality on a field; also through
//! `_default_manager`) and the insert `M.objects.create(..)`. Whether the
//! pair is a check-then-insert is the
//! model's to judge: only where the project's schema keys the table by
//! exactly those columns (`model::find_or_create`).
//!
//! Not read: a lookup in another class or module (a service calling its
//! repository), conditions other than equalities (`.in_(..)`,
//! `.is_(None)`), a model reached through a variable (`self.model`).

use super::syntax::{path_of, span_of};
use crate::facts::store::FindOrCreate;
use crate::knowledge;
use crate::source::Span;
use ruff_python_ast::visitor::{walk_expr, Visitor};
use ruff_python_ast::{CmpOp, Expr, ExprCall, Stmt, StmtFunctionDef};
use std::collections::HashMap;

/// Most facts read from one file: beyond this the file is generated.
const MAX_FACTS: usize = 1_000;

/// A read by equality: the model's class and the columns, as written.
type Lookup = (String, Vec<String>);

/// The two-call find-or-creates of a module.
pub fn read(body: &[Stmt]) -> Vec<FindOrCreate> {
    let mut out = Vec::new();
    for s in body {
        match s {
            Stmt::ClassDef(c) => class(&c.body, &mut out),
            Stmt::FunctionDef(f) => function(f, &HashMap::new(), &mut out),
            _ => {}
        }
    }
    out.truncate(MAX_FACTS);
    out
}

/// The methods of a class, each read with the lookups its sibling methods
/// make.
fn class(body: &[Stmt], out: &mut Vec<FindOrCreate>) {
    let methods: Vec<&StmtFunctionDef> = body
        .iter()
        .filter_map(|s| match s {
            Stmt::FunctionDef(f) => Some(f),
            _ => None,
        })
        .collect();
    let lookups: HashMap<String, Lookup> = methods
        .iter()
        .filter_map(|f| Some((f.name.id.to_string(), lookup_of(f)?)))
        .collect();
    for f in methods {
        function(f, &lookups, out);
    }
}

/// The one read by equality a method makes, if it makes exactly one.
fn lookup_of(f: &StmtFunctionDef) -> Option<Lookup> {
    let mut w = Wheres::default();
    for s in &f.body {
        w.visit_stmt(s);
    }
    match (w.found.as_slice(), w.other) {
        ([one], false) => Some(one.clone()),
        _ => None,
    }
}

#[derive(Default)]
struct Wheres {
    found: Vec<Lookup>,
    /// A `.where(..)` that is no lookup by equality.
    other: bool,
}

impl<'a> Visitor<'a> for Wheres {
    fn visit_expr(&mut self, e: &'a Expr) {
        if let Expr::Call(c) = e {
            if is_method(c, "where") {
                match equalities(c) {
                    Some(l) => self.found.push(l),
                    None => self.other = true,
                }
            }
        }
        walk_expr(self, e);
    }
}

/// Whether a call is `<x>.<name>(..)`.
fn is_method(c: &ExprCall, name: &str) -> bool {
    matches!(&*c.func, Expr::Attribute(a) if a.attr.id.as_str() == name)
}

/// `.where(M.a == x, M.b == y)`: the model and its columns, when every
/// condition is an equality on a column of the one model (a class name).
fn equalities(c: &ExprCall) -> Option<Lookup> {
    if c.arguments.args.is_empty() || !c.arguments.keywords.is_empty() {
        return None;
    }
    let mut model: Option<String> = None;
    let mut cols = Vec::new();
    for a in &c.arguments.args {
        let Expr::Compare(cmp) = a else { return None };
        if cmp.ops.as_ref() != [CmpOp::Eq] {
            return None;
        }
        let Expr::Attribute(attr) = &*cmp.left else {
            return None;
        };
        let Expr::Name(n) = &*attr.value else {
            return None;
        };
        let m = n.id.as_str();
        if !m.starts_with(char::is_uppercase) || model.as_deref().is_some_and(|x| x != m) {
            return None;
        }
        model = Some(m.to_string());
        cols.push(attr.attr.id.to_ascii_lowercase());
    }
    Some((model?, cols))
}

/// Reads one function: each insert of a model after a lookup of it.
fn function(f: &StmtFunctionDef, lookups: &HashMap<String, Lookup>, out: &mut Vec<FindOrCreate>) {
    let mut s = Sequence {
        own: f.name.id.as_str(),
        lookups,
        read: Vec::new(),
        out,
    };
    for st in &f.body {
        s.visit_stmt(st);
    }
}

struct Sequence<'s> {
    /// The function's own name: a lookup does not precede itself.
    own: &'s str,
    lookups: &'s HashMap<String, Lookup>,
    /// The lookups made so far, and where.
    read: Vec<(Lookup, Span)>,
    out: &'s mut Vec<FindOrCreate>,
}

impl<'a> Visitor<'a> for Sequence<'_> {
    fn visit_stmt(&mut self, s: &'a Stmt) {
        // a nested function is code of its own
        if !matches!(s, Stmt::FunctionDef(_) | Stmt::ClassDef(_)) {
            ruff_python_ast::visitor::walk_stmt(self, s);
        }
    }

    fn visit_expr(&mut self, e: &'a Expr) {
        if let Expr::Call(c) = e {
            self.call(c);
        }
        walk_expr(self, e);
    }
}

impl Sequence<'_> {
    fn call(&mut self, c: &ExprCall) {
        // `self.get_by_source(..)`: a sibling method's lookup
        if let Some([me, m]) = path_of(&c.func).as_deref() {
            if me == "self" && m != self.own {
                if let Some(l) = self.lookups.get(m) {
                    self.read.push((l.clone(), span_of(c)));
                    return;
                }
            }
        }
        if is_method(c, "where") {
            if let Some(l) = equalities(c) {
                self.read.push((l, span_of(c)));
            }
            return;
        }
        // Django: `M.objects.filter(a=x).exists()`, then `M.objects.create(..)`
        if let Expr::Attribute(a) = &*c.func {
            if let (Expr::Call(f), "exists") = (&*a.value, a.attr.id.as_str()) {
                if let Some(l) = django_filter(f) {
                    self.read.push((l, span_of(c)));
                }
                return;
            }
        }
        if let Some(model) = django_manager(&c.func, "create") {
            let found = self
                .read
                .iter()
                .rev()
                .find(|((m, _), _)| *m == model)
                .cloned();
            if let Some(((model, cols), at)) = found {
                self.push(&model, &cols, at);
            }
            return;
        }
        if !(is_method(c, "create") || is_method(c, "add")) {
            return;
        }
        // `self.create(M(..))`, `session.add(M(..))`
        let Some(Expr::Call(made)) = c.arguments.args.first() else {
            return;
        };
        let Some(class) = path_of(&made.func).and_then(|p| p.last().cloned()) else {
            return;
        };
        let Some(((model, cols), at)) = self.read.iter().rev().find(|((m, _), _)| *m == class)
        else {
            return;
        };
        let (model, cols, at) = (model.clone(), cols.clone(), *at);
        self.push(&model, &cols, at);
    }

    fn push(&mut self, model: &str, cols: &[String], at: Span) {
        self.out.push(FindOrCreate {
            table: knowledge::snake(model),
            columns: cols.to_vec(),
            defaults: None,
            span: at,
        });
    }
}

/// The model of a Django manager's call: `M.objects.<method>(..)` (or
/// `M._default_manager`), `M` a class name.
fn django_manager(func: &Expr, method: &str) -> Option<String> {
    let p = path_of(func)?;
    let [.., model, manager, m] = p.as_slice() else {
        return None;
    };
    (m == method
        && (manager == "objects" || manager == "_default_manager")
        && model.starts_with(char::is_uppercase))
    .then(|| model.clone())
}

/// `M.objects.filter(a=x, b=y)`: the model and the fields, when every
/// keyword is an equality on a field (no `__` lookup) and nothing is
/// passed by position (a `Q(..)`).
fn django_filter(f: &ExprCall) -> Option<Lookup> {
    let model = django_manager(&f.func, "filter")?;
    if !f.arguments.args.is_empty() || f.arguments.keywords.is_empty() {
        return None;
    }
    let cols = f
        .arguments
        .keywords
        .iter()
        .map(|k| {
            let a = k.arg.as_ref()?.id.as_str();
            (!a.contains("__")).then(|| a.to_string())
        })
        .collect::<Option<Vec<_>>>()?;
    Some((model, cols))
}
