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
#[cfg(test)]
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

/// The test items of Rust source `bytes`, found without parsing it, as
/// the Rust front end's test regions (`frontend::rust::test_regions`)
/// find them in a parsed file: a `mod`, `fn`
/// or `impl` (at any depth) with a `#[cfg(test)]` or `#[test]`-like
/// attribute (`#[tokio::test]`, `#[sqlx::test(..)]`), from that attribute
/// to the item's closing brace. `comments` and `strings` are what
/// [`comments_and_strings`] gives. Ascending and disjoint (an item inside
/// another is not listed again). Items in a macro's arguments or a
/// `macro_rules!` body are not listed: the parsed file holds them as
/// tokens, not items. When the scan is unsure of an item (an attribute
/// with a comment in it, a brace that never closes, anything but `fn`,
/// `mod` or `impl` after the attributes) it lists nothing: the prefilter
/// hides only what is test code for certain.
pub fn test_items(
    bytes: &[u8],
    comments: &[Range<usize>],
    strings: &[Range<usize>],
) -> Vec<Range<usize>> {
    // Every test attribute holds `test`.
    if memchr::memmem::find(bytes, b"test").is_none() {
        return Vec::new();
    }
    let scan = Scan::new(bytes, comments, strings);
    let mut macros = None;
    let mut out = Vec::new();
    let mut i = 0;
    // Each byte is looked at a bounded number of times: the scan goes on
    // past every attribute and item it reads, so hostile text (`#[test(`
    // or `#[test] fn` repeated) costs a pass, not a pass a `#`.
    while let Some(p) = memchr::memchr(b'#', &bytes[i..]).map(|p| i + p) {
        i = p + 1;
        if contains(&scan.silent, p) {
            continue;
        }
        let Some((mut end, test)) = scan.attribute_at(p) else {
            continue;
        };
        i = end;
        if !test || contains(macros.get_or_insert_with(|| scan.macro_bodies()), p) {
            continue;
        }
        // Further attributes of the same item.
        while let Some((e, _)) = scan
            .skip_blank(end)
            .filter(|&at| bytes.get(at) == Some(&b'#'))
            .and_then(|at| scan.attribute_at(at))
        {
            end = e;
        }
        i = end;
        match scan.item_end(scan.skip_blank(end).unwrap_or(bytes.len())) {
            Item::Ends(close) => {
                out.push(p..close);
                i = close;
            }
            // Any item before `resume` would find the same `;` or unclosed
            // brace.
            Item::Not { resume } => i = i.max(resume),
            // No body opens before the end of the text: none will later.
            Item::NoBody => break,
        }
    }
    out
}

/// What follows a test attribute's item.
enum Item {
    /// A `fn`, `mod` or `impl` whose body closes here.
    Ends(usize),
    /// Another item, a `mod` without a body, a body never closed: the
    /// scan resumes at `resume`.
    Not { resume: usize },
    /// No `{` nor `;` up to the end of the text.
    NoBody,
}

/// A Rust text's comments and strings, and its brackets matched once, for
/// [`test_items`] and the Rust front end's item-by-item reader.
pub(crate) struct Scan<'a> {
    bytes: &'a [u8],
    /// Comments and strings, ascending.
    silent: Vec<Range<usize>>,
    /// `(open, past close)` of every bracket pair in code, `(`, `[` and
    /// `{` alike, by open.
    pairs: Vec<(usize, usize)>,
}

impl<'a> Scan<'a> {
    pub(crate) fn new(
        bytes: &'a [u8],
        comments: &[Range<usize>],
        strings: &[Range<usize>],
    ) -> Self {
        let mut silent: Vec<Range<usize>> = comments.iter().chain(strings).cloned().collect();
        silent.sort_unstable_by_key(|r| r.start);
        let mut pairs = Vec::new();
        let mut open = Vec::new();
        // The bytes [`code`] gives, read a stretch of code at a time: this
        // runs over every Rust file with a word in code.
        let (mut i, mut k) = (0, 0);
        while i < bytes.len() {
            while let Some(r) = silent.get(k).filter(|r| r.start <= i) {
                i = i.max(r.end);
                k += 1;
            }
            let stop = silent.get(k).map_or(bytes.len(), |r| r.start);
            i = brackets(bytes, i, stop, |at, b| match b {
                b'(' | b'[' | b'{' => open.push(at),
                _ => {
                    if let Some(o) = open.pop() {
                        pairs.push((o, at + 1));
                    }
                }
            });
        }
        pairs.sort_unstable();
        Scan {
            bytes,
            silent,
            pairs,
        }
    }

