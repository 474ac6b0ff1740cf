//! Retries joined across the crate: each retry site's worst-case span (the
//! longest time from the first attempt to the last, folded from the policy
//! with the crate's constants and the retry crates' defaults), the keyed
//! requests it resends (in the retried body, in the function it names, or
//! in the crate functions the body calls), where each key is made, and the
//! counterparty that keeps the key with its outbound window. The rule
//! `retry-outlives-key-retention` reads this; it does no arithmetic.
//!
//! Not here: keys made fresh on each attempt (`fresh-key-per-retry`), and
//! policies the reader could not bound (a variable, a custom strategy),
//! which produce nothing rather than a guess.

use super::flows::{FlowModel, MAX_CALL_DEPTH};
use super::retention::ConstDefs;
use super::settings::{given_settings, join_key, Given};
use crate::config::Config;
use crate::duration::Duration;
use crate::facts::retention::{eval, fold_duration, refs_of, ConstExpr, Value, CONFIG_REF};
use crate::facts::retry::{
    ArmBound, FreshKind, FreshSend, KeyedRequest, Maker, Minter, Policy, PolicyFn, PolicyKind,
    Ratio, RetryClient, RetrySite, Setting, Shape, DEFAULT_REF,
};
use crate::facts::FileFacts;
use crate::horizons::Catalogue;
use crate::knowledge;
use crate::source::{FileId, SourceMap, Span};
use std::collections::{HashMap, HashSet};

/// How long a retry keeps resending.
#[derive(Debug, Clone)]
pub enum RetrySpan {
    Bounded {
        length: Duration,
        /// How it was found: `max_elapsed_time`, `the sum of 30 delays`.
        how: String,
    },
    Unbounded(String),
}

/// Who keeps the key of a retried request.
#[derive(Debug, Clone)]
pub enum Keeper {
    /// A published outbound window.
    Window {
        name: String,
        what: String,
        length: Duration,
        source: String,
    },
    /// A known API with no published window; `retries_repeat: false` where
    /// it states that a retry never repeats a successful operation.
    Unpublished {
        name: String,
        retries_repeat: bool,
        source: String,
    },
    Unknown,
}

#[derive(Debug, Clone)]
pub struct RetryFinding {
    pub file: FileId,
    /// Where the retry is (the retrying call, loop, job or client).
    pub at: Span,
    pub what: String,
    /// The value that sets the span (or the policy, when it is a default).
    pub primary: Span,
    pub span: RetrySpan,
    pub request: (FileId, KeyedRequest),
    /// Where the key is made, when a `let` in the request's function binds it.
    pub key_made: Option<(FileId, Span)>,
    pub keeper: Keeper,
    /// Configuration values the span is folded from (`workers.payouts.
    /// max_retries: 50`), with what the label says.
    pub settings: Vec<(FileId, Span, String)>,
    /// What was assumed to fold the span (an attempt count the caller
    /// chooses): the finding is then a note.
    pub assumed: Option<String>,
}

#[derive(Debug, Default)]
pub struct RetryModel {
    pub findings: Vec<RetryFinding>,
    /// Keys made fresh in the forms `flow` leaves out (`fresh-key-per-retry`).
    pub fresh: Vec<FreshFinding>,
}

/// A key made fresh and sent as the idempotency key, its maker resolved.
#[derive(Debug, Clone)]
pub struct FreshFinding {
    pub file: FileId,
    pub send: FreshSend,
    /// What makes the key, as the message names it: `Uuid::new_v4()`, or
    /// the helper's call `get_key()`.
    pub what: String,
    /// For a helper: how it mints (`` `new_uuid_v4()` calls `uuid::Uuid::new_v4()` ``).
    pub via: Option<String>,
}

/// How each project function that returns a fresh key mints it, by name:
/// its owner, and the generator it reaches (through other minters).
fn minters(files: &[FileFacts]) -> HashMap<String, Vec<(Option<String>, String)>> {
    let all: Vec<&Minter> = files
        .iter()
        .filter_map(|f| f.code.as_ref())
        .flat_map(|r| &r.retry.minters)
        .collect();
    let mut known: HashMap<String, Vec<(Option<String>, String)>> = HashMap::new();
    for m in &all {
        if let Some(d) = &m.direct {
            known.entry(m.name.clone()).or_default().push((
                m.owner.clone(),
                format!("`{}()` makes it with `{d}`", m.name),
            ));
        }
    }
    // Forwarders (`get_key()` returning `IdempotencyKey::new_uuid_v4()`),
    // two levels deep.
    for _ in 0..2 {
        let mut add = Vec::new();
        for m in all.iter().filter(|m| m.direct.is_none()) {
            if known.contains_key(&m.name) {
                continue;
            }
            if let Some((c, how)) = m
                .callees
                .iter()
                .find_map(|c| known.get(c).and_then(|v| v.first()).map(|(_, h)| (c, h)))
            {
                add.push((
                    m.name.clone(),
                    m.owner.clone(),
                    format!("`{}()` returns `{c}()`: {how}", m.name),
                ));
            }
        }
        for (n, o, how) in add {
            known.entry(n).or_default().push((o, how));
        }
    }
    known
}

/// Why a file's code is run again by its sender, from its path (a route
/// a scheduler calls, `rules/retry.toml` `[redelivered]`).
fn redelivered_path(path: &str) -> Option<String> {
    let path = format!("/{}", path.replace('\\', "/"));
    knowledge::retry()
        .redelivered
        .paths
        .iter()
        .find(|p| path.contains(p.as_str()))
        .map(|p| format!("it is a route under `{}`, which a scheduler calls and calls again for the same work when a run fails (QStash retries a failed delivery) or is rerun", p.trim_matches('/')))
}

