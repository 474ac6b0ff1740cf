//! Retention and durations: how long a store keeps keys (a table's cleanup,
//! a Redis expiry, a configuration key, a named constant), cleanups that
//! purge rows early, and the integer and duration constants code defines,
//! as expressions folded once every file's constants are known. Besides
//! the types, the folding itself ([`eval`], [`fold_duration`], [`refs_of`])
//! and the digest of a constant's name ([`name_digest`]): pure functions
//! over these expressions, which the front ends (a constant folded where it
//! is read) and the model (across files) both run.

use crate::source::Span;

/// What a retention applies to, as named where it was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StoreRef {
    /// A SQL table (as written, possibly schema-qualified).
    Table(String),
    /// A Redis key prefix (the literal text before the first placeholder).
    RedisPrefix(String),
    /// A config key path (`stripe.webhooks.dedup_ttl_hours`).
    ConfigPath(String),
    /// A Rust constant or binding whose name names a store and a retention
    /// (`STRIPE_DEDUP_TTL_SECS`), when no write tells which store it keeps.
    Constant(String),
}

/// A retention found in a file: how long something keeps idempotency keys.
/// Filled by the SQL, Rust and config extractors; joined in the model.
#[derive(Debug, Clone)]
pub struct RetentionFact {
    /// The duration's text in the file.
    pub span: Span,
    pub duration: crate::duration::Duration,
    pub target: StoreRef,
    /// How it was found, for messages: "DELETE with interval", "Redis SET EX",
    /// "config key `idempotency.ttl`".
    pub via: String,
    /// Names around it (table, prefix, constant, config path, function) for
    /// counterparty attribution.
    pub context: Vec<String>,
}

/// A cleanup that deletes a store's rows some time before their own
/// expiry: `DELETE FROM t WHERE expires_at < now() + interval '1 hour'`,
/// diesel's `t::expires_at.lt(now + IntervalDsl::hours(1))`.
#[derive(Debug, Clone)]
pub struct EarlyPurge {
    /// The lead's text.
    pub span: Span,
    /// How long before its expiry a row is deleted.
    pub lead: crate::duration::Duration,
    pub table: String,
    /// The expiry column compared.
    pub column: String,
}

/// An integer or duration expression, as far as it can be read without
/// knowing other files. `Ref` names a constant to look up in the crate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConstExpr {
    Int(u64),
    Ref(String),
    Add(Box<ConstExpr>, Box<ConstExpr>),
    Sub(Box<ConstExpr>, Box<ConstExpr>),
    Mul(Box<ConstExpr>, Box<ConstExpr>),
    Div(Box<ConstExpr>, Box<ConstExpr>),
    /// A duration constructor: the argument counts units of `ms` milliseconds
    /// (`Duration::from_secs(x)` is `Dur { ms: 1000, arg: x }`).
    Dur {
        ms: u64,
        arg: Box<ConstExpr>,
    },
    /// A duration turned back into a count of `ms`-millisecond units
    /// (`.as_secs()` is `ToInt { ms: 1000, .. }`).
    ToInt {
        ms: u64,
        arg: Box<ConstExpr>,
    },
    /// Anything else: a parameter, a call, `env::var(..)`. Never guessed.
    Unknown,
}

/// What an expression folds to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Value {
    Int(u128),
    /// Milliseconds.
    Dur(u128),
}

/// A `const`/`static` item with an integer or duration value, visible to
/// the whole crate by name.
#[derive(Debug, Clone)]
pub struct DurDef {
    pub name: String,
    pub expr: ConstExpr,
    /// The value expression's text.
    pub span: Span,
}

/// A retention whose value may need constants from other files.
#[derive(Debug, Clone)]
pub struct PendingRetention {
    /// The duration's text in this file.
    pub span: Span,
    pub expr: ConstExpr,
    /// Milliseconds per unit when the value folds to a bare integer
    /// (`EX` counts seconds, `PX` milliseconds, `IDEM_TTL_SECS` seconds).
    /// `None`: a bare integer has no known unit and the fact is dropped.
    pub unit_ms: Option<u64>,
    pub target: StoreRef,
    pub via: String,
    pub context: Vec<String>,
    /// The Redis write the expiry belongs to, for a label.
    pub site: Option<Span>,
    /// The constant the expiry names directly (`set_ex(k, v, IDEM_TTL)`):
    /// its definition is where the number is written.
    pub direct_ref: Option<String>,
    /// A retention-named constant or binding found on its own (not as a
    /// Redis expiry).
    pub standalone: bool,
    /// More places in this file a finding shows (the `DELETE` a bound
    /// cut-off is for).
    pub labels: Vec<(Span, String)>,
}