    /// Comments and strings, ascending.
    pub(crate) fn silent(&self) -> &[Range<usize>] {
        &self.silent
    }

    /// Past the bracket that opens at `open`, when it closes.
    pub(crate) fn close_of(&self, open: usize) -> Option<usize> {
        let i = self.pairs.binary_search_by_key(&open, |p| p.0).ok()?;
        Some(self.pairs[i].1)
    }

    /// Past whitespace and comments from `i`; `None` past the end.
    pub(crate) fn skip_blank(&self, mut i: usize) -> Option<usize> {
        loop {
            while self.bytes.get(i).is_some_and(u8::is_ascii_whitespace) {
                i += 1;
            }
            match range_at(&self.silent, i) {
                Some(r) if self.bytes[i] == b'/' => i = r.end,
                _ => return (i < self.bytes.len()).then_some(i),
            }
        }
    }

    /// The brackets of macro calls and `macro_rules!` definitions
    /// (`name!(..)`, `name! [..]`, `macro_rules! name { .. }`), outermost
    /// only, ascending.
    fn macro_bodies(&self) -> Vec<Range<usize>> {
        let bytes = self.bytes;
        let mut out = Vec::new();
        let mut i = 0;
        while let Some(p) = memchr::memchr(b'!', &bytes[i..]).map(|p| i + p) {
            i = p + 1;
            if contains(&self.silent, p) || !ident_byte(p.checked_sub(1).map(|q| bytes[q])) {
                continue;
            }
            let Some(mut open) = self.skip_blank(p + 1) else {
                break;
            };
            let name = ident_len(&bytes[open..]);
            if name > 0 {
                let Some(after) = self.skip_blank(open + name) else {
                    break;
                };
                open = after;
            }
            if !matches!(bytes[open], b'(' | b'[' | b'{') {
                continue;
            }
            // Not closed: to the end of the text.
            let close = self.close_of(open).unwrap_or(bytes.len());
            out.push(open..close);
            i = close;
        }
        out
    }

    /// The outer attribute whose `#` is at `p`: where it ends, and whether
    /// it marks test code as the front end reads one
    /// (`frontend::rust::test_regions`: its path's
    /// last segment is `test`, or it is `cfg(..)` naming `test` before any
    /// predicate with arguments). An attribute with a comment in it is
    /// read as no test.
    fn attribute_at(&self, p: usize) -> Option<(usize, bool)> {
        let bytes = self.bytes;
        let open = self.skip_blank(p + 1)?;
        if bytes[open] != b'[' {
            return None;
        }
        let end = self.close_of(open)?;
        let inner = open + 1..end - 1;
        let commented = self
            .silent
            .iter()
            .skip(self.silent.partition_point(|r| r.end <= inner.start))
            .take_while(|r| r.start < inner.end)
            .any(|r| bytes[r.start] == b'/');
        if commented {
            return Some((end, false));
        }
        let text = &bytes[inner.clone()];
        // The path: identifiers joined by `::`.
        let mut segments = Vec::new();
        let mut at = 0;
        loop {
            at = text.len() - text[at..].trim_ascii_start().len();
            if text[at..].starts_with(b"::") {
                at += 2;
                continue;
            }
            let len = ident_len(&text[at..]);
            if len == 0 {
                break;
            }
            segments.push(&text[at..at + len]);
            at += len;
            let rest = text[at..].trim_ascii_start();
            if !rest.starts_with(b"::") {
                at = text.len() - rest.len();
                break;
            }
        }
        let test = match segments.as_slice() {
            [.., last] if *last == b"test" => true,
            [only] if *only == b"cfg" && text.get(at) == Some(&b'(') => {
                self.cfg_names_test(inner.start + at)
            }
            _ => false,
        };
        Some((end, test))
    }

