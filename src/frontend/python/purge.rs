//! ORM deletes that expire a table's rows, the retention SQL's `DELETE ..
//! WHERE created_at < now() - interval '30 days'` gives: Django's
//! `M.objects.filter(created__lt=cutoff).delete()` (`__lte` too), and
//! SQLAlchemy's `delete(M).where(M.created_at < cutoff)` (`<=`, the sides
//! swapped, `and_(..)`, several `.where(..)`) and `session.query(M)
//! .filter(..).delete()`, where the cut-off is the clock minus a duration
//! (`timezone.now() - timedelta(days=30)`, the clock's names in
//! `rules/retention.toml`), in place or bound to a name in the function.
//! A cut-off the function takes as a parameter (a repository's
//! `delete_before(self, before)`) is joined in the model with the calls
//! that pass the clock minus a duration (`repository.delete_before(
//! utc_now() - timedelta(days=30))`, in any file).
//!
//! The target is the model's class in snake case: the model keeps the
//! retention only where the schema makes that model's table a store
//! (`facts::retention::ORM_CONTEXT`), never by the class's name alone.
//!
//! Also read here: the models whose row's column the code hands out as an
//! idempotency key (`key, _ = M.objects.get_or_create(..)`, then `return
//! str(key.uuid)` from a function named for an idempotency key, or
//! `idempotency_key=str(key.uuid)` in a call): keys the service sends.

use super::syntax::{duration_expr, path_of, span_of};
use crate::facts::retention::{
    ConstExpr, CutoffArg, ParamCutoff, PendingRetention, RetentionFacts, StoreRef, ORM_CONTEXT,
};
use crate::knowledge;
use crate::source::Span;
use ruff_python_ast::visitor::{walk_expr, walk_stmt, Visitor};
use ruff_python_ast::{CmpOp, Expr, ExprCall, Stmt, StmtFunctionDef};
use std::collections::HashMap;

/// Most facts of each kind read from one file: beyond this the file is
/// generated.
const MAX_FACTS: usize = 200;

/// What one function binds.
#[derive(Default)]
struct Frame {
    name: Option<String>,
    /// The parameters a caller writes (`self` and `cls` left out), in order.
    params: Vec<String>,
    /// Names bound to the clock minus a duration: the duration, its span.
    cutoffs: HashMap<String, (ConstExpr, Span)>,
    /// Names bound to a model's row (`key, _ = M.objects.get_or_create(..)`):
    /// the model in snake case.
    rows: HashMap<String, String>,
}

/// A delete's cut-off.
enum Cutoff {
    /// The clock minus this duration, written at the span.
    Age(ConstExpr, Span),
    /// The function's parameter at this position.
    Param(usize, String),
}

struct Purges<'r> {
    frames: Vec<Frame>,
    out: &'r mut RetentionFacts,
}

/// Read a module's ORM purges, the calls that pass a cut-off, and the
/// models whose rows are sent as idempotency keys.
pub fn read(body: &[Stmt], out: &mut RetentionFacts) {
    let mut p = Purges {
        frames: vec![Frame::default()],
        out,
    };
    for s in body {
        p.visit_stmt(s);
    }
    p.out.param_cutoffs.truncate(MAX_FACTS);
    p.out.cutoff_args.truncate(MAX_FACTS);
    p.out.sent_key_models.truncate(MAX_FACTS);
}

