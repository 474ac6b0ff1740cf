//! Go templates (Helm chart `templates/*.yaml`) read as the YAML they render
//! to: every `{{ … }}` action is neutralised in place, keeping every byte
//! offset, so the YAML front end and the Redis extraction read the rest.
//! A line that holds only actions (`{{- if … }}`, `{{- end }}`,
//! `{{ include … | nindent 4 }}`, `{{/* … */}}`) becomes blank; an action
//! inside a line (`name: {{ .Values.x }}`) becomes a placeholder scalar of
//! the same length, recorded as a hole so that no name or setting is read
//! from it. Both branches of an `if`/`else` are kept. Not a template engine:
//! nothing is rendered.

use crate::source::Span;

/// The byte every placeholder is made of: a plain YAML scalar character,
/// harmless inside quotes too.
const FILL: u8 = b'_';

/// Text with its template actions neutralised.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Neutralised {
    /// Same length as the input, byte for byte outside the actions.
    pub text: String,
    /// Placeholders standing for a value, in input offsets.
    pub holes: Vec<Span>,
}

/// One `{{ … }}` action: its span (delimiters included) and whether it only
/// steers the template (`if`, `range`, `end`, a comment, `$x := …`) rather
/// than printing something.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Action {
    span: Span,
    control: bool,
}

/// Words that start an action that prints nothing.
const CONTROL: &[&str] = &[
    "if", "else", "end", "range", "with", "define", "block", "break", "continue",
];

/// Whether `text` is a Go template rather than YAML with `{{ }}` inside some
/// strings (a values file's `"{{ .Release.Name }}"`): some action steers the
/// template or stands alone on its line.
pub fn is_template(text: &str) -> bool {
    if memchr::memmem::find(text.as_bytes(), b"{{").is_none() {
        return false;
    }
    let actions = actions(text);
    actions.iter().any(|a| a.control) || line_spans(text).any(|l| only_actions(text, l, &actions))
}

/// Neutralise every action of `text`; `None` when it has none.
pub fn neutralise(text: &str) -> Option<Neutralised> {
    let actions = actions(text);
    if actions.is_empty() {
        return None;
    }
    let mut out = text.as_bytes().to_vec();
    let mut blanked_lines = Vec::new();
    for line in line_spans(text) {
        if only_actions(text, line, &actions) {
            for b in &mut out[line.start..line.end] {
                if *b != b'\r' {
                    *b = b' ';
                }
            }
            blanked_lines.push(line);
        }
    }
    let mut holes = Vec::new();
    for a in &actions {
        // The action's first line keeps a placeholder; its other lines
        // (a multi-line `dict` call) become blank, newlines kept.
        let first_nl = memchr::memchr(b'\n', &text.as_bytes()[a.span.start..a.span.end])
            .map_or(a.span.end, |p| a.span.start + p);
        // Lines are sorted: the last that starts at or before the action.
        let i = blanked_lines.partition_point(|l| l.start <= a.span.start);
        let on_blank_line = (i > 0 && a.span.start <= blanked_lines[i - 1].end)
            || opens_mapping(text, a.span, &blanked_lines);
        for (i, b) in out[a.span.start..a.span.end].iter_mut().enumerate() {
            let at = a.span.start + i;
            *b = match *b {
                b'\n' | b'\r' => *b,
                _ if at < first_nl && !on_blank_line => FILL,
                _ => b' ',
            };
        }
        if !on_blank_line {
            holes.push(Span::new(a.span.start, first_nl));
        }
    }
    let text = String::from_utf8(out).ok()?;
    Some(Neutralised { text, holes })
}

/// Whether the line holding byte `at` and the non-blank lines either side of
/// it are literal text: no action lies on them or between them. A YAML
/// fault there (a key indented out of its mapping) is in every rendering
/// that emits those lines, whatever the values; one next to an action may
/// be the action's output, which is unknown until rendered.
pub fn literal_around(text: &str, at: usize) -> bool {
    let lines: Vec<Span> = line_spans(text).collect();
    let Some(here) = lines.iter().position(|l| l.start <= at && at <= l.end) else {
        return false;
    };
    let blank = |l: &Span| text[l.start..l.end].trim().is_empty();
    let prev = lines[..here].iter().rposition(|l| !blank(l));
    let next = lines[here + 1..]
        .iter()
        .position(|l| !blank(l))
        .map(|i| here + 1 + i);
    let (Some(prev), Some(next)) = (prev, next) else {
        return false;
    };
    let window = Span::new(lines[prev].start, lines[next].end);
    let actions = actions(text);
    !in_named_template(text, &actions, at)
        && !actions
            .iter()
            .any(|a| a.span.start < window.end && window.start < a.span.end)
}