fn resolve_fresh(
    files: &[FileFacts],
    sources: &SourceMap,
    flows: &FlowModel,
    fn_index: &HashMap<(FileId, Span), usize>,
) -> Vec<FreshFinding> {
    let known = minters(files);
    let mut out = Vec::new();
    for f in files {
        let Some(r) = &f.code else { continue };
        for s in &r.retry.fresh {
            if fn_index
                .get(&(f.file, s.function))
                .is_some_and(|i| flows.functions[*i].test)
            {
                continue;
            }
            let mut send = s.clone();
            if let FreshKind::Redelivered { why } = &mut send.kind {
                if why.is_none() {
                    *why = redelivered_path(sources.path(f.file));
                }
                if why.is_none() || f.test_path {
                    continue;
                }
            }
            // A test mints keys for its own requests.
            if matches!(send.kind, FreshKind::PerCall) && f.test_path {
                continue;
            }
            let (what, via) = match &s.maker {
                Maker::Generator(g) => (g.clone(), None),
                Maker::Helper { name, owner } => {
                    let Some(ms) = known.get(name) else { continue };
                    let fits = |o: &Option<String>| owner.is_none() || o == owner;
                    let minting: Vec<&String> =
                        ms.iter().filter(|(o, _)| fits(o)).map(|(_, h)| h).collect();
                    let Some(how) = minting.first() else { continue };
                    // Another function of that name that mints nothing: the
                    // call may be that one.
                    let same = flows
                        .functions
                        .iter()
                        .filter(|e| &e.name == name && fits(&e.owner))
                        .count();
                    if same > minting.len() {
                        continue;
                    }
                    let call = match owner {
                        Some(o) => format!("{o}::{name}()"),
                        None => format!("{name}()"),
                    };
                    (call, Some((*how).clone()))
                }
            };
            out.push(FreshFinding {
                file: f.file,
                send,
                what,
                via,
            });
        }
    }
    out
}

/// Longest series summed term by term; beyond it a capped series adds its
/// cap per term and an uncapped one has long since passed any window.
const MAX_TERMS: u64 = 100_000;
/// A span this long reads as "longer than any window" (about 3,000 years).
const HUGE_SECS: f64 = 1e11;

struct Consts<'a> {
    defs: ConstDefs<'a>,
    /// Default values of `rules/retry.toml` as expressions.
    defaults: HashMap<String, ConstExpr>,
    /// Settings of the configuration files by [`join_key`]: the largest
    /// value given.
    given: HashMap<String, Given>,
    /// Retry-count fields' defaults in struct literals, by crate and field
    /// name: the largest value given, or `None` where a literal gives one
    /// that cannot be folded (then nothing is assumed).
    field_defaults: HashMap<(String, String), Option<FieldGiven>>,
    /// Each Rust file's crate (the directory above `src/`).
    file_crate: HashMap<FileId, String>,
}

/// A default a struct literal gives a retry-count field.
#[derive(Debug, Clone)]
struct FieldGiven {
    file: FileId,
    span: Span,
    /// `options.num_retries.unwrap_or(10)`
    shown: String,
    expr: ConstExpr,
    size: u128,
}

/// The settings of the project's configuration files (YAML, TOML, JSON,
/// `.env`; test files left out) under their join keys, read before the
/// configuration trees are freed.
#[derive(Debug, Default)]
pub struct Settings(HashMap<String, Given>);

impl Settings {
    /// Only the settings some retry policy of the code reads are looked
    /// for, so a project whose policies read none pays nothing.
    pub fn read(files: &[FileFacts], sources: &SourceMap) -> Self {
        let mut wanted: HashSet<String> = HashSet::new();
        for f in files {
            let Some(r) = &f.code else { continue };
            let policies = r.retry.sites.iter().map(|s| &s.policy);
            for p in policies.chain(r.retry.clients.iter().map(|c| &c.policy)) {
                wanted.extend(config_reads(p).iter().filter_map(|r| join_key(r)));
            }
        }
        if wanted.is_empty() {
            return Settings::default();
        }
        Settings(given_settings(files, sources, &wanted))
    }
}

/// The settings a policy reads (`payout_worker.max_retries`,
/// `$REFUND_MAX_RETRIES`): its [`CONFIG_REF`] references.
fn config_reads(p: &Policy) -> Vec<String> {
    policy_exprs(p)
        .into_iter()
        .flat_map(refs_of)
        .filter_map(|n| n.strip_prefix(CONFIG_REF).map(str::to_string))
        .collect()
}

/// Every expression a policy is folded from.
fn policy_exprs(p: &Policy) -> Vec<&ConstExpr> {
    let mut settings: Vec<&Setting> = Vec::new();
    let mut out = Vec::new();
    match &p.kind {
        PolicyKind::Total(cap) => settings.push(cap),
        PolicyKind::Series {
            first,
            ratio,
            max,
            times,
            cap,
            ..
        } => {
            settings.push(first);
            settings.extend(max.iter().chain(times).chain(cap));
            if let Ratio::Int(e, _) = ratio {
                out.push(e);
            }
        }
        PolicyKind::Unbounded(..) | PolicyKind::Unknown | PolicyKind::Project(_) => {}
    }
    out.extend(settings.into_iter().filter_map(|s| match s {
        Setting::Written { expr, .. } => Some(expr),
        Setting::Default(_) => None,
    }));
    out
}

