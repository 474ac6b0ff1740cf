//! The flattened tree shared by the YAML, JSON, TOML and `.env` front ends:
//! one entry per node with its full key path and spans. Consumers (header,
//! retention, eviction extraction) match on paths without knowing the syntax.

use crate::source::Span;

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum PathSeg {
    Key(Key),
    Index(usize),
}

/// A key of a path. Every entry holds its whole path, so a key is shared
/// (reference-counted) by the paths of all the entries under it rather than
/// copied into each: in a deep OpenAPI or typedoc file that was most of the
/// tree's memory and of its building time.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Key(std::sync::Arc<str>);

impl Key {
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The address of the shared text: the same for every path that holds
    /// this key, and not reused while any clone of it lives.
    pub fn id(&self) -> usize {
        std::sync::Arc::as_ptr(&self.0) as *const u8 as usize
    }
}

impl std::ops::Deref for Key {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for Key {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(&*self.0, f)
    }
}

impl std::fmt::Display for Key {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<&str> for Key {
    fn from(s: &str) -> Self {
        Key(s.into())
    }
}

impl From<String> for Key {
    fn from(s: String) -> Self {
        Key(s.into())
    }
}

impl PartialEq<str> for Key {
    fn eq(&self, other: &str) -> bool {
        &*self.0 == other
    }
}

impl PartialEq<&str> for Key {
    fn eq(&self, other: &&str) -> bool {
        &*self.0 == *other
    }
}

impl std::fmt::Display for PathSeg {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PathSeg::Key(k) => f.write_str(k),
            PathSeg::Index(i) => write!(f, "[{i}]"),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScalarStyle {
    Plain,
    SingleQuoted,
    DoubleQuoted,
    /// `|` block scalar: its lines are the file's lines, indented.
    Literal,
    /// `>` block scalar.
    Folded,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConfValue {
    Scalar {
        text: String,
        style: ScalarStyle,
    },
    Map,
    Seq,
    /// A YAML alias: never expanded (no alias bombs).
    Alias,
}

#[derive(Debug, Clone)]
pub struct ConfEntry {
    /// YAML document index within a multi-document stream (0 elsewhere).
    pub doc: usize,
    pub path: Vec<PathSeg>,
    /// Span of the last key when this node is a mapping value.
    pub key_span: Option<Span>,
    pub value: ConfValue,
    /// For a scalar, its text in the file (quotes included); for a container,
    /// its opening position.
    pub value_span: Span,
    /// A YAML tag such as `!Ref` (CloudFormation), without the value.
    pub tag: Option<String>,
}

impl ConfEntry {
    pub fn key(&self) -> Option<&str> {
        match self.path.last() {
            Some(PathSeg::Key(k)) => Some(k),
            _ => None,
        }
    }

    /// The path of the node that holds this one (empty for a top-level node).
    pub fn parent(&self) -> &[PathSeg] {
        self.path.split_last().map_or(&[], |(_, parent)| parent)
    }

    pub fn scalar(&self) -> Option<&str> {
        match &self.value {
            ConfValue::Scalar { text, .. } => Some(text),
            _ => None,
        }
    }

    /// The path as `a.b[0].c`.
    pub fn dotted(&self) -> String {
        dotted(&self.path)
    }

    /// The path of the node that holds this one, as `a.b[0]`.
    pub fn parent_dotted(&self) -> String {
        dotted(self.parent())
    }
}

/// A key path as `a.b[0].c`.
pub fn dotted(path: &[PathSeg]) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    for seg in path {
        match seg {
            PathSeg::Key(k) => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(k);
            }
            PathSeg::Index(i) => {
                let _ = write!(out, "[{i}]");
            }
        }
    }
    out
}

#[derive(Debug, Clone, Default)]
pub struct ConfDoc {
    pub entries: Vec<ConfEntry>,
}

/// Span of a scalar's content: inside the quotes when it is quoted and the
/// text between them matches the decoded value's length.
pub fn content_span(source: &str, span: Span, style: ScalarStyle) -> Span {
    match style {
        ScalarStyle::SingleQuoted | ScalarStyle::DoubleQuoted if span.len() >= 2 => {
            let inner = Span::new(span.start + 1, span.end - 1);
            // Only when the span is the quotes and what they hold.
            match source.get(span.start..span.end) {
                Some(s)
                    if s.len() >= 2
                        && (s.starts_with('"') && s.ends_with('"')
                            || s.starts_with('\'') && s.ends_with('\'')) =>
                {
                    inner
                }
                _ => span,
            }
        }
        _ => span,
    }
}

/// The role of a string under `path` for the header rule: a config path with
/// a segment that speaks of headers (`request_headers_to_add`, `headers`,
/// `idempotency_header`) holds header names; one that adds or sets them
/// (`request_headers_to_add`, `add_headers`) writes them. Elsewhere a string is
/// only a mention (`idempotency_key: true` is a setting, not a header).
pub fn header_role(path: &[PathSeg]) -> Option<crate::frontend::StrRole> {
    use crate::frontend::StrRole;
    // NOTE: `headers` of a table, a CSV export or a translation file are
    // column titles (`en.payments.table.headers.idempotency_key`,
    // `csv.headers: [Idempotency_Key, Amount]`), not HTTP headers.
    if not_http(path) {
        return None;
    }
    let mut role = None;
    for k in keys(path) {
        if mentions(k, "header") {
            let writes = ["add", "set", "append"].iter().any(|w| mentions(k, w));
            role = Some(if writes {
                StrRole::Write
            } else {
                role.unwrap_or(StrRole::HeaderName)
            });
        }
    }
    role
}

/// The keys of a path (its indexes left out).
fn keys(path: &[PathSeg]) -> impl Iterator<Item = &str> + '_ {
    path.iter().filter_map(|s| match s {
        PathSeg::Key(k) => Some(k.as_str()),
        PathSeg::Index(_) => None,
    })
}