    /// Whether the predicates of a `cfg(..)` whose `(` is at `open` name
    /// `test` before any predicate that is not a bare path (`cfg(test)`,
    /// `cfg(test, feature = "x")`; not `cfg(all(test, ..))`, which
    /// the front end (`frontend::rust::test_regions`) does not take for
    /// test code either).
    fn cfg_names_test(&self, open: usize) -> bool {
        let bytes = self.bytes;
        let Some(close) = self.close_of(open) else {
            return false;
        };
        let mut depth = 0usize;
        let mut start = open + 1;
        let mut items = Vec::new();
        for (i, b) in code(bytes, &self.silent, open + 1).take_while(|(i, _)| *i < close - 1) {
            match b {
                b'(' | b'[' | b'{' => depth += 1,
                b')' | b']' | b'}' => depth = depth.saturating_sub(1),
                b',' if depth == 0 => {
                    items.push(start..i);
                    start = i + 1;
                }
                _ => {}
            }
        }
        items.push(start..close - 1);
        for item in items {
            let text = bytes[item.clone()].trim_ascii();
            if text == b"test" {
                return true;
            }
            let no_string = self
                .silent
                .iter()
                .all(|r| r.end <= item.start || r.start >= item.end);
            let path = text.iter().all(|b| {
                b.is_ascii_alphanumeric() || matches!(b, b'_' | b':' | b' ' | b'\t' | b'\n' | b'\r')
            });
            if !(no_string && path) {
                return false;
            }
        }
        false
    }

    /// What the item that starts at `i`, after a test attribute and the
    /// item's other attributes, is: a `fn`, `mod` or `impl` (after a
    /// visibility and `default`, `const`, `async`, `unsafe`, `extern
    /// "ABI"`) and where its body closes, or not.
    fn item_end(&self, mut i: usize) -> Item {
        let bytes = self.bytes;
        loop {
            let Some(at) = self.skip_blank(i) else {
                return Item::NoBody;
            };
            i = at;
            if let Some(r) = range_at(&self.silent, i) {
                // The ABI string of `extern "C"`.
                i = r.end;
                continue;
            }
            let len = ident_len(&bytes[i..]);
            let word = &bytes[i..i + len];
            i += len;
            match word {
                b"pub" => {
                    if let Some(open) = self.skip_blank(i).filter(|&o| bytes[o] == b'(') {
                        match self.close_of(open) {
                            Some(close) => i = close,
                            None => return Item::Not { resume: i },
                        }
                    }
                }
                b"default" | b"const" | b"async" | b"unsafe" | b"extern" => {}
                b"fn" | b"mod" | b"impl" => break,
                _ => return Item::Not { resume: i },
            }
        }
        match code(bytes, &self.silent, i).find(|(_, b)| matches!(b, b'{' | b';')) {
            None => Item::NoBody,
            Some((at, b';')) => Item::Not { resume: at + 1 },
            Some((open, _)) => self
                .close_of(open)
                .map_or(Item::Not { resume: open + 1 }, Item::Ends),
        }
    }
}

/// The length of the identifier (ASCII letters, digits, `_`) `bytes`
/// starts with.
pub fn ident_len(bytes: &[u8]) -> usize {
    bytes
        .iter()
        .take_while(|b| b.is_ascii_alphanumeric() || **b == b'_')
        .count()
}

/// The bytes of code from `from` on: outside `silent` (comments and
/// strings) and past char literals, with their offsets.
pub(crate) fn code<'a>(
    bytes: &'a [u8],
    silent: &'a [Range<usize>],
    from: usize,
) -> impl Iterator<Item = (usize, u8)> + 'a {
    let mut at = from;
    let mut k = silent.partition_point(|r| r.end <= from);
    std::iter::from_fn(move || loop {
        let &b = bytes.get(at)?;
        if let Some(r) = silent.get(k).filter(|r| r.start <= at) {
            at = at.max(r.end);
            k += 1;
            continue;
        }
        if b == b'\'' {
            let e = char_end(bytes, at);
            if e > at + 1 {
                at = e;
                continue;
            }
        }
        at += 1;
        return Some((at - 1, b));
    })
}