impl<'a> Consts<'a> {
    fn new(files: &'a [FileFacts], sources: &'a SourceMap, settings: Settings) -> Self {
        let defs = ConstDefs::new(files, sources);
        let mut defaults = HashMap::new();
        for d in &knowledge::retry().default {
            if let Ok(n) = d.value.parse::<u64>() {
                defaults.insert(
                    format!("{DEFAULT_REF}{}/{}", d.krate, d.setting),
                    ConstExpr::Int(n),
                );
            }
        }
        let mut file_crate = HashMap::new();
        let mut field_defaults: HashMap<(String, String), Option<FieldGiven>> = HashMap::new();
        for f in files {
            let Some(r) = &f.code else { continue };
            let krate = super::flows::module_of(sources.path(f.file)).0;
            file_crate.insert(f.file, krate.clone());
            if f.test_path {
                continue;
            }
            for d in &r.retry.field_defaults {
                let lookup = |n: &str| defs.find(f.file, n).map(|(_, d)| &d.expr);
                let size = d.value.as_ref().and_then(|v| {
                    let mut steps = 0;
                    match eval(v, &lookup, &mut steps, 0)? {
                        Value::Int(n) => Some(n),
                        Value::Dur(_) => None,
                    }
                });
                let key = (krate.clone(), d.field.clone());
                let given = match (&d.value, size) {
                    (Some(expr), Some(size)) => Some(FieldGiven {
                        file: f.file,
                        span: d.span,
                        shown: sources
                            .get(f.file)
                            .text()
                            .get(d.span.start..d.span.end)
                            .unwrap_or("")
                            .to_string(),
                        expr: expr.clone(),
                        size,
                    }),
                    _ => None,
                };
                match (field_defaults.get_mut(&key), given) {
                    (None, g) => {
                        field_defaults.insert(key, g);
                    }
                    (Some(old), None) => *old = None,
                    (Some(Some(old)), Some(g)) if g.size > old.size => *old = g,
                    (Some(_), Some(_)) => {}
                }
            }
        }
        Consts {
            defs,
            defaults,
            given: settings.0,
            field_defaults,
            file_crate,
        }
    }

    /// The default a struct literal of the file's crate gives the field a
    /// setting read ends with (`conf.num_retries` → `num_retries`).
    fn field_default(&self, file: FileId, read: &str) -> Option<&FieldGiven> {
        if read.starts_with('$') {
            return None;
        }
        let field = read.rsplit('.').next()?;
        let krate = self.file_crate.get(&file)?;
        self.field_defaults
            .get(&(krate.clone(), field.to_string()))?
            .as_ref()
    }

    /// A name's definition: in the same file, else the one the crate has;
    /// a setting's value, from the configuration files.
    fn lookup(&self, file: FileId, name: &str) -> Option<&ConstExpr> {
        if let Some(d) = self.defaults.get(name) {
            return Some(d);
        }
        if let Some(read) = name.strip_prefix(CONFIG_REF) {
            if let Some(g) = join_key(read).and_then(|k| self.given.get(&k)) {
                return Some(&g.expr);
            }
            // A value the code defaults where the caller gave none.
            return self.field_default(file, read).map(|g| &g.expr);
        }
        self.defs.find(file, name).map(|(_, d)| &d.expr)
    }

    fn duration(&self, file: FileId, krate: &str, s: &Setting) -> Option<Duration> {
        match s {
            Setting::Written { expr, unit_ms, .. } => {
                fold_duration(expr, *unit_ms, &|n| self.lookup(file, n))
            }
            Setting::Default(name) => {
                let d = knowledge::retry().default_of(krate, name)?;
                crate::duration::parse(&d.value, None)
            }
        }
    }

    /// A delay in seconds, to the millisecond: a schedule that starts at
    /// 20 ms and doubles is not a schedule of zeros.
    fn secs(&self, file: FileId, krate: &str, s: &Setting) -> Option<f64> {
        match s {
            Setting::Written { expr, unit_ms, .. } => {
                let mut steps = 0;
                let ms = match eval(expr, &|n| self.lookup(file, n), &mut steps, 0)? {
                    Value::Dur(ms) => ms,
                    Value::Int(n) => n.checked_mul(u128::from((*unit_ms)?))?,
                };
                Some(ms as f64 / 1000.0)
            }
            Setting::Default(name) => {
                // A default under a second (stripe-node's 0.5 s) is kept.
                let ms = knowledge::retry()
                    .default_of(krate, name)
                    .and_then(|d| d.value.strip_suffix("ms")?.trim().parse::<f64>().ok());
                match ms {
                    Some(ms) => Some(ms / 1000.0),
                    None => self.duration(file, krate, s).map(|d| d.secs as f64),
                }
            }
        }
    }

    fn count(&self, file: FileId, krate: &str, s: &Setting) -> Option<u64> {
        match s {
            Setting::Written { expr, .. } => {
                let mut steps = 0;
                match eval(expr, &|n| self.lookup(file, n), &mut steps, 0)? {
                    Value::Int(n) => u64::try_from(n).ok(),
                    Value::Dur(_) => None,
                }
            }
            Setting::Default(name) => knowledge::retry()
                .default_of(krate, name)?
                .value
                .parse()
                .ok(),
        }
    }

    fn ratio(&self, file: FileId, krate: &str, r: &Ratio) -> Option<f64> {
        match r {
            Ratio::Float(f, _) => Some(*f),
            Ratio::Int(e, span) => self
                .count(
                    file,
                    krate,
                    &Setting::Written {
                        expr: e.clone(),
                        span: *span,
                        unit_ms: None,
                    },
                )
                .map(|n| n as f64),
            Ratio::Default(name) => knowledge::retry()
                .default_of(krate, name)?
                .value
                .parse()
                .ok(),
        }
    }