fn mentions(key: &str, word: &str) -> bool {
    crate::knowledge::contains_ignore_ascii_case(key, word)
}

/// A translation file, or a table, CSV export or report.
fn not_http(path: &[PathSeg]) -> bool {
    keys(path).next().is_some_and(is_locale)
        || keys(path).any(|k| NOT_HTTP.iter().any(|w| k.eq_ignore_ascii_case(w)))
}

/// Whether strings under `path` are column titles (`csv.headers:
/// [Idempotency_Key, Amount]`): they are not header names in any spelling,
/// so the header rule never sees them.
pub fn column_titles(path: &[PathSeg]) -> bool {
    not_http(path) && keys(path).any(|k| mentions(k, "header"))
}

/// Path words under which `headers` are column titles, not HTTP headers.
const NOT_HTTP: &[&str] = &[
    "csv",
    "table",
    "tables",
    "columns",
    "export",
    "exports",
    "report",
    "reports",
    "spreadsheet",
    "grid",
];

/// A translation file's top key: `en`, `de`, `pt-BR`, `zh_Hant`.
fn is_locale(k: &str) -> bool {
    const LANGS: &[&str] = &[
        "en", "de", "fr", "es", "it", "nl", "pt", "ja", "zh", "ko", "ru", "pl", "sv", "da", "fi",
        "nb", "tr", "cs", "ar", "he", "uk", "el", "hu", "ro", "id", "th", "vi",
    ];
    let lang = k.split(['-', '_']).next().unwrap_or(k);
    k.len() <= 7 && LANGS.iter().any(|l| lang.eq_ignore_ascii_case(l))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_of_a_csv_export_are_column_titles_not_header_names() {
        assert!(column_titles(&[
            PathSeg::Key("exports".into()),
            PathSeg::Key("csv".into()),
            PathSeg::Key("headers".into())
        ]));
        assert!(column_titles(&[
            PathSeg::Key("en".into()),
            PathSeg::Key("payments".into()),
            PathSeg::Key("table".into()),
            PathSeg::Key("headers".into())
        ]));
        assert!(!column_titles(&[
            PathSeg::Key("envoy".into()),
            PathSeg::Key("request_headers_to_add".into())
        ]));
        assert!(!column_titles(&[
            PathSeg::Key("exports".into()),
            PathSeg::Key("csv".into()),
            PathSeg::Key("delimiter".into())
        ]));
    }
}
