//! The redis.conf front end: a tokenizer for the format Redis itself reads
//! (one directive a line, arguments split like `sdssplitargs`: double quotes
//! with escapes, single quotes, `#` starting a comment line), filling the
//! Redis facts (`facts::redis`: instances, eviction settings, includes). The
//! tokenizer also reads redis.conf text embedded in another file, with each
//! line's offset in the host file. Not for deciding what is a finding.

use crate::facts::redis::{
    Include, InstanceDecl, InstanceKind, PolicySetting, RedisFacts, Surface,
};
use crate::facts::{FileFacts, Problem};
use crate::source::Span;

/// One argument of a directive: decoded value, and the span of its text in
/// the host file (inside the quotes when quoted).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Arg {
    pub value: String,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Directive {
    /// Lower-cased: Redis reads directive names case-insensitively.
    pub name: String,
    pub name_span: Span,
    pub args: Vec<Arg>,
}

/// Tokenize a whole file.
pub fn tokenize(text: &str) -> (Vec<Directive>, Vec<Problem>) {
    let mut offset = 0;
    let lines = text.split_inclusive('\n').map(|l| {
        let start = offset;
        offset += l.len();
        (start, l)
    });
    tokenize_lines(lines)
}

/// Tokenize redis.conf lines given with the offset of each line's first byte
/// in the host file (for text embedded in YAML, the line after its block
/// indentation).
pub fn tokenize_lines<'a>(
    lines: impl IntoIterator<Item = (usize, &'a str)>,
) -> (Vec<Directive>, Vec<Problem>) {
    let mut out = Vec::new();
    let mut problems = Vec::new();
    for (start, raw) in lines {
        let line = raw.trim_end_matches(['\n', '\r']);
        let trimmed = line.trim_start();
        // NOTE: Redis trims the line and skips it when it starts with `#`; a
        // `#` later on the line is an argument, not a comment.
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        let at = start + (line.len() - trimmed.len());
        match split_args(trimmed, at) {
            Ok(mut args) if !args.is_empty() => {
                let first = args.remove(0);
                out.push(Directive {
                    name: first.value.to_ascii_lowercase(),
                    name_span: first.span,
                    args,
                });
            }
            Ok(_) => {}
            Err(msg) => {
                let mut p = Problem::new(Span::new(at, at + trimmed.len()), msg);
                // An unbalanced quote on a line about something else is
                // Redis's business; it is reported only where it can hide a policy.
                p.reported = trimmed.to_ascii_lowercase().contains("maxmemory");
                problems.push(p);
            }
        }
    }
    (out, problems)
}

/// Split one line like Redis's `sdssplitargs`.
fn split_args(line: &str, at: usize) -> Result<Vec<Arg>, String> {
    let bytes = line.as_bytes();
    let mut args = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        while i < bytes.len() && bytes[i].is_ascii_whitespace() {
            i += 1;
        }
        if i >= bytes.len() {
            break;
        }
        let (value, start, end, next) = match bytes[i] {
            b'"' => double_quoted(line, i)?,
            b'\'' => single_quoted(line, i)?,
            _ => {
                let s = i;
                while i < bytes.len() && !bytes[i].is_ascii_whitespace() {
                    i += 1;
                }
                (line[s..i].to_string(), s, i, i)
            }
        };
        args.push(Arg {
            value,
            span: Span::new(at + start, at + end),
        });
        i = next;
    }
    Ok(args)
}

/// A quoted argument: (value, content start, content end, next index).
type Quoted = (String, usize, usize, usize);

/// A `"..."` argument starting at `q`.
fn double_quoted(line: &str, q: usize) -> Result<Quoted, String> {
    let bytes = line.as_bytes();
    let mut out: Vec<u8> = Vec::new();
    let mut i = q + 1;
    loop {
        match bytes.get(i) {
            None => return Err("unbalanced quotes in redis.conf line".to_string()),
            Some(b'\\')
                if i + 3 < bytes.len()
                    && bytes[i + 1] == b'x'
                    && bytes[i + 2].is_ascii_hexdigit()
                    && bytes[i + 3].is_ascii_hexdigit() =>
            {
                let hex = |b: u8| (b as char).to_digit(16).unwrap_or(0) as u8;
                out.push(hex(bytes[i + 2]) * 16 + hex(bytes[i + 3]));
                i += 4;
            }
            Some(b'\\') if i + 1 < bytes.len() => {
                out.push(match bytes[i + 1] {
                    b'n' => b'\n',
                    b'r' => b'\r',
                    b't' => b'\t',
                    b'b' => 8,
                    b'a' => 7,
                    c => c,
                });
                i += 2;
            }
            Some(b'"') => return close(bytes, q, i, &out),
            Some(&c) => {
                out.push(c);
                i += 1;
            }
        }
    }
}

/// The closing quote at `i` of an argument opened at `q`: it must be
/// followed by a space or the end of the line.
fn close(bytes: &[u8], q: usize, i: usize, out: &[u8]) -> Result<Quoted, String> {
    if bytes.get(i + 1).is_some_and(|c| !c.is_ascii_whitespace()) {
        return Err("closing quote must be followed by a space".to_string());
    }
    Ok((String::from_utf8_lossy(out).into_owned(), q + 1, i, i + 1))
}

fn single_quoted(line: &str, q: usize) -> Result<Quoted, String> {
    let bytes = line.as_bytes();
    let mut out: Vec<u8> = Vec::new();
    let mut i = q + 1;
    loop {
        match bytes.get(i) {
            None => return Err("unbalanced quotes in redis.conf line".to_string()),
            Some(b'\\') if bytes.get(i + 1) == Some(&b'\'') => {
                out.push(b'\'');
                i += 2;
            }
            Some(b'\'') => return close(bytes, q, i, &out),
            Some(&c) => {
                out.push(c);
                i += 1;
            }
        }
    }
}