    /// The span of a policy and the value that sets it.
    fn span(&self, file: FileId, p: &Policy) -> Option<(RetrySpan, Span)> {
        let written = |s: &Setting| match s {
            Setting::Written { span, .. } => Some(*span),
            Setting::Default(_) => None,
        };
        match &p.kind {
            PolicyKind::Unknown | PolicyKind::Project(_) => None,
            PolicyKind::Unbounded(why, at) => {
                Some((RetrySpan::Unbounded(why.clone()), at.unwrap_or(p.span)))
            }
            PolicyKind::Total(cap) => {
                let length = self.duration(file, p.krate, cap)?;
                let how = match cap {
                    Setting::Written { .. } => "its total time limit".to_string(),
                    Setting::Default(name) => format!("`{}`'s default `{name}`", p.krate),
                };
                Some((
                    RetrySpan::Bounded { length, how },
                    written(cap).unwrap_or(p.span),
                ))
            }
            PolicyKind::Series {
                shape,
                first,
                ratio,
                max,
                times,
                cap,
            } => {
                let first_s = self.secs(file, p.krate, first)?;
                let ratio = self.ratio(file, p.krate, ratio)?;
                let max_s = match max {
                    Some(m) => Some(self.secs(file, p.krate, m)?),
                    None => None,
                };
                let cap_d = match cap {
                    Some(c) => Some(self.duration(file, p.krate, c)?),
                    None => None,
                };
                let n = match times {
                    Some(t) => Some(self.count(file, p.krate, t)?),
                    None => None,
                };
                let primary = times
                    .as_ref()
                    .and_then(written)
                    .or_else(|| cap.as_ref().and_then(written))
                    .or_else(|| max.as_ref().and_then(written))
                    .or_else(|| written(first))
                    .unwrap_or(p.span);
                let Some(n) = n else {
                    // No limit on attempts: only the total cap bounds it.
                    let c = cap_d?;
                    return Some((
                        RetrySpan::Bounded {
                            length: c,
                            how: "its total delay limit".into(),
                        },
                        primary,
                    ));
                };
                let sum = series_sum(*shape, first_s, ratio, max_s, n);
                let mut length = Duration::from_secs(sum.min(HUGE_SECS) as u64);
                let mut how = format!("the sum of its {n} delays");
                if let Some(c) = cap_d {
                    if c < length {
                        length = c;
                        how = "its total delay limit".into();
                    }
                }
                Some((RetrySpan::Bounded { length, how }, primary))
            }
        }
    }
}

impl Consts<'_> {
    /// The configuration values a policy's span is folded from, as labels.
    fn settings(&self, file: FileId, p: &Policy) -> Vec<(FileId, Span, String)> {
        let mut out: Vec<(FileId, Span, String)> = Vec::new();
        for read in config_reads(p) {
            let read = read.as_str();
            let Some(g) = join_key(read).and_then(|k| self.given.get(&k)) else {
                if let Some(d) = self.field_default(file, read) {
                    out.push((
                        d.file,
                        d.span,
                        format!(
                            "`{}` gives `{read}` its default, taken when the caller leaves it unset",
                            d.shown
                        ),
                    ));
                }
                continue;
            };
            if out.iter().any(|(f, s, _)| (*f, *s) == (g.file, g.span)) {
                continue;
            }
            let what = read.trim_start_matches('$');
            let others = match g.others {
                0 => String::new(),
                n => format!("; the largest of {} files' values", n + 1),
            };
            out.push((
                g.file,
                g.span,
                format!("`{}` sets `{what}`{others}", g.shown),
            ));
        }
        out
    }
}

/// The sum of `n` delays: the first, each next one × `ratio` (Fibonacci:
/// the sum of the two before), none above `max`.
pub fn series_sum(shape: Shape, first: f64, ratio: f64, max: Option<f64>, n: u64) -> f64 {
    let clamp = |d: f64| max.map_or(d, |m| d.min(m));
    let mut sum = 0.0;
    let (mut cur, mut prev) = (first, 0.0);
    let terms = n.min(MAX_TERMS);
    for _ in 0..terms {
        let d = clamp(cur);
        sum += d;
        if sum > HUGE_SECS {
            return HUGE_SECS;
        }
        match shape {
            Shape::Geometric => cur = clamp(cur * ratio),
            Shape::Linear => {
                prev += first;
                cur = clamp(prev + first);
            }
            Shape::Fibonacci => {
                let next = if prev == 0.0 { cur } else { cur + prev };
                prev = cur;
                cur = clamp(next);
            }
        }
    }
    if n > terms {
        sum += (n - terms) as f64 * clamp(cur);
    }
    sum.min(HUGE_SECS)
}

/// Host and path of a URL as written (`https://api.stripe.com/v1/x`), or
/// the path alone after a placeholder (`{}/v1/x`).
fn host_path(url: &str) -> (Option<String>, Option<String>) {
    let rest = url
        .strip_prefix("https://")
        .or_else(|| url.strip_prefix("http://"));
    match rest {
        Some(r) if !r.starts_with('{') => {
            let (host, path) = match r.find('/') {
                Some(i) => (&r[..i], Some(r[i..].to_string())),
                None => (r, None),
            };
            let host = host.split(':').next().unwrap_or(host).to_ascii_lowercase();
            (Some(host), path)
        }
        _ => {
            // `{}/v1/payouts`, `/v1/payouts`
            let path = url.find('/').map(|i| url[i..].to_string());
            (None, path)
        }
    }
}

/// A source as a finding cites it: the page's URL and the date it was
/// read (`https://docs.stripe.com/idempotency, read 2026-12-01`). A window
/// declared in idemlint.toml has no date to give.
fn cited(source: &str, read: &str) -> String {
    if source.is_empty() || !read.starts_with(|c: char| c.is_ascii_digit()) {
        return source.to_string();
    }
    format!("{source}, read {read}")
}

fn keeper_for_host(cat: &Catalogue, host: &str, path: Option<&str>) -> Keeper {
    for u in &knowledge::retry().unpublished {
        let host_ok = u
            .hosts
            .iter()
            .any(|h| host == h || host.ends_with(&format!(".{h}")));
        let path_ok = u.paths.is_empty()
            || path.is_some_and(|p| u.paths.iter().any(|q| p.starts_with(q.as_str())));
        if host_ok && path_ok {
            // A window declared in idemlint.toml for that id wins.
            if let Some((w, length)) = cat.get(&u.id).and_then(|c| c.outbound_window(path)) {
                return Keeper::Window {
                    name: cat.get(&u.id).map_or(u.name.clone(), |c| c.name.clone()),
                    what: w.what.clone(),
                    length,
                    source: cited(&w.source, &w.read),
                };
            }
            return Keeper::Unpublished {
                name: u.name.clone(),
                retries_repeat: u.retries_repeat,
                source: cited(&u.source, &u.read),
            };
        }
    }
    for c in &cat.counterparties {
        if !c.serves_host(host) {
            continue;
        }
        return match c.outbound_window(path) {
            Some((w, length)) => Keeper::Window {
                name: c.name.clone(),
                what: w.what.clone(),
                length,
                source: cited(&w.source, &w.read),
            },
            None => Keeper::Unpublished {
                name: c.name.clone(),
                retries_repeat: true,
                source: String::new(),
            },
        };
    }
    Keeper::Unknown
}

