//! Where words in configuration files are prose (descriptions, CRD
//! schemas), and count for nothing.

/// The byte ranges of the documents of a YAML stream that define a
/// Kubernetes CustomResourceDefinition (top-level `apiVersion:
/// apiextensions.k8s.io/...` and `kind: CustomResourceDefinition`). Such a
/// document is an OpenAPI schema of a resource kind: its words are field
/// names and prose, and it deploys nothing a rule reads (no Redis, no
/// setting, no header). Documents are split at `---` and `...` lines, as a
/// YAML parser splits them; a Helm template's `{{ }}` lines change nothing.
pub(super) fn schema_documents(bytes: &[u8]) -> Vec<std::ops::Range<usize>> {
    if memchr::memmem::find(bytes, b"CustomResourceDefinition").is_none() {
        return Vec::new();
    }
    let mut out = Vec::new();
    let (mut start, mut kind, mut api) = (0, false, false);
    let mut at = 0;
    let mut close = |start: usize, end: usize, kind: bool, api: bool| {
        if kind && api && start < end {
            out.push(start..end);
        }
    };
    for line in bytes.split_inclusive(|&b| b == b'\n') {
        let marker = |m: &[u8]| {
            line.strip_prefix(m)
                .is_some_and(|r| r.first().is_none_or(|b| b.is_ascii_whitespace()))
        };
        if marker(b"---") || marker(b"...") {
            close(start, at, kind, api);
            (start, kind, api) = (at + line.len(), false, false);
        } else if let Some(v) = top_level_value(line, b"kind:") {
            kind |= v == b"CustomResourceDefinition";
        } else if let Some(v) = top_level_value(line, b"apiVersion:") {
            api |= v.starts_with(b"apiextensions.k8s.io/");
        }
        at += line.len();
    }
    close(start, at, kind, api);
    out
}

/// The string values of a JSON document's `"description"` keys that are
/// prose: the documentation of an OpenAPI or JSON Schema document, a
/// Postman collection's notes. A word in them counts as a word in a comment
/// does (the hyperswitch fork's v2 OpenAPI spec, 1 MiB, says `idempotency`
/// only there). What the readers take from a value:
/// - a header name or a Redis key prefix, from a string without whitespace
///   ([`crate::header_names::header_shaped`], `model::redis`'s prefix
///   literals), so a value counts as prose only with whitespace between
///   its words;
/// - a Redis host, from a value with `://` or under a key that speaks of
///   Redis and a host (a host with spaces matches no instance), so a value
///   with `://` is not prose;
/// - a `maxmemory-policy` flag or directive, from any scalar
///   (`redis_yaml`), so a value that says `maxmemory` is not prose.
///
/// Settings are read by their keys, which stay outside these ranges. A
/// file that holds `idemlint` (a suppression in JSON with comments) has
/// none, so that it is still parsed. A key is a `"description"` after `{`
/// or `,` and before `:`; an escaped one, inside another string, is not.
/// `lower` is `bytes` lowered.
pub(super) fn json_prose(bytes: &[u8], lower: &[u8]) -> Vec<std::ops::Range<usize>> {
    const KEY: &[u8] = b"\"description\"";
    let skip_ws = |mut i: usize| {
        while bytes.get(i).is_some_and(u8::is_ascii_whitespace) {
            i += 1;
        }
        i
    };
    prose_values(bytes, lower, KEY, |at| {
        let key = bytes[..at]
            .iter()
            .rposition(|b| !b.is_ascii_whitespace())
            .is_some_and(|i| matches!(bytes[i], b'{' | b','));
        let colon = skip_ws(at + KEY.len());
        if !key || bytes.get(colon) != Some(&b':') {
            return None;
        }
        let open = skip_ws(colon + 1);
        if bytes.get(open) != Some(&b'"') {
            return None;
        }
        let end = crate::lex::rust::string_end(bytes, open + 1);
        Some((open..end, open + 1..end.saturating_sub(1).max(open + 1)))
    })
}

