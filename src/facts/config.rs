//! Configuration documents: the flattened tree every configuration front
//! end (YAML, JSON, TOML, `.env`) produces, one entry per node with its
//! whole key path and spans, so that the model matches on paths without
//! knowing the syntax. Besides the types, two pure helpers over them: a
//! path written as `a.b[0].c` ([`dotted`]) and a scalar's span without its
//! quotes ([`content_span`]), which the front ends and the model both use.

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
