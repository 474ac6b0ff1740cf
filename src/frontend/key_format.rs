//! Redis key formats as code builds them (`format!("idem:{}:{}", merchant_id,
//! key)`, `` `idem:${tenantId}:${key}` ``, `f"idem:{tenant}:{key}"`,
//! `fmt.Sprintf("idem:%s:%s", merchantID, key)`): the literal parts and, for
//! each placeholder, the identifiers it is built from. Shared by the Rust and
//! text front ends; whether a key names its caller is the model's call.

use crate::facts::keys::KeyFormat;
use crate::source::Span;
use regex::Regex;
use std::sync::OnceLock;

/// Longest literal read as a key format.
const MAX_FORMAT: usize = 200;
/// Lines before a literal (other languages) whose identifiers say what code
/// is at hand where the key is built.
const AROUND_LINES: usize = 15;

/// A placeholder as written in a format string.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Hole {
    /// `{}`, `%s`: the next argument.
    Next,
    /// `{0}`: an argument by position.
    Index(usize),
    /// `{tenant}`, `${tenantId}`, `#{account.id}`: an expression inline.
    Inline(String),
}

/// Whether a literal is shaped like a Redis key whose prefix names a
/// request-key store: no whitespace, not a URL, a `:` before the first
/// placeholder, and the text before it an idempotency prefix
/// (`rules/stores.toml` `[request_key_prefix]`).
pub fn request_key_prefix(v: &str, first_hole: usize) -> Option<&str> {
    if v.len() > MAX_FORMAT || v.contains(char::is_whitespace) || v.contains("://") {
        return None;
    }
    let head = &v[..first_hole.min(v.len())];
    let colon = head.rfind(':')?;
    let prefix = &head[..=colon];
    let shaped = prefix
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, ':' | '_' | '-' | '.'));
    (shaped && prefix.len() > 1 && crate::knowledge::stores().is_request_key_prefix(prefix))
        .then_some(prefix)
}

/// Split a Rust format string (`{}`, `{0}`, `{name:?}`, `{{` escapes) into
/// literal text and placeholders. `None` when it has no placeholder.
pub fn split_rust(v: &str) -> Option<(Vec<String>, Vec<Hole>, usize)> {
    let b = v.as_bytes();
    let mut lits = vec![String::new()];
    let mut holes = Vec::new();
    let mut first = None;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'{' if b.get(i + 1) == Some(&b'{') => {
                lits.last_mut()?.push('{');
                i += 2;
            }
            b'}' if b.get(i + 1) == Some(&b'}') => {
                lits.last_mut()?.push('}');
                i += 2;
            }
            b'{' => {
                let end = i + v[i..].find('}')?;
                let inner = &v[i + 1..end];
                holes.push(hole(inner.split(':').next().unwrap_or("")));
                first.get_or_insert(i);
                lits.push(String::new());
                i = end + 1;
            }
            _ => {
                let c = v[i..].chars().next()?;
                lits.last_mut()?.push(c);
                i += c.len_utf8();
            }
        }
    }
    Some((lits, holes, first?))
}

/// A placeholder's argument: empty (the next argument), a position, or an
/// expression written inline.
fn hole(arg: &str) -> Hole {
    let arg = arg.trim();
    if arg.is_empty() {
        Hole::Next
    } else if let Ok(n) = arg.parse::<usize>() {
        Hole::Index(n)
    } else {
        Hole::Inline(arg.to_string())
    }
}

/// Split a string of another language: `${expr}` (JS/TS, Kotlin), `#{expr}`
/// (Ruby), `{expr}` (Python f-strings, C#), `%s`/`%d`/`%v` (printf style).
pub fn split_text(v: &str) -> Option<(Vec<String>, Vec<Hole>, usize)> {
    let b = v.as_bytes();
    let mut lits = vec![String::new()];
    let mut holes = Vec::new();
    let mut first = None;
    let mut i = 0;
    while i < b.len() {
        let opener = match b[i] {
            b'$' | b'#' if b.get(i + 1) == Some(&b'{') => Some(i + 1),
            b'{' => Some(i),
            _ => None,
        };
        if let Some(open) = opener {
            let end = open + v[open..].find('}')?;
            holes.push(hole(&v[open + 1..end]));
            first.get_or_insert(i);
            lits.push(String::new());
            i = end + 1;
            continue;
        }
        if b[i] == b'%' && matches!(b.get(i + 1), Some(b's' | b'd' | b'v' | b'x' | b'q')) {
            holes.push(Hole::Next);
            first.get_or_insert(i);
            lits.push(String::new());
            i += 2;
            continue;
        }
        let c = v[i..].chars().next()?;
        lits.last_mut()?.push(c);
        i += c.len_utf8();
    }
    Some((lits, holes, first?))
}

/// The identifiers an expression's text names (`req.merchant_id` →
/// `req`, `merchant_id`).
pub fn idents(text: &str) -> Vec<String> {
    static RE: OnceLock<Option<Regex>> = OnceLock::new();
    let Some(re) = RE
        .get_or_init(|| Regex::new(r"[A-Za-z_][A-Za-z0-9_]*").ok())
        .as_ref()
    else {
        return Vec::new();
    };
    re.find_iter(text).map(|m| m.as_str().to_string()).collect()
}

