//! Retries: where a request is retried (a retry wrapper, a loop that
//! sleeps, a job a queue re-runs, a client with a retry middleware), the
//! policy that bounds it as unfolded settings or a library's default, the
//! requests that carry an idempotency key, keys made fresh per attempt, and
//! the project's own policy functions. The model folds the schedules.

use crate::facts::retention::ConstExpr;
use crate::source::Span;

#[derive(Debug, Default, Clone)]
pub struct RetryFacts {
    pub sites: Vec<RetrySite>,
    pub requests: Vec<KeyedRequest>,
    /// Clients built with a retry middleware (`reqwest-retry`).
    pub clients: Vec<RetryClient>,
    /// Keys made fresh and sent as the idempotency key, in the forms
    /// `fresh-key-per-retry` reads beside `flow`'s loops and closures.
    pub fresh: Vec<FreshSend>,
    /// Functions that return a key made fresh (project helpers that mint
    /// one), for the model to resolve the calls of `fresh`.
    pub minters: Vec<Minter>,
    /// Values struct literals give retry-count fields where the caller
    /// leaves them unset (`num_retries: opts.num_retries.unwrap_or(2)`).
    pub field_defaults: Vec<FieldDefault>,
    /// Hosts of the absolute URLs the file writes (`api.example.com`).
    pub hosts: Vec<String>,
    /// Functions that decide a retry's delay from the attempt number.
    pub policy_fns: Vec<PolicyFn>,
}

/// A key made fresh and sent as an idempotency key.
#[derive(Debug, Clone)]
pub struct FreshSend {
    /// The function it is written in (its name's span).
    pub function: Span,
    pub kind: FreshKind,
    pub maker: Maker,
    /// The generator or the helper call.
    pub at: Span,
    /// Where the key is sent.
    pub sent: Span,
    /// `as the `Idempotency-Key` header`.
    pub how: String,
}

#[derive(Debug, Clone)]
pub enum FreshKind {
    /// Inside a body that runs again on each attempt: a loop that sleeps,
    /// an `async` block or closure inside one, a retry wrapper's closure.
    Retried { scope: Span, what: String },
    /// Where a request is built from the operation's data (a conversion
    /// into the request, a header builder of `rules/retry.toml`), with no
    /// retry in sight: each build of the same operation gets a new key.
    Built { function: String, from: String },
    /// Beside parts derived from the input (`msg.partition()`), a part made
    /// fresh: a redelivery of the same input gets another key.
    Mixed { from: String },
    /// In an entry point its sender runs again when a run fails (a QStash
    /// delivery, a Stripe webhook, a cron route), with no retry of its own
    /// in sight: why it is rerun, where the front end sees it in the file
    /// (a signature it verifies); `None` leaves it to the model (the path).
    Redelivered { why: Option<String> },
    /// Made fresh where the same function writes or looks up the same key
    /// from a stable value elsewhere (the key a duplicate is found by): the
    /// fresh one never matches it. The stable value's span.
    Diverges { stable: Span },
    /// Made fresh where nothing in the function runs it again (no loop, no
    /// retry wrapper, no redelivered entry point in sight): the key lets a
    /// client resend this one request (an SDK's network retries reuse it),
    /// but a rerun of the work carries another. Python and Go only: their
    /// front ends say so; a note.
    PerCall,
}

#[derive(Debug, Clone)]
pub enum Maker {
    /// A generator of `rules/effects.toml`, as written.
    Generator(String),
    /// A zero-argument call of a function of the project (`strategy.get_key()`,
    /// `IdempotencyKey::new_uuid_v4()`): a key only if that function mints one.
    Helper { name: String, owner: Option<String> },
}

/// A function with no input but `self` that returns a value made fresh in
/// its body, directly or through another such function.
#[derive(Debug, Clone)]
pub struct Minter {
    pub name: String,
    /// The `impl`'s type.
    pub owner: Option<String>,
    /// The generator written in its body.
    pub direct: Option<String>,
    /// Zero-argument functions its body calls (for a minter through them).
    pub callees: Vec<String>,
}