/// The index of [`range_at`]'s range.
pub fn index_at(ranges: &[Range<usize>], at: usize) -> Option<usize> {
    let i = ranges.partition_point(|r| r.end <= at);
    ranges.get(i).is_some_and(|r| r.contains(&at)).then_some(i)
}

/// Whether `b` is a byte of an identifier (a non-ASCII one counts).
pub fn ident_byte(b: Option<u8>) -> bool {
    b.is_some_and(|b| b.is_ascii_alphanumeric() || b == b'_' || b >= 0x80)
}

/// Whether a name is cased as C names types: ASCII lower case, digits and
/// at least one `_` (never a Rust primitive, never UpperCamelCase).
pub fn c_cased(name: &[u8]) -> bool {
    name.contains(&b'_')
        && name
            .iter()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || *b == b'_')
}

/// Whether `after` (what follows a declared name) is `: T` with `T` a
/// C-cased type, perhaps behind a raw pointer or a path (`*mut ff_replay`,
/// `crate::__u64`, `::core::ffi::c_int`), ending the declaration (`,`,
/// `;`, `=`, `}`).
pub fn c_typed(after: &[u8]) -> bool {
    let Some(rest) = after.trim_ascii_start().strip_prefix(b":") else {
        return false;
    };
    if rest.first() == Some(&b':') {
        return false;
    }
    let mut rest = rest.trim_ascii_start();
    for pointer in [&b"*const "[..], b"*mut "] {
        if let Some(r) = rest.strip_prefix(pointer) {
            rest = r.trim_ascii_start();
        }
    }
    let len = rest
        .iter()
        .position(|b| !(b.is_ascii_alphanumeric() || *b == b'_' || *b == b':'))
        .unwrap_or(rest.len());
    let last = rest[..len].rsplit(|b| *b == b':').next().unwrap_or(b"");
    c_cased(last)
        && matches!(
            rest[len..].trim_ascii_start().first(),
            Some(b',' | b';' | b'=' | b'}')
        )
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

/// For each of `strings` (as [`comments_and_strings`] gives them, with its
/// `comments`), whether it may be read as part of an argument of a call:
/// it lies, at any depth, in a bracket opened right after one of `calls`
/// (`conn.get(..)`, `format!(..)`, a turbofish `get::<_, T>(..)` counts as
/// any name), or it follows `=` (a binding's value). Past a close that
/// matches no open, every string may. The answer for a string depends only
/// on the code before it, so the text is read only as far as the furthest
/// string asked for (in any order): a file whose first literal with a word
/// is near its top is not read to its end. Built with [`CallScan::macros`],
/// it answers the other way round: whether a string lies for certain in
/// the arguments of one of some macros (`info!(..)`).
pub struct CallScan<'a> {
    bytes: &'a [u8],
    comments: &'a [Range<usize>],
    strings: &'a [Range<usize>],
    calls: &'a [&'a str],
    /// Whether only a macro's name (`info!(`) opens a call.
    macros: bool,
    /// For the strings before `s`: whether each may be a call's argument,
    /// and whether it is one for certain (no unmatched close before it).
    out: Vec<(bool, bool)>,
    /// Per open bracket: its byte, and whether a call's name opened it.
    open: Vec<(u8, bool)>,
    in_call: usize,
    lost: bool,
    s: usize,
    c: usize,
    i: usize,
}

