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
//! the file is read again from its tokens ([`super::parse_tree`]).

use super::comments::{self, Scan};
use super::Piece;
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

/// Every inner attribute, then every item of `text`, as
/// [`super::each_item`] gives them, each tokenized on its own.
pub(super) fn each_chunk(text: &str, f: &mut dyn FnMut(Piece<'_>)) -> Result<(), Unsplit> {
    let (comments, strings) = comments::comments_and_strings(text.as_bytes());
    let mut t = Text {
        text,
        scan: Scan::new(text.as_bytes(), &comments, &strings),
        comments,
        at: Cursor::default(),
    };
    let result = t.items(f);
    super::Lines::at_line(0);
    result
}

/// A text being read a chunk at a time.
struct Text<'a> {
    text: &'a str,
    /// Its comments, strings and bracket pairs.
    scan: Scan<'a>,
    comments: Vec<Range<usize>>,
    at: Cursor,
}

impl Text<'_> {
    fn items(&mut self, f: &mut dyn FnMut(Piece<'_>)) -> Result<(), Unsplit> {
        let len = self.text.len();
        let mut from = self.inner_attributes(f)?;
        while let Some(first) = self.first_code(from, len) {
            if let Some((header, open, close)) = self.inherent_impl(from, first) {
                self.members(&header, open + 1, close, f)?;
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
        mut from: usize,
        close: usize,
        f: &mut dyn FnMut(Piece<'_>),
    ) -> Result<(), Unsplit> {
        let mut none = true;
        while let Some(first) = self.first_code(from, close) {
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
        let mut i = first;
        let open = loop {
            let (p, b) = comments::code(bytes, self.scan.silent(), i).next()?;
            match b {
                b'{' => break p,
                b'(' | b'[' => i = self.scan.close_of(p)?,
                b';' | b')' | b']' | b'}' => return None,
                _ => i = p + 1,
            }
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

    /// The first byte of code at or after `from`, before `stop`: past
    /// whitespace and comments.
    fn first_code(&self, from: usize, stop: usize) -> Option<usize> {
        self.scan.skip_blank(from).filter(|&i| i < stop)
    }

    /// Past the first `;` at the top level from `first` on, or past the
    /// first bracket group, before `stop`.
    fn boundary(&self, first: usize, stop: usize) -> Option<usize> {
        let (p, b) = comments::code(self.text.as_bytes(), self.scan.silent(), first)
            .find(|&(_, b)| matches!(b, b';' | b'(' | b'[' | b'{' | b')' | b']' | b'}'))?;
        let end = match b {
            b';' => p + 1,
            b'(' | b'[' | b'{' => self.scan.close_of(p)?,
            _ => return None,
        };
        (end <= stop).then_some(end)
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
