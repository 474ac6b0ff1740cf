//! Small readings of Ruff's Python tree shared by the passes: spans, dotted
//! paths, string values and literal prefixes, keyword arguments, and
//! integer and duration expressions (`60 * 60 * 24`, `timedelta(hours=24)`,
//! `ONE_DAY`) as [`ConstExpr`].

use crate::facts::retention::ConstExpr;
use crate::source::Span;
use ruff_python_ast::{
    Expr, ExprCall, FStringPart, InterpolatedStringElement, Number, Operator, UnaryOp,
};
use ruff_text_size::{Ranged, TextRange};

/// Milliseconds in a second: Redis `ex=`, Django's `timeout=` and most
/// Python TTLs count seconds.
pub const SECS: u64 = 1000;

pub fn span(r: TextRange) -> Span {
    Span::new(r.start().to_usize(), r.end().to_usize())
}

pub fn span_of<T: Ranged>(node: &T) -> Span {
    span(node.range())
}

/// The dotted path of a name or an attribute chain (`stripe.Refund.create`
/// → `["stripe", "Refund", "create"]`); a call or subscript inside the
/// chain ends it (`caches["default"].set` → `["caches", "set"]`,
/// `get_redis_connection().set` → `["get_redis_connection", "set"]`).
pub fn path_of(e: &Expr) -> Option<Vec<String>> {
    match e {
        Expr::Name(n) => Some(vec![n.id.to_string()]),
        Expr::Attribute(a) => {
            let mut p = path_of(&a.value)?;
            p.push(a.attr.id.to_string());
            Some(p)
        }
        Expr::Call(c) => path_of(&c.func),
        Expr::Subscript(s) => path_of(&s.value),
        Expr::Await(a) => path_of(&a.value),
        _ => None,
    }
}

/// A string literal's value.
pub fn string_value(e: &Expr) -> Option<String> {
    match e {
        Expr::StringLiteral(s) => Some(s.value.to_str().to_string()),
        _ => None,
    }
}

/// The literal text a key starts with: a string's whole value, an
/// f-string's text before its first placeholder, the left side of `+`, a
/// `"..." % x` or `"...".format(x)` template's text before its first
/// placeholder.
pub fn literal_prefix(e: &Expr) -> Option<String> {
    let cut = |s: &str| {
        let end = s.find(['{', '%']).unwrap_or(s.len());
        s[..end].to_string()
    };
    let p = match e {
        Expr::StringLiteral(s) => s.value.to_str().to_string(),
        Expr::FString(f) => {
            let mut out = String::new();
            'parts: for part in f.value.as_slice() {
                match part {
                    FStringPart::Literal(l) => out.push_str(&l.value),
                    FStringPart::FString(fs) => {
                        for el in fs.elements.iter() {
                            match el {
                                InterpolatedStringElement::Literal(l) => out.push_str(&l.value),
                                InterpolatedStringElement::Interpolation(_) => break 'parts,
                            }
                        }
                    }
                }
            }
            out
        }
        Expr::BinOp(b) if matches!(b.op, Operator::Add | Operator::Mod) => {
            return literal_prefix(&b.left).map(|s| cut(&s))
        }
        Expr::Call(c) => match &*c.func {
            Expr::Attribute(a) if a.attr.id.as_str() == "format" => {
                return string_value(&a.value).map(|s| cut(&s))
            }
            _ => return None,
        },
        _ => return None,
    };
    (!p.is_empty()).then_some(p)
}

/// The value of keyword argument `name`.
pub fn kwarg<'a>(c: &'a ExprCall, name: &str) -> Option<&'a Expr> {
    c.arguments
        .keywords
        .iter()
        .find(|k| k.arg.as_ref().is_some_and(|a| a.id.as_str() == name))
        .map(|k| &k.value)
}

/// Positional argument `i`.
pub fn arg(c: &ExprCall, i: usize) -> Option<&Expr> {
    c.arguments.args.get(i)
}

/// Whether `e` is the literal `True`.
pub fn is_true(e: &Expr) -> bool {
    matches!(e, Expr::BooleanLiteral(b) if b.value)
}

/// `timedelta(..)` keywords and the milliseconds each counts.
const TIMEDELTA_UNITS: &[(&str, u64)] = &[
    ("weeks", 7 * 86_400_000),
    ("days", 86_400_000),
    ("hours", 3_600_000),
    ("minutes", 60_000),
    ("seconds", 1000),
    ("milliseconds", 1),
];

