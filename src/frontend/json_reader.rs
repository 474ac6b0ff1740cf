//! The JSON front end's fast path: a reader of strict JSON (RFC 8259) that
//! yields the same events, with the same byte spans, as the YAML parser
//! yields for that text, without its YAML-only work (indentation, simple
//! keys, a character-index table, token buffers). It only ever reads strict
//! JSON: at the first thing strict JSON does not allow (a comment left
//! unblanked, a single quote, a raw control character, a surrogate escape,
//! a byte-order mark the YAML reader treats its own way, nesting near the
//! tree builder's limit) it gives up, and the file is read by the YAML
//! parser as before, which also words any fault. A tab between tokens is
//! read as the space the JSON front end would have made of it (the YAML
//! reader is only ever given tabs turned into spaces). Its events are the YAML
//! parser's one for one, so the tree builder's node limit stops both at the
//! same node.

use saphyr_parser::{Event, ScalarStyle};
use std::borrow::Cow;

use super::yaml::EventError;
use crate::source::Span;

/// Deeper than this the reader gives up (the YAML parser's flow depth is a
/// `u8`, the tree builder's limit 256): the YAML path then says why.
const MAX_DEPTH: usize = 200;

/// Whether the reader can take the text at all: no byte-order mark.
pub(super) fn may_read(text: &str) -> bool {
    !text.starts_with('\u{feff}')
}

#[derive(Clone, Copy)]
enum Want {
    StreamStart,
    DocumentStart,
    Value,
    /// After `{`: a key or `}`.
    FirstKey,
    /// After `,` in an object.
    Key,
    /// After `[`: a value or `]`.
    FirstItem,
    AfterValue,
    DocumentEnd,
    StreamEnd,
    Done,
}

#[derive(Clone, Copy, PartialEq)]
enum Open {
    Object,
    Array,
}

/// The events of a strict JSON text, or one `Err` where it stops being
/// strict JSON (then nothing more).
pub(super) struct JsonEvents<'a> {
    text: &'a str,
    pos: usize,
    open: Vec<Open>,
    want: Want,
}

impl<'a> JsonEvents<'a> {
    pub(super) fn new(text: &'a str) -> Self {
        JsonEvents {
            text,
            pos: 0,
            open: Vec::new(),
            want: Want::StreamStart,
        }
    }

    fn stop(&mut self, why: &str) -> EventError {
        self.want = Want::Done;
        EventError {
            at: self.pos,
            info: why.to_string(),
        }
    }