/// Who keeps a request's key: the SDK's counterparty, the URL's host, or a
/// counterparty named around the request with the URL's path.
fn keeper(cat: &Catalogue, r: &KeyedRequest, crate_host: Option<&str>) -> Keeper {
    if let Some(id) = &r.sdk_counterparty {
        if let Some(c) = cat.get(id) {
            if let Some((w, length)) = c.outbound_window(None) {
                return Keeper::Window {
                    name: c.name.clone(),
                    what: w.what.clone(),
                    length,
                    source: cited(&w.source, &w.read),
                };
            }
        }
    }
    let (host, path) = r.url.as_deref().map_or((None, None), host_path);
    if let Some(h) = host {
        return keeper_for_host(cat, &h, path.as_deref());
    }
    // No host: a counterparty with API hosts named by the URL's constants,
    // variables or the function.
    let named = cat
        .counterparties
        .iter()
        .find(|c| !c.hosts.is_empty() && r.url_words.iter().any(|w| c.matches(w)));
    match named.and_then(|c| c.hosts.first()) {
        Some(h) => keeper_for_host(cat, h, path.as_deref()),
        // No URL or name in sight: the one API the crate's URLs point to
        // (a client crate for that API).
        None => crate_host.map_or(Keeper::Unknown, |h| {
            keeper_for_host(cat, h, path.as_deref())
        }),
    }
}

/// For each Rust file, the API host its crate's URLs point to, when they
/// point to exactly one counterparty's API (`https://api.example.com` in
/// the client's settings): the keeper of a keyed request built where no
/// URL is in sight. Test files' URLs are left out.
fn crate_hosts(
    cat: &Catalogue,
    files: &[FileFacts],
    file_crate: &HashMap<FileId, String>,
) -> HashMap<FileId, String> {
    let mut by_crate: HashMap<&str, Vec<(&str, &str)>> = HashMap::new();
    for f in files {
        let (Some(r), Some(k)) = (&f.code, file_crate.get(&f.file)) else {
            continue;
        };
        if f.test_path {
            continue;
        }
        for h in &r.retry.hosts {
            let id = knowledge::retry()
                .unpublished
                .iter()
                .find(|u| {
                    u.hosts
                        .iter()
                        .any(|x| h == x || h.ends_with(&format!(".{x}")))
                })
                .map(|u| u.id.as_str())
                .or_else(|| {
                    cat.counterparties
                        .iter()
                        .find(|c| c.serves_host(h))
                        .map(|c| c.id.as_str())
                });
            if let Some(id) = id {
                by_crate
                    .entry(k.as_str())
                    .or_default()
                    .push((id, h.as_str()));
            }
        }
    }
    let mut out = HashMap::new();
    for (file, k) in file_crate {
        let Some(hs) = by_crate.get(k.as_str()) else {
            continue;
        };
        let one = hs.iter().all(|(id, _)| *id == hs[0].0);
        if one {
            out.insert(*file, hs[0].1.to_string());
        }
    }
    out
}

fn inside(outer: Span, inner: Span) -> bool {
    outer.start <= inner.start && inner.end <= outer.end
}

impl RetryModel {
    pub fn build(
        files: &[FileFacts],
        sources: &SourceMap,
        settings: Settings,
        config: &Config,
        flows: &FlowModel,
    ) -> Self {
        let cat = Catalogue::with_config(config);
        let consts = Consts::new(files, sources, settings);
        // Requests by (file, function name span).
        let mut by_fn: HashMap<(FileId, Span), Vec<&KeyedRequest>> = HashMap::new();
        for f in files {
            if let Some(r) = &f.code {
                for q in &r.retry.requests {
                    by_fn.entry((f.file, q.function)).or_default().push(q);
                }
            }
        }
        let fn_index: HashMap<(FileId, Span), usize> = flows
            .functions
            .iter()
            .enumerate()
            .map(|(i, e)| ((e.file, e.span), i))
            .collect();
        let hosts = crate_hosts(&cat, files, &consts.file_crate);
        let judge = |file, at, what: &str, primary, span: &RetrySpan, reqs| {
            judge(&cat, &hosts, file, at, what, primary, span, reqs)
        };
        let policy_fns: Vec<(FileId, &PolicyFn)> = files
            .iter()
            .filter(|f| !f.test_path)
            .filter_map(|f| f.code.as_ref().map(|r| (f.file, r)))
            .flat_map(|(file, r)| r.retry.policy_fns.iter().map(move |p| (file, p)))
            .collect();
        let mut findings: Vec<RetryFinding> = Vec::new();
        for f in files {
            let Some(rust) = &f.code else { continue };
            for site in &rust.retry.sites {
                let caller = fn_index.get(&(f.file, site.function)).copied();
                if caller.is_some_and(|i| flows.functions[i].test) {
                    continue;
                }
                if let PolicyKind::Project(calls) = &site.policy.kind {
                    let reqs = site_requests(f.file, site, caller, flows, &by_fn);
                    let ctx = ProjectCtx {
                        cat: &cat,
                        hosts: &hosts,
                        consts: &consts,
                        fns: &policy_fns,
                    };
                    ctx.judge(f.file, site, calls, reqs, &mut findings);
                    continue;
                }
                let Some((span, primary)) = consts.span(f.file, &site.policy) else {
                    continue;
                };
                let mut reqs = site_requests(f.file, site, caller, flows, &by_fn);
                if let Some(target) = &site.target {
                    reqs.extend(route_requests(target, sources, flows, &by_fn));
                }
                if let Some(mut found) = judge(f.file, site.at, &site.what, primary, &span, reqs) {
                    found.settings = consts.settings(f.file, &site.policy);
                    findings.push(found);
                }
            }
            for client in &rust.retry.clients {
                let caller = fn_index.get(&(f.file, client.function)).copied();
                if caller.is_some_and(|i| flows.functions[i].test) {
                    continue;
                }
                let reqs = client_requests(f.file, client, &rust.retry.requests);
                if reqs.is_empty() {
                    continue;
                }
                let Some((span, primary)) = consts.span(f.file, &client.policy) else {
                    continue;
                };
                if let Some(mut found) =
                    judge(f.file, client.at, &client.what, primary, &span, reqs)
                {
                    found.settings = consts.settings(f.file, &client.policy);
                    findings.push(found);
                }
            }
        }
        let fresh = resolve_fresh(files, sources, flows, &fn_index);
        RetryModel { findings, fresh }
    }
}

