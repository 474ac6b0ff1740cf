//! Where a Rust file's comments are, without parsing it: a byte scan that
//! knows Rust's literals well enough that `"//"` in a string, `'"'` or
//! `r#"… */ …"#` does not open or close a comment. The prefilter uses it so
//! that a word that only a comment holds (`/// This call is idempotent`)
//! does not send a file through syn: no Rust rule reads comments, and
//! suppression comments are read on their own.

use std::ops::Range;

/// The byte ranges of the comments of Rust source `bytes`: line comments
/// to the end of their line, block comments (nested, as Rust nests them) to
/// their close, doc comments of both forms. Never panics; text that is not
/// Rust gives ranges that are merely approximate.
pub fn ranges(bytes: &[u8]) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let n = bytes.len();
    let mut i = 0;
    while i < n {
        match bytes[i] {
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                let end = memchr::memchr(b'\n', &bytes[i..]).map_or(n, |p| i + p);
                out.push(i..end);
                i = end;
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                let end = block_end(bytes, i);
                out.push(i..end);
                i = end;
            }
            b'"' => i = string_end(bytes, i + 1),
            b'\'' => i = char_end(bytes, i),
            b'r' | b'b' | b'c' if !ident_byte(i.checked_sub(1).map(|p| bytes[p])) => {
                i = raw_string_end(bytes, i).unwrap_or(i + 1);
            }
            _ => i += 1,
        }
    }
    out
}

/// Whether byte `at` lies in one of `comments` (as [`ranges`] gives them:
/// ascending, disjoint).
pub fn contains(comments: &[Range<usize>], at: usize) -> bool {
    let i = comments.partition_point(|r| r.end <= at);
    comments.get(i).is_some_and(|r| r.contains(&at))
}

fn ident_byte(b: Option<u8>) -> bool {
    b.is_some_and(|b| b.is_ascii_alphanumeric() || b == b'_' || b >= 0x80)
}

/// The end of the block comment that opens at `start` (`/*`), nested
/// comments included; the end of the text when it is not closed.
fn block_end(bytes: &[u8], start: usize) -> usize {
    let mut depth = 0usize;
    let mut i = start;
    while i + 1 < bytes.len() {
        match (bytes[i], bytes[i + 1]) {
            (b'/', b'*') => {
                depth += 1;
                i += 2;
            }
            (b'*', b'/') => {
                depth -= 1;
                i += 2;
                if depth == 0 {
                    return i;
                }
            }
            _ => i += 1,
        }
    }
    bytes.len()
}

/// The end (after the closing quote) of the string whose text starts at
/// `i`, after its opening `"`; `\` escapes the next byte.
fn string_end(bytes: &[u8], mut i: usize) -> usize {
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'"' => return i + 1,
            _ => i += 1,
        }
    }
    bytes.len()
}

/// Past a `'` at `i`: the end of a char literal (`'a'`, `'\n'`, `'\u{1F600}'`,
/// `'"'`, `'é'`), or just past the quote of a lifetime or label (`'a`).
fn char_end(bytes: &[u8], i: usize) -> usize {
    match bytes.get(i + 1) {
        Some(b'\\') => {
            // An escape: the literal closes within a dozen bytes.
            let window = &bytes[i + 2..bytes.len().min(i + 14)];
            match memchr::memchr(b'\'', window.get(1..).unwrap_or(&[])) {
                Some(p) => i + 3 + p + 1,
                None => i + 1,
            }
        }
        Some(&b) => {
            let len = match b {
                0x00..=0x7f => 1,
                0xc0..=0xdf => 2,
                0xe0..=0xef => 3,
                _ => 4,
            };
            if bytes.get(i + 1 + len) == Some(&b'\'') {
                i + 2 + len
            } else {
                i + 1
            }
        }
        None => i + 1,
    }
}

/// The end of a raw string (`r"…"`, `r#"…"#`, `br##"…"##`, `cr"…"`) or a
/// byte/C string (`b"…"`, `c"…"`) that starts at `i`; `None` when the
/// letters there start an identifier (`r#type`, `break`, `crate`).
fn raw_string_end(bytes: &[u8], i: usize) -> Option<usize> {
    let mut j = i;
    if matches!(bytes[j], b'b' | b'c') {
        j += 1;
        if bytes.get(j) == Some(&b'"') {
            return Some(string_end(bytes, j + 1));
        }
        if bytes.get(j) == Some(&b'\'') && bytes[i] == b'b' {
            return Some(char_end(bytes, j));
        }
    }
    if bytes.get(j) != Some(&b'r') {
        return None;
    }
    j += 1;
    let hashes = bytes[j..].iter().take_while(|&&b| b == b'#').count();
    j += hashes;
    if bytes.get(j) != Some(&b'"') {
        return None;
    }
    j += 1;
    while j < bytes.len() {
        let p = memchr::memchr(b'"', &bytes[j..])? + j;
        let close = &bytes[p + 1..];
        if close.len() >= hashes && close[..hashes].iter().all(|&b| b == b'#') {
            return Some(p + 1 + hashes);
        }
        j = p + 1;
    }
    Some(bytes.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn comments(text: &str) -> Vec<&str> {
        ranges(text.as_bytes())
            .into_iter()
            .map(|r| &text[r])
            .collect()
    }

    #[test]
    fn line_block_and_doc_comments() {
        let text = "/// doc\nfn f() { /* a /* nested */ b */ g(); } // tail\n//! inner";
        assert_eq!(
            comments(text),
            ["/// doc", "/* a /* nested */ b */", "// tail", "//! inner"]
        );
    }

    #[test]
    fn literals_do_not_open_comments() {
        let text = concat!(
            "let a = \"// not a comment\";\n",
            "let b = r#\"/* \"still\" raw */\"#;\n",
            "let c = b\"//\"; let d = '\"'; let e = '\\'';\n",
            "let f = br##\"x\"# // \"##; // real\n",
            "fn g<'a>(x: &'a str) -> &'a str { x } // lifetime\n",
            "let h = 'é'; let i = '\\u{1F600}'; // chars\n",
            "let r#type = 1; // raw ident\n",
        );
        assert_eq!(
            comments(text),
            ["// real", "// lifetime", "// chars", "// raw ident"]
        );
    }

    #[test]
    fn unclosed_things_run_to_the_end_without_panicking() {
        for text in [
            "/* open", "\"open", "r#\"open", "'", "b'", "r", "br#", "'\\",
        ] {
            let _ = ranges(text.as_bytes());
        }
        assert_eq!(comments("x /* open"), ["/* open"]);
    }

    #[test]
    fn positions_in_comments() {
        let c = ranges(b"// idempotent\nfn f() {} /* dedup */");
        assert!(contains(&c, 3) && contains(&c, 27));
        assert!(!contains(&c, 15) && !contains(&c, 13) && !contains(&c, 99));
        assert!(!contains(&[], 0));
    }
}