impl Purges<'_> {
    fn top(&self) -> &Frame {
        self.frames
            .last()
            .expect("the module's frame is never popped")
    }

    fn function(&mut self, f: &StmtFunctionDef) {
        let p = &f.parameters;
        let params = p
            .posonlyargs
            .iter()
            .chain(&p.args)
            .map(|a| a.parameter.name.id.to_string())
            .enumerate()
            .filter(|(i, n)| !(*i == 0 && (n == "self" || n == "cls")))
            .map(|(_, n)| n)
            .collect();
        self.frames.push(Frame {
            name: Some(f.name.id.to_string()),
            params,
            ..Frame::default()
        });
        for s in &f.body {
            self.visit_stmt(s);
        }
        self.frames.pop();
    }

    fn assign(&mut self, target: &Expr, value: &Expr) {
        let age = self.age(value);
        let row = row_of(value);
        let f = self.frames.last_mut().expect("a frame");
        // `key, _created = M.objects.get_or_create(..)`: the row is first.
        let name = match target {
            Expr::Name(n) => Some(n.id.to_string()),
            Expr::Tuple(t) => match t.elts.first() {
                Some(Expr::Name(n)) => Some(n.id.to_string()),
                _ => None,
            },
            _ => None,
        };
        let Some(name) = name else { return };
        match age {
            Some(a) => f.cutoffs.insert(name.clone(), a),
            None => f.cutoffs.remove(&name),
        };
        match row {
            Some(m) => f.rows.insert(name, m),
            None => f.rows.remove(&name),
        };
    }

    /// The clock minus a duration, written in `e` or bound to the name `e`.
    fn age(&self, e: &Expr) -> Option<(ConstExpr, Span)> {
        match e {
            Expr::BinOp(b) if b.op == ruff_python_ast::Operator::Sub && is_clock(&b.left) => {
                let d = duration_expr(&b.right);
                (d != ConstExpr::Unknown).then(|| (d, span_of(&*b.right)))
            }
            Expr::Name(n) => self.top().cutoffs.get(n.id.as_str()).cloned(),
            _ => None,
        }
    }

    fn cutoff(&self, e: &Expr) -> Option<Cutoff> {
        if let Some((d, s)) = self.age(e) {
            return Some(Cutoff::Age(d, s));
        }
        let Expr::Name(n) = e else { return None };
        let f = self.top();
        let i = f.params.iter().position(|p| p == n.id.as_str())?;
        Some(Cutoff::Param(i, n.id.to_string()))
    }

    fn call(&mut self, c: &ExprCall) {
        self.cutoff_args(c);
        self.sent_key(c);
        let Some((model, at, conds, via)) = django_delete(c).or_else(|| alchemy_delete(c)) else {
            return;
        };
        for (column, e) in conds {
            if let Some(cut) = self.cutoff(e) {
                self.record(&model, &column, at, cut, via);
                return;
            }
        }
    }

    fn record(&mut self, model: &str, column: &str, at: Span, cut: Cutoff, via: &str) {
        let table = knowledge::snake(model);
        let via = format!("{via} of `{model}` rows whose `{column}` is older than a cut-off");
        let fn_name = self.top().name.clone();
        match cut {
            Cutoff::Age(expr, span) => {
                if self.out.pending.iter().any(|p| p.span == span) {
                    return;
                }
                let mut context = vec![ORM_CONTEXT.to_string()];
                context.extend(fn_name);
                let label = (span.start < at.start || span.end > at.end).then(|| {
                    (
                        at,
                        format!(
                            "`{model}` rows whose `{column}` is older than this are deleted here"
                        ),
                    )
                });
                self.out.pending.push(PendingRetention {
                    span,
                    expr,
                    unit_ms: None,
                    target: StoreRef::Table(table),
                    via,
                    context,
                    site: None,
                    direct_ref: None,
                    standalone: false,
                    labels: label.into_iter().collect(),
                });
            }
            Cutoff::Param(index, param) => {
                let Some(function) = fn_name else { return };
                if self.out.param_cutoffs.iter().any(|p| p.at == at) {
                    return;
                }
                self.out.param_cutoffs.push(ParamCutoff {
                    function,
                    index,
                    param,
                    model: table,
                    column: column.to_string(),
                    at,
                    via,
                });
            }
        }
    }

    /// A call that passes the clock minus a duration
    /// (`repo.delete_before(utc_now() - timedelta(days=30))`).
    fn cutoff_args(&mut self, c: &ExprCall) {
        let Some(callee) = path_of(&c.func).and_then(|p| p.last().cloned()) else {
            return;
        };
        // The ORM's own filters are read as deletes above.
        if matches!(callee.as_str(), "filter" | "where" | "exclude") {
            return;
        }
        let caller = self.top().name.clone();
        let mut found = Vec::new();
        for (i, a) in c.arguments.args.iter().enumerate() {
            if let Some((expr, span)) = self.age(a) {
                found.push((Some(i), None, expr, span));
            }
        }
        for k in c.arguments.keywords.iter() {
            let Some(name) = &k.arg else { continue };
            if let Some((expr, span)) = self.age(&k.value) {
                found.push((None, Some(name.id.to_string()), expr, span));
            }
        }
        for (index, keyword, expr, span) in found {
            self.out.cutoff_args.push(CutoffArg {
                callee: callee.clone(),
                index,
                keyword,
                expr,
                span,
                caller: caller.clone(),
            });
        }
    }

    /// `idempotency_key=str(key.uuid)`, `key` a model's row.
    fn sent_key(&mut self, c: &ExprCall) {
        let sent = c
            .arguments
            .keywords
            .iter()
            .filter(|k| k.arg.as_ref().is_some_and(|a| names_key(a.id.as_str())))
            .filter_map(|k| self.row_column(&k.value))
            .collect::<Vec<_>>();
        self.sent(sent);
    }

    fn sent(&mut self, models: Vec<String>) {
        for m in models {
            if !self.out.sent_key_models.contains(&m) {
                self.out.sent_key_models.push(m);
            }
        }
    }

    /// The model whose row's column `e` reads: `key.uuid`, `str(key.uuid)`.
    fn row_column(&self, e: &Expr) -> Option<String> {
        let e = match e {
            Expr::Call(c)
                if path_of(&c.func).is_some_and(|p| p == ["str"]) && c.arguments.len() == 1 =>
            {
                c.arguments.args.first()?
            }
            e => e,
        };
        let Expr::Attribute(a) = e else { return None };
        let Expr::Name(n) = &*a.value else {
            return None;
        };
        self.top().rows.get(n.id.as_str()).cloned()
    }
}

