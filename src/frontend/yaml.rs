//! YAML front end (compose, Kubernetes, Helm values, CloudFormation, app
//! configs) on saphyr-parser's event stream. The tree is built with an
//! explicit stack, so no input depth can overflow ours; aliases are recorded
//! and never expanded, so alias bombs cost nothing.

use super::conf::{column_titles, header_role};
use super::{header_relevant, MAX_NESTING};
use crate::facts::config::{
    content_span, ConfDoc, ConfEntry, ConfValue, Key, PathSeg, ScalarStyle,
};
use crate::facts::headers::{StrLit, StrRole};
use crate::facts::{FileFacts, Problem};
use crate::source::{CharToByte, Span};
use saphyr_parser::{Event, Parser, ScalarStyle as YStyle};

/// Events past this many are not read: a bound on time and memory (each
/// node becomes an entry with its full path and strings, about 1 KiB
/// measured) for files that are data dumps rather than configuration.
const MAX_EVENTS: usize = 250_000;

enum Kind {
    Map,
    Other,
}

enum Frame {
    Map {
        /// The key read and waiting for its value.
        pending: Option<(Key, Span)>,
    },
    Seq {
        next: usize,
    },
}

pub fn parse(text: &str, facts: &mut FileFacts) {
    let doc = build(text, facts);
    push_strings(text, &doc, facts);
    facts.conf = Some(doc);
}

/// YAML and JSON files larger than this are not parsed. Memory grows with
/// the input at about 115 bytes per byte (measured): saphyr buffers every
/// token of a flow collection that could still turn out to be a mapping key
/// (`[..]: v`), which in a minified JSON file is the whole file.
pub const MAX_YAML_BYTES: usize = 4 * 1024 * 1024;

/// Why one read of a YAML stream stopped early.
#[derive(Debug)]
pub(super) enum Stop {
    /// A syntax error at byte `at`, with the parser's words.
    Syntax { at: usize, info: String },
    /// A bound of this front end (depth, node count): reported as it is.
    Limit(Problem),
}

/// Recovery rounds a file gets before the rest of it is left unread: each
/// round skips one top-level entry that does not parse.
const MAX_ROUNDS: usize = 16;

/// Build the flattened tree; problems go to `facts`. A file that does not
/// parse as it stands is read again, in order: as a Go template (actions
/// neutralised, see [`super::template`]), with flow collections closed at
/// their key's indentation as libyaml and yaml.v3 accept, and then without
/// each top-level entry (or document) that still does not parse, so one
/// error never hides the rest of the file. A skipped entry is reported
/// when its text holds a word that can matter ([`crate::prefilter::prefilter`]);
/// otherwise, and always for a template, it is only counted.
pub fn build(text: &str, facts: &mut FileFacts) -> ConfDoc {
    let mut doc = build_recovering(text, facts);
    whole_chars(text, &mut doc);
    doc
}

/// NOTE: a re-read text has the original's length but not always its
/// characters: a skipped entry is blanked byte by byte, so a node read next
/// to it (a block scalar takes the blank lines that follow it) can end
/// inside what was a multi-byte character of the original (found by
/// fuzzing). Every span is widened to whole characters of `text`.
fn whole_chars(text: &str, doc: &mut ConfDoc) {
    if text.is_ascii() {
        return;
    }
    let fix = |s: &mut Span| {
        let start = crate::source::clamp_to_char_boundary(text, s.start);
        let end = crate::source::ceil_char_boundary(text, s.end.max(start));
        *s = Span::new(start, end);
    };
    for e in &mut doc.entries {
        fix(&mut e.value_span);
        if let Some(k) = &mut e.key_span {
            fix(k);
        }
    }
}