/// A Redis client built from a setting: `redis::Client::open(url)` where
/// `url` is `env::var("REDIS_URL")?` or `settings.redis.url`, read here or
/// through a `let`. The model follows the setting to the Redis it names.
#[derive(Debug, Clone)]
pub struct ClientSetting {
    /// The argument's text.
    pub span: Span,
    /// The setting, as a [`CONFIG_REF`] name without its prefix
    /// (`$REDIS_URL`, `settings.redis.url`).
    pub read: String,
    /// The constructor as written (`redis::Client::open`).
    pub call: String,
}

/// What this module adds to `CodeFacts`.
#[derive(Debug, Default, Clone)]
pub struct RetentionFacts {
    pub defs: Vec<DurDef>,
    pub pending: Vec<PendingRetention>,
    /// `defs` when the file defines many: let go after the parse
    /// ([`RetentionFacts::let_go_defs`]).
    pub let_go: Option<LetGoDefs>,
    /// Redis clients built from a setting.
    pub clients: Vec<ClientSetting>,
    /// Fields of deserialized settings structs that the configuration
    /// names otherwise: `#[serde(rename = "ttl")] event_ttl_secs` gives
    /// (`event_ttl_secs`, `ttl`); `alias` too.
    pub renames: Vec<(String, String)>,
    /// ORM deletes whose age cut-off is a parameter of their function
    /// (Python: a repository's `delete_before(self, before)`).
    pub param_cutoffs: Vec<ParamCutoff>,
    /// Calls that pass a cut-off read from the clock minus a duration
    /// (`repository.delete_before(utc_now() - timedelta(days=30))`).
    pub cutoff_args: Vec<CutoffArg>,
    /// ORM models (in snake case) whose row's column this file hands out
    /// as an idempotency key: keys the service sends, not keys it receives.
    pub sent_key_models: Vec<String>,
}

/// An ORM delete of a model's rows older than a cut-off that its function
/// takes as a parameter: the callers that pass the clock minus a duration
/// give the retention ([`CutoffArg`]).
#[derive(Debug, Clone)]
pub struct ParamCutoff {
    /// The function's name.
    pub function: String,
    /// The parameter's position among the arguments a caller writes
    /// (`self` and `cls` not counted), and its name.
    pub index: usize,
    pub param: String,
    /// The model, in snake case (`ExternalEvent` → `external_event`).
    pub model: String,
    pub column: String,
    /// The delete.
    pub at: Span,
    pub via: String,
}

/// A call that passes the clock minus a duration as an argument.
#[derive(Debug, Clone)]
pub struct CutoffArg {
    /// The called function's last name (`delete_before`).
    pub callee: String,
    /// Its position, or the keyword it is passed by.
    pub index: Option<usize>,
    pub keyword: Option<String>,
    pub expr: ConstExpr,
    /// The duration's text.
    pub span: Span,
    /// The function the call is written in.
    pub caller: Option<String>,
}

/// A context word of a retention of an ORM model's rows: the target names
/// the model in snake case, and the model keeps the retention only where
/// the schema makes that model's table a store, under the table's name.
pub const ORM_CONTEXT: &str = "(orm model)";

/// A context word of a retention whose table's rows some code hands out as
/// an idempotency key ([`RetentionFacts::sent_key_models`]): keys the
/// service sends (`sent` is an outbound word of `rules/retention.toml`).
pub const SENT_KEY_CONTEXT: &str = "(sent key)";

/// A file with at least this many constants lets them go after its parse
/// and keeps a digest of each name ([`LetGoDefs`]). bindgen's `-sys`
/// crates define thousands a file (linux-raw-sys's `general.rs`: about
/// 1,800; libc's modules, object's `elf.rs`), and a lookup names one of
/// them about never; no file of the sweep's 29 trees defines this many.
pub const LET_GO_DEFS: usize = 128;

