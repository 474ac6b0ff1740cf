//! Calls and traces: each function of the code as a trace of steps in
//! source order (a statement sent to a table, a Redis command on a key, a
//! transaction begun or ended, a call that may send a request), with the
//! branches and exits each step sits in, plus the imports and record types
//! the model needs to resolve a call to a function of the project. The
//! flow rules judge these traces; which call is an effect is decided from
//! the catalogues (`rules/effects.toml`) over [`CallSite::shape`].

use crate::facts::store::Dml;
use crate::knowledge::{CallShape, Name};
use crate::source::Span;
use thin_vec::ThinVec;

/// What the flow reader found in one file.
#[derive(Debug, Default, Clone)]
pub struct FlowFacts {
    pub functions: Vec<FnTrace>,
    pub uses: Vec<Import>,
    pub structs: Vec<TypeDef>,
    pub fresh_keys: Vec<FreshKey>,
}

/// `use a::b::c as d;` inside `module`: `d` stands for `a::b::c`. A glob
/// (`use a::b::*`) has the alias `*`.
#[derive(Debug, Clone)]
pub struct Import {
    pub module: Vec<String>,
    pub alias: String,
    pub path: Vec<String>,
    /// A TypeScript import's module specifier as written and the name it
    /// imports, which the model maps through the project's `tsconfig`
    /// `paths`; `None` for Rust.
    pub spec: Option<ImportSpec>,
}

/// `import { charge } from "~/services/pay.server"`: the specifier as
/// written and the imported name (`None` for `import * as pay`).
#[derive(Debug, Clone)]
pub struct ImportSpec {
    pub text: String,
    pub name: Option<String>,
}

#[derive(Debug, Clone)]
pub struct TypeDef {
    pub module: Vec<String>,
    pub name: String,
    /// Field name and its type as written.
    pub fields: Vec<(String, String)>,
    /// Generic parameters and the traits bounding them
    /// (`struct Service<G: PaymentGateway>`).
    pub bounds: Vec<(String, Vec<String>)>,
}

/// A function, method, or trait method with a body.
#[derive(Debug, Clone)]
pub struct FnTrace {
    pub name: String,
    /// Inline `mod` path inside the file.
    pub module: Vec<String>,
    /// The `impl` type of a method (last segment).
    pub owner: Option<String>,
    /// The trait of an `impl Trait for Type` method (last segment).
    pub trait_of: Option<String>,
    /// Generic parameters in scope (the impl's and the function's) and
    /// the traits bounding them, from `<G: Trait>` and `where` clauses.
    pub bounds: Vec<(String, Vec<String>)>,
    /// The function's name in the file.
    pub span: Span,
    /// Parameters other than `self`: name and type as written.
    pub params: Vec<(String, String)>,
    /// The function's trace: its steps.
    pub events: Vec<Step>,
    /// Where the order of steps cannot be established (a macro the reader
    /// cannot see into, concurrent `join!`/`select!`): rules skip it.
    pub opaque: Option<Span>,
    pub test: bool,
    /// Named for a conditional set (`set_if_not_exists`, `setnx`) yet its
    /// Redis `SET` has no `NX`: where it sets.
    pub unconditional_set: Option<Span>,
    /// A Redis `SET` without `NX` that the code takes for a claim.
    pub plain_claim: Option<PlainClaim>,
    /// Named for a conditional set, yet it checks the key and takes the
    /// lock it inserts under only after the check: (check, lock, insert).
    pub unlocked_check: Option<(Span, Span, Span)>,
    /// Conditional sets through a cache abstraction (Redis steps of
    /// `events`, by span) and what says whether each claim holds: kept
    /// beside the steps, which stay small.
    pub claims: Vec<(Span, Claim)>,
    /// Written in TypeScript or JavaScript: effect patterns of one language
    /// (`rules/effects.toml`'s `language`) match only its calls.
    pub script: bool,
}

/// One step of a function's trace: a statement, a Redis command, a
/// transaction's start or end, or a call.
#[derive(Debug, Clone)]
pub struct Step {
    pub span: Span,
    pub kind: StepKind,
    /// Branches the step sits in: (branch site, arm). Two steps in
    /// different arms of one site never both run.
    pub branch: ThinVec<(u32, u32)>,
    /// Blocks the step sits in that leave the function or loop (`return`,
    /// `break`, `let … else`): what runs in them precedes nothing after them.
    pub exits: ThinVec<u32>,
    /// Inside an `Ok(..)` arm, `if let Ok`, an `is_ok()`/`is_success()`
    /// guard, or a `.map`/`.and_then` closure: runs only on success.
    pub success_only: bool,
    /// A call whose result is awaited (`x.charge(..).await`).
    pub awaited: bool,
}