/// Where a request is retried.
#[derive(Debug, Clone)]
pub struct RetrySite {
    /// The function it is written in (its name's span, as `FnTrace::span`).
    pub function: Span,
    /// The retrying call, the loop keyword, or the job's trait or attribute.
    pub at: Span,
    /// `backoff::future::retry`, `for` loop, fang job `Payout::run`.
    pub what: String,
    /// The retried code: requests and calls in this range run again.
    pub body: Span,
    /// A function passed as the operation (`send.retry(..)`): its path.
    pub op_fn: Option<Vec<String>>,
    pub policy: Policy,
    /// A generator of fresh keys appears in the body: a helper it calls may
    /// be sent a new key per attempt, so only direct requests are judged.
    pub fresh_inside: bool,
    /// Requests of the same function written in this range (before the
    /// loop) are resent too: built once, their key made once.
    pub before: Option<Span>,
    /// The path of a route of the project the site's sender calls again
    /// (a QStash publish's `url`: `/api/cron/payouts`): the handlers of
    /// that route's file, and what they call, are the retried code.
    pub target: Option<String>,
}

/// A retry policy as written.
#[derive(Debug, Clone)]
pub struct Policy {
    /// The policy expression (or the job's attribute/impl).
    pub span: Span,
    /// The crate whose defaults apply (`backoff`, `backon`, `fang`, …; `loop`
    /// for a hand-written loop).
    pub krate: &'static str,
    pub kind: PolicyKind,
}

#[derive(Debug, Clone)]
#[allow(clippy::large_enum_variant)] // a few per file; boxing buys nothing
pub enum PolicyKind {
    /// Stops once this much time has passed since the first attempt.
    Total(Setting),
    /// Never gives up by itself: why, and where that is written.
    Unbounded(String, Option<Span>),
    /// `times` delays of a series: the first, then × `ratio` each time (1
    /// for a constant delay), each at most `max`; `cap` bounds the total.
    Series {
        shape: Shape,
        first: Setting,
        ratio: Ratio,
        max: Option<Setting>,
        /// `None`: no limit on the number of attempts.
        times: Option<Setting>,
        cap: Option<Setting>,
    },
    /// A policy the reader cannot bound (a variable, a custom strategy).
    Unknown,
    /// Methods the loop passes its attempt counter to (name, the
    /// receiver's type when a parameter gives it): a policy of the project
    /// when one of them is ([`PolicyFn`]); the model resolves it.
    Project(Vec<(String, Option<String>)>),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    Geometric,
    Fibonacci,
    /// The i-th delay is `first × i` (a job table's `interval '…' * attempts`).
    Linear,
}