/// The constants of a file that defines many, let go after its parse: the
/// digests of their names, sorted, so that a lookup can tell which of
/// these files may define a name, and the definitions read again from the
/// file's text the first time one may, by the reader the front end that
/// let them go gave ([`LetGoDefs::new`]).
#[derive(Debug, Clone)]
pub struct LetGoDefs {
    digests: Vec<u32>,
    /// Reads the definitions again from the file's text, as the first read
    /// did (the front end's constants-only reader, or its whole parse).
    read_again: fn(&str) -> Vec<DurDef>,
    again: std::sync::OnceLock<Vec<DurDef>>,
}

/// The digest of a constant's name that [`LetGoDefs`] keeps.
pub fn name_digest(name: &str) -> u32 {
    crate::source::text_hash(name) as u32
}

impl LetGoDefs {
    /// The digests of `defs`' names, and `read_again` to read the
    /// definitions again from the file's text when a lookup may need one.
    pub fn new(defs: &[DurDef], read_again: fn(&str) -> Vec<DurDef>) -> Self {
        LetGoDefs {
            digests: digests(defs),
            read_again,
            again: std::sync::OnceLock::new(),
        }
    }

    /// Whether a constant whose name has this digest may be defined here.
    pub fn may_define(&self, digest: u32) -> bool {
        self.digests.binary_search(&digest).is_ok()
    }

    /// The definitions, read again the first time from `text` (the file's
    /// text as its parse saw it), the same way. `None`, with a warning
    /// naming `path`, when that text gives other names than the first
    /// read's: the file changed while it was checked.
    pub fn defs(&self, text: &str, path: &str) -> Option<&[DurDef]> {
        let defs = self.again.get_or_init(|| {
            let defs = (self.read_again)(text);
            if digests(&defs) == self.digests {
                defs
            } else {
                eprintln!(
                    "idemlint: warning: {path} changed while it was checked; its constants are not read again"
                );
                Vec::new()
            }
        });
        (!defs.is_empty()).then_some(defs.as_slice())
    }
}

fn digests(defs: &[DurDef]) -> Vec<u32> {
    let mut out: Vec<u32> = defs.iter().map(|d| name_digest(&d.name)).collect();
    out.sort_unstable();
    out
}

/// Deepest expression tree read; deeper is `Unknown`.
pub const MAX_EXPR_DEPTH: usize = 64;
/// Most steps one fold may take (guards cycles and exponential sharing).
const MAX_FOLD_STEPS: usize = 10_000;

/// A call of a workflow engine's handler that sends an idempotency key
/// (restate's `client.CloseMonth().Send(ctx, req,
/// restate.WithIdempotencyKey(k))`): the engine keeps the key as long as
/// the handler's configuration says, and the code around this call tells
/// whose retries the key covers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HandlerKey {
    /// The handler's name (`CloseMonth`).
    pub handler: String,
    /// The `WithIdempotencyKey(..)` call.
    pub span: Span,
}

/// The start of a context word that marks a retention of a workflow
/// handler's idempotency keys; the handler's name follows. The model
/// replaces it with the code that sends the handler its keys
/// ([`HandlerKey`]), or drops the retention when none does.
pub const HANDLER_CONTEXT: &str = "(handler) ";

/// A context word of a retention whose store holds the keys of the
/// service's own clients (a cache keyed by the idempotency request header):
/// the file's path names no counterparty for it.
pub const REQUEST_KEY_CONTEXT: &str = "(request key)";

/// The name a zero-argument `const fn` is known by among the constants.
pub fn const_fn_ref(name: &str) -> String {
    format!("{name}()")
}

/// A [`ConstExpr::Ref`] name that reads a setting rather than a constant:
/// `config:payouts.max_retries` (a field path, the binding's name first
/// unless it is `self`) or `config:$PAYOUT_MAX_RETRIES` (an environment
/// variable). `model::retries` joins it to the configuration files.
pub const CONFIG_REF: &str = "config:";

