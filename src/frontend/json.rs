//! JSON front end: JSON is read by the YAML tree builder (JSON is YAML 1.2
//! flow syntax), so CloudFormation templates and app configs share one tree
//! shape. JSON with comments and trailing commas (`tsconfig*.json`,
//! `turbo.json`, `.vscode/*.json`, `devcontainer.json`, `.jsonc`, `.json5`)
//! is read as such: comments and trailing commas are blanked in place, so
//! every span stays exact. A file that still does not read is judged by
//! serde_json, whose words name the fault in JSON's terms.

use super::json_reader;
use super::yaml::{self, Stop};
use crate::facts::config::ConfDoc;
use crate::facts::{FileFacts, Problem};
use std::io::Read;

pub fn parse(text: &str, facts: &mut FileFacts) {
    if let Some(p) = yaml::too_big(text) {
        facts.problems.push(p);
        facts.conf = Some(Default::default());
        return;
    }
    let (prepared, (doc, stop)) = match read_whole(text) {
        // Strict JSON, read to its end, has no comment or trailing comma to
        // blank, and a tab only between tokens, where the reader took it
        // for the space `prepare` makes of it.
        Some(doc) if text.contains('\t') => (
            std::borrow::Cow::Owned(text.replace('\t', " ")),
            (doc, None),
        ),
        Some(doc) => (std::borrow::Cow::Borrowed(text), (doc, None)),
        None => {
            let prepared = prepare(text);
            let read = read_strict(&prepared).unwrap_or_else(|| yaml::build_once(&prepared));
            (std::borrow::Cow::Owned(prepared), read)
        }
    };
    match stop {
        None => {}
        Some(Stop::Limit(p)) => facts.problems.push(p),
        Some(Stop::Syntax { at, info }) => {
            // The keys open where reading stopped (`idempotency` in
            // `{"idempotency": {"ttl": 3 "x"…`) say what the unread rest
            // belongs to.
            let open = doc.entries.last().map(|e| e.dotted()).unwrap_or_default();
            facts
                .problems
                .push(judge(text, &prepared, at, &info, &open))
        }
    }
    // The prepared text has the same bytes wherever a node is, and no
    // comment after one to be mistaken for its text.
    yaml::push_strings(&prepared, &doc, facts);
    facts.conf = Some(doc);
    super::redis_yaml::extract(&prepared, facts);
}

/// The tree of a strict JSON text by the fast reader, or `None` when the
/// text is not strict JSON (then the YAML parser reads it, as YAML 1.2 flow
/// syntax, and words any fault). On strict JSON both give the same tree,
/// and stop at the same node when the tree builder's node limit is reached.
fn read_strict(prepared: &str) -> Option<(ConfDoc, Option<Stop>)> {
    if !json_reader::may_read(prepared) {
        return None;
    }
    match yaml::build_from_events(prepared, json_reader::JsonEvents::new(prepared)) {
        (doc, None) => Some((doc, None)),
        (doc, Some(Stop::Limit(p))) => Some((doc, Some(Stop::Limit(p)))),
        (_, Some(Stop::Syntax { .. })) => None,
    }
}

/// The tree of a text that is strict JSON to its end (no node limit
/// reached), read as it is.
fn read_whole(text: &str) -> Option<ConfDoc> {
    match read_strict(text)? {
        (doc, None) => Some(doc),
        _ => None,
    }
}

/// The problem for a file the tree builder stopped on at byte `at`.
fn judge(text: &str, prepared: &str, at: usize, info: &str, open: &str) -> Problem {
    // A template of JSON (`"version": {{ version }}`, `{% for %}` blocks)
    // is not JSON, and holds nothing until it is rendered. A marker inside
    // a string (an OpenAPI example's `"{{base_url}}"`) makes no template.
    let template = template_outside_strings(prepared);
    match serde_json::from_str::<serde::de::IgnoredAny>(prepared) {
        Err(e) if e.line() > 0 => {
            let at = offset_of(text, e.line(), e.column());
            let words = e.to_string();
            let words = words.split(" at line ").next().unwrap_or(&words);
            let (what, reported) = if template {
                ("a template of JSON, not JSON", false)
            } else {
                let unread = text.get(line_start(text, at)..).unwrap_or("");
                let matters = crate::prefilter::prefilter(unread.as_bytes())
                    || crate::prefilter::prefilter(open.as_bytes());
                ("invalid JSON", matters)
            };
            Problem {
                span: yaml::error_span(text, at),
                message: what.to_string(),
                reported,
                detail: Some(format!("{words} (line {} column {})", e.line(), e.column())),
            }
        }
        // Valid JSON (or an error serde_json cannot place) that the tree
        // builder refused: a limit of the reader, not a fault of the file.
        _ => Problem {
            span: yaml::error_span(text, at),
            message: format!("JSON the reader could not follow: {info}"),
            reported: false,
            detail: None,
        },
    }
}