/// Whether byte `at` lies inside a `define` or `block` body: a named
/// template, rendered where it is included (often into a config file of
/// another language, `| b64enc`), not YAML of this file.
fn in_named_template(text: &str, actions: &[Action], at: usize) -> bool {
    let mut open: Vec<bool> = Vec::new();
    for a in actions.iter().take_while(|a| a.span.start < at) {
        let inner = text.get(a.span.start + 2..a.span.end).unwrap_or("");
        let body = inner.strip_prefix('-').unwrap_or(inner).trim_start();
        let word: String = body.chars().take_while(char::is_ascii_alphabetic).collect();
        match word.as_str() {
            "define" | "block" => open.push(true),
            "if" | "range" | "with" => open.push(false),
            "end" => {
                open.pop();
            }
            _ => {}
        }
    }
    open.contains(&true)
}

/// NOTE: `labels: {{- include "x.labels" . | nindent 4 }}` followed by more
/// deeply indented keys: the action renders the first entries of a mapping
/// that the next lines go on with, so it stands for nothing (blank), not for
/// a scalar value.
fn opens_mapping(text: &str, action: Span, blanked: &[Span]) -> bool {
    let line_start = text[..action.start].rfind('\n').map_or(0, |p| p + 1);
    let before = &text[line_start..action.start];
    let line_end = text[action.end..]
        .find('\n')
        .map_or(text.len(), |p| action.end + p);
    if !before.trim_end().ends_with(':') || !text[action.end..line_end].trim().is_empty() {
        return false;
    }
    let indent = |l: &str| l.len() - l.trim_start_matches(' ').len();
    let own = indent(before);
    let mut at = line_end + 1;
    while at < text.len() {
        let end = text[at..].find('\n').map_or(text.len(), |p| at + p);
        let line = &text[at..end];
        let skip = line.trim().is_empty()
            || line.trim_start().starts_with('#')
            || blanked.binary_search_by_key(&at, |b| b.start).is_ok();
        if !skip {
            return indent(line) > own;
        }
        at = end + 1;
    }
    false
}

/// Byte spans of the lines of `text`, line endings excluded.
fn line_spans(text: &str) -> impl Iterator<Item = Span> + '_ {
    let mut at = 0;
    text.split_inclusive('\n').map(move |l| {
        let start = at;
        at += l.len();
        Span::new(start, start + l.trim_end_matches(['\n', '\r']).len())
    })
}

/// Whether every non-blank byte of `line` lies inside an action (and there
/// is at least one).
fn only_actions(text: &str, line: Span, actions: &[Action]) -> bool {
    let bytes = text.as_bytes();
    let mut any = false;
    let mut i = line.start;
    // Actions are sorted by start: find the first that ends after the line starts.
    let mut k = actions.partition_point(|a| a.span.end <= line.start);
    while i < line.end {
        if bytes[i] == b' ' || bytes[i] == b'\t' {
            i += 1;
            continue;
        }
        match actions.get(k) {
            Some(a) if a.span.start <= i && i < a.span.end => {
                any = true;
                i = a.span.end;
                k += 1;
            }
            _ => return false,
        }
    }
    any
}

/// Every action of `text`, in order. An action runs from `{{` to the `}}`
/// that closes it, past quoted strings and comments inside it; an unclosed
/// one runs to the end of the text.
fn actions(text: &str) -> Vec<Action> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(p) = memchr::memmem::find(&bytes[i..], b"{{") {
        let start = i + p;
        let end = action_end(bytes, start + 2);
        let inner = text
            .get(start + 2..end.saturating_sub(2).max(start + 2))
            .unwrap_or("");
        out.push(Action {
            span: Span::new(start, end),
            control: is_control(inner),
        });
        i = end;
    }
    out
}

/// Index just past the `}}` that closes an action whose body starts at `i`.
fn action_end(bytes: &[u8], mut i: usize) -> usize {
    let n = bytes.len();
    while i < n {
        match bytes[i] {
            b'}' if bytes.get(i + 1) == Some(&b'}') => return i + 2,
            b'"' | b'\'' => {
                let q = bytes[i];
                i += 1;
                while i < n && bytes[i] != q && bytes[i] != b'\n' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
            }
            b'`' => {
                i += 1;
                while i < n && bytes[i] != b'`' {
                    i += 1;
                }
                i += 1;
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                i = memchr::memmem::find(&bytes[i + 2..], b"*/").map_or(n, |p| i + 2 + p + 2);
            }
            _ => i += 1,
        }
    }
    n
}

