//! Module and class constants that hold a number or a duration
//! (`ONE_DAY = 60 * 60 * 24`, `EVENT_TTL = timedelta(days=30)`), named in
//! upper case as Python's convention (PEP 8) writes constants: the
//! definitions a TTL elsewhere may name (`facts::retention::DurDef`).

use super::syntax::{duration_expr, span_of};
use crate::facts::retention::{ConstExpr, DurDef};
use ruff_python_ast::{Expr, Stmt};

/// Read the constants of a module's top level and of its classes' bodies.
pub fn read(body: &[Stmt], defs: &mut Vec<DurDef>) {
    for s in body {
        match s {
            Stmt::Assign(a) => {
                for t in &a.targets {
                    def(t, &a.value, defs);
                }
            }
            Stmt::AnnAssign(a) => {
                if let Some(v) = &a.value {
                    def(&a.target, v, defs);
                }
            }
            Stmt::ClassDef(c) => read(&c.body, defs),
            // `try: from local_settings import * / except ImportError: X = 1`
            // and `if DEBUG: X = 1 else: X = 2` keep their first reading.
            Stmt::If(i) => read(&i.body, defs),
            _ => {}
        }
    }
}

fn def(target: &Expr, value: &Expr, defs: &mut Vec<DurDef>) {
    let Expr::Name(n) = target else { return };
    let name = n.id.as_str();
    if !is_constant_name(name) || defs.iter().any(|d| d.name == name) {
        return;
    }
    let expr = duration_expr(value);
    if expr == ConstExpr::Unknown {
        return;
    }
    defs.push(DurDef {
        name: name.to_string(),
        expr,
        span: span_of(value),
    });
}

/// `ONE_DAY`, `STRIPE_EVENT_TTL`, `_TTL`: upper case, digits and `_`, a letter.
pub fn is_constant_name(name: &str) -> bool {
    name.bytes().any(|b| b.is_ascii_uppercase())
        && name
            .bytes()
            .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_')
}