/// An integer or duration expression: literals, `+ - * //`, names and
/// attributes (`ONE_DAY`, `settings.STRIPE_EVENT_TTL` → `Ref`),
/// `timedelta(days=1)` and `datetime.timedelta(hours=24)` (a duration),
/// `int(td.total_seconds())` and `td.total_seconds()` (seconds).
pub fn duration_expr(e: &Expr) -> ConstExpr {
    let b = |x: &Expr| Box::new(duration_expr(x));
    match e {
        Expr::NumberLiteral(n) => match &n.value {
            Number::Int(i) => i.as_u64().map_or(ConstExpr::Unknown, ConstExpr::Int),
            // `86400.0`: whole seconds written as a float.
            Number::Float(f) if f.fract() == 0.0 && *f >= 0.0 && *f < 1e15 => {
                ConstExpr::Int(*f as u64)
            }
            _ => ConstExpr::Unknown,
        },
        Expr::BinOp(x) => match x.op {
            Operator::Add => ConstExpr::Add(b(&x.left), b(&x.right)),
            Operator::Sub => ConstExpr::Sub(b(&x.left), b(&x.right)),
            Operator::Mult => ConstExpr::Mul(b(&x.left), b(&x.right)),
            Operator::FloorDiv | Operator::Div => ConstExpr::Div(b(&x.left), b(&x.right)),
            _ => ConstExpr::Unknown,
        },
        Expr::UnaryOp(u) if u.op == UnaryOp::UAdd => duration_expr(&u.operand),
        Expr::Name(n) => ConstExpr::Ref(n.id.to_string()),
        Expr::Attribute(a) => match path_of(e) {
            // `settings.X`, `config.X`, `constants.X`: the constant's own name.
            Some(p) if p.len() >= 2 => ConstExpr::Ref(a.attr.id.to_string()),
            _ => ConstExpr::Unknown,
        },
        Expr::Call(c) => call_duration(c),
        _ => ConstExpr::Unknown,
    }
}

fn call_duration(c: &ExprCall) -> ConstExpr {
    let Some(path) = path_of(&c.func) else {
        return ConstExpr::Unknown;
    };
    let last = path.last().map(String::as_str).unwrap_or("");
    match last {
        "timedelta" => timedelta(c),
        // `int(x)`, `round(x)`: the number inside.
        "int" | "round" if c.arguments.args.len() == 1 && path.len() == 1 => {
            duration_expr(&c.arguments.args[0])
        }
        // `td.total_seconds()`: a duration as seconds.
        "total_seconds" if c.arguments.is_empty() => match &*c.func {
            Expr::Attribute(a) => ConstExpr::ToInt {
                ms: 1000,
                arg: Box::new(duration_expr(&a.value)),
            },
            _ => ConstExpr::Unknown,
        },
        _ => ConstExpr::Unknown,
    }
}

/// `timedelta(days=1, hours=2)` or `timedelta(1)` (days), as milliseconds.
fn timedelta(c: &ExprCall) -> ConstExpr {
    let mut sum: Option<ConstExpr> = None;
    let mut add = |e: ConstExpr| {
        sum = Some(match sum.take() {
            Some(s) => ConstExpr::Add(Box::new(s), Box::new(e)),
            None => e,
        });
    };
    // Positional: days, seconds, microseconds, milliseconds, minutes,
    // hours, weeks.
    const POSITIONAL: &[u64] = &[86_400_000, 1000, 0, 1, 60_000, 3_600_000, 7 * 86_400_000];
    for (i, a) in c.arguments.args.iter().enumerate() {
        match POSITIONAL.get(i) {
            Some(0) => {}
            Some(ms) => add(ConstExpr::Dur {
                ms: *ms,
                arg: Box::new(duration_expr(a)),
            }),
            None => return ConstExpr::Unknown,
        }
    }
    for k in c.arguments.keywords.iter() {
        let Some(name) = &k.arg else {
            return ConstExpr::Unknown;
        };
        match TIMEDELTA_UNITS.iter().find(|(n, _)| *n == name.id.as_str()) {
            Some((_, ms)) => add(ConstExpr::Dur {
                ms: *ms,
                arg: Box::new(duration_expr(&k.value)),
            }),
            None if name.id.as_str() == "microseconds" => {}
            None => return ConstExpr::Unknown,
        }
    }
    sum.unwrap_or(ConstExpr::Dur {
        ms: 1,
        arg: Box::new(ConstExpr::Int(0)),
    })
}
