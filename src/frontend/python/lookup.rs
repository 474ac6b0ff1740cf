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
//! `_default_manager`, `cls` in a method of the model, or a name bound to
//! the filter) and the insert `M.objects.create(..)`, `M(..).save()` (or
//! through a name bound to the new row), a method of the model named for a
//! create (`cls._create_from_stripe_object(..)`, `rules/stores.toml`), or a
//! sibling method that makes one of these (`self.create_order_model(..)`).
//! Whether the
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
            Stmt::ClassDef(c) => class(c.name.id.as_str(), &c.body, &mut out),
            Stmt::FunctionDef(f) => function(f, &Siblings::default(), &mut out),
            _ => {}
        }
    }
    out.truncate(MAX_FACTS);
    out
}

/// What a class's methods do that a sibling may call for: the one lookup
/// a method makes, the models a method inserts, and the class (`cls`).
#[derive(Default)]
struct Siblings<'s> {
    class: Option<&'s str>,
    lookups: HashMap<String, Lookup>,
    inserts: HashMap<String, Vec<String>>,
}

/// The methods of a class, each read with the lookups and inserts its
/// sibling methods make.
fn class(name: &str, body: &[Stmt], out: &mut Vec<FindOrCreate>) {
    let methods: Vec<&StmtFunctionDef> = body
        .iter()
        .filter_map(|s| match s {
            Stmt::FunctionDef(f) => Some(f),
            _ => None,
        })
        .collect();
    let mut siblings = Siblings {
        class: Some(name),
        lookups: methods
            .iter()
            .filter_map(|f| Some((f.name.id.to_string(), lookup_of(f)?)))
            .collect(),
        inserts: HashMap::new(),
    };
    let inserts = methods
        .iter()
        .map(|f| {
            let mut s = Sequence::new(f.name.id.as_str(), &siblings, None);
            s.visit_body(&f.body);
            (f.name.id.to_string(), s.inserted)
        })
        .filter(|(_, i)| !i.is_empty())
        .collect();
    siblings.inserts = inserts;
    for f in methods {
        function(f, &siblings, out);
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
fn function(f: &StmtFunctionDef, siblings: &Siblings, out: &mut Vec<FindOrCreate>) {
    let mut s = Sequence::new(f.name.id.as_str(), siblings, Some(out));
    s.visit_body(&f.body);
}

struct Sequence<'s> {
    /// The function's own name: a lookup does not precede itself.
    own: &'s str,
    siblings: &'s Siblings<'s>,
    /// The lookups made so far, and where.
    read: Vec<(Lookup, Span)>,
    /// Names bound to a Django lookup (`qs = M.objects.filter(..)`) or to
    /// a new row (`row = M(..)`, the model).
    bound: HashMap<String, Lookup>,
    made: HashMap<String, String>,
    /// The models the function inserts, after a lookup or not.
    inserted: Vec<String>,
    out: Option<&'s mut Vec<FindOrCreate>>,
}

impl<'a> Visitor<'a> for Sequence<'_> {
    fn visit_stmt(&mut self, s: &'a Stmt) {
        // a nested function is code of its own
        if matches!(s, Stmt::FunctionDef(_) | Stmt::ClassDef(_)) {
            return;
        }
        if let Stmt::Assign(a) = s {
            if let ([Expr::Name(n)], Expr::Call(c)) = (a.targets.as_slice(), &*a.value) {
                let n = n.id.to_string();
                if let Some(l) = self.django_filter(c) {
                    self.bound.insert(n.clone(), l);
                } else {
                    self.bound.remove(&n);
                }
                match constructed(c) {
                    Some(m) => self.made.insert(n, m),
                    None => self.made.remove(&n),
                };
            }
        }
        ruff_python_ast::visitor::walk_stmt(self, s);
    }

    fn visit_expr(&mut self, e: &'a Expr) {
        if let Expr::Call(c) = e {
            self.call(c);
        }
        walk_expr(self, e);
    }
}

impl<'s> Sequence<'s> {
    fn new(
        own: &'s str,
        siblings: &'s Siblings<'s>,
        out: Option<&'s mut Vec<FindOrCreate>>,
    ) -> Self {
        Sequence {
            own,
            siblings,
            read: Vec::new(),
            bound: HashMap::new(),
            made: HashMap::new(),
            inserted: Vec::new(),
            out,
        }
    }

    fn visit_body(&mut self, body: &[Stmt]) {
        for st in body {
            self.visit_stmt(st);
        }
    }