/// Whether a template marker (`{{`, `{%`, `<%`, `%}`) stands outside the
/// JSON strings of `text` (comments already blanked).
fn template_outside_strings(text: &str) -> bool {
    let bytes = text.as_bytes();
    let mut in_string = false;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if in_string {
            match b {
                b'\\' => i += 1,
                b'"' => in_string = false,
                _ => {}
            }
        } else {
            let next = bytes.get(i + 1).copied();
            match (b, next) {
                (b'"', _) => in_string = true,
                (b'{', Some(b'{' | b'%')) | (b'<' | b'%', Some(b'%')) | (b'%', Some(b'}')) => {
                    return true;
                }
                _ => {}
            }
        }
        i += 1;
    }
    false
}

/// `text` made readable by the YAML builder, byte for byte the same length
/// with the same line breaks: tabs (JSON white space, refused by YAML),
/// `//` and `/* */` comments and trailing commas become spaces.
fn prepare(text: &str) -> String {
    let mut out = Vec::with_capacity(text.len());
    let stripped = json_comments::CommentSettings::c_style()
        .strip_comments(text.as_bytes())
        .read_to_end(&mut out);
    if stripped.is_err() || out.len() != text.len() {
        // A lone `/` outside a string: not a comment; read the text as it is.
        out = text.as_bytes().to_vec();
    }
    for (o, &b) in out.iter_mut().zip(text.as_bytes()) {
        // A block comment's line breaks stay, so lines keep their numbers.
        if b == b'\n' || b == b'\r' {
            *o = b;
        } else if *o == b'\t' {
            *o = b' ';
        }
    }
    blank_trailing_commas(&mut out);
    // Only ASCII bytes were changed, each into ASCII: still UTF-8.
    String::from_utf8(out).unwrap_or_else(|_| text.replace('\t', " "))
}

/// A `,` followed (past white space) by `]` or `}`, outside strings,
/// becomes a space.
fn blank_trailing_commas(bytes: &mut [u8]) {
    let mut in_string = false;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if in_string {
            match b {
                b'\\' => i += 1,
                b'"' => in_string = false,
                _ => {}
            }
        } else if b == b'"' {
            in_string = true;
        } else if b == b',' {
            let next = bytes[i + 1..]
                .iter()
                .find(|c| !c.is_ascii_whitespace())
                .copied();
            if matches!(next, Some(b']' | b'}')) {
                bytes[i] = b' ';
            }
        }
        i += 1;
    }
}

/// Byte offset of 1-based `line` and `column` (serde_json counts bytes).
fn offset_of(text: &str, line: usize, column: usize) -> usize {
    let start = text
        .split_inclusive('\n')
        .take(line.saturating_sub(1))
        .map(str::len)
        .sum::<usize>();
    crate::source::clamp_to_char_boundary(text, (start + column.saturating_sub(1)).min(text.len()))
}