/// One setting: written in the code, or the crate's default (a setting
/// name of `rules/retry.toml`).
#[derive(Debug, Clone)]
pub enum Setting {
    Written {
        expr: ConstExpr,
        span: Span,
        /// Milliseconds per unit when the value is a bare integer.
        unit_ms: Option<u64>,
    },
    Default(&'static str),
}

#[derive(Debug, Clone)]
pub enum Ratio {
    Float(f64, Span),
    Int(ConstExpr, Span),
    Default(&'static str),
}

/// A request that carries an idempotency key.
#[derive(Debug, Clone)]
pub struct KeyedRequest {
    pub function: Span,
    /// The header call or the SDK option.
    pub at: Span,
    pub header: String,
    /// The key's value as written.
    pub key: Span,
    /// A generator written in place (`Uuid::new_v4()`).
    pub key_fresh_here: bool,
    /// The `let` that binds the key's root name in this function, and
    /// whether it makes it fresh.
    pub key_made: Option<(Span, bool)>,
    /// `POST`, when the builder names it.
    pub method: Option<String>,
    /// The URL's text with the file's constants filled in and other
    /// placeholders as `{}`, where the request builder shows it.
    pub url: Option<String>,
    /// Names in and around the URL (constants, variables, the function):
    /// counterparty hints when there is no host.
    pub url_words: Vec<String>,
    /// The counterparty an SDK option names.
    pub sdk_counterparty: Option<String>,
    /// The client the request is built on: the last name of its path
    /// (`self.http.post(..)` → `http`).
    pub client: Option<String>,
    /// The client is reached through `self` (`self.http`).
    pub client_on_self: bool,
}

impl KeyedRequest {
    /// The requests an SDK's own retries resend under the key it makes for
    /// each (stripe-node's `maxNetworkRetries`, stripe-go's
    /// `MaxNetworkRetries`): `sdk` is the id of its entry in
    /// `rules/retry.toml`'s `[[sdk]]`, which names the counterparty.
    pub fn sdk_own_key(function: Span, at: Span, sdk: &str) -> Self {
        KeyedRequest {
            function,
            at,
            header: "Idempotency-Key".into(),
            key: at,
            key_fresh_here: false,
            key_made: None,
            method: Some("POST".into()),
            url: None,
            url_words: Vec::new(),
            sdk_counterparty: crate::knowledge::retry()
                .sdk
                .iter()
                .find(|s| s.id == sdk)
                .map(|s| s.counterparty.clone()),
            client: None,
            client_on_self: false,
        }
    }
}

/// A client built with a retry middleware, and the name it is bound to
/// (`let client = …`, or a struct literal's field `http: …`).
#[derive(Debug, Clone)]
pub struct RetryClient {
    pub function: Span,
    pub at: Span,
    pub binding: Option<String>,
    /// Bound to a struct field (any method of the file may use it), not a
    /// `let` (only its own function can).
    pub field: bool,
    pub policy: Policy,
    /// How the labels name it: `` `RetryTransientMiddleware` ``.
    pub what: String,
    /// An SDK that keys every request it retries itself (stripe-node puts
    /// one `Idempotency-Key` on each POST when `maxNetworkRetries` > 0):
    /// that request, judged wherever the client is used.
    pub own_key: Option<KeyedRequest>,
}

/// A constant name that stands for a crate default inside an expression
/// (tokio-retry's first delay is base × factor, the factor defaulted): the
/// model resolves it from `rules/retry.toml`.
pub fn default_ref(krate: &str, setting: &str) -> String {
    format!("{DEFAULT_REF}{krate}/{setting}")
}

/// Prefix of [`default_ref`] names; no Rust identifier starts with it.
pub const DEFAULT_REF: &str = "default:";

/// A function of the project that returns a retry's delay from the attempt
/// number, for the model to join to the loops that call it.
#[derive(Debug, Clone)]
pub struct PolicyFn {
    pub name: String,
    /// The `impl`'s type.
    pub owner: Option<String>,
    pub arms: Vec<PolicyArm>,
}

/// One way the function lets a request be retried: the delay before the
/// attempt with counter `k` is `unit × a × b^k`, until the bound.
#[derive(Debug, Clone)]
pub struct PolicyArm {
    /// The delay as written.
    pub delay: Span,
    /// The delay before the second attempt (counter 1): `unit × a × b`.
    pub first: Setting,
    pub ratio: u64,
    pub bound: ArmBound,
}

#[derive(Debug, Clone)]
pub enum ArmBound {
    /// Retries while the counter is below this many attempts.
    Attempts(Setting),
    /// The count is a field of the value the caller builds (`x < *n` for
    /// `ExponentialBackoff(n)`): what it names, for the message.
    Caller(String),
    /// No bound: the arm retries whatever the counter.
    None,
}

/// A value a struct literal gives one of its fields where the caller left
/// the option unset (`num_retries: options.num_retries.unwrap_or(2)`), or
/// a plain value (`max_retries: 5`).
#[derive(Debug, Clone)]
pub struct FieldDefault {
    pub field: String,
    /// `None`: the literal gives the field a value the reader cannot fold
    /// (a parameter, a call): the field has no default to assume.
    pub value: Option<ConstExpr>,
    /// The field's value as written.
    pub span: Span,
}
