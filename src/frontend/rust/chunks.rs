//! A big Rust file read one item at a time, each item tokenized on its own.
//!
//! [`super::each_item`] reads a file's items one at a time, but from the
//! tokens of the whole file, which it holds to the end: about 29 times the
//! text (sqlparser's 933 KB `parser/mod.rs`, 27 MB over an empty run's
//! peak). Here the items are found in the text first (where brackets
//! outside comments, strings and char literals come back to the top level,
//! at a `;` or a closing brace), and each is tokenized and parsed alone,
//! with the spans of its place in the file ([`super::Lines::at_line`]). An
//! inherent `impl` is handed on one member at a time, its header parsed
//! once, as [`super::each_item`] does. The pieces are those
//! [`super::each_item`] gives; where the text does not split as expected
//! (a chunk syn refuses, to the end of the file), the reader says so and
//! the file is read again from its tokens ([`super::parse_tree`]). With
//! anchors, only the items around them are read ([`Prepared::new`]). The
//! text's scan is made once, for both passes of the readers.

use super::Piece;
use crate::lex::rust::{self as comments, Scan};
use std::ops::Range;

/// How many ends an item is tried with before the text is judged not to
/// split: a chunk syn refuses is tried again to the next boundary, and a
/// file syn refuses would otherwise be tokenized again from the same place
/// for every boundary after its fault. Real items need a few (one per
/// attribute or bracket group before a body).
const MAX_TRIES: usize = 64;

/// Why the chunks could not be read: the file is read from its tokens.
#[derive(Debug)]
pub(super) struct Unsplit;

/// A text made ready to be read a chunk at a time, as often as asked
/// ([`Prepared::each`]): its comments, strings and bracket pairs, and the
/// anchors of the items read, found once.
pub(super) struct Prepared<'a> {
    text: &'a str,
    /// Its comments, strings and bracket pairs.
    scan: Scan<'a>,
    comments: Vec<Range<usize>>,
    /// When only some items are read: where they may be (ascending).
    anchors: Option<Vec<usize>>,
}

impl<'a> Prepared<'a> {
    /// `text`, to be read whole or, with `anchors` (ascending offsets),
    /// only in the items that hold one, those that name a constant or
    /// static that holds one, and every `use`, `const` and `static` item:
    /// the others are passed over where the text says they end, unread.
    /// Every inner attribute is read. An inherent `impl` whose header holds
    /// an anchor is read whole; else its members are chosen as items are.
    pub(super) fn new(text: &'a str, anchors: Option<&[usize]>) -> Self {
        let (comments, strings) = comments::comments_and_strings(text.as_bytes());
        let mut p = Prepared {
            text,
            scan: Scan::new(text.as_bytes(), &comments, &strings),
            comments,
            anchors: None,
        };
        p.anchors = anchors.map(|a| p.with_constants(a.to_vec()));
        p
    }

    /// Every inner attribute, then every item, as [`super::each_item`]
    /// gives them, each tokenized on its own; with anchors, less the items
    /// passed over.
    #[cfg(test)]
    pub(super) fn each(&self, f: &mut dyn FnMut(Piece<'_>)) -> Result<(), Unsplit> {
        self.each_in(Pass::First, f)
    }

    /// [`Prepared::each`] for the readers of `pass`: the second pass
    /// over the items passes over the constants its readers find nothing
    /// in ([`Prepared::literal_constant`]) unread.
    pub(super) fn each_in(&self, pass: Pass, f: &mut dyn FnMut(Piece<'_>)) -> Result<(), Unsplit> {
        let mut t = Text {
            p: self,
            at: Cursor::default(),
            pass,
        };
        let result = t.items(f);
        super::Lines::at_line(0);
        result
    }
}

/// Which readers a pass over the items serves ([`super::read`]).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Pass {
    /// The first pass (strings, test regions, constants, retentions) and
    /// any other reader: every item is read.
    First,
    /// The second pass (flow, retry, cache, Redis literals, unit slips,
    /// tokens, dropped callers, owner-less keys): a constant whose value
    /// is a number literal gives none of its readers anything.
    Second,
}

/// A prepared text being read a chunk at a time.
struct Text<'p, 'a> {
    p: &'p Prepared<'a>,
    at: Cursor,
    pass: Pass,
}

impl<'a> std::ops::Deref for Text<'_, 'a> {
    type Target = Prepared<'a>;