impl<'a> Visitor<'a> for Purges<'_> {
    fn visit_stmt(&mut self, s: &'a Stmt) {
        match s {
            Stmt::FunctionDef(f) => self.function(f),
            Stmt::Assign(a) => {
                self.visit_expr(&a.value);
                for t in &a.targets {
                    self.assign(t, &a.value);
                }
            }
            Stmt::AnnAssign(a) => {
                if let Some(v) = &a.value {
                    self.visit_expr(v);
                    self.assign(&a.target, v);
                }
            }
            // `return str(key.uuid)` from `_get_idempotency_key(..)`.
            Stmt::Return(r) => {
                if let Some(v) = &r.value {
                    self.visit_expr(v);
                    let named = self.top().name.as_deref().is_some_and(names_key);
                    if let Some(m) = self.row_column(v).filter(|_| named) {
                        self.sent(vec![m]);
                    }
                }
            }
            _ => walk_stmt(self, s),
        }
    }

    fn visit_expr(&mut self, e: &'a Expr) {
        match e {
            Expr::Call(c) => self.call(c),
            Expr::Lambda(_) => return,
            _ => {}
        }
        walk_expr(self, e);
    }
}

/// Whether a name names an idempotency key (`idempotency_key`,
/// `_get_idempotency_key`, `idempotencyKey`).
fn names_key(name: &str) -> bool {
    let words = knowledge::name_words(name);
    words
        .windows(2)
        .any(|w| w[0].starts_with("idempot") && w[1] == "key")
}

/// Whether `e` reads the clock (`timezone.now()`, `datetime.now(UTC)`,
/// `utc_now()`): the called path ends with a clock of `rules/retention.toml`.
fn is_clock(e: &Expr) -> bool {
    let e = match e {
        Expr::Await(a) => &a.value,
        e => e,
    };
    let Expr::Call(c) = e else { return false };
    let Some(p) = path_of(&c.func) else {
        return false;
    };
    knowledge::retention_words()
        .python_clock
        .iter()
        .any(|clock| p.ends_with(clock))
}

/// The model a row comes from: `M.objects.get_or_create(..)` (and `get`,
/// `create`, their async forms), in snake case.
fn row_of(e: &Expr) -> Option<String> {
    let e = match e {
        Expr::Await(a) => &a.value,
        e => e,
    };
    let Expr::Call(c) = e else { return None };
    let p = path_of(&c.func)?;
    let [.., model, manager, method] = p.as_slice() else {
        return None;
    };
    let made = matches!(
        method.as_str(),
        "get_or_create" | "aget_or_create" | "get" | "aget" | "create" | "acreate"
    );
    (made && manager == "objects" && model.starts_with(char::is_uppercase))
        .then(|| knowledge::snake(model))
}

