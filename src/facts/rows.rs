//! Rows as code maps and reads them: the struct fields an ORM maps to a
//! table's columns (bun's `bun:"table:logs"` model and its `bun:"col"`
//! fields), what code puts in and compares of such a field, the functions
//! that compute a fingerprint, and the columns a query chain filters a
//! table by (`Where("idempotency_key = ?", k)`). The model joins them with
//! the schema: a store's fingerprint column that code never fills or never
//! compares, a key lookup that leaves out the owner.

use crate::source::Span;

/// What one file's code says of rows.
#[derive(Debug, Clone, Default)]
pub struct RowFacts {
    pub columns: Vec<FieldColumn>,
    pub assigns: Vec<FieldAssign>,
    pub compares: Vec<FieldCompare>,
    pub digests: Vec<DigestFn>,
    pub lookups: Vec<RowLookup>,
}

impl RowFacts {
    pub fn is_empty(&self) -> bool {
        self.columns.is_empty()
            && self.assigns.is_empty()
            && self.compares.is_empty()
            && self.digests.is_empty()
            && self.lookups.is_empty()
    }
}

/// A struct field mapped to a column of a named table (`IdempotencyHash
/// string `bun:"idempotency_hash"`` in a struct whose `bun.BaseModel` says
/// `table:logs`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldColumn {
    /// The table, lower-cased, without schema or quotes.
    pub table: String,
    pub field: String,
    pub column: String,
    /// The field's declaration.
    pub span: Span,
}

/// What is put in a field: `x.F = v` or `F: v` in a composite literal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldAssign {
    pub field: String,
    pub value: Assigned,
    /// The assignment or the keyed element.
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Assigned {
    /// `""`, `nil`, `[]byte{}`, `[]byte(nil)`: nothing.
    Empty,
    /// The result of a call, by the called function's last name
    /// (`ledger.ComputeHash(in)` → `ComputeHash`).
    Call(String),
    /// Anything else (a binding, a field).
    Other,
}

/// A field compared with a value that is not a literal: `a.F != b`,
/// `bytes.Equal(a.F, b)`, `subtle.ConstantTimeCompare(a.F, b)`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldCompare {
    pub field: String,
    pub span: Span,
}

/// A function named for a fingerprint (`ComputeIdempotencyHash`) that takes
/// named parameters, and whether its body reads any of them: one that reads
/// none returns the same value for every request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DigestFn {
    pub name: String,
    pub reads_params: bool,
    /// The function's name.
    pub span: Span,
}

/// A query chain that names a table and filters it by columns
/// (`db.NewSelect().ModelTableExpr("logs").Where("idempotency_key = ?", k)`),
/// kept when a filtered column names a key (`[guard_column]`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RowLookup {
    /// Lower-cased, without schema or quotes.
    pub table: String,
    /// The filtered columns, lower-cased.
    pub columns: Vec<String>,
    /// The whole chain.
    pub span: Span,
}