/// Whether an action's body (between the braces) prints nothing.
fn is_control(inner: &str) -> bool {
    let body = inner.strip_prefix('-').unwrap_or(inner).trim_start();
    if body.starts_with("/*") {
        return true;
    }
    let word: String = body
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '$' || *c == '_')
        .collect();
    if CONTROL.contains(&word.as_str()) {
        return true;
    }
    // `$x := …`, `$x = …`: an assignment prints nothing.
    word.starts_with('$') && {
        let rest = body[word.len()..].trim_start();
        rest.starts_with(":=") || (rest.starts_with('=') && !rest.starts_with("=="))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn n(text: &str) -> Neutralised {
        let out = neutralise(text).unwrap();
        assert_eq!(out.text.len(), text.len());
        out
    }

    #[test]
    fn control_lines_become_blank_and_values_placeholders() {
        let text = "{{- if .Values.enabled }}\napiVersion: v1\nmetadata:\n  name: {{ include \"x.fullname\" . }}-redis\n  labels: {{- include \"x.labels\" . | nindent 4 }}\n{{- end }}\n";
        let out = n(text);
        let lines: Vec<&str> = out.text.lines().collect();
        assert_eq!(lines[0].trim(), "");
        assert_eq!(lines[1], "apiVersion: v1");
        assert!(lines[3].starts_with("  name: ____"), "{}", lines[3]);
        assert!(lines[3].ends_with("_-redis"));
        assert!(lines[4].starts_with("  labels: ___"));
        assert_eq!(lines[5].trim(), "");
        assert_eq!(out.holes.len(), 2);
        let h = out.holes[0];
        assert_eq!(&text[h.start..h.end], "{{ include \"x.fullname\" . }}");
    }

    #[test]
    fn an_action_that_opens_a_mapping_continued_below_stands_for_nothing() {
        let text = "metadata:\n  labels: {{- include \"x.labels\" . | nindent 4 }}\n    # kept\n    app: api\n  name: {{ .Release.Name }}\n";
        let out = n(text);
        assert_eq!(out.text.lines().nth(1).unwrap().trim_end(), "  labels:");
        assert!(out.text.lines().nth(4).unwrap().starts_with("  name: ___"));
        assert_eq!(out.holes.len(), 1);
    }

    #[test]
    fn value_actions_alone_on_a_line_are_blank_too() {
        let text = "spec:\n  {{- toYaml .Values.spec | nindent 2 }}\n  replicas: 1\n";
        let out = n(text);
        assert_eq!(out.text.lines().nth(1).unwrap().trim(), "");
        assert!(out.holes.is_empty());
    }

    #[test]
    fn braces_inside_strings_and_comments_do_not_end_an_action() {
        let text = "a: {{ printf \"}}%s\" .x }}\n{{/* a }} comment\nover lines */}}\nb: 1\n";
        let out = n(text);
        let lines: Vec<&str> = out.text.lines().collect();
        assert_eq!(lines[0], format!("a: {}", "_".repeat(22)));
        assert_eq!(lines[1].trim(), "");
        assert_eq!(lines[2].trim(), "");
        assert_eq!(lines[3], "b: 1");
    }

    #[test]
    fn multi_line_actions_keep_their_newlines() {
        let text = "data: {{ include \"x\" (dict\n  \"a\" 1) }}\nb: 1\n";
        let out = n(text);
        assert_eq!(out.text.matches('\n').count(), 3);
        assert!(out.text.lines().nth(1).unwrap().trim().is_empty());
    }

    #[test]
    fn values_files_with_quoted_actions_are_not_templates() {
        assert!(!is_template("name: \"{{ .Release.Name }}-redis\"\n"));
        assert!(is_template("{{- if .Values.x }}\na: 1\n{{- end }}\n"));
        assert!(is_template("a:\n  {{ include \"x\" . }}\n"));
        assert!(!is_template("a: 1\n"));
    }

    #[test]
    fn unclosed_action_runs_to_the_end_without_panicking() {
        let text = "a: 1\nb: {{ .Values.x\nc: 2\n";
        let out = n(text);
        assert!(out.text.starts_with("a: 1\nb: ___"));
        for i in 0..text.len() {
            let _ = neutralise(&text[..i]);
            let _ = is_template(&text[..i]);
        }
    }

    #[test]
    fn assignments_and_comments_are_control() {
        assert!(is_control(" $x := 1 "));
        assert!(is_control("- /* c */ -"));
        assert!(is_control("- end "));
        assert!(!is_control(" $x "));
        assert!(!is_control(" include \"a\" . "));
    }

    #[test]
    fn a_fault_among_literal_lines_is_told_from_one_next_to_an_action() {
        let text =
            "spec:\n  containers:\n    - name: redis\n   image: redis\n    ports: []\n{{- end }}\n";
        let at = text.find("   image").unwrap_or(0) + 3;
        assert!(literal_around(text, at));
        let near = "spec:\n  containers:\n    - name: redis\n   image: {{ .Values.image }}\n    ports: []\n";
        let at = near.find("   image").unwrap_or(0) + 3;
        assert!(!literal_around(near, at));
        let last = "a:\n  - b\n c: 1\n{{- end }}\n";
        assert!(!literal_around(last, last.find(" c:").unwrap_or(0)));
        // A named template's body is rendered elsewhere, often not as YAML.
        let named = "{{- define \"x.conf\" -}}\ntls {\n  ca: /a\n  key: /b\n}\n{{- end }}\n";
        assert!(!literal_around(named, named.find("  key").unwrap_or(0)));
    }
}
