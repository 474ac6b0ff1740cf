//! Header reads and writes: the strings that may name a header, and where
//! each was found (read, written, a configuration key, certainly a header
//! name, a mere mention).

use crate::source::Span;

/// Where a string that may name a header was found, which tells the header
/// rule whether the code reads it, writes it, or only mentions it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StrRole {
    /// An argument of a lookup: `headers().get(..)`, `contains_key(..)`, `req.header(..)` in a read position.
    Read,
    /// An argument of a write: `insert(..)`, `append(..)`, `.header(name, value)` on a builder.
    Write,
    /// A key in a config file (YAML/TOML/JSON/.env).
    ConfKey,
    /// Certainly a header name, direction unknown: `HeaderName::from_static(..)`,
    /// a key or value under a config path that speaks of headers
    /// (`request_headers_to_add`, `headers: - name: ..`).
    HeaderName,
    /// Anything else: a constant's value, a config value, a literal elsewhere.
    Mention,
}

/// A string literal, config key or config value that the header rule inspects.
#[derive(Debug, Clone)]
pub struct StrLit {
    /// The decoded value.
    pub value: String,
    /// Span of the value's text in the file (inside the quotes).
    pub span: Span,
    pub role: StrRole,
}