fn build_recovering(text: &str, facts: &mut FileFacts) -> ConfDoc {
    if let Some(p) = too_big(text) {
        facts.problems.push(p);
        return ConfDoc::default();
    }
    let (mut doc, mut stop) = build_once(text);
    if stop.is_none() {
        return doc;
    }
    let template = super::template::is_template(text);
    let mut work: std::borrow::Cow<'_, str> = std::borrow::Cow::Borrowed(text);
    if template {
        if let Some(n) = super::template::neutralise(text) {
            facts.holes = n.holes;
            work = std::borrow::Cow::Owned(n.text);
            (doc, stop) = build_once(&work);
        }
    }
    if let Some(Stop::Syntax { at, .. }) = stop {
        if let Some(repaired) = close_flows_at_key_indent(&work) {
            let (d, s) = build_once(&repaired);
            let later = match &s {
                Some(Stop::Syntax { at: a, .. }) => *a > at,
                _ => true,
            };
            if later {
                (doc, stop, work) = (d, s, std::borrow::Cow::Owned(repaired));
            }
        }
    }
    let mut skipped_to = 0;
    // Whether the prefilter admits the file: it can hold what a rule
    // checks, so a part of it that cannot be read is a hole in the check.
    let mut needed = None;
    for _ in 0..MAX_ROUNDS {
        let (at, info) = match stop {
            None => return doc,
            Some(Stop::Limit(p)) => {
                facts.problems.push(p);
                return doc;
            }
            Some(Stop::Syntax { at, info }) => (at, info),
        };
        let (mut start, mut end) = entry_around(&work, at);
        // NOTE: `broken: [a, {` then `services:`: the scanner carries the
        // unclosed flow into the next entry and stops there; skipping that
        // entry would hide it. Skip the entry that opened the flow instead.
        if start > 0 && start >= skipped_to {
            let (ps, pe) = entry_around(&work, start - 1);
            if ps < start && ps >= skipped_to && opens_unclosed_flow(work.get(ps..pe).unwrap_or(""))
            {
                (start, end) = (ps, pe);
            }
        }
        if start < skipped_to {
            // No progress past the entry skipped last: skip from the one before.
            start = entry_around(&work, start.saturating_sub(1)).0;
        }
        let unread = text.get(start..end).unwrap_or("");
        let needed = *needed.get_or_insert_with(|| {
            crate::prefilter::admits_text(crate::source::FileKind::Yaml, text.as_bytes())
        }) || crate::prefilter::prefilter(unread.as_bytes());
        let literal = template && super::template::literal_around(text, at);
        facts.problems.push(Problem {
            span: error_span(text, at),
            message: if literal {
                "invalid YAML in a template's literal lines, whatever its values".to_string()
            } else if template {
                "Go template that does not read as YAML once its actions are set aside".to_string()
            } else {
                "invalid YAML".to_string()
            },
            reported: needed && (!template || literal),
            detail: Some(info.to_string()),
        });
        if start >= end {
            return doc;
        }
        work = std::borrow::Cow::Owned(blank(&work, start, end));
        skipped_to = end;
        (doc, stop) = build_once(&work);
    }
    doc
}