impl<'a> CallScan<'a> {
    pub fn new(
        bytes: &'a [u8],
        comments: &'a [Range<usize>],
        strings: &'a [Range<usize>],
        calls: &'a [&'a str],
    ) -> Self {
        CallScan {
            bytes,
            comments,
            strings,
            calls,
            macros: false,
            out: Vec::with_capacity(strings.len()),
            open: Vec::new(),
            in_call: 0,
            lost: false,
            s: 0,
            c: 0,
            i: 0,
        }
    }

    /// The scan for [`CallScan::in_macro`]: its calls are macros, each
    /// named before a `!` (`tracing::info!(..)`, `info! {..}`).
    pub fn macros(self) -> Self {
        CallScan {
            macros: true,
            ..self
        }
    }

    /// Whether string `k` of the file may be read as a call's argument.
    pub fn in_call(&mut self, k: usize) -> bool {
        // Past the end of the text (an unclosed literal), every string may.
        self.answer(k).is_none_or(|(may, _)| may)
    }

    /// Whether string `k` of the file lies in the arguments of one of the
    /// macros the scan was built with ([`CallScan::macros`]), at any depth,
    /// for certain: no close before it matched no open.
    pub fn in_macro(&mut self, k: usize) -> bool {
        self.answer(k).is_some_and(|(_, surely)| surely)
    }

    fn answer(&mut self, k: usize) -> Option<(bool, bool)> {
        let (bytes, comments, strings) = (self.bytes, self.comments, self.strings);
        while self.s <= k && self.i < bytes.len() {
            let i = self.i;
            if let Some(r) = strings.get(self.s).filter(|r| r.start <= i) {
                let inside = self.in_call > 0;
                let may = self.lost || inside || r.start < i || after_assign(bytes, r.start);
                self.out.push((may, inside && !self.lost && r.start == i));
                self.i = i.max(r.end);
                self.s += 1;
                continue;
            }
            if let Some(r) = comments.get(self.c).filter(|r| r.start <= i) {
                self.i = i.max(r.end);
                self.c += 1;
                continue;
            }
            // Code up to the next string or comment: only brackets and
            // quotes matter in it.
            let stop = strings
                .get(self.s)
                .map_or(bytes.len(), |r| r.start)
                .min(comments.get(self.c).map_or(bytes.len(), |r| r.start));
            self.code(stop);
        }
        self.out.get(k).copied()
    }

    fn code(&mut self, stop: usize) {
        let (bytes, calls, macros) = (self.bytes, self.calls, self.macros);
        let call = |name: &[u8]| calls.iter().any(|c| c.as_bytes() == name);
        let (open, in_call, lost) = (&mut self.open, &mut self.in_call, &mut self.lost);
        self.i = brackets(bytes, self.i, stop, |at, b| match b {
            b'(' | b'[' | b'{' => {
                let by_call = match call_name_before(bytes, at) {
                    Some((n, bang)) if macros => bang && call(n),
                    Some((n, _)) => n.is_empty() || call(n),
                    None => false,
                };
                open.push((b, by_call));
                *in_call += usize::from(by_call);
            }
            _ => match open.pop() {
                Some((o, by_call))
                    if matches!((o, b), (b'(', b')') | (b'[', b']') | (b'{', b'}')) =>
                {
                    *in_call -= usize::from(by_call)
                }
                _ => *lost = true,
            },
        });
    }
}

