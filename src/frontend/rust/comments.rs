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
///
/// Only `/`, `"` and `'` can open a comment or a literal, so the scan jumps
/// from one to the next with `memchr3`; a `"` looks back for the `r`, `br`
/// or `cr` (and `#`s) of a raw string. Most bytes of a file are never
/// looked at one by one (the prefilter runs this on every Rust file a word
/// occurs in).
pub fn ranges(bytes: &[u8]) -> Vec<Range<usize>> {
    scan(bytes, |_| {})
}

/// The comments of [`ranges`], and the string literals the same scan
/// steps over (plain, raw, byte and C strings, from their opening quote to
/// past their closing one; not char literals), both ascending and
/// disjoint.
pub fn comments_and_strings(bytes: &[u8]) -> (Vec<Range<usize>>, Vec<Range<usize>>) {
    let mut strings = Vec::new();
    let comments = scan(bytes, |s| strings.push(s));
    (comments, strings)
}

fn scan(bytes: &[u8], mut string: impl FnMut(Range<usize>)) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(p) = memchr::memchr3(b'/', b'"', b'\'', &bytes[i..]) {
        i += p;
        if let Some(c) = comment_at(bytes, i) {
            i = c.end;
            out.push(c);
            continue;
        }
        match bytes[i] {
            b'"' => {
                let end = raw_prefix(bytes, i)
                    .and_then(|hashes| raw_end(bytes, i + 1, hashes))
                    .unwrap_or_else(|| string_end(bytes, i + 1));
                string(i..end);
                i = end;
            }
            b'\'' => i = char_end(bytes, i),
            _ => i += 1,
        }
    }
    out
}

/// The comment that opens at `i`, if one does: a line comment to the end of
/// its line, a block comment to its close.
fn comment_at(bytes: &[u8], i: usize) -> Option<Range<usize>> {
    if bytes[i] != b'/' {
        return None;
    }
    match bytes.get(i + 1) {
        Some(b'/') => Some(i..memchr::memchr(b'\n', &bytes[i..]).map_or(bytes.len(), |p| i + p)),
        Some(b'*') => Some(i..block_end(bytes, i)),
        _ => None,
    }
}

/// When the `"` at `quote` opens a raw string (`r"`, `r#"`, `br##"`,
/// `cr"`, not preceded by more of an identifier), how many `#` it has.
fn raw_prefix(bytes: &[u8], quote: usize) -> Option<usize> {
    let hashes = bytes[..quote]
        .iter()
        .rev()
        .take_while(|&&b| b == b'#')
        .count();
    let r = quote.checked_sub(hashes + 1)?;
    if bytes[r] != b'r' {
        return None;
    }
    let mut start = r;
    if let Some(p) = r.checked_sub(1) {
        if matches!(bytes[p], b'b' | b'c') {
            start = p;
        }
    }
    (!ident_byte(start.checked_sub(1).map(|p| bytes[p]))).then_some(hashes)
}

/// The end of a raw string whose text starts at `i` and closes with `"`
/// and `hashes` `#`s. Not closed, it runs to the end of the text when its
/// last quote ends the text, and is `None` (the quote then opens a plain
/// string) otherwise, as the byte-by-byte scan always had it.
fn raw_end(bytes: &[u8], mut i: usize, hashes: usize) -> Option<usize> {
    loop {
        if i >= bytes.len() {
            return Some(bytes.len());
        }
        let p = i + memchr::memchr(b'"', &bytes[i..])?;
        let close = &bytes[p + 1..];
        if close.len() >= hashes && close[..hashes].iter().all(|&b| b == b'#') {
            return Some(p + 1 + hashes);
        }
        i = p + 1;
    }
}

/// Whether byte `at` lies in one of `comments` (as [`ranges`] gives them:
/// ascending, disjoint).
pub fn contains(comments: &[Range<usize>], at: usize) -> bool {
    range_at(comments, at).is_some()
}

/// The one of `ranges` (ascending, disjoint) that byte `at` lies in.
pub fn range_at(ranges: &[Range<usize>], at: usize) -> Option<&Range<usize>> {
    index_at(ranges, at).map(|i| &ranges[i])
}