    fn skip_blanks(&mut self) {
        let b = self.text.as_bytes();
        while let Some(c) = b.get(self.pos) {
            match c {
                b' ' | b'\t' | b'\n' | b'\r' => self.pos += 1,
                _ => break,
            }
        }
    }

    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.pos).copied()
    }

    /// A string at `self.pos` (its opening quote): its value and span,
    /// quotes included.
    fn string(&mut self) -> Result<(Cow<'a, str>, Span), EventError> {
        let text = self.text;
        let b = text.as_bytes();
        let start = self.pos;
        let mut i = start + 1;
        let mut decoded: Option<String> = None;
        let mut run = i; // start of the run not yet copied into `decoded`
        loop {
            let Some(&c) = b.get(i) else {
                self.pos = i;
                return Err(self.stop("unterminated string"));
            };
            match c {
                b'"' => break,
                b'\\' => {
                    let out = decoded.get_or_insert_with(String::new);
                    out.push_str(&text[run..i]);
                    let esc = b.get(i + 1).copied();
                    let ch = match esc {
                        Some(b'"') => '"',
                        Some(b'\\') => '\\',
                        Some(b'/') => '/',
                        Some(b'b') => '\u{8}',
                        Some(b'f') => '\u{c}',
                        Some(b'n') => '\n',
                        Some(b'r') => '\r',
                        Some(b't') => '\t',
                        Some(b'u') => {
                            let hex = text.get(i + 2..i + 6).unwrap_or("");
                            let code = (hex.len() == 4
                                && hex.bytes().all(|h| h.is_ascii_hexdigit()))
                            .then(|| u32::from_str_radix(hex, 16).ok())
                            .flatten();
                            // A surrogate (half of a pair) is the YAML
                            // reader's to decode, its way.
                            match code.and_then(char::from_u32) {
                                Some(ch) => {
                                    out.push(ch);
                                    i += 6;
                                    run = i;
                                    continue;
                                }
                                None => {
                                    self.pos = i;
                                    return Err(self.stop("escape not read here"));
                                }
                            }
                        }
                        _ => {
                            self.pos = i;
                            return Err(self.stop("invalid escape"));
                        }
                    };
                    out.push(ch);
                    i += 2;
                    run = i;
                }
                0..=0x1f => {
                    self.pos = i;
                    return Err(self.stop("control character in a string"));
                }
                _ => i += 1,
            }
        }
        let value = match decoded {
            Some(mut out) => {
                out.push_str(&text[run..i]);
                Cow::Owned(out)
            }
            None => Cow::Borrowed(&text[start + 1..i]),
        };
        self.pos = i + 1;
        Ok((value, Span::new(start, i + 1)))
    }

    /// A number or `true`/`false`/`null` at `self.pos`: its text and span.
    fn plain(&mut self) -> Result<(Cow<'a, str>, Span), EventError> {
        let text = self.text;
        let b = text.as_bytes();
        let start = self.pos;
        let mut i = start;
        let ok = match b[start] {
            b't' | b'f' | b'n' => {
                let word = ["true", "false", "null"]
                    .into_iter()
                    .find(|w| text[start..].starts_with(w));
                match word {
                    Some(w) => {
                        i += w.len();
                        true
                    }
                    None => false,
                }
            }
            _ => {
                let digits = |i: &mut usize| {
                    let from = *i;
                    while b.get(*i).is_some_and(u8::is_ascii_digit) {
                        *i += 1;
                    }
                    *i > from
                };
                if b.get(i) == Some(&b'-') {
                    i += 1;
                }
                let int_start = i;
                let mut ok = digits(&mut i) && !(b[int_start] == b'0' && i - int_start > 1);
                if ok && b.get(i) == Some(&b'.') {
                    i += 1;
                    ok = digits(&mut i);
                }
                if ok && matches!(b.get(i), Some(b'e' | b'E')) {
                    i += 1;
                    if matches!(b.get(i), Some(b'+' | b'-')) {
                        i += 1;
                    }
                    ok = digits(&mut i);
                }
                ok
            }
        };
        // A token ends at a blank, a separator or the end of the text.
        if !ok
            || !matches!(
                b.get(i),
                None | Some(b' ' | b'\t' | b'\n' | b'\r' | b',' | b']' | b'}')
            )
        {
            self.pos = i;
            return Err(self.stop("not a JSON value"));
        }
        self.pos = i;
        Ok((Cow::Borrowed(&text[start..i]), Span::new(start, i)))
    }

    /// The event for the value at `self.pos`.
    fn value(&mut self) -> Result<(Event<'a>, Span), EventError> {
        self.skip_blanks();
        let at = self.pos;
        match self.peek() {
            Some(c @ (b'{' | b'[')) => {
                if self.open.len() >= MAX_DEPTH {
                    return Err(self.stop("nested too deep for this reader"));
                }
                self.pos += 1;
                let span = Span::new(at, at + 1);
                if c == b'{' {
                    self.open.push(Open::Object);
                    self.want = Want::FirstKey;
                    Ok((Event::MappingStart(0, None), span))
                } else {
                    self.open.push(Open::Array);
                    self.want = Want::FirstItem;
                    Ok((Event::SequenceStart(0, None), span))
                }
            }
            Some(b'"') => {
                let (v, span) = self.string()?;
                self.want = Want::AfterValue;
                Ok((Event::Scalar(v, ScalarStyle::DoubleQuoted, 0, None), span))
            }
            Some(b'-' | b'0'..=b'9' | b't' | b'f' | b'n') => {
                let (v, span) = self.plain()?;
                self.want = Want::AfterValue;
                Ok((Event::Scalar(v, ScalarStyle::Plain, 0, None), span))
            }
            _ => Err(self.stop("not a JSON value")),
        }
    }

    /// A key at `self.pos` and the `:` after it.
    fn key(&mut self) -> Result<(Event<'a>, Span), EventError> {
        self.skip_blanks();
        if self.peek() != Some(b'"') {
            return Err(self.stop("expected a key"));
        }
        let (k, span) = self.string()?;
        self.skip_blanks();
        if self.peek() != Some(b':') {
            return Err(self.stop("expected ':'"));
        }
        self.pos += 1;
        self.want = Want::Value;
        Ok((Event::Scalar(k, ScalarStyle::DoubleQuoted, 0, None), span))
    }

    /// The end event of the innermost container when `end` closes it
    /// next (after `{` or `[`, an empty container).
    fn close_if(&mut self, end: u8) -> Option<(Event<'a>, Span)> {
        self.skip_blanks();
        (self.peek() == Some(end)).then(|| self.close())
    }

    /// The end event of the innermost container, at `self.pos`.
    fn close(&mut self) -> (Event<'a>, Span) {
        let at = self.pos;
        self.pos += 1;
        self.want = Want::AfterValue;
        let event = match self.open.pop() {
            Some(Open::Object) => Event::MappingEnd,
            _ => Event::SequenceEnd,
        };
        (event, Span::new(at, at + 1))
    }

    fn step(&mut self) -> Option<Result<(Event<'a>, Span), EventError>> {
        let here = Span::new(self.pos, self.pos);
        Some(match self.want {
            Want::Done => return None,
            Want::StreamStart => {
                self.want = Want::DocumentStart;
                Ok((Event::StreamStart, here))
            }
            Want::DocumentStart => {
                self.skip_blanks();
                if self.pos == self.text.len() {
                    // An empty text: the YAML path reads it its way.
                    return Some(Err(self.stop("no value")));
                }
                self.want = Want::Value;
                Ok((Event::DocumentStart(false), Span::new(self.pos, self.pos)))
            }
            Want::Value => self.value(),
            Want::FirstKey => match self.close_if(b'}') {
                Some(end) => Ok(end),
                None => self.key(),
            },
            Want::Key => self.key(),
            Want::FirstItem => match self.close_if(b']') {
                Some(end) => Ok(end),
                None => self.value(),
            },
            Want::AfterValue => {
                self.skip_blanks();
                match (self.open.last().copied(), self.peek()) {
                    (None, None) => {
                        self.want = Want::DocumentEnd;
                        return self.step();
                    }
                    (Some(Open::Object), Some(b',')) => {
                        self.pos += 1;
                        self.want = Want::Key;
                        return self.step();
                    }
                    (Some(Open::Array), Some(b',')) => {
                        self.pos += 1;
                        self.want = Want::Value;
                        return self.step();
                    }
                    (Some(Open::Object), Some(b'}')) | (Some(Open::Array), Some(b']')) => {
                        Ok(self.close())
                    }
                    _ => Err(self.stop("expected ',' or the end of the container")),
                }
            }
            Want::DocumentEnd => {
                self.want = Want::StreamEnd;
                Ok((Event::DocumentEnd, here))
            }
            Want::StreamEnd => {
                self.want = Want::Done;
                Ok((Event::StreamEnd, here))
            }
        })
    }
}

impl<'a> Iterator for JsonEvents<'a> {
    type Item = Result<(Event<'a>, Span), EventError>;

    fn next(&mut self) -> Option<Self::Item> {
        self.step()
    }
}
