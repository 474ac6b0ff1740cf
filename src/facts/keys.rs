//! Key derivations: how code builds an idempotency key or a store's key
//! (a format and what fills each placeholder), keys derived from an
//! idempotency header or a provider event's identity, and keys built
//! without the owner or caller at hand.

use crate::source::Span;

/// A Redis key as code builds it, for `unscoped-idempotency-key`:
/// `format!("idem:{}:{}", merchant_id, key)`, `` `idem:${tenantId}:${key}` ``.
/// Only formats whose prefix names a request-key store are kept.
#[derive(Debug, Clone)]
pub struct KeyFormat {
    /// The format string's text in the file (inside the quotes).
    pub span: Span,
    /// The format as written (`idem:{}:{}`).
    pub text: String,
    /// The literal prefix before the first placeholder (`idem:`).
    pub prefix: String,
    /// The literal text between placeholders.
    pub literals: Vec<String>,
    /// For each placeholder, the identifiers it is built from (a Rust
    /// `let` it names adds what that binding was built from); empty when
    /// unknown.
    pub holes: Vec<Vec<String>>,
    /// Identifiers of the code around it (the enclosing Rust function, or
    /// the lines before the literal elsewhere): which caller is at hand.
    pub around: Vec<String>,
}

/// Where a key comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeySource {
    /// For messages: "the `Idempotency-Key` header", "`event.id`".
    pub what: String,
    /// Names around the source that may name its counterparty (the event's
    /// type as written, its binding, the field), for attribution.
    pub context: Vec<String>,
    /// A provider's event identity (else a client's request key).
    pub event: bool,
}

/// A Redis key prefix (`format!("req-cache:{}", key)`) built from a source.
#[derive(Debug, Clone)]
pub struct DerivedKey {
    pub prefix: String,
    pub span: Span,
    pub source: KeySource,
}

/// A SQL statement that binds a source's value: its table and, when the
/// statement says, the column the value goes to.
#[derive(Debug, Clone)]
pub struct DerivedTable {
    /// Normalised, as `dml` gives it.
    pub table: String,
    pub column: Option<String>,
    /// The bound value.
    pub span: Span,
    pub source: KeySource,
    /// The statement writes the table (else it reads it).
    pub writes: bool,
}

#[derive(Debug, Clone, Default)]
pub struct Derived {
    pub keys: Vec<DerivedKey>,
    pub tables: Vec<DerivedTable>,
}

/// A key format built where an owner's binding is at hand and unused.
#[derive(Debug, Clone)]
pub struct OwnerlessKey {
    /// The format string inside its quotes.
    pub span: Span,
    /// The format as written (`mid_{}_pid_{}`).
    pub text: String,
    /// The owner binding left out (`merchant_id`).
    pub owner: String,
    /// Its file is one the prefilter holds back (read late):
    /// judged only in a run that reads such files.
    pub late: bool,
}

#[derive(Debug, Clone)]
pub struct DroppedCaller {
    /// The caller's parameter or binding.
    pub span: Span,
    pub name: String,
    /// The function that builds the key.
    pub function: String,
    pub function_span: Span,
    /// "a parameter" or "read from the `Authorization` header".
    pub how: String,
    /// Used elsewhere in the function (checked, logged), only not in the
    /// key.
    pub used: bool,
}