/// NOTE: saphyr-parser 0.3 counts a reserved directive's name and
/// parameters (`%FOO bär`) in bytes where its other markers count chars, so
/// every span after a directive line with a non-ASCII character came out
/// late, inside or past a character (found by fuzzing). A line that opens
/// with `%` is read with its non-ASCII bytes as `?`: the text keeps its
/// length, and in that line bytes and chars agree. Only such a line changes.
fn ascii_directive_lines(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.starts_with('%') && memchr::memmem::find(text.as_bytes(), b"\n%").is_none() {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out: Option<Vec<u8>> = None;
    let mut ls = 0;
    for line in text.split_inclusive('\n') {
        if line.starts_with('%') && !line.is_ascii() {
            let buf = out.get_or_insert_with(|| text.as_bytes().to_vec());
            for b in &mut buf[ls..ls + line.len()] {
                if !b.is_ascii() {
                    *b = b'?';
                }
            }
        }
        ls += line.len();
    }
    match out {
        // Whole characters were replaced, so the bytes are still UTF-8.
        Some(buf) => String::from_utf8(buf).map_or(std::borrow::Cow::Borrowed(text), Into::into),
        None => std::borrow::Cow::Borrowed(text),
    }
}

/// Whether an entry's text opens more flow brackets (`[`, `{`) than it
/// closes, outside quotes and comments.
fn opens_unclosed_flow(entry: &str) -> bool {
    let mut depth: i64 = 0;
    let mut quote: Option<u8> = None;
    let mut prev = b'\n';
    let mut in_comment = false;
    for b in entry.bytes() {
        if in_comment {
            in_comment = b != b'\n';
        } else if let Some(q) = quote {
            if b == q {
                quote = None;
            }
        } else {
            match b {
                b'#' if prev.is_ascii_whitespace() => in_comment = true,
                b'"' | b'\'' if depth > 0 || matches!(prev, b' ' | b'\t' | b'\n') => {
                    quote = Some(b)
                }
                b'[' | b'{' => depth += 1,
                b']' | b'}' => depth -= 1,
                _ => {}
            }
        }
        prev = b;
    }
    depth > 0
}

/// The problem for a file over [`MAX_YAML_BYTES`].
pub(super) fn too_big(text: &str) -> Option<Problem> {
    (text.len() > MAX_YAML_BYTES).then(|| {
        Problem::new(
            Span::new(0, 0),
            format!(
                "{:.1} MiB of YAML/JSON, over the {} MiB that are parsed; not parsed",
                text.len() as f64 / 1048576.0,
                MAX_YAML_BYTES / 1048576
            ),
        )
    })
}

/// Whether a line starts a top-level node (a key or an item at column 0) or
/// a document (`---`, `...`); comment lines, blank lines and the closers of
/// flow collections do not.
fn starts_entry(line: &str) -> bool {
    matches!(line.as_bytes().first(), Some(b) if !matches!(b, b' ' | b'\t' | b'#' | b'\r' | b'\n' | b']' | b'}' | b','))
}

/// The top-level entry around byte `at`: from the start of the line that
/// starts it (or just after the `---` before it) to the start of the next
/// top-level line after `at`'s line (or the end of the text).
fn entry_around(text: &str, at: usize) -> (usize, usize) {
    let at = crate::source::clamp_to_char_boundary(text, at.min(text.len()));
    let mut line_of_at = text[..at].rfind('\n').map_or(0, |p| p + 1);
    let at_marker = |ls: usize| text[ls..].starts_with("---") || text[ls..].starts_with("...");
    if at_marker(line_of_at) && line_of_at > 0 {
        // Stopped at the next document's marker: the fault is before it.
        line_of_at = text[..line_of_at - 1].rfind('\n').map_or(0, |p| p + 1);
    }
    let mut start = 0;
    let mut ls = line_of_at;
    loop {
        let line = &text[ls..];
        if at_marker(ls) {
            start = if ls == line_of_at {
                ls
            } else {
                text[ls..].find('\n').map_or(text.len(), |p| ls + p + 1)
            };
            break;
        }
        if starts_entry(line) {
            start = ls;
            break;
        }
        if ls == 0 {
            break;
        }
        ls = text[..ls - 1].rfind('\n').map_or(0, |p| p + 1);
    }
    let mut end = text.len();
    let mut ls = text[line_of_at..]
        .find('\n')
        .map_or(text.len(), |p| line_of_at + p + 1);
    while ls < text.len() {
        if starts_entry(&text[ls..]) {
            end = ls;
            break;
        }
        ls = text[ls..].find('\n').map_or(text.len(), |p| ls + p + 1);
    }
    (start, end)
}

/// `text` with every byte of `start..end` but line breaks turned to spaces.
fn blank(text: &str, start: usize, end: usize) -> String {
    let mut out = text.as_bytes().to_vec();
    for b in &mut out[start..end] {
        if *b != b'\n' && *b != b'\r' {
            *b = b' ';
        }
    }
    // Whole characters are blanked (entry bounds are line starts), so the
    // bytes stay UTF-8; the fallback keeps the text as it was.
    String::from_utf8(out).unwrap_or_else(|_| text.to_string())
}

/// NOTE: libyaml, Go's yaml.v3 and PyYAML accept a flow collection whose
/// closing bracket sits at its key's indentation (`args: [` … `]` under the
/// `a` of `args`); saphyr refuses it ("invalid indentation"). Each line that
/// holds only closers is joined to the line before it: the closers move to
/// just after that line's content (its trailing comment blanked), the rest
/// becomes spaces, and every other byte stays where it was. `None` when no
/// line changes.
fn close_flows_at_key_indent(text: &str) -> Option<String> {
    let mut out = text.as_bytes().to_vec();
    let mut changed = false;
    let mut prev_content_end: Option<usize> = None;
    let mut ls = 0;
    for raw in text.split_inclusive('\n') {
        let line = raw.trim_end_matches(['\n', '\r']);
        let trimmed = line.trim_start_matches([' ', '\t']);
        let indent = line.len() - trimmed.len();
        let closers = trimmed.trim_end().trim_end_matches(',');
        let only_closers =
            !closers.is_empty() && closers.bytes().all(|b| matches!(b, b']' | b'}' | b' '));
        match prev_content_end {
            Some(pe) if only_closers => {
                let closer_bytes = trimmed.trim_end().as_bytes().to_vec();
                for (i, b) in out[pe..ls + line.len()].iter_mut().enumerate() {
                    *b = match closer_bytes.get(i) {
                        Some(&c) => c,
                        None if *b == b'\n' || *b == b'\r' => *b,
                        None => b' ',
                    };
                }
                changed = true;
                prev_content_end = Some(pe + closer_bytes.len());
            }
            _ => {
                if let Some(end) = content_end(trimmed) {
                    // A block scalar's header (`key: |-`) takes no closers.
                    let opens_block = trimmed[..end]
                        .trim_end_matches([
                            '-', '+', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9',
                        ])
                        .ends_with(['|', '>']);
                    prev_content_end = (!opens_block).then_some(ls + indent + end);
                }
            }
        }
        ls += raw.len();
    }
    if !changed {
        return None;
    }
    String::from_utf8(out).ok()
}

/// End of a line's content (after leading blanks are trimmed): before a
/// `#` comment outside quotes and before trailing blanks; `None` for a
/// blank or comment-only line.
fn content_end(line: &str) -> Option<usize> {
    let bytes = line.as_bytes();
    let mut quote = None;
    let mut end = 0;
    for (i, &b) in bytes.iter().enumerate() {
        match (quote, b) {
            (Some(q), _) if b == q => quote = None,
            (Some(_), _) => {}
            (None, b'"' | b'\'') => quote = Some(b),
            (None, b'#') if i == 0 || bytes[i - 1] == b' ' || bytes[i - 1] == b'\t' => break,
            _ => {}
        }
        if !matches!(b, b' ' | b'\t') || quote.is_some() {
            end = i + 1;
        }
    }
    (end > 0).then_some(end)
}

/// The end (after the closing quote) of the quoted scalar that opens at
/// byte `start`: `\"` escapes in double quotes, `''` in single quotes.
fn quoted_end(text: &str, start: usize) -> Option<usize> {
    let b = text.as_bytes();
    let q = *b.get(start)?;
    if q != b'"' && q != b'\'' {
        return None;
    }
    let mut i = start + 1;
    while i < b.len() {
        match b[i] {
            b'\\' if q == b'"' => i += 2,
            b'\'' if q == b'\'' && b.get(i + 1) == Some(&b'\'') => i += 2,
            c if c == q => return Some(i + 1),
            _ => i += 1,
        }
    }
    None
}

/// One read of a YAML stream: the tree as far as it goes, and why it
/// stopped when it did not reach the end.
pub(super) fn build_once(text: &str) -> (ConfDoc, Option<Stop>) {
    let ascii = ascii_directive_lines(text);
    let text: &str = &ascii;
    let chars = CharToByte::new(text);
    let events = Parser::new_from_str(text).map(|item| match item {
        Ok((event, yspan)) => Ok((
            event,
            Span::new(
                chars.byte(yspan.start.index()),
                chars.byte(yspan.end.index()),
            ),
        )),
        Err(e) => Err(EventError {
            at: chars.byte(e.marker().index()),
            info: e.info().to_string(),
        }),
    });
    build_from_events(text, events)
}

/// Why an event source stopped: the byte it stopped at, and its words.
pub(super) struct EventError {
    pub at: usize,
    pub info: String,
}

/// The tree of an event stream whose spans are byte offsets in `text`: the
/// YAML parser's, or the JSON front end's own reader of strict JSON.
pub(super) fn build_from_events<'a>(
    text: &str,
    events: impl Iterator<Item = Result<(Event<'a>, Span), EventError>>,
) -> (ConfDoc, Option<Stop>) {
    let mut doc = ConfDoc::default();
    let mut stack: Vec<Frame> = Vec::new();
    let mut path: Vec<PathSeg> = Vec::new();
    let mut doc_index = 0usize;
    let mut started = false;
    let mut skip_depth = 0usize; // inside a complex (non-scalar) mapping key

    for (n, item) in events.enumerate() {
        let (event, span) = match event_or_stop(text, n, item) {
            Ok(x) => x,
            Err(stop) => return (doc, Some(stop)),
        };

        let event_kind = if matches!(event, Event::MappingStart(..)) {
            Kind::Map
        } else {
            Kind::Other
        };
        if skip_depth > 0 {
            match event {
                Event::MappingStart(..) | Event::SequenceStart(..) => skip_depth += 1,
                Event::MappingEnd | Event::SequenceEnd => {
                    skip_depth -= 1;
                    if skip_depth == 0 {
                        if let Some(Frame::Map { pending, .. }) = stack.last_mut() {
                            *pending = Some((Key::from("?"), span));
                        }
                    }
                }
                _ => {}
            }
            continue;
        }

        match event {
            Event::DocumentStart(_) => {
                if started {
                    doc_index += 1;
                }
                started = true;
                stack.clear();
                path.clear();
            }
            Event::Scalar(value, style, _, tag) => {
                let tag = tag.map(|t| format!("{}{}", t.handle, t.suffix));
                let span = scalar_span(text, style, span);
                if let Some(Frame::Map { pending, .. }) = stack.last_mut() {
                    if pending.is_none() {
                        *pending = Some((Key::from(&*value), span));
                        continue;
                    }
                }
                let value = ConfValue::Scalar {
                    text: value.to_string(),
                    style: map_style(style),
                };
                leaf(&mut doc, &mut stack, &mut path, doc_index, value, span, tag);
            }
            Event::Alias(_) => {
                if let Some(Frame::Map { pending, .. }) = stack.last_mut() {
                    if pending.is_none() {
                        *pending = Some((Key::from("*alias"), span));
                        continue;
                    }
                }
                leaf(
                    &mut doc,
                    &mut stack,
                    &mut path,
                    doc_index,
                    ConfValue::Alias,
                    span,
                    None,
                );
            }
            Event::MappingStart(_, tag) | Event::SequenceStart(_, tag) => {
                let is_map = matches!(event_kind, Kind::Map);
                if let Some(Frame::Map { pending: None, .. }) = stack.last() {
                    skip_depth = 1;
                    continue;
                }
                if stack.len() >= MAX_NESTING {
                    let p = Problem::new(
                        span,
                        format!(
                            "nested deeper than {MAX_NESTING} levels of YAML; the rest was not read"
                        ),
                    );
                    return (doc, Some(Stop::Limit(p)));
                }
                let tag = tag.map(|t| format!("{}{}", t.handle, t.suffix));
                let kind = if is_map {
                    ConfValue::Map
                } else {
                    ConfValue::Seq
                };
                let key_span = enter(&mut stack, &mut path);
                doc.entries.push(ConfEntry {
                    doc: doc_index,
                    path: path.clone(),
                    key_span,
                    value: kind,
                    value_span: Span::new(span.start, span.start),
                    tag,
                });
                stack.push(if is_map {
                    Frame::Map { pending: None }
                } else {
                    Frame::Seq { next: 0 }
                });
            }
            Event::MappingEnd | Event::SequenceEnd => {
                stack.pop();
                finish_child(&mut stack, &mut path);
            }
            _ => {}
        }
    }
    (doc, None)
}

/// The `n`th item of an event stream, or why the tree stops there: past
/// [`MAX_EVENTS`], nested past the parser's limit, or a syntax error.
fn event_or_stop<'a>(
    text: &str,
    n: usize,
    item: Result<(Event<'a>, Span), EventError>,
) -> Result<(Event<'a>, Span), Stop> {
    if n >= MAX_EVENTS {
        let p = Problem::new(
            Span::new(0, 0),
            format!("over {MAX_EVENTS} YAML/JSON nodes; the rest was not read"),
        );
        return Err(Stop::Limit(p));
    }
    item.map_err(|e| {
        let at = e.at;
        if e.info.contains("recursion limit") {
            let p = Problem::new(
                error_span(text, at),
                "nested too deep for the YAML parser; the rest was not read",
            );
            return Stop::Limit(p);
        }
        Stop::Syntax { at, info: e.info }
    })
}

/// A scalar's span, a quoted one ending at its closing quote.
fn scalar_span(text: &str, style: YStyle, span: Span) -> Span {
    // NOTE: saphyr ends a quoted scalar's span after the blanks that follow
    // it (`"b"   ,`); the node ends at its quote. Its closing quote is found
    // in the text: saphyr's end can also run past a comment when the line
    // holds NUL bytes.
    match style {
        YStyle::SingleQuoted | YStyle::DoubleQuoted => match quoted_end(text, span.start) {
            Some(end) => Span::new(span.start, end),
            None => {
                let raw = text.get(span.start..span.end).unwrap_or("");
                Span::new(span.start, span.start + raw.trim_end().len())
            }
        },
        _ => span,
    }
}

/// Where to point for an error at byte `at`: an error at the end of the
/// input (an unclosed `[`) points at the last character read, not past it.
pub(super) fn error_span(text: &str, at: usize) -> Span {
    // `at` is an offset in the text as re-read, where skipped entries are
    // blanked byte for byte: in the file it may fall inside a character.
    let at = crate::source::clamp_to_char_boundary(text, at);
    let end = text.trim_end().len();
    if at <= end || end == 0 {
        return Span::new(at, at);
    }
    let last = text[..end].char_indices().next_back().map_or(0, |(i, _)| i);
    Span::new(last, end)
}

/// Push the path segment for a child of the current container; returns the
/// key's span when the container is a map.
fn enter(stack: &mut [Frame], path: &mut Vec<PathSeg>) -> Option<Span> {
    match stack.last_mut() {
        Some(Frame::Map { pending, .. }) => {
            let (key, key_span) = pending.take().unwrap_or_default();
            path.push(PathSeg::Key(key));
            Some(key_span)
        }
        Some(Frame::Seq { next }) => {
            path.push(PathSeg::Index(*next));
            None
        }
        None => None,
    }
}

/// After a child of the current container is complete.
fn finish_child(stack: &mut [Frame], path: &mut Vec<PathSeg>) {
    match stack.last_mut() {
        Some(Frame::Map { pending, .. }) => {
            *pending = None;
            path.pop();
        }
        Some(Frame::Seq { next }) => {
            *next += 1;
            path.pop();
        }
        None => {}
    }
}

fn leaf(
    doc: &mut ConfDoc,
    stack: &mut [Frame],
    path: &mut Vec<PathSeg>,
    doc_index: usize,
    value: ConfValue,
    span: Span,
    tag: Option<String>,
) {
    let key_span = enter(stack, path);
    doc.entries.push(ConfEntry {
        doc: doc_index,
        path: path.clone(),
        key_span,
        value,
        value_span: span,
        tag,
    });
    finish_child(stack, path);
}

fn map_style(style: YStyle) -> ScalarStyle {
    match style {
        YStyle::SingleQuoted => ScalarStyle::SingleQuoted,
        YStyle::DoubleQuoted => ScalarStyle::DoubleQuoted,
        YStyle::Literal => ScalarStyle::Literal,
        YStyle::Folded => ScalarStyle::Folded,
        _ => ScalarStyle::Plain,
    }
}

/// Keys and scalar values of a config tree as header candidates.
pub fn push_strings(text: &str, doc: &ConfDoc, facts: &mut FileFacts) {
    // ingress-nginx ConfigMap / Helm `controller.config`: the same switch as
    // nginx's `underscores_in_headers on`.
    if let Some(e) = doc.entries.iter().find(|e| {
        e.key() == Some("enable-underscores-in-headers")
            && e.scalar().is_some_and(|v| v.eq_ignore_ascii_case("true"))
    }) {
        facts.hints.nginx_passes_underscores = Some(content_span(
            text,
            e.value_span,
            quoted_style(text, e.value_span),
        ));
    }
    // OpenAPI/Swagger parameters: `- name: Idempotency-Key` with `in: header`
    // beside it names a header, however it is spelt.
    // A set, not a list: an OpenAPI spec has one such parameter per
    // operation, and a lookup per entry in a list was quadratic.
    let header_params: std::collections::HashSet<(usize, &[PathSeg])> = doc
        .entries
        .iter()
        .filter(|e| e.key() == Some("in") && e.scalar() == Some("header"))
        .map(|e| (e.doc, e.parent()))
        .collect();
    let is_header_param =
        |e: &ConfEntry| e.key() == Some("name") && header_params.contains(&(e.doc, e.parent()));
    // Only the strings the header rule can speak of are kept: the header
    // model, their only reader in a config file, takes no other. A large
    // OpenAPI or typedoc file is mostly prose and names.
    for e in doc.entries.iter().filter(|e| !column_titles(&e.path)) {
        if let (Some(key), Some(span)) = (e.key(), e.key_span) {
            // Each key is seen once, on the node it introduces.
            let span = content_span(text, span, quoted_style(text, span));
            push_gateway_header(text, key, span, facts);
            if header_relevant(key) {
                let parent = &e.path[..e.path.len().saturating_sub(1)];
                facts.strings.push(StrLit {
                    value: key.to_string(),
                    span,
                    role: header_role(parent).unwrap_or(StrRole::ConfKey),
                });
            }
        }
        if let ConfValue::Scalar { text: v, style } = &e.value {
            if matches!(style, ScalarStyle::Literal | ScalarStyle::Folded) {
                continue;
            }
            push_gateway_header(text, v, content_span(text, e.value_span, *style), facts);
            if !header_relevant(v) {
                continue;
            }
            facts.strings.push(StrLit {
                value: v.clone(),
                span: content_span(text, e.value_span, *style),
                role: header_role(&e.path).unwrap_or(if is_header_param(e) {
                    StrRole::HeaderName
                } else {
                    StrRole::Mention
                }),
            });
        }
    }
}

/// API Gateway request mappings name headers inside a dotted path:
/// `method.request.header.Idempotency-Key`,
/// `integration.request.header.Idempotency-Key`. The name after `.header.`
/// is a header name, when the text in the file is the value as written.
fn push_gateway_header(text: &str, value: &str, span: Span, facts: &mut FileFacts) {
    const MARK: &str = ".header.";
    let Some(pos) = value.find(MARK) else { return };
    if !value[..pos].ends_with("request") || text.get(span.start..span.end) != Some(value) {
        return;
    }
    let name = &value[pos + MARK.len()..];
    let start = span.start + pos + MARK.len();
    facts.strings.push(StrLit {
        value: name.to_string(),
        span: Span::new(start, start + name.len()),
        role: StrRole::HeaderName,
    });
}

fn quoted_style(text: &str, span: Span) -> ScalarStyle {
    match text.as_bytes().get(span.start) {
        Some(b'"') => ScalarStyle::DoubleQuoted,
        Some(b'\'') => ScalarStyle::SingleQuoted,
        _ => ScalarStyle::Plain,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_quoted_scalar_ends_at_its_closing_quote() {
        assert_eq!(quoted_end(r#"a: "x\"y" # c"#, 3), Some(9));
        assert_eq!(quoted_end("a: 'it''s' # c", 3), Some(10));
        assert_eq!(quoted_end("a: \"open", 3), None);
        assert_eq!(quoted_end("a: plain", 3), None);
        // NUL bytes earlier on the line must not stretch the span.
        let text = "x:\n  - \0\0\0\n  - \"--maxmemory-policy allkeys-lru\" # é\n";
        let (d, _) = doc(text);
        for e in &d.entries {
            let vs = e.value_span;
            assert!(text.is_char_boundary(vs.start) && text.is_char_boundary(vs.end));
        }
    }

    fn doc(text: &str) -> (ConfDoc, FileFacts) {
        let mut facts = FileFacts::default();
        let d = build(text, &mut facts);
        (d, facts)
    }

    #[test]
    fn an_unclosed_flow_in_one_entry_does_not_hide_the_next_entry() {
        let text = "broken: [unclosed, {\nservices:\n  idem-redis:\n    command: redis-server --maxmemory-policy allkeys-lru\n";
        let (d, f) = doc(text);
        assert!(!f.problems.is_empty());
        let e = d
            .entries
            .iter()
            .find(|e| e.dotted() == "services.idem-redis.command")
            .expect("the entry after the broken one is read");
        assert!(text[e.value_span.start..e.value_span.end].ends_with("allkeys-lru"));
    }

    #[test]
    fn paths_and_spans_of_nested_values() {
        let text = "services:\n  redis:\n    command: [\"redis-server\", \"--maxmemory-policy\", 'allkeys-lru']\n";
        let (d, f) = doc(text);
        assert!(f.problems.is_empty());
        let e = d
            .entries
            .iter()
            .find(|e| e.dotted() == "services.redis.command[2]")
            .unwrap();
        assert_eq!(&text[e.value_span.start..e.value_span.end], "'allkeys-lru'");
        let k = d
            .entries
            .iter()
            .find(|e| e.dotted() == "services.redis")
            .unwrap();
        assert_eq!(
            &text[k.key_span.unwrap().start..k.key_span.unwrap().end],
            "redis"
        );
    }

    #[test]
    fn alias_bomb_is_not_expanded() {
        let mut text =
            String::from("a: &a [\"x\",\"x\",\"x\",\"x\",\"x\",\"x\",\"x\",\"x\",\"x\"]\n");
        for i in 1..10 {
            let prev = (b'a' + i - 1) as char;
            let cur = (b'a' + i) as char;
            text.push_str(&format!(
                "{cur}: &{cur} [*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev}]\n"
            ));
        }
        let (d, f) = doc(&text);
        assert!(f.problems.is_empty());
        assert!(d.entries.len() < 200);
    }

    #[test]
    fn deep_nesting_is_a_problem_not_a_crash() {
        let text = "[".repeat(50_000);
        let (_, f) = doc(&text);
        assert_eq!(f.problems.len(), 1);
    }

    #[test]
    fn api_gateway_request_parameters_name_headers() {
        let text = "requestParameters:\n  integration.request.header.Idempotency-Key: method.request.header.Idempotency_Key\n";
        let mut f = FileFacts::default();
        parse(text, &mut f);
        let names: Vec<(&str, StrRole, &str)> = f
            .strings
            .iter()
            .filter(|s| s.role == StrRole::HeaderName && !s.value.contains('.'))
            .map(|s| (s.value.as_str(), s.role, &text[s.span.start..s.span.end]))
            .collect();
        assert_eq!(
            names,
            vec![
                ("Idempotency-Key", StrRole::HeaderName, "Idempotency-Key"),
                ("Idempotency_Key", StrRole::HeaderName, "Idempotency_Key"),
            ]
        );
    }

    #[test]
    fn ingress_nginx_underscore_switch_is_a_hint() {
        let text =
            "apiVersion: v1\nkind: ConfigMap\ndata:\n  enable-underscores-in-headers: \"true\"\n";
        let mut f = FileFacts::default();
        parse(text, &mut f);
        let s = f.hints.nginx_passes_underscores.unwrap();
        assert_eq!(&text[s.start..s.end], "true");
    }

    #[test]
    fn strings_under_header_paths_are_header_names() {
        let text = "routes:\n  - match:\n      headers:\n        - name: idempotency-kye\n    request_headers_to_add:\n      - header: { key: idempotency_key, value: x }\nidempotency:\n  key_field: idempotency_key\n  idempotency_key: y\n  header: Idempotency-Key\n";
        let mut facts = FileFacts::default();
        parse(text, &mut facts);
        let role = |v: &str, nth: usize| {
            facts
                .strings
                .iter()
                .filter(|s| s.value == v)
                .nth(nth)
                .map(|s| s.role)
        };
        assert_eq!(role("idempotency-kye", 0), Some(StrRole::HeaderName));
        assert_eq!(role("idempotency_key", 0), Some(StrRole::Write));
        assert_eq!(role("idempotency_key", 1), Some(StrRole::Mention));
        assert_eq!(role("idempotency_key", 2), Some(StrRole::ConfKey));
        // Only strings the header rule can speak of are kept: not a key
        // that names no header, nor a header spelt right.
        assert_eq!(role("key_field", 0), None);
        assert_eq!(role("Idempotency-Key", 0), None);
    }

    #[test]
    fn flow_sequence_closed_at_its_key_indent_is_accepted() {
        // libyaml, yaml.v3 and PyYAML read this; the `]` sits under the `a`.
        let text = "proxy:\n  allowed: [\n    \"10.0.0.0/8\", # private\n    \"192.168.0.0/16\",\n  ]\n  header: Idempotency-Key\n";
        let (d, f) = doc(text);
        assert!(f.problems.is_empty(), "{:?}", f.problems);
        let e = d
            .entries
            .iter()
            .find(|e| e.dotted() == "proxy.allowed[1]")
            .unwrap();
        assert_eq!(
            &text[e.value_span.start..e.value_span.end],
            "\"192.168.0.0/16\""
        );
        let h = d
            .entries
            .iter()
            .find(|e| e.dotted() == "proxy.header")
            .unwrap();
        assert_eq!(
            &text[h.value_span.start..h.value_span.end],
            "Idempotency-Key"
        );
    }

    #[test]
    fn an_error_in_one_top_level_entry_hides_nothing_after_it() {
        let text = "before: 1\nidempotency:\n  header: [unclosed\n  ttl: 3\nafter:\n  maxmemory-policy: allkeys-lru\n";
        let (d, f) = doc(text);
        assert_eq!(f.problems.len(), 1, "{:?}", f.problems);
        assert!(f.problems[0].reported, "the skipped entry names a store");
        assert_eq!(f.problems[0].message, "invalid YAML");
        assert!(f.problems[0].detail.is_some());
        let e = d
            .entries
            .iter()
            .find(|e| e.dotted() == "after.maxmemory-policy")
            .unwrap();
        assert_eq!(&text[e.value_span.start..e.value_span.end], "allkeys-lru");
        assert!(d.entries.iter().any(|e| e.dotted() == "before"));
    }

    #[test]
    fn an_error_where_nothing_checked_can_be_is_counted_not_reported() {
        let text = "a: 1\n---\nlabels: {tier: [web\n---\nkind: ConfigMap\nsessions: {ttl: 3}\n";
        let (d, f) = doc(text);
        assert_eq!(f.problems.len(), 1, "{:?}", f.problems);
        assert!(!f.problems[0].reported);
        assert!(d.entries.iter().any(|e| e.dotted() == "sessions.ttl"));
        // A file the prefilter reads is needed: a fault anywhere in it is a
        // hole in the check (kubectl and Helm refuse the whole stream).
        let needed = text.replace("sessions", "idempotency");
        let (_, f) = doc(&needed);
        assert!(f.problems[0].reported);
    }

    #[test]
    fn a_helm_template_reads_and_one_that_does_not_is_counted() {
        let text = "{{- if .Values.on }}\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-idempotency\n  labels: {{- include \"x\" . | nindent 4 }}\n{{- end }}\n";
        let (d, f) = doc(text);
        assert!(f.problems.is_empty(), "{:?}", f.problems);
        assert_eq!(f.holes.len(), 2);
        assert!(d.entries.iter().any(|e| e.dotted() == "metadata.name"));
        let broken = "{{- if .Values.on }}\nidempotency:\n  - a\n  b: 1\n{{- end }}\n";
        let (_, f) = doc(broken);
        assert_eq!(f.problems.len(), 1);
        assert!(
            !f.problems[0].reported,
            "a template is counted, not reported"
        );
    }

    #[test]
    fn every_prefix_of_a_broken_file_reads_without_panicking() {
        let text = "a: [1,\n  2\n]\nb: {{ x }}\n  - é\nc: 'q\n---\nd: \"x\n";
        for (i, _) in text.char_indices() {
            let _ = doc(&text[..i]);
        }
    }

    #[test]
    fn a_directive_with_non_ascii_text_keeps_later_spans() {
        let text = "%FOO bär ünïcödé\n---\nmaxmemory-policy: noeviction\n";
        let (d, _) = doc(text);
        let e = d
            .entries
            .iter()
            .find(|e| e.key() == Some("maxmemory-policy"))
            .unwrap();
        assert_eq!(&text[e.value_span.start..e.value_span.end], "noeviction");
    }

    #[test]
    fn multi_document_streams_count_documents() {
        let (d, _) = doc("a: 1\n---\nb: 2\n");
        assert_eq!(d.entries.iter().map(|e| e.doc).max(), Some(1));
    }

    #[test]
    fn non_ascii_text_keeps_byte_spans() {
        let text = "naïve: \"Idempotency-Key\"\n";
        let (d, _) = doc(text);
        let e = d.entries.iter().find(|e| e.key() == Some("naïve")).unwrap();
        assert_eq!(
            &text[e.value_span.start..e.value_span.end],
            "\"Idempotency-Key\""
        );
    }
}