/// The scalar values of a YAML document's `description:` keys that are
/// prose (an OpenAPI spec's or a JSON Schema's documentation): the same
/// judgement as [`json_prose`], on a plain, quoted or block (`|`, `>`)
/// scalar that starts on the key's line and runs on over the lines
/// indented deeper than the key. A `description:` with nothing after it
/// (a schema property named `description`, whose mapping follows), a flow
/// collection, an anchor, an alias, a tag or a template (`{{ }}`) is not
/// prose; nor is a quoted key or one inside a flow mapping. `lower` is
/// `bytes` lowered.
pub(super) fn yaml_prose(bytes: &[u8], lower: &[u8]) -> Vec<std::ops::Range<usize>> {
    const KEY: &[u8] = b"description:";
    let indent = |line: &[u8]| line.iter().take_while(|&&b| b == b' ').count();
    let line_end =
        |from: usize| memchr::memchr(b'\n', &bytes[from..]).map_or(bytes.len(), |i| from + i);
    prose_values(bytes, lower, KEY, |at| {
        let line_start = bytes[..at]
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1);
        let before = bytes[line_start..at].trim_ascii_start();
        if !(before.is_empty() || before == b"- ") {
            return None;
        }
        let column = at - line_start;
        let value = at + KEY.len();
        let first_end = line_end(value);
        let first = bytes[value..first_end].trim_ascii();
        if !bytes.get(value).is_some_and(|&b| b == b' ' || b == b'\t')
            || first.is_empty()
            || matches!(first[0], b'{' | b'[' | b'&' | b'*' | b'!' | b'#')
        {
            return None;
        }
        // The lines after it that are blank or indented deeper than the key.
        let mut end = first_end;
        while end < bytes.len() {
            let next = end + 1;
            let next_end = line_end(next);
            let line = &bytes[next..next_end];
            if !(line.trim_ascii().is_empty() || indent(line) > column) {
                break;
            }
            end = next_end;
        }
        // A block scalar's words start on the line after its indicator.
        let words = match first[0] {
            b'|' | b'>' => first_end.min(end)..end,
            _ => value..end,
        };
        Some((value..end, words))
    })
}

/// The value ranges `value_at` reads after each occurrence of `key` (the
/// scan goes on after a value's end), kept where the value's words (the
/// second range) are prose: words with whitespace between them, and no
/// `://` (a host may be read from a URL), no `maxmemory` (a policy flag or
/// directive is read from any scalar) and no `{{` (a template), searched in
/// `lower`, the text lowered. A file that holds `idemlint` (a suppression
/// comment, read only from a parsed file) has none.
pub(super) fn prose_values(
    bytes: &[u8],
    lower: &[u8],
    key: &[u8],
    value_at: impl Fn(usize) -> Option<(std::ops::Range<usize>, std::ops::Range<usize>)>,
) -> Vec<std::ops::Range<usize>> {
    let mut out = Vec::new();
    if memchr::memmem::find(bytes, b"idemlint").is_some() {
        return out;
    }
    let mut from = 0;
    for at in memchr::memmem::find_iter(bytes, key) {
        if at < from {
            continue;
        }
        let Some((range, words)) = value_at(at) else {
            continue;
        };
        from = range.end;
        let words = lower[words].trim_ascii();
        let holds = |w: &[u8]| memchr::memmem::find(words, w).is_some();
        if words.iter().any(u8::is_ascii_whitespace)
            && !holds(b"://")
            && !holds(b"maxmemory")
            && !holds(b"{{")
        {
            out.push(range);
        }
    }
    out
}

/// Two lists of ascending ranges as one, ascending and disjoint.
pub(super) fn union(
    a: Vec<std::ops::Range<usize>>,
    b: Vec<std::ops::Range<usize>>,
) -> Vec<std::ops::Range<usize>> {
    if b.is_empty() {
        return a;
    }
    let mut all = a;
    all.extend(b);
    all.sort_by_key(|r| r.start);
    let mut out: Vec<std::ops::Range<usize>> = Vec::with_capacity(all.len());
    for r in all {
        match out.last_mut() {
            Some(last) if r.start <= last.end => last.end = last.end.max(r.end),
            _ => out.push(r),
        }
    }
    out
}

/// The value of a top-level `key:` line, unquoted, without a trailing
/// comment or spaces.
pub(super) fn top_level_value<'a>(line: &'a [u8], key: &[u8]) -> Option<&'a [u8]> {
    let v = line.strip_prefix(key)?;
    let v = match memchr::memmem::find(v, b" #") {
        Some(i) => &v[..i],
        None => v,
    };
    let v = v.trim_ascii();
    let v = v
        .strip_prefix(b"\"")
        .and_then(|v| v.strip_suffix(b"\""))
        .or_else(|| v.strip_prefix(b"'").and_then(|v| v.strip_suffix(b"'")))
        .unwrap_or(v);
    Some(v)
}
