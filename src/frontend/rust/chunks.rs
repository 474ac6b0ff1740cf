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

use super::comments;
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
    let bytes = text.as_bytes();
    let (comments, strings) = comments::comments_and_strings(bytes);
    let silent = merged(&comments, &strings);
    let mut at = Cursor::default();
    let result = (|| {
        let attrs_end = inner_attributes_end(bytes, &comments, &silent);
        if attrs_end > 0 {
            let (chunk, line) = at.chunk(text, 0, attrs_end);
            super::Lines::at_line(line);
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
        let mut from = attrs_end;
        while let Some(first) = first_code(bytes, &comments, from, bytes.len()) {
            if let Some((header, open, close)) =
                inherent_impl(text, &silent, &comments, &mut at, from, first)
            {
                members(
                    text,
                    &silent,
                    &comments,
                    &mut at,
                    &header,
                    open + 1,
                    close,
                    f,
                )?;
                from = close + 1;
                continue;
            }
            let mut end = boundary(bytes, &silent, first, bytes.len()).ok_or(Unsplit)?;
            for tries in 1.. {
                let (chunk, line) = at.chunk(text, from, end);
                super::Lines::at_line(line);
                if let Ok(item) = syn::parse_str::<syn::Item>(&chunk) {
                    f(Piece::Item(&item));
                    break;
                }
                // A chunk that ends too soon (`const X: S = S { a: 1 };`
                // splits at its brace, `#[a] fn f()` at its brackets): on
                // to the next boundary, a few times.
                if tries == MAX_TRIES {
                    return Err(Unsplit);
                }
                end = boundary(bytes, &silent, end, bytes.len()).ok_or(Unsplit)?;
            }
            from = end;
        }
        no_doc_comment_after(bytes, &comments, from, bytes.len())
    })();
    super::Lines::at_line(0);
    result
}