/// Whether a file is the route `target` names (`/api/cron/payouts` is
/// `app/(ee)/api/cron/payouts/route.ts` or `pages/api/cron/payouts.ts`):
/// extension, a trailing `route` or `index`, and `(group)` folders left
/// out.
fn is_route(path: &str, target: &str) -> bool {
    let path = path.replace('\\', "/");
    let stem = path.rsplit_once('.').map_or(path.as_str(), |(s, _)| s);
    let stem = stem
        .strip_suffix("/route")
        .or_else(|| stem.strip_suffix("/index"))
        .unwrap_or(stem);
    let kept: Vec<&str> = stem
        .split('/')
        .filter(|p| !(p.starts_with('(') && p.ends_with(')')))
        .collect();
    let norm = format!("/{}", kept.join("/"));
    norm.ends_with(target)
}

/// The keyed requests of the handlers of the route a site's sender calls
/// again, and of the project functions they call, [`MAX_CALL_DEPTH`] deep.
fn route_requests<'a>(
    target: &str,
    sources: &SourceMap,
    flows: &FlowModel,
    by_fn: &HashMap<(FileId, Span), Vec<&'a KeyedRequest>>,
) -> Vec<(FileId, &'a KeyedRequest)> {
    let frontier: Vec<usize> = flows
        .functions
        .iter()
        .enumerate()
        .filter(|(_, e)| !e.test && is_route(sources.path(e.file), target))
        .map(|(i, _)| i)
        .collect();
    called_requests(flows, by_fn, frontier, Vec::new(), MAX_CALL_DEPTH + 1)
}

/// The keyed requests, with the same key each time, of the functions of
/// `frontier` and of those they call, `rounds` calls deep (those of `seen`
/// left out).
fn called_requests<'a>(
    flows: &FlowModel,
    by_fn: &HashMap<(FileId, Span), Vec<&'a KeyedRequest>>,
    mut frontier: Vec<usize>,
    mut seen: Vec<usize>,
    rounds: usize,
) -> Vec<(FileId, &'a KeyedRequest)> {
    let mut out = Vec::new();
    for _ in 0..rounds {
        let mut next = Vec::new();
        for g in frontier {
            if seen.contains(&g) {
                continue;
            }
            seen.push(g);
            let e = &flows.functions[g];
            if let Some(qs) = by_fn.get(&(e.file, e.span)) {
                out.extend(
                    qs.iter()
                        .filter(|q| !q.key_fresh_here && !q.key_made.is_some_and(|(_, f)| f))
                        .map(|q| (e.file, *q)),
                );
            }
            next.extend(flows.calls[g].iter().map(|(_, t)| *t));
        }
        frontier = next;
    }
    out
}

/// The keyed requests a client with a retry policy resends: the one it
/// keys itself (an SDK's own key), else those built on its binding, in its
/// function or, for a struct field, through `self`.
fn client_requests<'a>(
    file: FileId,
    client: &'a RetryClient,
    requests: &'a [KeyedRequest],
) -> Vec<(FileId, &'a KeyedRequest)> {
    if let Some(q) = &client.own_key {
        return vec![(file, q)];
    }
    let Some(binding) = &client.binding else {
        return Vec::new();
    };
    requests
        .iter()
        .filter(|q| q.client.as_deref() == Some(binding.as_str()))
        .filter(|q| {
            if client.field {
                q.client_on_self
            } else {
                q.function == client.function
            }
        })
        .filter(|q| !q.key_fresh_here)
        .map(|q| (file, q))
        .collect()
}