    fn deref(&self) -> &Prepared<'a> {
        self.p
    }
}

impl Text<'_, '_> {
    fn items(&mut self, f: &mut dyn FnMut(Piece<'_>)) -> Result<(), Unsplit> {
        let len = self.text.len();
        let mut from = self.inner_attributes(f)?;
        while let Some(first) = self.first_code(from, len) {
            if let Some(end) = self.passed_over(from, first, len) {
                passed(from..end);
                from = end;
            } else if let Some(end) = (self.pass == Pass::Second)
                .then(|| self.literal_constant(first, len))
                .flatten()
            {
                // Read by the first pass; the second's readers find
                // nothing in it.
                from = end;
            } else if let Some((header, open, close)) = self.inherent_impl(from, first) {
                let whole = self.anchored(from, open);
                self.members(&header, (open + 1, close), whole, f)?;
                from = close + 1;
            } else {
                let (item, end) = self.read::<syn::Item>(from, first, len)?;
                f(Piece::Item(&item));
                from = end;
            }
        }
        self.no_doc_comment(from, len)
    }

    /// The members of an inherent `impl` whose body runs from `from` to
    /// `close` (its `}`), each handed on as the `impl` with that one member.
    fn members(
        &mut self,
        header: &syn::ItemImpl,
        (mut from, close): (usize, usize),
        whole: bool,
        f: &mut dyn FnMut(Piece<'_>),
    ) -> Result<(), Unsplit> {
        let mut none = true;
        while let Some(first) = self.first_code(from, close) {
            if let Some(end) = (!whole)
                .then(|| self.passed_over(from, first, close))
                .flatten()
            {
                passed(from..end);
                none = false;
                from = end;
                continue;
            }
            let (member, end) = self.read::<syn::ImplItem>(from, first, close)?;
            none = false;
            f(Piece::Item(&syn::Item::Impl(syn::ItemImpl {
                items: vec![member],
                ..header.clone()
            })));
            from = end;
        }
        self.no_doc_comment(from, close)?;
        if none {
            f(Piece::Item(&syn::Item::Impl(header.clone())));
        }
        Ok(())
    }

    /// The item from `from` (its first code byte at `first`, before
    /// `stop`) and where it ends. A chunk that ends too soon (`const X: S =
    /// S { a: 1 };` splits at its brace, `#[a] fn f()` at its brackets) is
    /// tried to the next boundary, up to [`MAX_TRIES`] times.
    fn read<T: syn::parse::Parse>(
        &mut self,
        from: usize,
        first: usize,
        stop: usize,
    ) -> Result<(T, usize), Unsplit> {
        let mut end = self.boundary(first, stop).ok_or(Unsplit)?;
        for _ in 1..MAX_TRIES {
            if let Ok(item) = syn::parse_str::<T>(&self.at.chunk(self.text, from, end)) {
                return Ok((item, end));
            }
            end = self.boundary(end, stop).ok_or(Unsplit)?;
        }
        Err(Unsplit)
    }

    /// When the item from `from` (its first code byte at `first`) is an
    /// inherent `impl` without attributes and without inner attributes in
    /// its body, its header as syn reads it (with a body that spans the
    /// real one and holds nothing) and where its body opens and closes. As
    /// [`super::inherent_impl`] judges it from tokens.
    fn inherent_impl(
        &mut self,
        from: usize,
        first: usize,
    ) -> Option<(syn::ItemImpl, usize, usize)> {
        let (text, bytes) = (self.text, self.text.as_bytes());
        let keyword =
            |b: &[u8], w: &[u8]| b.starts_with(w) && !comments::ident_byte(b.get(w.len()).copied());
        let mut rest = &bytes[first..];
        for w in [&b"default"[..], b"unsafe"] {
            if keyword(rest, w) {
                rest = rest[w.len()..].trim_ascii_start();
            }
        }
        if !keyword(rest, b"impl") || self.docs_in(from, first) {
            // Not an `impl`, or one with a doc comment: an attribute.
            return None;
        }
        // The body opens at the first brace at the top level.
        let (open, b'{') = self.at_top(first, |b| matches!(b, b'{' | b';'))? else {
            return None;
        };
        let close = self.scan.close_of(open)? - 1;
        let inside = bytes[open + 1..close].trim_ascii_start();
        if inside.starts_with(b"#!") || inside.starts_with(b"//!") || inside.starts_with(b"/*!") {
            return None;
        }
        // The header, then a body that spans the real one: `{`, the body's
        // line breaks, and `}` at the real one's column (on the header's
        // line, past the body's width).
        let mut chunk = self.at.chunk(text, from, open + 1);
        let body = &text[open + 1..close];
        let breaks = memchr::memchr_iter(b'\n', body.as_bytes()).count();
        let line_start = memchr::memrchr(b'\n', &bytes[..close]).map_or(0, |p| p + 1);
        let column = if breaks == 0 {
            body.chars().count()
        } else {
            text[line_start..close].chars().count()
        };
        chunk.extend(std::iter::repeat_n('\n', breaks));
        chunk.extend(std::iter::repeat_n(' ', column));
        chunk.push('}');
        let header: syn::ItemImpl = syn::parse_str(&chunk).ok()?;
        (header.attrs.is_empty() && header.trait_.is_none() && header.items.is_empty())
            .then_some((header, open, close))
    }

    /// Where the text's inner attributes end (`#![..]`, `//!`, `/*!`, with
    /// the whitespace and plain comments among them), having handed them
    /// on: 0 when it opens with none.
    fn inner_attributes(&mut self, f: &mut dyn FnMut(Piece<'_>)) -> Result<usize, Unsplit> {
        let bytes = self.text.as_bytes();
        let mut at = 0;
        let mut end = 0;
        loop {
            let next = self.scan.skip_blank(at).unwrap_or(bytes.len());
            if bytes[next..].starts_with(b"#!") {
                let Some(open) = self.scan.skip_blank(next + 2).filter(|&o| bytes[o] == b'[')
                else {
                    break;
                };
                let Some(close) = self.scan.close_of(open) else {
                    break;
                };
                (at, end) = (close, close);
                continue;
            }
            // The last inner doc comment before `next`, with its line
            // break: a `\r` alone before it is a bare carriage return to
            // the tokenizer.
            let k = self.comments.partition_point(|c| c.end <= at);
            let inner = self.comments[k..]
                .iter()
                .map(|c| (c.end, &bytes[c.clone()]))
                .take_while(|&(e, c)| e <= next && (!doc_comment(c) || inner_doc(c)))
                .filter(|&(_, c)| inner_doc(c))
                .last()
                .map(|(e, _)| e + usize::from(bytes.get(e) == Some(&b'\n')));
            if let Some(e) = inner {
                end = e;
            }
            break;
        }
        if end > 0 {
            let chunk = self.at.chunk(self.text, 0, end);
            let attrs = syn::parse::Parser::parse_str(
                |input: syn::parse::ParseStream| {
                    let attrs = input.call(syn::Attribute::parse_inner)?;
                    if input.is_empty() {
                        Ok(attrs)
                    } else {
                        Err(input.error("not an inner attribute"))
                    }
                },
                &chunk,
            )
            .map_err(|_| Unsplit)?;
            for a in &attrs {
                f(Piece::Attr(a));
            }
        }
        Ok(end)
    }
}

impl Prepared<'_> {
    /// The first byte of code at or after `from`, before `stop`: past
    /// whitespace and comments.
    fn first_code(&self, from: usize, stop: usize) -> Option<usize> {
        self.scan.skip_blank(from).filter(|&i| i < stop)
    }

    /// The first byte of code from `from` on that `stop` takes, at the
    /// top level: past the bracket groups before it that `stop` does not
    /// take. `None` at the end of the text, at a bracket that does not
    /// close, or at a closing bracket `stop` does not take (the end of the
    /// group `from` lies in).
    fn at_top(&self, from: usize, stop: impl Fn(u8) -> bool) -> Option<(usize, u8)> {
        let mut past = from;
        for (p, b) in comments::code(self.text.as_bytes(), self.scan.silent(), from) {
            if p < past {
                continue;
            }
            if stop(b) {
                return Some((p, b));
            }
            match b {
                b'(' | b'[' | b'{' => past = self.scan.close_of(p)?,
                b')' | b']' | b'}' => return None,
                _ => {}
            }
        }
        None
    }

    /// Past the first `;` at the top level from `first` on, or past the
    /// first bracket group, before `stop`.
    fn boundary(&self, first: usize, stop: usize) -> Option<usize> {
        let end = match self.at_top(first, |b| matches!(b, b';' | b'(' | b'[' | b'{'))? {
            (p, b';') => p + 1,
            (p, _) => self.scan.close_of(p)?,
        };
        (end <= stop).then_some(end)
    }

    /// Where the item from `from` (its first code byte at `first`, before
    /// `stop`) ends, when it is passed over: only some items are read, it
    /// is neither a `use`, `const` nor `static` item, and it holds no
    /// anchor. It ends at the first `;` at the top level or past the first
    /// brace group; an end the text puts too soon (a brace in a type,
    /// `S<{ N }>`) leaves the rest to be read as the next item, which syn
    /// refuses if it is read at all ([`Unsplit`]).
    fn passed_over(&self, from: usize, first: usize, stop: usize) -> Option<usize> {
        self.anchors.as_ref()?;
        if self.always_read(first) {
            return None;
        }
        let end = match self.at_top(first, |b| matches!(b, b'{' | b';'))? {
            (p, b';') => p + 1,
            (p, _) => self.scan.close_of(p)?,
        };
        (end <= stop && !self.anchored(from, end)).then_some(end)
    }

    /// Whether an anchor lies in `from..to`.
    fn anchored(&self, from: usize, to: usize) -> bool {
        self.anchors.as_ref().is_none_or(|a| {
            let i = a.partition_point(|&x| x < from);
            a.get(i).is_some_and(|&x| x < to)
        })
    }

    /// Where the item whose first code byte is at `first` ends (before
    /// `stop`), when it is a `const` item with no attribute whose type is
    /// a path and whose value is a number literal, negated or not (`pub
    /// const E_FAIL: HRESULT = -2147467259;`, `const N: u32 = 0x10_u32;`):
    /// thousands of them make a generated binding of a system API, and the
    /// readers of the second pass find nothing in one: none of them reads
    /// a `const` item, a type path, an attribute or a number literal
    /// (their visitors, `flow`, `retry`, `cache`, `units`, `jti`, `scope`,
    /// `owner_keys`, `redis_config`, visit functions, `impl`s, modules,
    /// structs, traits, enums, `use` items, calls, paths in expressions,
    /// macros and string literals). A comment inside the item, a string, a
    /// cast or any other expression reads it as usual.
    fn literal_constant(&self, first: usize, stop: usize) -> Option<usize> {
        let rest = super::retention::after_visibility(self.text.get(first..stop)?)?;
        let keyword = stop - rest.len();
        if !rest.starts_with("const") || !rest[5..].starts_with(|c: char| c.is_ascii_whitespace()) {
            return None;
        }
        let (end, b';') = self.at_top(keyword, |b| b == b';')? else {
            return None;
        };
        if end >= stop {
            return None;
        }
        let rest = self.text.as_bytes()[keyword + 5..end].trim_ascii_start();
        let name = comments::ident_len(rest);
        let rest = rest[name..].trim_ascii_start().strip_prefix(b":")?;
        let (ty, value) = rest.split_at(rest.iter().position(|&b| b == b'=')?);
        let path = |b: &u8| b.is_ascii_alphanumeric() || matches!(b, b'_' | b':' | b' ');
        if name == 0 || ty.trim_ascii().is_empty() || !ty.iter().all(path) {
            return None;
        }
        let value = value[1..].trim_ascii();
        let value = value
            .strip_prefix(b"-")
            .map_or(value, <[u8]>::trim_ascii_start);
        let number = value.first().is_some_and(u8::is_ascii_digit)
            && value
                .iter()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.'));
        number.then_some(end + 1)
    }

    /// Whether the item whose first code byte is at `first` is a `use`,
    /// `const` or `static` item (past its attributes and visibility), which
    /// is always read: a constant elsewhere may be built from its value.
    fn always_read(&self, first: usize) -> bool {
        let bytes = self.text.as_bytes();
        let mut at = first;
        // Past its outer attributes (`#[..]`).
        while bytes[at] == b'#' {
            let Some(next) = (self.scan.skip_blank(at + 1))
                .filter(|&o| bytes[o] == b'[')
                .and_then(|o| self.scan.close_of(o))
                .and_then(|c| self.scan.skip_blank(c))
            else {
                return false;
            };
            at = next;
        }
        let Some(rest) = super::retention::after_visibility(&self.text[at..]) else {
            return false;
        };
        fn word(s: &str) -> &str {
            &s[..comments::ident_len(s.as_bytes())]
        }
        match word(rest) {
            // `const fn`, `const unsafe fn`: a function.
            "const" => !matches!(
                word(rest[5..].trim_start()),
                "fn" | "unsafe" | "async" | "extern" | "impl" | "trait"
            ),
            w => matches!(w, "use" | "static" | "extern"),
        }
    }

    /// `anchors`, with every place outside comments where a constant or
    /// static that holds one is named (`const TABLE: &str = "seen_events";`
    /// anchors each `TABLE`, also in `format!("{TABLE}")`), to a fixed
    /// point.
    fn with_constants(&self, mut anchors: Vec<usize>) -> Vec<usize> {
        let bytes = self.text.as_bytes();
        let silent = self.scan.silent();
        let code = |at: usize| !comments::contains(silent, at);
        let boundary = |at: usize, len: usize| {
            !comments::ident_byte(at.checked_sub(1).map(|p| bytes[p]))
                && !comments::ident_byte(bytes.get(at + len).copied())
        };
        // Every `const NAME` and `static [mut] NAME` in code, with where
        // its declaration ends (the first `;` past its brackets).
        let mut constants: Vec<(&[u8], Range<usize>)> = Vec::new();
        for kw in [&b"const"[..], b"static"] {
            for at in memchr::memmem::find_iter(bytes, kw) {
                if !code(at) || !boundary(at, kw.len()) {
                    continue;
                }
                let Some(mut n) = self.scan.skip_blank(at + kw.len()) else {
                    continue;
                };
                if bytes[n..].starts_with(b"mut")
                    && !comments::ident_byte(bytes.get(n + 3).copied())
                {
                    n = self.scan.skip_blank(n + 3).unwrap_or(bytes.len());
                }
                let name = &bytes[n..n + comments::ident_len(&bytes[n..])];
                // A declaration: `NAME:` (not `*const u8`, `const fn`).
                let typed = self
                    .scan
                    .skip_blank(n + name.len())
                    .is_some_and(|c| bytes[c] == b':');
                if name.is_empty() || !typed {
                    continue;
                }
                let end = match self.at_top(n, |b| matches!(b, b';' | b')' | b']' | b'}')) {
                    Some((p, b';')) => p + 1,
                    Some((p, _)) => p,
                    None => bytes.len(),
                };
                constants.push((name, at..end));
            }
        }
        let mut named = vec![false; constants.len()];
        loop {
            anchors.sort_unstable();
            anchors.dedup();
            let held = |r: &Range<usize>| {
                let i = anchors.partition_point(|&x| x < r.start);
                anchors.get(i).is_some_and(|&x| x < r.end)
            };
            let fresh: Vec<usize> = (0..constants.len())
                .filter(|&k| !named[k] && held(&constants[k].1))
                .collect();
            if fresh.is_empty() {
                return anchors;
            }
            for k in fresh {
                named[k] = true;
                let name = constants[k].0;
                // In strings too: `format!("INSERT INTO {TABLE} ..")`.
                anchors.extend(memchr::memmem::find_iter(bytes, name).filter(|&at| {
                    !comments::contains(&self.comments, at) && boundary(at, name.len())
                }));
            }
        }
    }

    /// Whether a doc comment lies in `from..stop`.
    fn docs_in(&self, from: usize, stop: usize) -> bool {
        let k = self.comments.partition_point(|c| c.end <= from);
        self.comments[k..]
            .iter()
            .take_while(|c| c.start < stop)
            .any(|c| doc_comment(&self.text.as_bytes()[c.clone()]))
    }

    /// `Ok` unless a doc comment lies in `from..stop` (after the last item
    /// it documents nothing, and syn refuses it).
    fn no_doc_comment(&self, from: usize, stop: usize) -> Result<(), Unsplit> {
        if self.docs_in(from, stop) {
            Err(Unsplit)
        } else {
            Ok(())
        }
    }
}

#[cfg(test)]
thread_local! {
    /// The ranges the last reads passed over, for the tests.
    pub(super) static PASSED: std::cell::RefCell<Vec<Range<usize>>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

/// An item passed over, from the end of the one before.
#[cfg_attr(not(test), allow(unused_variables))]
fn passed(range: Range<usize>) {
    #[cfg(test)]
    PASSED.with(|p| p.borrow_mut().push(range));
}

/// Whether a comment is a doc comment, outer or inner, as the tokenizer
/// reads it (`///` but not `////`, `/**` but not `/***` or `/**/`).
fn doc_comment(c: &[u8]) -> bool {
    inner_doc(c)
        || c.starts_with(b"///") && !c.starts_with(b"////")
        || c.starts_with(b"/**") && !c.starts_with(b"/***") && c != b"/**/"
}

fn inner_doc(c: &[u8]) -> bool {
    c.starts_with(b"//!") || c.starts_with(b"/*!")
}

/// Where the previous chunk started, and the index of its line; chunks
/// go forward through the text.
#[derive(Default)]
struct Cursor {
    at: usize,
    line: usize,
}

impl Cursor {
    /// The text of `from..to`, after spaces for what precedes `from` on
    /// its line. Tokenized alone, its spans have the columns of the file
    /// and its lines less the index of `from`'s line, which spans are read
    /// from until the next chunk ([`super::Lines::at_line`]).
    fn chunk(&mut self, text: &str, from: usize, to: usize) -> String {
        let bytes = text.as_bytes();
        debug_assert!(from >= self.at, "chunks go forward");
        self.line += memchr::memchr_iter(b'\n', &bytes[self.at..from]).count();
        self.at = from;
        super::Lines::at_line(self.line);
        let line_start = memchr::memrchr(b'\n', &bytes[..from]).map_or(0, |p| p + 1);
        let pad = text[line_start..from].chars().count();
        let mut s = String::with_capacity(pad + to - from);
        s.extend(std::iter::repeat_n(' ', pad));
        s.push_str(&text[from..to]);
        s
    }
}