/// The arguments of a printf-style call after its format literal, from the
/// rest of the line: `, merchantID, key)` or ` % (tenant, key)` or
/// `.format(tenant, key)`. Top-level commas split them; an unbalanced `)`
/// ends them.
fn trailing_args(rest: &str) -> Vec<String> {
    let r = rest.trim_start();
    let r = r
        .strip_prefix(',')
        .or_else(|| r.strip_prefix(".format("))
        .or_else(|| {
            r.strip_prefix('%')
                .map(|x| x.trim_start().strip_prefix('(').unwrap_or(x))
        });
    let Some(r) = r else { return Vec::new() };
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut cur = String::new();
    for c in r.chars() {
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' if depth == 0 => break,
            ')' | ']' | '}' => depth -= 1,
            ',' if depth == 0 => {
                out.push(std::mem::take(&mut cur));
                continue;
            }
            ';' if depth == 0 => break,
            _ => {}
        }
        cur.push(c);
    }
    if !cur.trim().is_empty() {
        out.push(cur);
    }
    out
}

/// Fill each placeholder with the identifiers it is built from, given the
/// argument texts for positional ones. A positional placeholder with no
/// argument gets none (unknown).
pub fn hole_idents(holes: &[Hole], args: &[Vec<String>]) -> Vec<Vec<String>> {
    let mut next = 0;
    holes
        .iter()
        .map(|h| match h {
            Hole::Next => {
                let a = args.get(next).cloned().unwrap_or_default();
                next += 1;
                a
            }
            Hole::Index(n) => args.get(*n).cloned().unwrap_or_default(),
            Hole::Inline(e) => idents(e),
        })
        .collect()
}

/// Key formats in a source file of another language: string literals shaped
/// like a request-key Redis key with at least one placeholder.
pub fn in_text(text: &str) -> Vec<KeyFormat> {
    let mut out = Vec::new();
    let lines: Vec<(usize, &str)> = {
        let mut offset = 0;
        text.split_inclusive('\n')
            .map(|l| {
                let at = offset;
                offset += l.len();
                (at, l)
            })
            .collect()
    };
    for (n, (offset, line)) in lines.iter().enumerate() {
        let t = line.trim_start();
        if ["//", "#", "/*", "*", "--"]
            .iter()
            .any(|c| t.starts_with(c))
        {
            continue;
        }
        let b = line.as_bytes();
        let mut i = 0;
        while i < b.len() {
            let q = b[i];
            if !matches!(q, b'"' | b'\'' | b'`') {
                i += 1;
                continue;
            }
            let start = i + 1;
            let mut j = start;
            while j < b.len() && b[j] != q {
                if b[j] == b'\\' {
                    j += 1;
                }
                j += 1;
            }
            if j >= b.len() {
                break;
            }
            let v = &line[start..j];
            i = j + 1;
            let Some((literals, holes, first)) = split_text(v) else {
                continue;
            };
            let Some(prefix) = request_key_prefix(v, first) else {
                continue;
            };
            let args: Vec<Vec<String>> = trailing_args(&line[j + 1..])
                .iter()
                .map(|a| idents(a))
                .collect();
            let from = n.saturating_sub(AROUND_LINES);
            let around = lines[from..=n]
                .iter()
                .filter(|(_, l)| {
                    let t = l.trim_start();
                    !["//", "#", "/*", "*", "--"]
                        .iter()
                        .any(|c| t.starts_with(c))
                })
                .flat_map(|(_, l)| idents(&strip_plain_strings(l)))
                .collect();
            out.push(KeyFormat {
                span: Span::new(offset + start, offset + j),
                text: v.to_string(),
                prefix: prefix.to_string(),
                literals,
                holes: hole_idents(&holes, &args),
                around,
            });
        }
    }
    out
}

/// A line without the text of its `"…"` and `'…'` literals (log messages
/// name `userId` without it being at hand).
fn strip_plain_strings(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for c in line.chars() {
        match quote {
            Some(q) => {
                if escaped {
                    escaped = false;
                } else if c == '\\' {
                    escaped = true;
                } else if c == q {
                    quote = None;
                    out.push(c);
                }
            }
            None => {
                if c == '"' || c == '\'' {
                    quote = Some(c);
                }
                out.push(c);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rust_format_strings_split_into_literals_and_placeholders() {
        let (lits, holes, first) = split_rust("idem:{}:{key:?}:{0}").unwrap();
        assert_eq!(lits, vec!["idem:", ":", ":", ""]);
        assert_eq!(
            holes,
            vec![Hole::Next, Hole::Inline("key".into()), Hole::Index(0)]
        );
        assert_eq!(first, 5);
        assert!(split_rust("idem:{{literal}}").is_none());
    }

    #[test]
    fn template_literals_f_strings_and_printf_are_read_with_their_arguments() {
        let f = in_text("const k = `idem:${tenantId}:${key}`;\n");
        assert_eq!(f[0].holes, vec![vec!["tenantId"], vec!["key"]]);
        let f = in_text("key := fmt.Sprintf(\"idempotency:%s:%s\", merchantID, req.Key)\n");
        assert_eq!(
            f[0].holes,
            vec![
                vec!["merchantID".to_string()],
                vec!["req".into(), "Key".into()]
            ]
        );
        let f = in_text("k = \"idem:%s\" % (key,)\n");
        assert_eq!(f[0].holes, vec![vec!["key"]]);
        assert!(in_text("log(\"idempotency: {} seen\")\n").is_empty());
        assert!(in_text("url = \"redis://idem:{port}\"\n").is_empty());
    }
}