/// The keyed requests a site resends: in its body (unless the key is made
/// fresh there), in the function it names, and in the crate functions the
/// body calls, followed [`MAX_CALL_DEPTH`] deep.
fn site_requests<'a>(
    file: FileId,
    site: &RetrySite,
    caller: Option<usize>,
    flows: &FlowModel,
    by_fn: &HashMap<(FileId, Span), Vec<&'a KeyedRequest>>,
) -> Vec<(FileId, &'a KeyedRequest)> {
    let mut out: Vec<(FileId, &KeyedRequest)> = by_fn
        .get(&(file, site.function))
        .into_iter()
        .flatten()
        .filter(|q| inside(site.body, q.at))
        .filter(|q| !q.key_fresh_here)
        .filter(|q| {
            !q.key_made
                .is_some_and(|(s, fresh)| fresh && inside(site.body, s))
        })
        .map(|q| (file, *q))
        .collect();
    if let Some(before) = site.before {
        // Built before the loop: the same request, the same key, each pass.
        out.extend(
            by_fn
                .get(&(file, site.function))
                .into_iter()
                .flatten()
                .filter(|q| inside(before, q.at))
                .map(|q| (file, *q)),
        );
    }
    if site.fresh_inside {
        return out;
    }
    let mut frontier: Vec<usize> = Vec::new();
    if let Some(c) = caller {
        frontier.extend(
            flows.calls[c]
                .iter()
                .filter(|(s, _)| inside(site.body, *s))
                .map(|(_, t)| *t),
        );
        if let Some(name) = site.op_fn.as_ref().and_then(|p| p.last()) {
            let krate = &flows.functions[c].crate_key;
            let named: Vec<usize> = flows
                .functions
                .iter()
                .enumerate()
                .filter(|(_, e)| &e.name == name && &e.crate_key == krate && e.owner.is_none())
                .map(|(i, _)| i)
                .collect();
            if named.len() == 1 {
                frontier.push(named[0]);
            }
        }
    }
    out.extend(called_requests(
        flows,
        by_fn,
        frontier,
        caller.into_iter().collect(),
        MAX_CALL_DEPTH,
    ));
    out
}

/// The finding for a site: the request whose keeper forgets soonest, when
/// the span outlives it (or the span is unbounded, or the keeper is unknown
/// and the span passes a day). The rule chooses the severity.
#[allow(clippy::too_many_arguments)]
fn judge(
    cat: &Catalogue,
    hosts: &HashMap<FileId, String>,
    file: FileId,
    at: Span,
    what: &str,
    primary: Span,
    span: &RetrySpan,
    reqs: Vec<(FileId, &KeyedRequest)>,
) -> Option<RetryFinding> {
    let rank = |k: &Keeper| match k {
        Keeper::Window { length, .. } => length.secs,
        Keeper::Unknown
        | Keeper::Unpublished {
            retries_repeat: true,
            ..
        } => u64::MAX - 1,
        Keeper::Unpublished { .. } => u64::MAX,
    };
    let (rf, req, keeper) = reqs
        .into_iter()
        .map(|(rf, q)| (rf, q, keeper(cat, q, hosts.get(&rf).map(String::as_str))))
        .min_by_key(|(_, _, k)| rank(k))?;
    let outlives = match (span, &keeper) {
        (RetrySpan::Unbounded(_), _) => true,
        (RetrySpan::Bounded { length, .. }, Keeper::Window { length: w, .. }) => length > w,
        (
            RetrySpan::Bounded { .. },
            Keeper::Unpublished {
                retries_repeat: false,
                ..
            },
        ) => false,
        (RetrySpan::Bounded { length, .. }, _) => length.secs > crate::duration::DAY,
    };
    if !outlives {
        return None;
    }
    let key_made = req
        .key_made
        .filter(|(_, fresh)| !fresh)
        .map(|(s, _)| (rf, s));
    Some(RetryFinding {
        file,
        at,
        what: what.to_string(),
        primary,
        span: span.clone(),
        request: (rf, req.clone()),
        key_made,
        keeper,
        settings: Vec::new(),
        assumed: None,
    })
}

/// What judging a loop that asks a project policy needs.
struct ProjectCtx<'c, 'a> {
    cat: &'c Catalogue,
    hosts: &'c HashMap<FileId, String>,
    consts: &'c Consts<'a>,
    fns: &'c [(FileId, &'a PolicyFn)],
}

impl ProjectCtx<'_, '_> {
    /// One finding per schedule of the policies the loop asks that
    /// outlives the key (once per schedule, however many loops ask it),
    /// its primary span on the policy, a label on the loop.
    fn judge(
        &self,
        file: FileId,
        site: &RetrySite,
        calls: &[(String, Option<String>)],
        reqs: Vec<(FileId, &KeyedRequest)>,
        findings: &mut Vec<RetryFinding>,
    ) {
        if reqs.is_empty() {
            return;
        }
        for pp in project_policies(calls, self.fns) {
            let Some((span, primary)) = self.consts.span(pp.file, &pp.policy) else {
                continue;
            };
            if findings
                .iter()
                .any(|g| (g.file, g.primary) == (pp.file, primary))
            {
                continue;
            }
            let what = format!("`{}`", pp.name);
            let found = judge(
                self.cat,
                self.hosts,
                pp.file,
                primary,
                &what,
                primary,
                &span,
                reqs.clone(),
            );
            if let Some(mut found) = found {
                found.settings = self.consts.settings(pp.file, &pp.policy);
                found.settings.push((
                    file,
                    site.at,
                    format!(
                        "this {} resends the request while `{}` says so",
                        site.what, pp.name
                    ),
                ));
                found.assumed = pp.assumed;
                findings.push(found);
            }
        }
    }
}

/// A schedule of a project's policy function, for one way it retries.
struct ProjectPolicy {
    file: FileId,
    policy: Policy,
    /// `Owner::name`, for the messages.
    name: String,
    assumed: Option<String>,
}

