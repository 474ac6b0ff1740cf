//! Constant interval arithmetic in SQL text: `interval '1 hour' * 24`,
//! `'1 day'::interval + interval '12 hours'`, `make_interval(days => 3)`,
//! MySQL's `INTERVAL 3 DAY`, and plain seconds (`259200`, `3 * 86400`). A
//! value that depends on anything else (a column, `$1`, psql's `:var`, a
//! function argument) folds to nothing: it is never guessed.

use crate::duration::{self, Duration};
use crate::source::Span;

/// A folded value: a plain number, or a length of time in seconds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Value {
    Number(f64),
    Secs(f64),
}

/// What [`fold`] read: the value, where the expression ends (an offset into
/// the text it was given), and the span to point at: the literal's content
/// when the expression is one literal (`3 days` of `interval '3 days'`), else
/// the whole expression.
#[derive(Debug, Clone, Copy)]
pub struct Folded {
    pub value: Value,
    pub end: usize,
    pub span: Span,
}

impl Folded {
    /// The value as a duration, when it is one.
    pub fn duration(&self) -> Option<Duration> {
        match self.value {
            Value::Secs(s) => Duration::from_unit(s, 1).filter(|d| d.secs > 0),
            Value::Number(_) => None,
        }
    }

    /// The value as a number of seconds (an epoch difference).
    pub fn seconds(&self) -> Option<Duration> {
        match self.value {
            Value::Number(n) => Duration::from_unit(n, 1).filter(|d| d.secs > 0),
            Value::Secs(_) => None,
        }
    }
}

/// Fold the expression at the start of `text` (leading blanks allowed).
/// Reading stops at the first thing that is no operator (`AND`, `)`,
/// `LIMIT`, `;`).
pub fn fold(text: &str) -> Option<Folded> {
    let mut p = Parser {
        s: text,
        i: 0,
        literals: Vec::new(),
        factors: 0,
    };
    p.blank();
    let start = p.i;
    let value = p.expr(0)?;
    let end = p.i;
    let span = match p.literals.as_slice() {
        [only] if p.factors == 1 => *only,
        _ => {
            let t = &text[start..end];
            Span::new(start, start + t.trim_end().len())
        }
    };
    Some(Folded { value, end, span })
}

/// Deepest parenthesis nesting followed.
const MAX_DEPTH: usize = 32;

struct Parser<'a> {
    s: &'a str,
    i: usize,
    /// Spans of the interval literals read, in the text's offsets.
    literals: Vec<Span>,
    factors: usize,
}

impl Parser<'_> {
    fn rest(&self) -> &str {
        &self.s[self.i..]
    }

    fn blank(&mut self) {
        let r = self.rest();
        self.i += r.len() - r.trim_start().len();
    }

    /// Consume `kw` as a whole word, any case.
    fn keyword(&mut self, kw: &str) -> bool {
        let r = self.rest();
        let ok = r.len() >= kw.len()
            && r.is_char_boundary(kw.len())
            && r[..kw.len()].eq_ignore_ascii_case(kw)
            && !r[kw.len()..].starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_');
        if ok {
            self.i += kw.len();
            self.blank();
        }
        ok
    }

    fn punct(&mut self, p: &str) -> bool {
        let ok = self.rest().starts_with(p);
        if ok {
            self.i += p.len();
            self.blank();
        }
        ok
    }

    /// `'…'` with `''` escapes: its content's span.
    fn string(&mut self) -> Option<Span> {
        let r = self.rest().as_bytes();
        if r.first() != Some(&b'\'') {
            return None;
        }
        let mut j = 1;
        while j < r.len() {
            if r[j] == b'\'' {
                if r.get(j + 1) == Some(&b'\'') {
                    j += 2;
                    continue;
                }
                let span = Span::new(self.i + 1, self.i + j);
                self.i += j + 1;
                self.blank();
                return Some(span);
            }
            j += 1;
        }
        None
    }

    fn number(&mut self) -> Option<f64> {
        let r = self.rest();
        let len = r
            .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '_'))
            .unwrap_or(r.len());
        if len == 0 || !r.starts_with(|c: char| c.is_ascii_digit()) {
            return None;
        }
        let n: f64 = r[..len].replace('_', "").parse().ok()?;
        self.i += len;
        self.blank();
        Some(n)
    }

    /// A MySQL/standard unit keyword after `INTERVAL n`: `DAY`, `HOUR`, ….
    fn unit(&mut self) -> Option<f64> {
        let r = self.rest();
        let len = r
            .find(|c: char| !c.is_ascii_alphabetic())
            .unwrap_or(r.len());
        let secs = duration::unit_secs(&r[..len])?;
        if len < 3 {
            return None; // `m`, `h`, `d` are no SQL units
        }
        self.i += len;
        self.blank();
        Some(secs)
    }

    fn expr(&mut self, depth: usize) -> Option<Value> {
        let mut acc = self.term(depth)?;
        loop {
            let r = self.rest();
            let op = if r.starts_with("--") || r.starts_with("->") {
                break;
            } else if r.starts_with('+') {
                1.0
            } else if r.starts_with('-') {
                -1.0
            } else {
                break;
            };
            self.i += 1;
            self.blank();
            let rhs = self.term(depth)?;
            acc = match (acc, rhs) {
                (Value::Secs(a), Value::Secs(b)) => Value::Secs(a + op * b),
                (Value::Number(a), Value::Number(b)) => Value::Number(a + op * b),
                _ => return None,
            };
        }
        Some(acc)
    }

    fn term(&mut self, depth: usize) -> Option<Value> {
        let mut acc = self.factor(depth)?;
        loop {
            let mul = if self.punct("*") {
                true
            } else if self.rest().starts_with('/') && !self.rest().starts_with("/*") {
                self.i += 1;
                self.blank();
                false
            } else {
                break;
            };
            let rhs = self.factor(depth)?;
            acc = match (acc, rhs, mul) {
                (Value::Secs(a), Value::Number(b), true)
                | (Value::Number(b), Value::Secs(a), true) => Value::Secs(a * b),
                (Value::Number(a), Value::Number(b), true) => Value::Number(a * b),
                (Value::Secs(a), Value::Number(b), false) if b != 0.0 => Value::Secs(a / b),
                (Value::Number(a), Value::Number(b), false) if b != 0.0 => Value::Number(a / b),
                _ => return None,
            };
        }
        Some(acc)
    }

    fn factor(&mut self, depth: usize) -> Option<Value> {
        self.factors += 1;
        if self.punct("(") {
            if depth >= MAX_DEPTH {
                return None;
            }
            let v = self.expr(depth + 1)?;
            if !self.punct(")") {
                return None;
            }
            return Some(v);
        }
        if let Some(n) = self.number() {
            return Some(Value::Number(n));
        }
        if let Some(lit) = self.string() {
            // `'3 days'::interval`
            if self.punct("::") && self.keyword("interval") {
                return self.literal(lit);
            }
            return None;
        }
        if self.keyword("interval") {
            if let Some(lit) = self.string() {
                // `INTERVAL '3' DAY`: the unit after the quotes.
                if let Some(unit) = self.unit() {
                    let n: f64 = self.s[lit.start..lit.end].trim().parse().ok()?;
                    self.literals.push(lit);
                    return Some(Value::Secs(n * unit));
                }
                return self.literal(lit);
            }
            // MySQL `INTERVAL 3 DAY`
            let at = self.i;
            let n = self.number()?;
            let unit = self.unit()?;
            let t = &self.s[at..self.i];
            self.literals.push(Span::new(at, at + t.trim_end().len()));
            return Some(Value::Secs(n * unit));
        }
        if self.keyword("make_interval") {
            if !self.punct("(") {
                return None;
            }
            let close = self.rest().find(')')?;
            let args = &self.rest()[..close];
            let d = make_interval(args)?;
            let lead = args.len() - args.trim_start().len();
            let start = self.i + lead;
            self.literals
                .push(Span::new(start, start + args.trim().len()));
            self.i += close + 1;
            self.blank();
            return Some(Value::Secs(d.secs as f64));
        }
        None
    }

    fn literal(&mut self, lit: Span) -> Option<Value> {
        let d = duration::parse(&self.s[lit.start..lit.end], None)?;
        self.literals.push(lit);
        Some(Value::Secs(d.secs as f64))
    }
}

