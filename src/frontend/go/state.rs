//! The state of one walk over a Go function ([`Walk`]), which the readers
//! of its calls, keys and fresh keys share: the walk (`walk.rs`) drives
//! them, and they read this state, not the walk.

use super::consts::Consts;
use super::syntax::{args, bare, string_value, text};
use crate::facts::flow::{FreshKey, Step};
use crate::facts::keys::KeySource;
use crate::facts::retry::FreshSend;
pub(super) use crate::frontend::key_writes::KeyWrite;
use crate::source::Span;
use std::collections::HashMap;
use tree_sitter::Node;

/// What the walks of one file share.
pub(super) struct File<'s> {
    pub src: &'s str,
    pub consts: &'s Consts,
    /// Import alias (the last element of the path unless renamed) → path.
    pub imports: HashMap<String, String>,
}

impl File<'_> {
    /// The file imports go-redis (v8/v9 or the old `go-redis/redis`).
    pub fn imports_redis(&self) -> bool {
        self.imports.values().any(|p| p.contains("go-redis"))
    }
}

/// What a function's binding holds, as far as the passes go.
#[derive(Debug, Clone, Default)]
pub(super) struct Local {
    pub prefix: Option<String>,
    pub source: Option<KeySource>,
    /// A verified webhook event: names around its verification.
    pub event: Option<Vec<String>>,
    /// Its type as written, when the declaration says.
    pub ty: Option<String>,
    /// Bound to a fresh key (`uuid.NewString()`): where, as written, and
    /// the depth of retry scopes it was made at (0: none).
    pub fresh: Option<(Span, String, usize)>,
    /// Beside the fresh part, the input the key is for (`pi.Reference` in
    /// `fmt.Sprintf("%s-%d", pi.Reference, time.Now().UnixNano())`).
    pub fresh_from: Option<String>,
}

/// The walk of one function.
pub(super) struct Walk<'a, 's> {
    pub file: &'a File<'s>,
    pub fn_name: String,
    /// The function's name, where the model finds its trace.
    pub fn_span: Span,
    pub locals: HashMap<String, Local>,
    pub steps: Vec<Step>,
    pub branch: Vec<(u32, u32)>,
    pub next_site: u32,
    pub exits: Vec<u32>,
    pub next_exit: u32,
    /// Loops and retried closures around the walk: (span, what).
    pub scopes: Vec<(Span, String)>,
    pub writes: Vec<KeyWrite>,
    pub fresh: Vec<FreshKey>,
    /// Keys made fresh where nothing in sight runs them again: on each
    /// call of the function, beside its input or alone.
    pub sends: Vec<FreshSend>,
    /// Inside `if` arms whose test reads the key (`if key == ""`): a key
    /// made there is a default for a caller that gave none.
    pub defaulting: usize,
    /// Names of function literals a retry wrapper of this function is
    /// given (`op := func() error {..}; backoff.Retry(op, b)`), with the
    /// wrapper's span and name.
    pub retried: HashMap<String, (Span, String)>,
}

/// Deepest statement nesting walked.
pub(super) const MAX_DEPTH: usize = 200;

/// Methods of database/sql, sqlx and pgx that send a statement given as
/// one of their arguments.
pub(super) const SQL_METHODS: &[&str] = &[
    "Exec",
    "ExecContext",
    "Query",
    "QueryContext",
    "QueryRow",
    "QueryRowContext",
    "QueryRowx",
    "QueryRowxContext",
    "Queryx",
    "QueryxContext",
    "Get",
    "GetContext",
    "Select",
    "SelectContext",
    "NamedExec",
    "NamedExecContext",
    "MustExec",
    "MustExecContext",
    "Prepare",
    "PrepareContext",
    "Raw",
];

/// Methods that begin a transaction (database/sql, sqlx, pgx).
pub(super) const TX_BEGIN: &[&str] = &["Begin", "BeginTx", "Beginx", "BeginTxx"];

/// The SQL a call sends, when one of its arguments is a statement (a
/// literal or a constant of the file, sqlc's generated queries).
pub(super) fn sql_of(w: &Walk, call: Node, method: &str) -> Option<String> {
    if !SQL_METHODS.contains(&method) {
        return None;
    }
    args(call).into_iter().find_map(|a| {
        let a = bare(a);
        let s = string_value(a, w.src()).or_else(|| match a.kind() {
            "identifier" => w.file.consts.strings.get(text(a, w.src())).cloned(),
            _ => None,
        })?;
        looks_like_sql(&s).then_some(s)
    })
}

fn looks_like_sql(s: &str) -> bool {
    let u = s.to_ascii_uppercase();
    ["SELECT ", "INSERT ", "UPDATE ", "DELETE ", "WITH "]
        .iter()
        .any(|v| u.contains(v))
}

pub(super) fn is_tx_begin(method: &str) -> bool {
    TX_BEGIN.contains(&method)
}