/// The schedules a loop's calls of project policy functions resolve to
/// (`strategy.test(.., tries)` → `RequestStrategy::test`): a method by its
/// name and, where the loop's parameter gives it, its type. Each arm that
/// retries after a growing delay is one schedule; the counter is taken to
/// be 0 at the first attempt, so `x < n` allows `n` attempts.
fn project_policies(
    calls: &[(String, Option<String>)],
    fns: &[(FileId, &PolicyFn)],
) -> Vec<ProjectPolicy> {
    let mut out = Vec::new();
    for (name, ty) in calls {
        let fits = |pf: &PolicyFn| {
            &pf.name == name
                && match (ty, &pf.owner) {
                    (Some(t), Some(o)) => t == o,
                    _ => true,
                }
        };
        for (file, pf) in fns.iter().filter(|(_, pf)| fits(pf)) {
            let shown = match &pf.owner {
                Some(o) => format!("{o}::{}", pf.name),
                None => pf.name.clone(),
            };
            for arm in &pf.arms {
                let series = |times: ConstExpr, span: Span| PolicyKind::Series {
                    shape: Shape::Geometric,
                    first: arm.first.clone(),
                    ratio: Ratio::Int(ConstExpr::Int(arm.ratio), arm.delay),
                    max: None,
                    times: Some(Setting::Written {
                        expr: ConstExpr::Sub(Box::new(times), Box::new(ConstExpr::Int(1))),
                        span,
                        unit_ms: None,
                    }),
                    cap: None,
                };
                let (kind, assumed) = match &arm.bound {
                    ArmBound::None => (
                        PolicyKind::Unbounded(
                            format!(
                                "`{shown}` retries after a growing delay with no bound on attempts"
                            ),
                            Some(arm.delay),
                        ),
                        None,
                    ),
                    ArmBound::Attempts(Setting::Written { expr, span, .. }) => {
                        (series(expr.clone(), *span), None)
                    }
                    ArmBound::Attempts(Setting::Default(_)) => continue,
                    ArmBound::Caller(variant) => {
                        let Some(k) = knowledge::retry()
                            .default_of("project-policy", "attempts")
                            .and_then(|d| d.value.parse::<u64>().ok())
                        else {
                            continue;
                        };
                        (
                            series(ConstExpr::Int(k), arm.delay),
                            Some(format!(
                                "the attempt count is the caller's (`{variant}(n)`); at {k} attempts, a count retry policies commonly default to, the delays of `{shown}` already add up to this"
                            )),
                        )
                    }
                };
                out.push(ProjectPolicy {
                    file: *file,
                    policy: Policy {
                        span: arm.delay,
                        krate: "loop",
                        kind,
                    },
                    name: shown.clone(),
                    assumed,
                });
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::settings::{given_value, is_env_name};

    /// The digit screen of [`given_of`]: no value without a digit is read,
    /// over texts built from the pieces a count, a duration (ISO 8601,
    /// units, a clock) or an environment default is made of.
    #[test]
    fn a_given_value_holds_a_digit() {
        let pieces = [
            "P", "T", "D", "H", "M", "S", "W", "Y", ".", ":", "-", "+", "e", "E", "inf", "NaN",
            "infinity", " ", "day", "days", "h", "hours", "m", "min", "s", "ms", "${X:-", "}", ",",
            "_", "x",
        ];
        let mut seed = 11u64;
        let mut texts = vec![String::new()];
        for _ in 0..50_000 {
            let mut t = String::new();
            for _ in 0..1 + (seed % 5) {
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                t.push_str(pieces[(seed >> 33) as usize % pieces.len()]);
            }
            texts.push(t);
        }
        for t in &texts {
            assert!(given_value(t).is_none(), "{t:?}");
            assert!(
                crate::model::settings::env_default(t, Span::new(0, 0), t)
                    .is_none_or(|(v, _)| given_value(v).is_none()),
                "{t:?}"
            );
        }
        // and with a digit it can be read
        assert!(given_value("PT5M").is_some() && given_value("${X:-5}").is_none());
        assert!(
            crate::model::settings::env_default("${X:-5}", Span::new(0, 7), "${X:-5}")
                .is_some_and(|(v, _)| given_value(v).is_some())
        );
    }

    #[test]
    fn backon_thirty_tries_capped_at_an_hour_sum_to_about_nineteen_hours() {
        // 1 + 2 + … + 2048 s, then 18 × 3600 s.
        let s = series_sum(Shape::Geometric, 1.0, 2.0, Some(3600.0), 30);
        assert_eq!(s as u64, 4095 + 18 * 3600);
    }

    #[test]
    fn fang_defaults_sum_to_twelve_days() {
        let s = series_sum(Shape::Geometric, 1.0, 2.0, None, 20);
        assert_eq!(s as u64, (1 << 20) - 1);
    }

    #[test]
    fn fibonacci_and_constant_series() {
        assert_eq!(
            series_sum(Shape::Fibonacci, 1.0, 1.0, Some(60.0), 5) as u64,
            1 + 1 + 2 + 3 + 5
        );
        assert_eq!(series_sum(Shape::Geometric, 5.0, 1.0, None, 4) as u64, 20);
        // A huge uncapped series saturates instead of overflowing.
        assert_eq!(
            series_sum(Shape::Geometric, 1.0, 10.0, None, 1_000_000),
            HUGE_SECS
        );
    }

    #[test]
    fn a_setting_read_meets_a_file_entry_by_section_and_name() {
        assert_eq!(
            join_key("settings.payout_worker.max_retries"),
            join_key("payout-worker.maxRetries")
        );
        assert_eq!(
            join_key("payout_worker.max_retries").as_deref(),
            Some("payoutworker.maxretries")
        );
        assert_ne!(join_key("cfg.max_retries"), join_key("payouts.max_retries"));
        assert_eq!(join_key("max_retries"), None);
        assert_eq!(
            join_key("$REFUND_MAX_RETRIES").as_deref(),
            Some("$REFUND_MAX_RETRIES")
        );
    }

    #[test]
    fn a_given_value_is_a_count_or_a_duration_with_its_unit() {
        assert_eq!(given_value("48").map(|v| v.1), Some(48));
        assert_eq!(given_value(" 1h ").map(|v| v.1), Some(3_600_000));
        assert_eq!(given_value("2.5"), None);
        assert_eq!(given_value("exponential"), None);
        assert!(is_env_name("REFUND_MAX_RETRIES"));
        assert!(!is_env_name("max_retries"));
    }

    #[test]
    fn urls_split_into_host_and_path() {
        assert_eq!(
            host_path("https://api.stripe.com/v1/payouts"),
            (Some("api.stripe.com".into()), Some("/v1/payouts".into()))
        );
        assert_eq!(
            host_path("{}/v2/core/accounts"),
            (None, Some("/v2/core/accounts".into()))
        );
    }
}