/// The index of [`range_at`]'s range.
pub fn index_at(ranges: &[Range<usize>], at: usize) -> Option<usize> {
    let i = ranges.partition_point(|r| r.end <= at);
    ranges.get(i).is_some_and(|r| r.contains(&at)).then_some(i)
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
/// `i`, after its opening `"`; `\` escapes the next byte. JSON strings
/// escape the same way.
pub fn string_end(bytes: &[u8], mut i: usize) -> usize {
    while let Some(p) = memchr::memchr2(b'\\', b'"', bytes.get(i..).unwrap_or(&[])) {
        i += p;
        if bytes[i] == b'"' {
            return i + 1;
        }
        i += 2;
    }
    bytes.len()
}

/// Past a `'` at `i`: the end of a char literal (`'a'`, `'\n'`, `'\u{1F600}'`,
/// `'"'`, `'é'`), or just past the quote of a lifetime or label (`'a`).
/// For each of `strings` (as [`comments_and_strings`] gives them, with its
/// `comments`), whether it may be read as part of an argument of a call:
/// it lies, at any depth, in a bracket opened right after one of `calls`
/// (`conn.get(..)`, `format!(..)`, a turbofish
/// `get::<_, T>(..)` counts as any name), or it follows `=` (a binding's
/// value). Past a close that matches no open, every string may.
pub fn strings_in_calls(
    bytes: &[u8],
    comments: &[Range<usize>],
    strings: &[Range<usize>],
    calls: &[&str],
) -> Vec<bool> {
    let call = |name: &[u8]| calls.iter().any(|c| c.as_bytes() == name);
    let mut out = vec![false; strings.len()];
    // Per open bracket: its byte, and whether a call's name opened it.
    let mut open: Vec<(u8, bool)> = Vec::new();
    let mut in_call = 0usize;
    let mut lost = false;
    let (mut s, mut c) = (0, 0);
    let mut i = 0;
    while i < bytes.len() {
        if let Some(r) = strings.get(s).filter(|r| r.start <= i) {
            out[s] = lost || in_call > 0 || r.start < i || after_assign(bytes, r.start);
            i = i.max(r.end);
            s += 1;
            continue;
        }
        if let Some(r) = comments.get(c).filter(|r| r.start <= i) {
            i = i.max(r.end);
            c += 1;
            continue;
        }
        // Code up to the next string or comment: only brackets and quotes
        // matter in it.
        let stop = strings
            .get(s)
            .map_or(bytes.len(), |r| r.start)
            .min(comments.get(c).map_or(bytes.len(), |r| r.start));
        while i < stop {
            match bytes[i] {
                b'\'' => {
                    i = char_end(bytes, i);
                    continue;
                }
                b @ (b'(' | b'[' | b'{') => {
                    let by_call =
                        call_name_before(bytes, i).is_some_and(|n| n.is_empty() || call(n));
                    open.push((b, by_call));
                    in_call += usize::from(by_call);
                }
                b @ (b')' | b']' | b'}') => match open.pop() {
                    Some((o, by_call))
                        if matches!((o, b), (b'(', b')') | (b'[', b']') | (b'{', b'}')) =>
                    {
                        in_call -= usize::from(by_call)
                    }
                    _ => lost = true,
                },
                _ => {}
            }
            i += 1;
        }
    }
    for rest in out.iter_mut().skip(s) {
        *rest = true;
    }
    out
}

/// The name a bracket at `at` opens the arguments of: the identifier before
/// it (over spaces and a macro's `!`); empty for a `(` after a turbofish's
/// `>` (`get::<_, T>(`), whose name is not looked for; `None` when no name
/// is there (a `{` after a return type `-> Result<T, E>` opens a body).
fn call_name_before(bytes: &[u8], at: usize) -> Option<&[u8]> {
    let mut end = at;
    while end > 0 && bytes[end - 1].is_ascii_whitespace() {
        end -= 1;
    }
    if end > 0 && bytes[end - 1] == b'!' {
        end -= 1;
    }
    if end > 0 && bytes[end - 1] == b'>' && bytes[at] == b'(' {
        return Some(&[]);
    }
    let start = bytes[..end]
        .iter()
        .rposition(|&b| !(b.is_ascii_alphanumeric() || b == b'_'))
        .map_or(0, |p| p + 1);
    (start < end).then(|| &bytes[start..end])
}

/// Whether `=` comes before `at`, over spaces, `&` and `(` (`let k =
/// &("…")`), and is no `==`, `<=`, `>=`, `!=` nor `=>`.
fn after_assign(bytes: &[u8], at: usize) -> bool {
    let mut i = at;
    while i > 0 && matches!(bytes[i - 1], b' ' | b'\t' | b'\n' | b'\r' | b'&' | b'(') {
        i -= 1;
    }
    i > 0
        && bytes[i - 1] == b'='
        && !matches!(
            bytes.get(i.wrapping_sub(2)),
            Some(b'=' | b'<' | b'>' | b'!')
        )
}

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

#[cfg(test)]
mod tests {
    use super::*;

    /// The scan as it was before it jumped with `memchr3`: every byte
    /// looked at, raw strings found from their `r`/`b`/`c`. The oracle
    /// [`ranges`] must agree with.
    fn reference(bytes: &[u8]) -> Vec<Range<usize>> {
        let mut out = Vec::new();
        let n = bytes.len();
        let mut i = 0;
        while i < n {
            if let Some(c) = comment_at(bytes, i) {
                i = c.end;
                out.push(c);
                continue;
            }
            match bytes[i] {
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

    fn comments(text: &str) -> Vec<&str> {
        ranges(text.as_bytes())
            .into_iter()
            .map(|r| &text[r])
            .collect()
    }

    /// Every Rust file of idemlint's sources and fixtures, and text made
    /// of the pieces that open and close literals and comments in every
    /// order: the jumping scan gives the ranges the byte-by-byte one gives.
    /// `IDEMLINT_COMMENTS_CORPUS=DIR` adds the Rust files under DIR.
    #[test]
    fn strings_are_the_literals_the_scan_steps_over() {
        let text = concat!(
            "let a = \"// not a comment\"; // a \"comment\"\n",
            "let b = r#\"raw \" quote\"#; let c = b\"bytes\\\"x\";\n",
            "let d = '\"'; /* \"in\" a block */ let e = cr\"c\";\n",
            "fn f<'a>(x: &'a str) -> &'a str { \"tail\" }",
        );
        let (comments, strings) = comments_and_strings(text.as_bytes());
        assert_eq!(comments, ranges(text.as_bytes()));
        let found: Vec<&str> = strings.iter().map(|r| &text[r.clone()]).collect();
        assert_eq!(
            found,
            [
                "\"// not a comment\"",
                "\"raw \" quote\"#",
                "\"bytes\\\"x\"",
                "\"c\"",
                "\"tail\"",
            ]
        );
        // Ascending and disjoint, so `contains` can search them.
        assert!(strings.windows(2).all(|w| w[0].end <= w[1].start));
        let at = text.find("not a comment").unwrap_or(0);
        assert!(contains(&strings, at));
        assert!(!contains(&strings, text.find("let b").unwrap_or(0)));
    }

    #[test]
    fn the_jumping_scan_agrees_with_the_byte_scan() {
        let pieces: [&[u8]; 24] = [
            b"/",
            b"*",
            b"/*",
            b"*/",
            b"//",
            b"\n",
            b"\"",
            b"\\",
            b"'",
            b"r",
            b"b",
            b"c",
            b"#",
            b"x",
            b" ",
            b"br",
            b"cr",
            b"r#",
            b"'a",
            b"'\\u{1F600}'",
            "\u{e9}".as_bytes(),
            b"'\\''",
            b"_",
            b"\xff",
        ];
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..200_000 {
            let mut text = Vec::new();
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let mut s = seed;
            for _ in 0..(s % 13) {
                text.extend_from_slice(pieces[(s >> 8) as usize % pieces.len()]);
                s = s.rotate_left(5).wrapping_mul(0x2545_f491_4f6c_dd1d);
            }
            assert_eq!(
                ranges(&text),
                reference(&text),
                "{:?}",
                String::from_utf8_lossy(&text)
            );
        }
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut dirs = vec![root.join("src"), root.join("tests"), root.join("testdata")];
        dirs.extend(std::env::var_os("IDEMLINT_COMMENTS_CORPUS").map(std::path::PathBuf::from));
        let mut files = 0;
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
                let p = entry.path();
                if p.is_dir() {
                    dirs.push(p);
                } else if p.extension().is_some_and(|x| x == "rs") {
                    let bytes = std::fs::read(&p).unwrap_or_default();
                    assert_eq!(ranges(&bytes), reference(&bytes), "{}", p.display());
                    files += 1;
                }
            }
        }
        assert!(files > 100, "{files} files");
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
