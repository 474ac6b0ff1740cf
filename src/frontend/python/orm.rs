//! ORM calls that lean on a unique guard, lowered into the facts SQL in
//! strings gives: SQLAlchemy's `insert(Model)..on_conflict_do_nothing(
//! index_elements=[..])` (and `on_conflict_do_update`, `pg_insert`,
//! `sqlite_insert`) is an `INSERT … ON CONFLICT (cols)` ([`ConflictTarget`]);
//! Django's `Model.objects.get_or_create(..)` and `update_or_create(..)`
//! (and their `a`-prefixed async forms) are a find-or-create by the
//! lookup's keywords ([`FindOrCreate`]).
//!
//! The table is named by the model's class in snake case (`ExternalEvent`
//! → `external_event`), which the model resolves through the aliases the
//! schema's declarations give. Not read: a statement built in steps
//! (`stmt = insert(M); stmt = stmt.on_conflict_do_nothing(..)`), a model
//! reached through a variable (`self.model.objects`), `index_elements`
//! given as a variable.

use super::syntax::{kwarg, path_of, span_of, string_value};
use crate::facts::store::{ConflictTarget, FindOrCreate};
use crate::knowledge;
use ruff_python_ast::visitor::{walk_expr, Visitor};
use ruff_python_ast::{Expr, ExprCall, Stmt};

/// Most facts read from one file: beyond this the file is generated.
const MAX_FACTS: usize = 1_000;

#[derive(Default)]
pub struct Orm {
    pub conflicts: Vec<ConflictTarget>,
    pub find_or_create: Vec<FindOrCreate>,
}

/// The ORM calls of a module.
pub fn read(body: &[Stmt]) -> Orm {
    let mut o = Orm::default();
    for s in body {
        o.visit_stmt(s);
    }
    o.conflicts.truncate(MAX_FACTS);
    o.find_or_create.truncate(MAX_FACTS);
    o
}

impl<'a> Visitor<'a> for Orm {
    fn visit_expr(&mut self, e: &'a Expr) {
        if let Expr::Call(c) = e {
            self.call(c);
        }
        walk_expr(self, e);
    }
}

impl Orm {
    fn call(&mut self, c: &ExprCall) {
        let Expr::Attribute(a) = &*c.func else { return };
        match a.attr.id.as_str() {
            "on_conflict_do_nothing" | "on_conflict_do_update" => {
                let (Some(table), Some(cols)) = (
                    inserted_model(&a.value),
                    kwarg(c, "index_elements").map(columns),
                ) else {
                    return;
                };
                if cols.is_empty() {
                    return;
                }
                self.conflicts.push(ConflictTarget {
                    table,
                    columns: cols,
                    span: span_of(c),
                });
            }
            "get_or_create" | "update_or_create" | "aget_or_create" | "aupdate_or_create" => {
                // `Model.objects.get_or_create(..)`: the manager's model.
                let Some(p) = path_of(&a.value) else { return };
                let [.., model, manager] = p.as_slice() else {
                    return;
                };
                if manager != "objects" || !model.starts_with(char::is_uppercase) {
                    return;
                }
                let mut cols = Vec::new();
                let mut defaults = Some(Vec::new());
                for k in &c.arguments.keywords {
                    match k.arg.as_ref().map(|a| a.id.as_str()) {
                        Some("defaults" | "create_defaults") => {
                            defaults = match &k.value {
                                Expr::Dict(d) => Some(
                                    d.items
                                        .iter()
                                        .filter_map(|i| i.key.as_ref().and_then(string_value))
                                        .collect(),
                                ),
                                _ => None,
                            };
                        }
                        // `number__iexact=..` is no equality on the column.
                        Some(f) if !f.contains("__") => cols.push(f.to_string()),
                        Some(_) => {}
                        // `**lookup`: the fields are not written out.
                        None => return,
                    }
                }
                if cols.is_empty() {
                    return;
                }
                self.find_or_create.push(FindOrCreate {
                    table: knowledge::snake(model),
                    columns: cols,
                    defaults,
                    span: span_of(c),
                });
            }
            _ => {}
        }
    }
}

/// The model class an insert chain starts from: `insert(Model)`,
/// `pg_insert(Model).values(..)`, `postgresql.insert(Model)`, in snake case.
fn inserted_model(e: &Expr) -> Option<String> {
    match e {
        Expr::Call(c) => {
            let last = path_of(&c.func).and_then(|p| p.last().cloned());
            match last.as_deref() {
                Some(n) if n == "insert" || n.ends_with("_insert") => {
                    let p = path_of(c.arguments.args.first()?)?;
                    // `insert(Model.__table__)`: the model's table.
                    let class = p.iter().rev().find(|s| !s.starts_with("__"))?;
                    class
                        .starts_with(char::is_uppercase)
                        .then(|| knowledge::snake(class))
                }
                _ => match &*c.func {
                    Expr::Attribute(a) => inserted_model(&a.value),
                    _ => None,
                },
            }
        }
        Expr::Attribute(a) => inserted_model(&a.value),
        _ => None,
    }
}

/// `index_elements=["source", "external_id"]` or `[Model.source, ..]`,
/// lower-cased.
fn columns(e: &Expr) -> Vec<String> {
    let elts: &[Expr] = match e {
        Expr::List(l) => &l.elts,
        Expr::Tuple(t) => &t.elts,
        _ => return Vec::new(),
    };
    let cols: Vec<String> = elts
        .iter()
        .filter_map(|x| match x {
            Expr::Attribute(a) => Some(a.attr.id.to_string()),
            x => string_value(x),
        })
        .map(|c| c.to_ascii_lowercase())
        .collect();
    if cols.len() == elts.len() {
        cols
    } else {
        Vec::new()
    }
}