fn line_start(text: &str, at: usize) -> usize {
    text[..at].rfind('\n').map_or(0, |p| p + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fast reader's tree of a strict JSON text, which must be there,
    /// and the YAML parser's, which must be the same.
    fn same_tree(text: &str) {
        let (fast, _) = read_strict(text).unwrap_or_else(|| panic!("not read fast: {text:?}"));
        // `parse` reads strict JSON as it is, without preparing it: the
        // same text, and with tabs between its tokens the same tree.
        assert_eq!(prepare(text), text, "{text:?}");
        // (A `: ` inside a string becomes a raw tab there, which strict
        // JSON refuses: then there is nothing to compare.)
        let tabbed = text.replace(": ", ":\t").replace(", ", ",\t\t");
        if let Some(with_tabs) = read_whole(&tabbed) {
            let (spaced, _) = read_strict(&tabbed.replace('\t', " ")).unwrap();
            assert_eq!(
                format!("{:?}", with_tabs.entries),
                format!("{:?}", spaced.entries),
                "{tabbed:?}"
            );
        }
        let (slow, stop) = yaml::build_once(text);
        assert!(stop.is_none(), "{text:?}");
        assert_eq!(
            format!("{:?}", fast.entries),
            format!("{:?}", slow.entries),
            "{text:?}"
        );
    }

    #[test]
    fn the_fast_reader_builds_the_yaml_tree_of_strict_json() {
        for text in [
            "{}",
            "[]",
            "  {\"a\": 1}  \n",
            "{\"a\":1,\"b\":[true,false,null,-0.5e+10,0,12.25E-3],\"c\":{}}",
            "{\"openapi\": \"3.0.0\",\r\n \"paths\": {\"/charges\": {\"post\": {\"parameters\": [{\"name\": \"Idempotency-Key\", \"in\": \"header\"}]}}}}",
            "{\"esc\": \"a\\\"b\\\\c\\/d\\n\\t\\u00e9\\u20ac\", \"k\\u0041\": \"\"}",
            "{\"é\": \"ünïcödé ✓\", \"x\": [\"€\", {\"y\": \"z\"}]}",
            "[[[[1]]], [[]], {\"a\": [{}, []]}]",
            "\"top\"",
            "42",
            "{\"a\": {\"b\": {\"c\": {\"d\": 1}}}, \"e\": 2}",
            "{\"dup\": 1, \"dup\": 2}",
            "{\"redis\": {\"url\": \"redis://cache:6379/0\", \"ttl\": 86400}}",
        ] {
            same_tree(text);
        }
    }

    #[test]
    fn the_fast_reader_leaves_what_is_not_strict_json_to_the_yaml_parser() {
        for text in [
            "",
            "   ",
            "{a: 1}",
            "{'a': 1}",
            "{\"a\": 1,}",
            "{\"a\": \"x\ty\"}",
            "\u{feff}{}",
            "{\"a\": 01}",
            "{\"a\": 1.}",
            "{\"a\": .5}",
            "{\"a\": truex}",
            "{\"a\": \"\\ud83d\\ude00\"}",
            "{\"a\": \"line\nbreak\"}",
            "{\"a\": 1} {\"b\": 2}",
            "{\"a\": [1 2]}",
            "[1,]",
            "{\"a\" 1}",
            "{\"a\": 1",
        ] {
            assert!(read_strict(text).is_none(), "{text:?}");
        }
        // A tab between tokens is read as a space.
        let (tabbed, _) = read_strict("{\"a\":\t1}").expect("a tab between tokens");
        let (spaced, _) = read_strict("{\"a\": 1}").unwrap();
        assert_eq!(
            format!("{:?}", tabbed.entries),
            format!("{:?}", spaced.entries)
        );
        // Deep nesting is the YAML path's to report.
        let deep = format!("{}{}", "[".repeat(300), "]".repeat(300));
        assert!(read_strict(&deep).is_none());
        let ok = format!("{}{}", "[".repeat(150), "]".repeat(150));
        same_tree(&ok);
    }

    /// Past the tree builder's node limit both readers stop at the same
    /// node, with the same problem.
    #[test]
    fn the_node_limit_stops_both_readers_at_the_same_node() {
        let text = format!("{{\"a\": [{}]}}", vec!["1"; 260_000].join(","));
        let (fast, fast_stop) = read_strict(&text).expect("read fast");
        let (slow, slow_stop) = yaml::build_once(&text);
        assert!(matches!(fast_stop, Some(Stop::Limit(_))));
        assert_eq!(format!("{fast_stop:?}"), format!("{slow_stop:?}"));
        assert_eq!(fast.entries.len(), slow.entries.len());
        assert_eq!(
            format!("{:?}", fast.entries.last()),
            format!("{:?}", slow.entries.last())
        );
    }

    fn json_value() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        let leaf = prop_oneof![
            Just("null".to_string()),
            any::<bool>().prop_map(|b| b.to_string()),
            any::<i64>().prop_map(|n| n.to_string()),
            (-1.0e9f64..1.0e9).prop_map(|f| format!("{f:e}")),
            "[ -~é€✓]{0,12}".prop_map(|s| serde_json::to_string(&s).unwrap()),
            "[\\x00-\\x1f\"\\\\/]{1,4}".prop_map(|s| serde_json::to_string(&s).unwrap()),
        ];
        leaf.prop_recursive(6, 64, 6, |inner| {
            let blank = prop_oneof![Just(""), Just(" "), Just("\n  "), Just("\r\n")];
            prop_oneof![
                (proptest::collection::vec((inner.clone(), blank.clone()), 0..6)).prop_map(
                    |items| format!(
                        "[{}]",
                        items
                            .into_iter()
                            .map(|(v, b)| format!("{b}{v}"))
                            .collect::<Vec<_>>()
                            .join(",")
                    )
                ),
                (proptest::collection::vec(("[a-zA-Z_é-]{0,8}", inner, blank), 0..6)).prop_map(
                    |items| format!(
                        "{{{}}}",
                        items
                            .into_iter()
                            .map(|(k, v, b)| format!(
                                "{b}{}:{b}{v}",
                                serde_json::to_string(&k).unwrap()
                            ))
                            .collect::<Vec<_>>()
                            .join(",")
                    )
                ),
            ]
        })
    }

    /// The same check on every `.json` file of a tree, for real files:
    /// `IDEMLINT_JSON_TREE=DIR cargo test --release --lib -- --ignored
    /// fast_reader_on_a_tree --nocapture`.
    #[test]
    #[ignore = "needs IDEMLINT_JSON_TREE"]
    fn fast_reader_on_a_tree() {
        let dir = std::env::var("IDEMLINT_JSON_TREE").expect("IDEMLINT_JSON_TREE");
        let (mut fast, mut slow) = (0, 0);
        for e in ignore::WalkBuilder::new(dir)
            .hidden(false)
            .build()
            .flatten()
        {
            if e.path().extension().is_none_or(|x| x != "json") {
                continue;
            }
            let Ok(text) = std::fs::read_to_string(e.path()) else {
                continue;
            };
            if yaml::too_big(&text).is_some() {
                continue;
            }
            let prepared = prepare(&text);
            // Strict JSON read whole needs no preparing but its tabs made
            // spaces, and its tree is that of the prepared text.
            if let Some(raw) = read_whole(&text) {
                assert_eq!(prepared, text.replace('\t', " "), "{}", e.path().display());
                let (doc, _) = read_strict(&prepared).unwrap();
                assert_eq!(
                    format!("{:?}", raw.entries),
                    format!("{:?}", doc.entries),
                    "{}",
                    e.path().display()
                );
            }
            match read_strict(&prepared) {
                Some((doc, fast_stop)) => {
                    fast += 1;
                    let (y, stop) = yaml::build_once(&prepared);
                    assert_eq!(
                        format!("{fast_stop:?}"),
                        format!("{stop:?}"),
                        "{}",
                        e.path().display()
                    );
                    assert_eq!(
                        format!("{:?}", doc.entries),
                        format!("{:?}", y.entries),
                        "{}",
                        e.path().display()
                    );
                }
                None => slow += 1,
            }
        }
        println!("read fast and the same: {fast}; left to the YAML parser: {slow}");
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(512))]
        #[test]
        fn fast_and_yaml_trees_agree(text in json_value()) {
            same_tree(&text);
        }
    }

    fn parsed(text: &str) -> FileFacts {
        let mut facts = FileFacts::default();
        parse(text, &mut facts);
        facts
    }

    /// Read `text`, demand no problem, and check that the string `value`
    /// was found with the exact span of its text.
    fn reads_cleanly_with(text: &str, value: &str) -> FileFacts {
        let facts = parsed(text);
        assert!(facts.problems.is_empty(), "{:?}", facts.problems);
        let s = facts.strings.iter().find(|s| s.value == value).unwrap();
        assert_eq!(&text[s.span.start..s.span.end], value);
        facts
    }

    #[test]
    fn tab_indented_json_parses_with_exact_spans() {
        let text = "{\n\t\"headers\": {\"Idempotency_Key\": \"x\"}\n}\n";
        reads_cleanly_with(text, "Idempotency_Key");
    }

    #[test]
    fn comments_and_trailing_commas_are_read_with_exact_spans() {
        let text = "{\n  // the replay guard's header\n  \"compilerOptions\": {\n    /* paths\n       for é */ \"paths\": {\"@idempotency/*\": [\"src/idempotency/*\",],},\n  },\n  \"header\": \"Idempotency_Key\", // trailing\n}\n";
        let facts = reads_cleanly_with(text, "Idempotency_Key");
        has_quoted_scalar(&facts, text, "src/idempotency/*");
    }

    #[test]
    fn invalid_json_is_named_in_json_terms_at_its_place() {
        let text = "{\n  \"idempotency\": {\"header\": \"Idempotency-Key\" \"ttl\": 3}\n}\n";
        let facts = parsed(text);
        assert_eq!(facts.problems.len(), 1, "{:?}", facts.problems);
        let p = &facts.problems[0];
        assert!(p.reported);
        assert_eq!(p.message, "invalid JSON");
        let detail = p.detail.as_deref().unwrap_or_default();
        assert!(
            detail.starts_with("expected `,` or `}`") && detail.ends_with("(line 2 column 47)"),
            "{detail}"
        );
        assert_eq!(&text[p.span.start..p.span.start + 5], "\"ttl\"");
    }

    #[test]
    fn a_json_template_is_counted_not_reported() {
        let text = "{\n  \"name\": \"idempotency-sdk\",\n  \"version\": \"{{ version }}\",\n{% for v in versions %}\n  \"{{ v }}\": 1,\n{% endfor %}\n}\n";
        let facts = parsed(text);
        assert_eq!(facts.problems.len(), 1);
        assert!(!facts.problems[0].reported);
        assert!(facts.problems[0].message.starts_with("a template of JSON"));
    }

    #[test]
    fn a_lone_slash_outside_strings_leaves_the_text_as_it_is() {
        let text = "{\"url\": \"http://x//idempotency\", \"n\": 1 / 2}";
        let facts = parsed(text);
        assert!(facts.problems.is_empty(), "{:?}", facts.problems);
        has_quoted_scalar(&facts, text, "http://x//idempotency");
    }

    /// The tree holds the quoted string `value`, its span exactly its
    /// quotes and text. (Strings the header rule cannot speak of are kept
    /// in the tree only, not among the file's strings.)
    fn has_quoted_scalar(facts: &FileFacts, text: &str, value: &str) {
        let doc = facts.conf.as_ref().unwrap();
        let e = doc
            .entries
            .iter()
            .find(|e| e.scalar() == Some(value))
            .unwrap_or_else(|| panic!("{value} not in the tree"));
        assert_eq!(
            &text[e.value_span.start..e.value_span.end],
            format!("\"{value}\"")
        );
        assert!(facts.strings.iter().all(|s| s.value != value));
    }

    #[test]
    fn a_template_marker_inside_a_string_makes_no_template() {
        assert!(!template_outside_strings(
            "{\"url\": \"{{base}}/v1\", \"q\": \"a\\\"{%\"}"
        ));
        assert!(template_outside_strings("{\"v\": {{ version }}}"));
        assert!(template_outside_strings(
            "[\n{% for x in xs %}\n1\n{% endfor %}]"
        ));
        let text = "{\n  \"openapi\": \"3.1.0\"\n  \"servers\": [{\"url\": \"{{host}}\"}],\n  \"x-idempotency\": true\n}\n";
        let facts = parsed(text);
        assert_eq!(facts.problems.len(), 1, "{:?}", facts.problems);
        assert_eq!(facts.problems[0].message, "invalid JSON");
        assert!(facts.problems[0].reported);
    }
}