    /// A model's class as code names it: `cls` in a method of the model.
    fn model<'m>(&'m self, name: &'m str) -> Option<&'m str> {
        match name {
            "cls" => self.siblings.class,
            n => n.starts_with(char::is_uppercase).then_some(n),
        }
    }

    fn django_filter(&self, c: &ExprCall) -> Option<Lookup> {
        let (model, cols) = django_filter(c)?;
        Some((self.model(&model)?.to_string(), cols))
    }

    fn call(&mut self, c: &ExprCall) {
        if let Some([me, m]) = path_of(&c.func).as_deref() {
            if me == "self" && m != self.own {
                // `self.get_by_source(..)`: a sibling method's lookup
                if let Some(l) = self.siblings.lookups.get(m) {
                    self.read.push((l.clone(), span_of(c)));
                    return;
                }
                // `self.create_order_model(..)`: a sibling method's insert
                if let Some(models) = self.siblings.inserts.get(m) {
                    for model in models.clone() {
                        self.insert(&model);
                    }
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
        if let Some(model) = self.django_insert(c) {
            self.insert(&model);
            return;
        }
        // Django: `M.objects.filter(a=x).exists()` (or `qs.exists()`)
        if let Expr::Attribute(a) = &*c.func {
            if a.attr.id.as_str() == "exists" {
                let l = match &*a.value {
                    Expr::Call(f) => self.django_filter(f),
                    Expr::Name(n) => self.bound.get(n.id.as_str()).cloned(),
                    _ => None,
                };
                if let Some(l) = l {
                    self.read.push((l, span_of(c)));
                }
                return;
            }
        }
        if !(is_method(c, "create") || is_method(c, "add")) {
            return;
        }
        // `self.create(M(..))`, `session.add(M(..))`
        let Some(Expr::Call(made)) = c.arguments.args.first() else {
            return;
        };
        if let Some(class) = path_of(&made.func).and_then(|p| p.last().cloned()) {
            self.insert(&class);
        }
    }

    /// The model a Django call inserts a row of: `M.objects.create(..)`,
    /// `M(..).save()` or `row.save()` of a `row = M(..)`, or a method of
    /// the model named for a create (`cls._create_from_stripe_object(..)`,
    /// `rules/stores.toml`).
    fn django_insert(&self, c: &ExprCall) -> Option<String> {
        if let Some(m) = django_manager(&c.func, "create") {
            return self.model(&m).map(str::to_string);
        }
        if is_method(c, "save") {
            let Expr::Attribute(a) = &*c.func else {
                return None;
            };
            return match &*a.value {
                Expr::Name(n) => self.made.get(n.id.as_str()).cloned(),
                Expr::Call(made) => constructed(made),
                _ => None,
            };
        }
        let p = path_of(&c.func)?;
        let [class, method] = p.as_slice() else {
            return None;
        };
        let creates = &knowledge::stores().model_create_method;
        let first = method.split('_').find(|w| !w.is_empty())?;
        creates
            .first_words
            .iter()
            .any(|w| w == first)
            .then(|| self.model(class).map(str::to_string))
            .flatten()
    }

    /// An insert of `model`: a find-or-create when a lookup of it came
    /// first.
    fn insert(&mut self, model: &str) {
        if !self.inserted.iter().any(|m| m == model) {
            self.inserted.push(model.to_string());
        }
        let found = self
            .read
            .iter()
            .rev()
            .find(|((m, _), _)| m == model)
            .cloned();
        let (Some(((model, cols), at)), Some(out)) = (found, self.out.as_deref_mut()) else {
            return;
        };
        out.push(FindOrCreate {
            table: knowledge::snake(&model),
            columns: cols,
            defaults: None,
            span: at,
        });
    }
}

/// The model class a call makes a row of: `M(..)`, `M` a class name.
fn constructed(c: &ExprCall) -> Option<String> {
    let Expr::Name(n) = &*c.func else { return None };
    let n = n.id.as_str();
    (n.starts_with(char::is_uppercase) && n.chars().any(char::is_lowercase)).then(|| n.to_string())
}

/// The model of a Django manager's call: `M.objects.<method>(..)` (or
/// `M._default_manager`), `M` a class name or `cls`.
fn django_manager(func: &Expr, method: &str) -> Option<String> {
    let p = path_of(func)?;
    let [.., model, manager, m] = p.as_slice() else {
        return None;
    };
    (m == method
        && (manager == "objects" || manager == "_default_manager")
        && (model.starts_with(char::is_uppercase) || model == "cls"))
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