/// The facts of tokenized redis.conf text: policy settings and includes,
/// attributed to `instance`.
pub fn collect(
    directives: &[Directive],
    surface: Surface,
    instance: Option<usize>,
    redis: &mut RedisFacts,
) {
    for d in directives {
        match d.name.as_str() {
            "maxmemory-policy" => {
                if let Some(a) = d.args.first() {
                    redis.settings.push(PolicySetting {
                        value: a.value.clone(),
                        span: a.span,
                        surface,
                        instance,
                    });
                }
            }
            "include" => {
                if let Some(a) = d.args.first() {
                    redis.includes.push(Include {
                        path: a.value.clone(),
                        span: a.span,
                    });
                }
            }
            _ => {}
        }
    }
}

/// Front end for a whole redis.conf / valkey.conf file: the file is the instance.
pub fn parse(text: &str, facts: &mut FileFacts) {
    let (directives, problems) = tokenize(text);
    // NOTE: Redis refuses to start with a file one line of which it cannot
    // split (`FATAL CONFIG FILE ERROR`), whatever that line is about: the
    // policy the file sets never applies. Reported on every line, where a
    // redis.conf embedded in another file is only read for its policy.
    facts.problems.extend(problems.into_iter().map(|mut p| {
        p.reported = true;
        p.detail =
            Some("Redis refuses to start with this file (`FATAL CONFIG FILE ERROR`)".to_string());
        p
    }));
    let mut redis = RedisFacts::default();
    redis.instances.push(InstanceDecl::new(
        InstanceKind::ConfFile,
        "",
        Span::new(0, 0),
    ));
    collect(&directives, Surface::ConfFile, Some(0), &mut redis);
    facts.redis = redis;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(text: &str) -> Vec<(String, String)> {
        let mut f = FileFacts::default();
        parse(text, &mut f);
        f.redis
            .settings
            .iter()
            .map(|s| (s.value.clone(), text[s.span.start..s.span.end].to_string()))
            .collect()
    }

    #[test]
    fn policy_value_span_points_at_the_value() {
        let text = "maxmemory 2gb\r\n  maxmemory-policy   allkeys-lru\n";
        assert_eq!(
            settings(text),
            vec![("allkeys-lru".to_string(), "allkeys-lru".to_string())]
        );
    }

    #[test]
    fn commented_directives_are_not_settings() {
        let text = "# maxmemory-policy noeviction\n   #maxmemory-policy allkeys-lru\n";
        assert!(settings(text).is_empty());
    }

    #[test]
    fn quoted_arguments_are_decoded_and_spanned_inside_the_quotes() {
        let text = "MAXMEMORY-POLICY \"volatile-lru\"\nmaxmemory-policy 'allkeys-lfu'\n";
        assert_eq!(
            settings(text),
            vec![
                ("volatile-lru".to_string(), "volatile-lru".to_string()),
                ("allkeys-lfu".to_string(), "allkeys-lfu".to_string())
            ]
        );
        let (d, _) = tokenize("requirepass \"a\\x41\\n b\"\n");
        assert_eq!(d[0].args[0].value, "aA\n b");
    }

    #[test]
    fn unbalanced_quotes_are_a_problem_not_a_panic() {
        let (d, p) = tokenize("maxmemory-policy \"allkeys-lru\nsave \"\n");
        assert!(d.is_empty());
        assert_eq!(p.len(), 2);
        assert!(p[0].reported);
        assert!(!p[1].reported);
    }

    #[test]
    fn odd_input_never_panics() {
        for text in [
            "\"\\x",
            "'\\",
            "maxmemory-policy \"\\xZZ\"",
            "maxmemory-policy \"a\"b",
            "\u{3000}maxmemory-policy\u{3000}allkeys-lru",
            "maxmemory-policy é\r\n# é",
            "\n\n\r\r",
        ] {
            let _ = tokenize(text);
        }
        let (d, _) = tokenize("maxmemory-policy \"\\x41\\x+4\"\n");
        assert_eq!(d[0].args[0].value, "Ax+4");
    }

    #[test]
    fn include_is_recorded_not_followed() {
        let text = "include /etc/redis/common.conf\n";
        let mut f = FileFacts::default();
        parse(text, &mut f);
        assert_eq!(f.redis.includes[0].path, "/etc/redis/common.conf");
        assert!(f.redis.settings.is_empty());
    }

    #[test]
    fn embedded_lines_keep_host_offsets() {
        let host = "conf: |-\n  # maxmemory-policy noeviction\n  maxmemory-policy allkeys-lru\n";
        let first = host.find("  #").unwrap() + 2;
        let second = host.find("  max").unwrap() + 2;
        let lines = vec![(first, &host[first..second - 2]), (second, &host[second..])];
        let (d, _) = tokenize_lines(lines);
        assert_eq!(d.len(), 1);
        let a = &d[0].args[0];
        assert_eq!(&host[a.span.start..a.span.end], "allkeys-lru");
    }

    /// Redis refuses a whole file one line of which it cannot split, so
    /// the fault is reported whatever the line is about.
    #[test]
    fn a_redis_conf_line_redis_cannot_split_is_reported() {
        let mut f = FileFacts::default();
        parse(
            "maxmemory-policy noeviction\nlogfile \"/var/log/redis.log\n",
            &mut f,
        );
        assert_eq!(f.problems.len(), 1);
        assert!(f.problems[0].reported);
        assert_eq!(
            settings("maxmemory-policy noeviction\nlogfile \"x\n").len(),
            1
        );
    }
}
