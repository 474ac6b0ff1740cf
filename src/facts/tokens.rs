//! Tokens: the records of used token ids (`jti`) with how their expiry is
//! written, and the validation leeways code sets.

use crate::source::Span;

/// How a used-token record's expiry is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExpiryForm {
    /// The token's `exp`, nothing added.
    TokenExp,
    /// A time counted from now (`Utc::now() + d`), `exp` not read.
    FromNow,
}

#[derive(Debug, Clone)]
pub struct TokenExpiry {
    /// The expiry argument or field value.
    pub span: Span,
    pub form: ExpiryForm,
    /// The record's type (`NewUsedJti`).
    pub record: String,
}

/// A validation leeway set in code (`validation.leeway = 60`).
#[derive(Debug, Clone)]
pub struct Leeway {
    pub span: Span,
    /// Set to a literal `0`: no token is accepted past its `exp`.
    pub zero: bool,
}

#[derive(Debug, Clone, Default)]
pub struct TokenFacts {
    pub expiries: Vec<TokenExpiry>,
    pub leeways: Vec<Leeway>,
}