#[derive(Debug, Clone)]
pub enum StepKind {
    Sql {
        dml: Dml,
        /// The executor's name (`tx`, `pool`, `conn`), when it is a plain name.
        conn: Option<String>,
    },
    Redis {
        op: RedisOp,
        key: RedisKey,
        conn: Option<String>,
    },
    TxBegin {
        var: Option<String>,
    },
    TxEnd {
        var: Option<String>,
        commit: bool,
    },
    Call(CallSite),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RedisOp {
    Get,
    Exists,
    Set,
    SetNx,
    Del,
    Expire,
}

/// A conditional set taken as a claim (`cache.set_if_not_exists(&key,
/// &Start, lock_ttl())`): what the model needs to tell whether it holds
/// until the record replaces it.
#[derive(Debug, Clone, Default)]
pub struct Claim {
    /// The claim's expiry as written, folded in the model (where a
    /// `const fn lock_ttl()` of another file is known), and its span.
    pub ttl: Option<(crate::facts::retention::ConstExpr, Span)>,
    /// The answer is dropped (`matches!(.., Ok(_))`, `.is_ok()`, `let _ =`,
    /// `if let Ok(won) = ..` with `won` never used): where.
    pub dropped: Option<Span>,
    /// Taken on a store made for this one call (`memory::new()`): the
    /// constructor's span and path.
    pub fresh_store: Option<(Span, String)>,
}

/// A Redis `SET` without `NX` taken for a claim: its answer decides
/// (`if (!ok) return`, `return result === "OK"`), or it runs where a test
/// asks for a set only if absent (`if (ifNotExists)`). Its answer is
/// always `OK`: every caller wins.
#[derive(Debug, Clone, Copy)]
pub struct PlainClaim {
    pub set: Span,
    /// The read of its answer, or the test that asks for a conditional set.
    pub by: Span,
    /// `by` reads the answer (else it is the test).
    pub answer: bool,
}

/// A Redis key as written: its literal prefix, and the expression's text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RedisKey {
    pub prefix: Option<String>,
    /// Boxed: a step stays within its size (see `a_step_stays_small`).
    pub text: Box<str>,
    /// Built from an idempotency header or a provider event's identity
    /// (set by `key_source::apply` after the walk): a store whatever its
    /// prefix.
    pub derived: bool,
    /// Built from the value of an idempotency request header (any name of
    /// `rules/headers.toml`), directly or through bindings, as the walk saw
    /// it in this function.
    pub from_header: bool,
    /// A conditional set whose answer decides what runs after it (`if
    /// (!ok) return`, `if (won) { append }`): the claim of that work.
    pub decides: bool,
}

/// A call the model may match against the effect catalogue or resolve to a
/// function of the crate.
///
/// Every call of a parsed file is one, so it is kept small: names inline
/// ([`Name`]) and lists that are one pointer when empty ([`ThinVec`]).
#[derive(Debug, Clone, Default)]
pub struct CallSite {
    /// The called path of a function call (`stripe::Charge::create`).
    pub path: ThinVec<Name>,
    /// The method of a method call.
    pub method: Option<Name>,
    /// The chain's root as a path (`self.inner` → `self`, `inner`).
    pub receiver: ThinVec<Name>,
    /// The type of the receiver path's root (not `self`) when a parameter or
    /// binding tells it; the model follows the path's fields from there.
    pub recv_type: Option<Name>,
    /// Methods called earlier in the chain and the root call's path.
    pub chain: ThinVec<Name>,
    /// Path segments named in the arguments (`FutureRecord`).
    pub args: ThinVec<Name>,
    /// The plain name each argument starts from (`&mut *tx` → `tx`).
    pub arg_roots: ThinVec<Option<Name>>,
}

impl CallSite {
    pub fn shape(&self) -> CallShape<'_> {
        CallShape {
            path: &self.path,
            method: self.method.as_deref(),
            receiver_last: self.receiver.last().map(Name::as_str),
            chain: &self.chain,
            args: &self.args,
            script: false,
        }
    }
}

/// A key made fresh inside a retry and sent as the idempotency key there.
#[derive(Debug, Clone)]
pub struct FreshKey {
    pub generator: Span,
    /// `Uuid::new_v4()`.
    pub what: String,
    /// The loop keyword or the retrying call.
    pub scope: Span,
    pub scope_what: String,
    /// Where the key is sent.
    pub sent: Span,
    pub how: String,
}