/// The members of an inherent `impl` whose body runs from `from` to
/// `close` (its `}`), each handed on as the `impl` with that one member.
#[allow(clippy::too_many_arguments)]
fn members(
    text: &str,
    silent: &[Range<usize>],
    comments: &[Range<usize>],
    at: &mut Cursor,
    header: &syn::ItemImpl,
    mut from: usize,
    close: usize,
    f: &mut dyn FnMut(Piece<'_>),
) -> Result<(), Unsplit> {
    let bytes = text.as_bytes();
    let mut none = true;
    while let Some(first) = first_code(bytes, comments, from, close) {
        let mut end = boundary(bytes, silent, first, close).ok_or(Unsplit)?;
        for tries in 1.. {
            let (chunk, line) = at.chunk(text, from, end);
            super::Lines::at_line(line);
            if let Ok(item) = syn::parse_str::<syn::ImplItem>(&chunk) {
                none = false;
                f(Piece::Item(&syn::Item::Impl(syn::ItemImpl {
                    items: vec![item],
                    ..header.clone()
                })));
                break;
            }
            if tries == MAX_TRIES {
                return Err(Unsplit);
            }
            end = boundary(bytes, silent, end, close).ok_or(Unsplit)?;
        }
        from = end;
    }
    no_doc_comment_after(bytes, comments, from, close)?;
    if none {
        f(Piece::Item(&syn::Item::Impl(header.clone())));
    }
    Ok(())
}

/// When the item from `from` (its first code byte at `first`) is an
/// inherent `impl` without attributes and without inner attributes in its
/// body, its header as syn reads it (with a body that spans the real one
/// and holds nothing) and where its body opens and closes. As
/// [`super::inherent_impl`] judges it from tokens.
fn inherent_impl(
    text: &str,
    silent: &[Range<usize>],
    comments: &[Range<usize>],
    at: &mut Cursor,
    from: usize,
    first: usize,
) -> Option<(syn::ItemImpl, usize, usize)> {
    let bytes = text.as_bytes();
    let head = &bytes[first..];
    let keyword =
        |b: &[u8], w: &[u8]| b.starts_with(w) && !comments::ident_byte(b.get(w.len()).copied());
    let mut rest = head;
    for w in [&b"default"[..], b"unsafe"] {
        if keyword(rest, w) {
            rest = rest[w.len()..].trim_ascii_start();
        }
    }
    if !keyword(rest, b"impl") {
        return None;
    }
    // No doc comment before it: it would be an attribute.
    if comments
        .iter()
        .skip(comments.partition_point(|c| c.end <= from))
        .take_while(|c| c.start < first)
        .any(|c| doc_comment(&bytes[c.clone()]))
    {
        return None;
    }
    // The body opens at the first brace at the top level.
    let mut depth = 0usize;
    let mut open = None;
    for (i, b) in comments::code(bytes, silent, first) {
        match b {
            b';' if depth == 0 => return None,
            b'{' if depth == 0 => {
                open = Some(i);
                break;
            }
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => depth = depth.checked_sub(1)?,
            _ => {}
        }
    }
    let open = open?;
    let close = boundary(bytes, silent, open, bytes.len())? - 1;
    let inside = bytes[open + 1..close].trim_ascii_start();
    if inside.starts_with(b"#!") || inside.starts_with(b"//!") || inside.starts_with(b"/*!") {
        return None;
    }
    // The header, then a body that spans the real one: `{`, the body's
    // line breaks, and `}` at the real one's column.
    let (mut chunk, line) = at.chunk(text, from, open + 1);
    let body = &text[open + 1..close];
    let breaks = memchr::memchr_iter(b'\n', body.as_bytes()).count();
    chunk.extend(std::iter::repeat_n('\n', breaks));
    let line_start = memchr::memrchr(b'\n', &bytes[..close]).map_or(0, |p| p + 1);
    let column = if breaks == 0 {
        0
    } else {
        text[line_start..close].chars().count()
    };
    if breaks == 0 {
        // The body is on the header's line: keep its width.
        chunk.extend(std::iter::repeat_n(' ', body.chars().count()));
    } else {
        chunk.extend(std::iter::repeat_n(' ', column));
    }
    chunk.push('}');
    super::Lines::at_line(line);
    let header: syn::ItemImpl = syn::parse_str(&chunk).ok()?;
    (header.attrs.is_empty() && header.trait_.is_none() && header.items.is_empty())
        .then_some((header, open, close))
}

/// Where a text's inner attributes end (`#![..]`, `//!`, `/*!`, with the
/// whitespace and plain comments among them): 0 when it opens with none.
fn inner_attributes_end(bytes: &[u8], comments: &[Range<usize>], silent: &[Range<usize>]) -> usize {
    let mut at = 0;
    let mut end = 0;
    loop {
        while bytes.get(at).is_some_and(u8::is_ascii_whitespace) {
            at += 1;
        }
        let k = comments.partition_point(|c| c.end <= at);
        if let Some(c) = comments.get(k).filter(|c| c.start == at) {
            let c = c.clone();
            let text = &bytes[c.clone()];
            if doc_comment(text) && !inner_doc(text) {
                return end;
            }
            at = c.end;
            if inner_doc(text) {
                // A line comment's line break with it: `\r` alone before it
                // is a bare carriage return to the tokenizer.
                end = at + usize::from(bytes.get(at) == Some(&b'\n'));
                at = end;
            }
            continue;
        }
        if bytes[at..].starts_with(b"#!") {
            let mut i = at + 2;
            while bytes.get(i).is_some_and(u8::is_ascii_whitespace) {
                i += 1;
            }
            if bytes.get(i) != Some(&b'[') {
                return end;
            }
            let Some(close) = boundary(bytes, silent, i, bytes.len()) else {
                return end;
            };
            at = close;
            end = close;
            continue;
        }
        return end;
    }
}

/// The first byte of code at or after `from`, before `stop`: past
/// whitespace and comments.
fn first_code(bytes: &[u8], comments: &[Range<usize>], from: usize, stop: usize) -> Option<usize> {
    let mut at = from;
    let mut k = comments.partition_point(|c| c.end <= from);
    loop {
        while at < stop && bytes[at].is_ascii_whitespace() {
            at += 1;
        }
        if at >= stop {
            return None;
        }
        match comments.get(k) {
            Some(c) if c.start <= at => {
                at = at.max(c.end);
                k += 1;
            }
            _ => return Some(at),
        }
    }
}

/// Past the first `;` at the top level from `first` on, or the first
/// closing bracket that comes back to it, before `stop`.
fn boundary(bytes: &[u8], silent: &[Range<usize>], first: usize, stop: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (i, b) in comments::code(bytes, silent, first) {
        if i >= stop {
            return None;
        }
        match b {
            b';' if depth == 0 => return Some(i + 1),
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            _ => {}
        }
    }
    None
}

/// `Ok` unless a doc comment lies in `from..stop` (after the last item it
/// documents nothing, and syn refuses it).
fn no_doc_comment_after(
    bytes: &[u8],
    comments: &[Range<usize>],
    from: usize,
    stop: usize,
) -> Result<(), Unsplit> {
    let doc = comments
        .iter()
        .skip(comments.partition_point(|c| c.end <= from))
        .take_while(|c| c.start < stop)
        .any(|c| doc_comment(&bytes[c.clone()]));
    if doc {
        Err(Unsplit)
    } else {
        Ok(())
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

/// Comments and strings in one ascending, disjoint list.
fn merged(a: &[Range<usize>], b: &[Range<usize>]) -> Vec<Range<usize>> {
    let mut out: Vec<Range<usize>> = a.iter().chain(b).cloned().collect();
    out.sort_by_key(|r| r.start);
    out
}

/// Where the previous chunk was cut: the line it ended on, counted as the
/// chunks go forward.
#[derive(Default)]
struct Cursor {
    at: usize,
    line: usize,
}

impl Cursor {
    /// The text of `from..to`, after spaces for what precedes `from` on
    /// its line, and that line's index: tokenized alone, its spans have
    /// the columns of the file and the lines of the file less that index.
    fn chunk(&mut self, text: &str, from: usize, to: usize) -> (String, usize) {
        let bytes = text.as_bytes();
        if from >= self.at {
            self.line += memchr::memchr_iter(b'\n', &bytes[self.at..from]).count();
        } else {
            self.line -= memchr::memchr_iter(b'\n', &bytes[from..self.at]).count();
        }
        self.at = from;
        let line_start = memchr::memrchr(b'\n', &bytes[..from]).map_or(0, |p| p + 1);
        let pad = text[line_start..from].chars().count();
        let mut s = String::with_capacity(pad + to - from);
        s.extend(std::iter::repeat_n(' ', pad));
        s.push_str(&text[from..to]);
        (s, self.line)
    }
}