/// A condition of a delete: the column and the value it is compared below.
type Cond<'e> = (String, &'e Expr);

/// A delete's model, where it is, its age conditions and how it is named.
type Delete<'e> = (String, Span, Vec<Cond<'e>>, &'static str);

/// Django's `M.objects.filter(created__lt=x).delete()` (filters chained).
fn django_delete(c: &ExprCall) -> Option<Delete<'_>> {
    let Expr::Attribute(a) = &*c.func else {
        return None;
    };
    if a.attr.id.as_str() != "delete" || !c.arguments.is_empty() {
        return None;
    }
    let mut conds = Vec::new();
    let mut e = &*a.value;
    while let Expr::Call(f) = e {
        let Expr::Attribute(fa) = &*f.func else {
            return None;
        };
        if fa.attr.id.as_str() != "filter" {
            return None;
        }
        for k in f.arguments.keywords.iter() {
            let Some(name) = &k.arg else { continue };
            let lookup = name.id.as_str();
            let column = lookup
                .strip_suffix("__lt")
                .or_else(|| lookup.strip_suffix("__lte"));
            if let Some(col) = column.filter(|c| !c.contains("__")) {
                conds.push((col.to_string(), &k.value));
            }
        }
        e = &fa.value;
    }
    let p = path_of(e)?;
    let [.., model, manager] = p.as_slice() else {
        return None;
    };
    if manager != "objects" || !model.starts_with(char::is_uppercase) || conds.is_empty() {
        return None;
    }
    Some((model.clone(), span_of(c), conds, "Django `.delete()`"))
}

/// SQLAlchemy's `delete(M).where(M.created_at < x)` (several `.where(..)`,
/// `and_(..)`), or `session.query(M).filter(..).delete()`.
fn alchemy_delete(c: &ExprCall) -> Option<Delete<'_>> {
    let Expr::Attribute(a) = &*c.func else {
        return None;
    };
    let (mut e, mut conds_of, query) = match a.attr.id.as_str() {
        "where" => (&*a.value, vec![c], false),
        "delete" if c.arguments.is_empty() => (&*a.value, Vec::new(), true),
        _ => return None,
    };
    let start = loop {
        let Expr::Call(f) = e else { return None };
        let last = path_of(&f.func).and_then(|p| p.last().cloned())?;
        match last.as_str() {
            "where" if !query => conds_of.push(f),
            "filter" if query => conds_of.push(f),
            "delete" if !query => break f,
            "query" if query => break f,
            _ => return None,
        }
        let Expr::Attribute(fa) = &*f.func else {
            return None;
        };
        e = &fa.value;
    };
    let [m] = start.arguments.args.as_ref() else {
        return None;
    };
    let Expr::Name(n) = m else { return None };
    let model = n.id.to_string();
    if !model.starts_with(char::is_uppercase) {
        return None;
    }
    let mut conds = Vec::new();
    for f in conds_of {
        for x in f.arguments.args.iter() {
            below(x, &model, &mut conds);
        }
    }
    if conds.is_empty() {
        return None;
    }
    let via = if query {
        "SQLAlchemy `query(..).delete()`"
    } else {
        "SQLAlchemy `delete(..)`"
    };
    Some((model, span_of(start), conds, via))
}

/// `M.col < x`, `M.col <= x`, `x > M.col`, and those inside `and_(..)`.
fn below<'e>(e: &'e Expr, model: &str, out: &mut Vec<Cond<'e>>) {
    match e {
        Expr::Call(c)
            if path_of(&c.func).is_some_and(|p| p.last().is_some_and(|l| l == "and_")) =>
        {
            for x in c.arguments.args.iter() {
                below(x, model, out);
            }
        }
        Expr::Compare(cmp) if cmp.ops.len() == 1 && cmp.comparators.len() == 1 => {
            let right = &cmp.comparators[0];
            let (col, value) = match cmp.ops[0] {
                CmpOp::Lt | CmpOp::LtE => (&*cmp.left, right),
                CmpOp::Gt | CmpOp::GtE => (right, &*cmp.left),
                _ => return,
            };
            let Expr::Attribute(a) = col else { return };
            if matches!(&*a.value, Expr::Name(n) if n.id.as_str() == model) {
                out.push((a.attr.id.to_string(), value));
            }
        }
        _ => {}
    }
}