/// `make_interval(days => 30)`, `make_interval(0, 0, 0, 30)`.
pub fn make_interval(args: &str) -> Option<Duration> {
    const POSITIONAL: [&str; 7] = ["years", "months", "weeks", "days", "hours", "mins", "secs"];
    let mut total = 0f64;
    for (i, arg) in args.split(',').enumerate() {
        let arg = arg.trim();
        if arg.is_empty() {
            continue;
        }
        let (unit, value) = match arg.split_once("=>").or_else(|| arg.split_once(":=")) {
            Some((u, v)) => (u.trim().to_ascii_lowercase(), v.trim()),
            None => (POSITIONAL.get(i)?.to_string(), arg),
        };
        let n: f64 = value.parse().ok()?;
        total += n * duration::unit_secs(&unit)?;
    }
    Duration::from_unit(total, 1).filter(|d| d.secs > 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn secs(text: &str) -> Option<(u64, &str)> {
        let f = fold(text)?;
        let d = f.duration()?;
        Some((d.secs, &text[f.span.start..f.span.end]))
    }

    #[test]
    fn constant_interval_arithmetic_folds() {
        assert_eq!(
            secs("interval '1 hour' * 24 AND x"),
            Some((86_400, "interval '1 hour' * 24"))
        );
        assert_eq!(secs("interval '3 days'"), Some((259_200, "3 days")));
        assert_eq!(
            secs("'1 day'::interval + interval '12 hours';"),
            Some((129_600, "'1 day'::interval + interval '12 hours'"))
        );
        assert_eq!(
            secs("2 * (interval '36 hours')"),
            Some((259_200, "2 * (interval '36 hours')"))
        );
        assert_eq!(secs("INTERVAL 3 DAY)"), Some((259_200, "3 DAY")));
        assert_eq!(secs("INTERVAL '3' DAY"), Some((259_200, "3")));
        assert_eq!(
            secs("make_interval(days => 3)"),
            Some((259_200, "days => 3"))
        );
        let f = fold("3 * 86400 -- three days").unwrap();
        assert_eq!(f.seconds().map(|d| d.secs), Some(259_200));
    }

    #[test]
    fn anything_not_constant_folds_to_nothing() {
        for t in [
            "interval '1 day' * $1",
            "interval '1 day' * p_days",
            ":'retention'::interval",
            ":retention",
            "(p_days || ' days')::interval",
            "interval '3 days' - p_grace",
            "retention_interval",
            "interval '1 day' / 0",
        ] {
            assert!(fold(t).and_then(|f| f.duration()).is_none(), "{t}");
        }
    }
}
