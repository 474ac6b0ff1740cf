//! Text front end for other source files (js/ts/py/go/java/rb/kt/cs/php) and
//! nginx/envoy configs: quoted string literals, and the header-name argument
//! of nginx header directives. No parsing beyond a line-aware quote scan.

use super::{FileFacts, StrLit, StrRole};
use crate::source::Span;

/// nginx directives whose first argument is a request or response header name.
const NGINX_HEADER_DIRECTIVES: &[&str] = &[
    "proxy_set_header",
    "add_header",
    "more_set_headers",
    "more_set_input_headers",
    "proxy_hide_header",
    "proxy_pass_header",
    "grpc_set_header",
    "fastcgi_param",
];

/// Literals longer than this are not header names and are not kept.
const MAX_LITERAL: usize = 128;

pub fn parse(text: &str, facts: &mut FileFacts) {
    facts.hints.talks_to_stripe = crate::knowledge::headers().talks_to_stripe(text);
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        scan_line(line, offset, facts);
        offset += line.len();
    }
}

fn scan_line(line: &str, offset: usize, facts: &mut FileFacts) {
    let trimmed = line.trim_start();
    let indent = line.len() - trimmed.len();
    // nginx: `proxy_set_header Idempotency-Key $http_idempotency_key;`
    let mut words = trimmed.split_whitespace();
    if let Some(first) = words.next() {
        if NGINX_HEADER_DIRECTIVES.contains(&first) {
            if let Some(name) = words.next() {
                let name_trim =
                    name.trim_matches(|c| c == '"' || c == '\'' || c == ';' || c == ':');
                if let Some(pos) = trimmed.find(name_trim) {
                    let start = offset + indent + pos;
                    facts.strings.push(StrLit {
                        value: name_trim.to_string(),
                        span: Span::new(start, start + name_trim.len()),
                        role: StrRole::Write,
                    });
                }
            }
            return;
        }
    }
    let bytes = line.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let q = bytes[i];
        if q == b'"' || q == b'\'' || q == b'`' {
            let start = i + 1;
            let mut j = start;
            while j < bytes.len() && bytes[j] != q {
                if bytes[j] == b'\\' {
                    j += 1;
                }
                j += 1;
            }
            if j >= bytes.len() {
                return; // unterminated on this line: not a literal we can read
            }
            let value = &line[start..j];
            if !value.is_empty() && value.len() <= MAX_LITERAL {
                facts.strings.push(StrLit {
                    value: value.to_string(),
                    span: Span::new(offset + start, offset + j),
                    role: StrRole::Mention,
                });
            }
            i = j + 1;
        } else {
            i += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_and_nginx_directives() {
        let text = "const h = 'Idempotency-Key';\n  proxy_set_header Idempotency_Key $http_idempotency_key;\n";
        let mut f = FileFacts::default();
        parse(text, &mut f);
        let vals: Vec<_> = f
            .strings
            .iter()
            .map(|s| (s.value.as_str(), s.role))
            .collect();
        assert_eq!(
            vals,
            vec![
                ("Idempotency-Key", StrRole::Mention),
                ("Idempotency_Key", StrRole::Write)
            ]
        );
        let s = &f.strings[1];
        assert_eq!(&text[s.span.start..s.span.end], "Idempotency_Key");
    }
}