/// The name a bracket at `at` opens the arguments of, and whether a
/// macro's `!` follows it: the identifier before it (over spaces and the
/// `!`); empty for a `(` after a turbofish's `>` (`get::<_, T>(`), whose
/// name is not looked for; `None` when no name is there (a `{` after a
/// return type `-> Result<T, E>` opens a body).
fn call_name_before(bytes: &[u8], at: usize) -> Option<(&[u8], bool)> {
    let mut end = at;
    while end > 0 && bytes[end - 1].is_ascii_whitespace() {
        end -= 1;
    }
    let bang = end > 0 && bytes[end - 1] == b'!';
    end -= usize::from(bang);
    if end > 0 && bytes[end - 1] == b'>' && bytes[at] == b'(' {
        return Some((&[], bang));
    }
    let start = bytes[..end]
        .iter()
        .rposition(|&b| !(b.is_ascii_alphanumeric() || b == b'_'))
        .map_or(0, |p| p + 1);
    (start < end).then(|| (&bytes[start..end], bang))
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

/// Each bracket of the code in `from..stop` (which holds no comment nor
/// string), past char literals: `f(at, byte)`. Where the scan ended: past
/// `stop` when a char literal runs over it.
///
/// Opening brackets, closing ones and quotes are each found by memchr's
/// SIMD search, and each search is made again only once the scan has
/// passed what it found: every Rust file with a word in code is read this
/// way, and a byte at a time it was 5% of omicron's instructions.
fn brackets(bytes: &[u8], from: usize, stop: usize, mut f: impl FnMut(usize, u8)) -> usize {
    let stop = stop.min(bytes.len());
    // The next of each kind at or after `at`, or `stop`.
    let next = |at: usize, kind: u8| -> usize {
        let hay = &bytes[at.min(stop)..stop];
        let found = match kind {
            b'(' => memchr::memchr3(b'(', b'[', b'{', hay),
            b')' => memchr::memchr3(b')', b']', b'}', hay),
            _ => memchr::memchr(b'\'', hay),
        };
        found.map_or(stop, |p| at + p)
    };
    let mut i = from;
    let (mut open, mut close, mut quote) = (next(i, b'('), next(i, b')'), next(i, b'\''));
    while i < stop {
        if open < i {
            open = next(i, b'(');
        }
        if close < i {
            close = next(i, b')');
        }
        if quote < i {
            quote = next(i, b'\'');
        }
        let at = open.min(close).min(quote);
        if at >= stop {
            return stop;
        }
        if at == quote {
            // A char literal (`'('`), or just a lifetime's quote.
            i = char_end(bytes, at);
            continue;
        }
        f(at, bytes[at]);
        i = at + 1;
    }
    i
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
        texts(text, ranges(text.as_bytes()))
    }

    /// The pieces of `text` at `ranges`.
    fn texts(text: &str, ranges: Vec<Range<usize>>) -> Vec<&str> {
        ranges.into_iter().map(|r| &text[r]).collect()
    }

    /// Every Rust file of idemlint's sources and fixtures, and text made
    /// of the pieces that open and close literals and comments in every
    /// order: the jumping scan gives the ranges the byte-by-byte one gives.
    /// `IDEMLINT_COMMENTS_CORPUS=DIR` adds the Rust files under DIR.
    #[test]
    fn strings_in_calls_are_read_as_far_as_asked_in_any_order() {
        let text = "fn f(conn: &mut Conn) {\n    let a = \"seen:{}\";\n    \
                    conn.get(format!(\"webhook:{}\", id));\n    log(\"webhook seen\");\n    \
                    // conn.get(\"in a comment\")\n    let b = [\"x\"];\n    \
                    conn.get::<_, String>(\"receipt\");\n}\n";
        let bytes = text.as_bytes();
        let (comments, strings) = comments_and_strings(bytes);
        let calls = ["get", "format"];
        let quoted: Vec<&str> = strings.iter().map(|r| &text[r.clone()]).collect();
        assert_eq!(
            quoted,
            [
                "\"seen:{}\"",
                "\"webhook:{}\"",
                "\"webhook seen\"",
                "\"x\"",
                "\"receipt\""
            ]
        );
        let expected = [true, true, false, false, true];
        let mut in_order = CallScan::new(bytes, &comments, &strings, &calls);
        let forward: Vec<bool> = (0..strings.len()).map(|k| in_order.in_call(k)).collect();
        assert_eq!(forward, expected);
        // Asked for the last first, then the others backwards.
        let mut backwards = CallScan::new(bytes, &comments, &strings, &calls);
        let mut answers: Vec<bool> = (0..strings.len())
            .rev()
            .map(|k| backwards.in_call(k))
            .collect();
        answers.reverse();
        assert_eq!(answers, expected);
        // Asked for the second only: the scan stops before the third.
        let mut second = CallScan::new(bytes, &comments, &strings, &calls);
        assert!(second.in_call(1));
        assert!(second.i <= strings[2].start, "read to {}", second.i);
        // An unclosed literal: every string from it on may.
        let open = b"fn f() { get(\"a\"); let x = \"b";
        let (comments, strings) = comments_and_strings(open);
        let mut scan = CallScan::new(open, &comments, &strings, &calls);
        assert!(scan.in_call(0));
        assert!(scan.in_call(strings.len() - 1));
    }

    #[test]
    fn a_macro_scan_is_sure_only_inside_the_macros() {
        let macros = ["info", "warn"];
        let text = concat!(
            "fn f() { info!(log, \"a\"); format!(\"b\"); get(\"c\");\n",
            "tracing::warn! { \"d {}\", g(\"e\") }; info (\"f\"); let x = \"g\";\n",
            "}) info!(\"h\");",
        );
        let bytes = text.as_bytes();
        let (comments, strings) = comments_and_strings(bytes);
        let mut scan = CallScan::new(bytes, &comments, &strings, &macros).macros();
        let sure: Vec<bool> = (0..strings.len()).map(|k| scan.in_macro(k)).collect();
        // Past the close that matches no open, nothing is sure.
        assert_eq!(sure, [true, false, false, true, true, false, false, false]);
    }

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

    /// [`brackets`] a byte at a time, as it was: the reference the
    /// searches must agree with.
    fn brackets_by_byte(bytes: &[u8], from: usize, stop: usize) -> (Vec<(usize, u8)>, usize) {
        let mut out = Vec::new();
        let mut i = from;
        while i < stop {
            match bytes[i] {
                b'\'' => {
                    i = char_end(bytes, i);
                    continue;
                }
                b @ (b'(' | b'[' | b'{' | b')' | b']' | b'}') => out.push((i, b)),
                _ => {}
            }
            i += 1;
        }
        (out, i)
    }

    #[test]
    fn brackets_found_by_search_are_those_read_byte_by_byte() {
        let mut texts: Vec<Vec<u8>> = [
            "",
            "'",
            "f('(', ')')",
            "fn f<'a>(x: &'a [u8; 2]) -> Option<char> { Some('\\'') }",
            "let c = '\\u{1F600}'; let d = 'é'; m!{ [ ( ) ] }'",
            "a('x')'",
        ]
        .iter()
        .map(|t| t.as_bytes().to_vec())
        .collect();
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        for dir in ["src/frontend/rust", "src/model", "src/rules"] {
            for entry in std::fs::read_dir(root.join(dir))
                .into_iter()
                .flatten()
                .flatten()
            {
                if entry.path().extension().is_some_and(|x| x == "rs") {
                    texts.push(std::fs::read(entry.path()).unwrap_or_default());
                }
            }
        }
        assert!(texts.len() > 30);
        for text in &texts {
            // Every stretch a scan hands over: whole texts, and stops and
            // starts that fall inside char literals and on brackets.
            let n = text.len();
            let cuts = [
                (0, n),
                (0, n / 2),
                (n / 3, n),
                (n / 5, n / 2),
                (1.min(n), n),
            ];
            for (from, stop) in cuts {
                let mut got = Vec::new();
                let end = brackets(text, from, stop, |at, b| got.push((at, b)));
                assert_eq!((got, end), brackets_by_byte(text, from, stop));
            }
            for stop in (0..n.min(300)).chain(n.saturating_sub(40)..n) {
                let mut got = Vec::new();
                let end = brackets(text, 0, stop, |at, b| got.push((at, b)));
                assert_eq!((got, end), brackets_by_byte(text, 0, stop));
            }
        }
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

    /// The texts of the test items of `text`.
    fn tests_of(text: &str) -> Vec<&str> {
        let (c, s) = comments_and_strings(text.as_bytes());
        texts(text, test_items(text.as_bytes(), &c, &s))
    }

    #[test]
    fn test_modules_and_functions_are_found_to_their_closing_brace() {
        let text = concat!(
            "fn live() { let k = \"idempotency_key\"; }\n",
            "#[cfg(test)]\n#[allow(unused)]\nmod tests {\n",
            "    #[test]\n    fn t() { let b = '}'; let s = \"}\"; /* } */ }\n",
            "}\n",
            "#[tokio::test(flavor = \"multi_thread\")]\n",
            "pub(crate) async fn t2() { if x { y } }\n",
            "#[cfg(test, feature = \"x\")] impl Foo { fn f() {} }\n",
            "#[sqlx::test] async unsafe fn t3() {}\n",
            "fn after() {}\n",
        );
        assert_eq!(
            tests_of(text),
            [
                "#[cfg(test)]\n#[allow(unused)]\nmod tests {\n    #[test]\n    fn t() { let b = '}'; let s = \"}\"; /* } */ }\n}",
                "#[tokio::test(flavor = \"multi_thread\")]\npub(crate) async fn t2() { if x { y } }",
                "#[cfg(test, feature = \"x\")] impl Foo { fn f() {} }",
                "#[sqlx::test] async unsafe fn t3() {}",
            ]
        );
    }

    #[test]
    fn only_what_is_test_code_for_certain() {
        for text in [
            // Not test code as the rules read it.
            "#[cfg(all(test, unix))] mod tests { }",
            "#[cfg(feature = \"x\", test)] mod tests { }",
            "#[cfg(not(test))] fn f() { }",
            "#[cfg_attr(test, derive(Debug))] struct S { a: u8 }",
            "#[testing] fn f() { }",
            // Items that are not a `mod`, `fn` or `impl`, or have no body.
            "#[cfg(test)] mod tests;",
            "#[cfg(test)] const X: S = S { a: 1 }; fn f() { }",
            "#[cfg(test)] use a::b; fn f() { }",
            "fn f() { #[cfg(test)] let x = { 1 }; }",
            "struct S { #[cfg(test)] a: u8 } fn f() { }",
            // Unsure: a comment in the attribute, a brace never closed.
            "#[cfg(/* x */ test)] mod tests { }",
            "#[test] fn f() { { }",
            "#![cfg(test)] fn f() { }",
            "// #[test]\nfn f() { }",
            "let s = \"#[test] fn f() { }\";",
            // Tokens of a macro, not items of the file.
            "macro_rules! t { ($n:ident) => { #[test] fn $n() { } }; }",
            "proptest! { #[test] fn f(x in 0..1u8) { } }",
            "cfg_if::cfg_if! { if #[cfg(unix)] { #[cfg(test)] mod tests { } } }",
        ] {
            assert!(tests_of(text).is_empty(), "{text}");
        }
        assert_eq!(
            tests_of("#[ test ] extern \"C\" fn f() { }"),
            ["#[ test ] extern \"C\" fn f() { }"]
        );
        assert_eq!(
            tests_of("#[::core::prelude::v1::test]\nfn f() { }"),
            ["#[::core::prelude::v1::test]\nfn f() { }"]
        );
    }

    /// Text built to make a scan that starts over at every `#` look at
    /// every byte again each time (a 0.5 MB file of these took 12 to 40 s
    /// before the scan went on past what it read); read in one pass now.
    /// Time is not asserted: a return of the scan is the test.
    #[test]
    fn hostile_attributes_are_read_in_one_pass() {
        let head = "fn f() { let k = \"idempotency_key\"; }\n";
        for (piece, tail) in [
            ("#[test] fn a ", "{"),
            ("#[test] fn a ", ""),
            ("#[test(", ""),
            ("#[cfg(", ""),
            ("#[test] pub(", ""),
            ("#[test] fn a; ", ""),
            ("a!", "#[test] fn x() {}"),
        ] {
            let text = format!("{head}{}{tail}", piece.repeat(200_000 / piece.len()));
            let found = tests_of(&text);
            assert!(found.len() <= 1, "{piece}: {}", found.len());
        }
    }

    #[test]
    fn positions_in_comments() {
        let c = ranges(b"// idempotent\nfn f() {} /* dedup */");
        assert!(contains(&c, 3) && contains(&c, 27));
        assert!(!contains(&c, 15) && !contains(&c, 13) && !contains(&c, 99));
        assert!(!contains(&[], 0));
    }
}