/// Fold an expression to a duration. `unit_ms` applies when it folds to a
/// bare integer; `lookup` finds constants by name.
pub fn fold_duration<'a>(
    expr: &'a ConstExpr,
    unit_ms: Option<u64>,
    lookup: &dyn Fn(&str) -> Option<&'a ConstExpr>,
) -> Option<crate::duration::Duration> {
    let mut steps = 0;
    let ms = match eval(expr, &|n| lookup(n), &mut steps, 0)? {
        Value::Dur(ms) => ms,
        Value::Int(n) => n.checked_mul(u128::from(unit_ms?))?,
    };
    u64::try_from(ms / 1000)
        .ok()
        .map(crate::duration::Duration::from_secs)
}

/// Fold an expression. A name that `lookup` cannot resolve, an overflow, a
/// negative or a division by zero give `None`.
pub fn eval<'a>(
    e: &'a ConstExpr,
    lookup: &dyn Fn(&str) -> Option<&'a ConstExpr>,
    steps: &mut usize,
    depth: usize,
) -> Option<Value> {
    *steps += 1;
    if *steps > MAX_FOLD_STEPS || depth > MAX_EXPR_DEPTH {
        return None;
    }
    let mut sub = |x: &'a ConstExpr| eval(x, lookup, steps, depth + 1);
    Some(match e {
        ConstExpr::Int(n) => Value::Int(u128::from(*n)),
        ConstExpr::Ref(name) => return sub(lookup(name)?),
        ConstExpr::Unknown => return None,
        ConstExpr::Dur { ms, arg } => match sub(arg)? {
            Value::Int(n) => Value::Dur(n.checked_mul(u128::from(*ms))?),
            Value::Dur(_) => return None,
        },
        ConstExpr::ToInt { ms, arg } => match sub(arg)? {
            Value::Dur(d) => Value::Int(d / u128::from((*ms).max(1))),
            Value::Int(_) => return None,
        },
        ConstExpr::Add(a, b)
        | ConstExpr::Sub(a, b)
        | ConstExpr::Mul(a, b)
        | ConstExpr::Div(a, b) => {
            let (x, y) = (sub(a)?, sub(b)?);
            use Value::{Dur, Int};
            match (e, x, y) {
                (ConstExpr::Add(..), Int(x), Int(y)) => Int(x.checked_add(y)?),
                (ConstExpr::Add(..), Dur(x), Dur(y)) => Dur(x.checked_add(y)?),
                (ConstExpr::Sub(..), Int(x), Int(y)) => Int(x.checked_sub(y)?),
                (ConstExpr::Sub(..), Dur(x), Dur(y)) => Dur(x.checked_sub(y)?),
                (ConstExpr::Mul(..), Int(x), Int(y)) => Int(x.checked_mul(y)?),
                (ConstExpr::Mul(..), Dur(x), Int(y)) | (ConstExpr::Mul(..), Int(y), Dur(x)) => {
                    Dur(x.checked_mul(y)?)
                }
                (ConstExpr::Div(..), Int(x), Int(y)) => Int(x.checked_div(y)?),
                (ConstExpr::Div(..), Dur(x), Int(y)) => Dur(x.checked_div(y)?),
                _ => return None,
            }
        }
    })
}

/// The prefix of a definition that a struct literal's field gives
/// (`self.ttl_secs`).
pub const SELF_FIELD: &str = "self.";

/// Names of the constants an expression refers to.
pub fn refs_of(e: &ConstExpr) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![e];
    while let Some(e) = stack.pop() {
        match e {
            ConstExpr::Ref(n) => out.push(n.clone()),
            ConstExpr::Add(a, b)
            | ConstExpr::Sub(a, b)
            | ConstExpr::Mul(a, b)
            | ConstExpr::Div(a, b) => {
                stack.push(a);
                stack.push(b);
            }
            ConstExpr::Dur { arg, .. } | ConstExpr::ToInt { arg, .. } => stack.push(arg),
            ConstExpr::Int(_) | ConstExpr::Unknown => {}
        }
    }
    out
}

/// What a slipped duration is for, by the names around it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Purpose {
    Retention,
    Retry,
}

#[derive(Debug, Clone)]
pub struct UnitSlip {
    pub span: Span,
    /// For the message: "`retry_schedule_ms` (milliseconds) is read by
    /// `Duration::from_secs` (seconds)".
    pub what: String,
    pub purpose: Purpose,
}
