//! `ttl-below-replay-horizon`: a retention on an idempotency store shorter
//! than its counterparty's replay floor (longest inbound window + margin).
//! Retentions and their counterparties come from `model::retention`; the
//! windows from `rules/counterparties.toml` and idemlint.toml.

use super::Context;
use crate::diagnostic::{Diagnostic, RuleId, Severity};
use crate::duration::Duration;
use crate::facts::retention::StoreRef;
use crate::horizons::Catalogue;
use crate::knowledge::{self, Counterparty, Window};
use crate::model::retention::{Attribution, Retention};
use crate::model::ProjectModel;
use crate::source::{FileId, Span};

pub const NAME: RuleId = RuleId::TtlBelowReplayHorizon;

/// Where a store is defined, for a label when that is in another file than
/// the retention: a table's `CREATE TABLE` in the migration history, a
/// Redis key prefix's first write.
pub trait StoreDefinitions {
    fn definition(&self, target: &StoreRef) -> Option<(FileId, Span)>;
}

impl StoreDefinitions for ProjectModel {
    fn definition(&self, target: &StoreRef) -> Option<(FileId, Span)> {
        match target {
            StoreRef::RedisPrefix(p) if !p.is_empty() => self.files.iter().find_map(|f| {
                f.redis_writes
                    .iter()
                    .find(|w| w.key_prefix.as_deref() == Some(p.as_str()))
                    .map(|w| (f.file, w.span))
            }),
            StoreRef::Table(name) => self
                .schema
                .find_table(name)
                .map(|t| (t.created.file, t.created.span)),
            _ => None,
        }
    }
}

pub fn check(ctx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    let catalogue = ctx.model.retention.catalogue();
    for r in &ctx.model.retention.items {
        if let Some(mut d) = diagnose(r, &catalogue, ctx.model) {
            if let Some(floor) = floor(r, &catalogue) {
                let written = ctx.sources.snippet(r.file, r.span);
                if let Some(text) = rewrite(written, r.duration, floor) {
                    let help = d.help.take().unwrap_or_default();
                    d = d.with_help(format!("{help}: write `{text}`"));
                }
            }
            out.push(d);
        }
    }
    unit_slips(ctx, out);
    token_guards(ctx, out);
    for f in &ctx.model.files {
        for e in &f.early_purges {
            out.push(early_purge(f.file, e));
        }
    }
}

/// An expiry read in another unit than it is written in
/// (`elapsed.as_millis() <= ttl.as_secs()`): whatever the TTL says, the
/// entries live a thousandth of it, or a thousand times longer. A note:
/// which store the expiry is for is not known here; judged only in a
/// package that holds an idempotency store or a keyed request
/// (`model::Joins::judged_files`).
fn unit_slips(ctx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    use crate::facts::retention::Purpose;
    for (file, s) in ctx.model.unit_slips(Purpose::Retention) {
        out.push(
            Diagnostic::new(
                NAME,
                Severity::Note,
                file,
                s.span,
                "an expiry check compares milliseconds with seconds: the TTL is off by a factor of 1000",
            )
            .with_note(s.what.clone())
            .with_primary_label("seconds and milliseconds mixed")
            .with_note(
                "a 12-hour TTL (43,200 s) compared as 43,200 ms expires after 43 seconds: a retry after that finds no key and runs again",
            )
            .with_help("convert both sides to one unit (`elapsed() <= ttl`, comparing the `Duration`s themselves)"),
        );
    }
}

/// A used-token record (`jti`) kept shorter than its token is accepted:
/// until the bare `exp` while decoding grants a leeway past it, or for a
/// time counted from now. Notes: how long the tokens live, and whether the
/// decoder that grants the leeway is the one these tokens pass through,
/// is not read here.
fn token_guards(ctx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    use crate::facts::tokens::ExpiryForm;
    let guards = ctx.model.token_guards();
    for (file, e) in &guards.expiries {
        let r = &e.record;
        let d = match (e.form, guards.leeway) {
            (ExpiryForm::TokenExp, Some((lf, l))) => Diagnostic::new(
                NAME,
                Severity::Note,
                *file,
                e.span,
                format!("`{r}` expires at the token's `exp`, but tokens are accepted for a leeway after it"),
            )
            .with_primary_label("the token's `exp`, no leeway added")
            .with_label(lf, l.span, "decoding accepts a token this long past its `exp`")
            .with_note("once the cleanup deletes the record, the same token is accepted again until the leeway runs out: it can be exchanged a second time")
            .with_help("keep the record until `exp` plus the validation leeway"),
            (ExpiryForm::TokenExp, None) => continue,
            (ExpiryForm::FromNow, _) => Diagnostic::new(
                NAME,
                Severity::Note,
                *file,
                e.span,
                format!("`{r}` expires a fixed time after its use, not at the token's `exp`"),
            )
            .with_primary_label("counted from now")
            .with_note("a token still valid when its record is purged can be exchanged again: the record must outlive the token, whose life is not known here")
            .with_help("keep the record until the token's `exp` plus any validation leeway"),
        };
        out.push(d);
    }
}

/// A cleanup that deletes a store's rows before their own expiry: each
/// key is forgotten that long before the store meant to stop holding it,
/// whatever its counterparty. A warning: the expiry column was set for a
/// reason the cleanup does not see.
fn early_purge(file: FileId, e: &crate::facts::retention::EarlyPurge) -> Diagnostic {
    let (t, c, lead) = (&e.table, &e.column, e.lead);
    Diagnostic::new(
        NAME,
        Severity::Warning,
        file,
        e.span,
        format!("`{t}` rows are deleted {lead} before their `{c}`"),
    )
    .with_primary_label(format!("{lead} ahead of the expiry"))
    .with_note(format!(
        "a key is forgotten {lead} before the time written for it in `{c}`: a replay in that time is applied again"
    ))
    .with_help(format!(
        "delete rows once `{c}` has passed (`{c} < now()`), and lengthen `{c}` where the keys are written if the store keeps them too long"
    ))
}

/// How a retention compares with its floor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Verdict {
    /// Shorter than the counterparty's horizon.
    BelowHorizon,
    /// At or past the horizon, short of horizon + margin.
    WithinMargin,
    /// No counterparty known, shorter than the default horizon.
    UnknownBelowFloor,
}

fn verdict(d: Duration, horizon: Duration, margin: Duration, known: bool) -> Option<Verdict> {
    let floor = horizon.secs.saturating_add(margin.secs);
    match (known, d.secs) {
        (true, s) if s < horizon.secs => Some(Verdict::BelowHorizon),
        (true, s) if s < floor => Some(Verdict::WithinMargin),
        // With no counterparty known, a retention at or past the default
        // horizon is as long as anyone would ask for: nothing to say.
        (false, s) if s < horizon.secs => Some(Verdict::UnknownBelowFloor),
        _ => None,
    }
}

/// The retention a finding asks for: horizon + margin for an inbound
/// store, the counterparty's key retention for an outbound one.
fn floor(r: &Retention, catalogue: &Catalogue) -> Option<Duration> {
    let cp = r.attribution.id().and_then(|id| catalogue.get(id));
    if matches!(r.attribution, Attribution::Outbound { .. }) {
        return cp
            .and_then(Counterparty::outbound_key_retention)
            .map(|(_, d)| d);
    }
    let h = cp
        .and_then(Counterparty::inbound_horizon)
        .map_or(catalogue.default_horizon, |(_, h)| h);
    Some(plus(h, catalogue.margin))
}

/// The diagnostic for one retention, if it falls short.
pub fn diagnose(
    r: &Retention,
    catalogue: &Catalogue,
    defs: &dyn StoreDefinitions,
) -> Option<Diagnostic> {
    let cp = r.attribution.id().and_then(|id| catalogue.get(id));
    let mut d = if matches!(r.attribution, Attribution::Outbound { .. }) {
        outbound(r, cp?)?
    } else {
        let horizon = cp.and_then(Counterparty::inbound_horizon);
        let (h, known) = match horizon {
            Some((_, h)) => (h, true),
            None => (catalogue.default_horizon, false),
        };
        let v = verdict(r.duration, h, catalogue.margin, known)?;
        match (v, cp, horizon) {
            (Verdict::BelowHorizon, Some(cp), Some((w, h))) => {
                below_horizon(r, cp, w, h, catalogue.margin)
            }
            (Verdict::WithinMargin, Some(cp), Some((w, h))) => {
                within_margin(r, cp, w, h, catalogue.margin)
            }
            _ => unknown_counterparty(r, catalogue),
        }
    };
    if r.unit_assumed && d.severity > Severity::Warning {
        d.severity = Severity::Warning;
    }
    if r.unit_assumed {
        d = d.with_note(
            "the value is a bare number, read as seconds: write it with a unit (`24h`) or name its unit in the key (`_seconds`)",
        );
    }
    if looks_like_tolerance(r) && d.severity > Severity::Note {
        d.severity = Severity::Note;
        d = d.with_note(format!(
            "a `replay` window of {} is more often a signed webhook's timestamp tolerance than a store's retention: if it is one, it needs no change (name it `*_tolerance` to say so)",
            r.duration
        ));
    }
    if let crate::model::retention::Attribution::Writer(w) = &r.attribution {
        d = d.with_label(w.file, w.span, w.label());
    }
    for (file, span, text) in &r.labels {
        d = d.with_label(*file, *span, text.clone());
    }
    // Labels of their own say where the number is used; else the write or
    // the definition in another file.
    let site = r.site.filter(|(f, _)| *f != r.file && r.labels.is_empty());
    if let Some((file, span)) = site {
        d = d.with_label(file, span, site_label(&r.target));
    } else if let Some((file, span)) = defs
        .definition(&r.target)
        .filter(|(f, _)| *f != r.file && r.labels.is_empty())
    {
        d = d.with_label(file, span, definition_label(&r.target));
    }
    Some(d)
}

/// The subject of the headline: "`processed_stripe_events` keeps keys 24h",
/// "redis keys `idem:stripe:*` expire after 24h".
fn kept(r: &Retention) -> String {
    let target = &r.target;
    // A bare number is shown as written, not as the seconds it was read as.
    let d = if r.unit_assumed {
        format!("{}s", r.duration.secs)
    } else {
        r.duration.to_string()
    };
    match target {
        StoreRef::Table(t) => format!("`{t}` keeps keys {d}"),
        StoreRef::RedisPrefix(p) if p.is_empty() => format!("redis keys expire after {d}"),
        StoreRef::RedisPrefix(p) => format!("redis keys `{p}*` expire after {d}"),
        StoreRef::ConfigPath(p) => format!("`{}` keeps keys {d}", headline_path(p)),
        StoreRef::Constant(n) => format!("`{n}` keeps keys {d}"),
    }
}

/// A config path as a headline names it. An environment entry is named by
/// its variable (`spec.template.spec.containers[0].env[0].DEDUP_TTL` is
/// `DEDUP_TTL`); another path longer than [`HEADLINE_PATH`] characters
/// keeps its last segments after `…`. The location line shows the file.
fn headline_path(p: &str) -> String {
    if let Some((_, name)) = p.rsplit_once("].") {
        if p[..p.len() - name.len() - 2]
            .rsplit_once('.')
            .map_or(p, |(_, s)| s)
            .starts_with("env[")
        {
            return name.to_string();
        }
    }
    if p.chars().count() <= HEADLINE_PATH {
        return p.to_string();
    }
    let mut tail = String::new();
    for seg in p.rsplit('.') {
        let next = if tail.is_empty() {
            seg.to_string()
        } else {
            format!("{seg}.{tail}")
        };
        if next.chars().count() + 2 > HEADLINE_PATH && !tail.is_empty() {
            break;
        }
        tail = next;
    }
    format!("….{tail}")
}

/// The longest config path a headline shows whole.
const HEADLINE_PATH: usize = 48;

/// What the primary span is.
fn primary_label(r: &Retention) -> &'static str {
    match r.target {
        StoreRef::RedisPrefix(_) => "expiry set here",
        _ => "retention set here",
    }
}

fn plus(a: Duration, b: Duration) -> Duration {
    Duration::from_secs(a.secs.saturating_add(b.secs))
}

/// Where a window's number comes from.
fn source_note(cp: &Counterparty, w: &Window) -> String {
    format!(
        "{}'s window: {} ({}), read {}",
        cp.name, w.what, w.source, w.read
    )
}

/// `3.3%`; under a tenth of a percent reads `<0.1%` rather than `0.0%`.
fn coverage(kept: Duration, horizon: Duration) -> String {
    let pct = 100.0 * kept.secs as f64 / horizon.secs.max(1) as f64;
    if pct > 0.0 && pct < 0.05 {
        "<0.1%".to_string()
    } else {
        format!("{pct:.1}%")
    }
}

fn below_horizon(
    r: &Retention,
    cp: &Counterparty,
    w: &Window,
    h: Duration,
    margin: Duration,
) -> Diagnostic {
    let pct = coverage(r.duration, h);
    Diagnostic::new(
        NAME,
        Severity::Error,
        r.file,
        r.span,
        format!("{}; {} resends up to {h}", kept(r), cp.name),
    )
    .with_primary_label(primary_label(r))
    .with_note(format!(
        "{} covers {pct} of that window; a replay after it is processed a second time",
        r.duration
    ))
    .with_note(format!(
        "the replay floor is {} ({h} + {margin} margin for an outage or a restore)",
        plus(h, margin)
    ))
    .with_note(source_note(cp, w))
    .with_help(format!("keep keys at least {}", plus(h, margin)))
}

fn within_margin(
    r: &Retention,
    cp: &Counterparty,
    w: &Window,
    h: Duration,
    margin: Duration,
) -> Diagnostic {
    Diagnostic::new(
        NAME,
        Severity::Warning,
        r.file,
        r.span,
        format!("{}; {}'s {h} window leaves no margin", kept(r), cp.name),
    )
    .with_primary_label(primary_label(r))
    .with_note(format!(
        "it outlasts {}'s {h} replay window but not the {margin} margin for an outage or a restore",
        cp.name
    ))
    .with_note(source_note(cp, w))
    .with_help(format!(
        "keep keys at least {} ({h} + {margin} margin)",
        plus(h, margin)
    ))
}

fn unknown_counterparty(r: &Retention, catalogue: &Catalogue) -> Diagnostic {
    let (h, m) = (catalogue.default_horizon, catalogue.margin);
    Diagnostic::new(
        NAME,
        Severity::Note,
        r.file,
        r.span,
        format!("{}; no counterparty is known for this store", kept(r)),
    )
    .with_primary_label(primary_label(r))
    .with_note(format!(
        "its names match no counterparty of `idemlint horizons`; a store for your own API's clients needs their retry window, which only you know (found as {})",
        r.via
    ))
    .with_help(format!(
        "declare the counterparty with `[[store]] counterparty = ...` in `idemlint.toml`, or keep keys at least {} ({h} default horizon + {m} margin)",
        plus(h, m)
    ))
}

/// A store of keys this service sends: shorter than the counterparty keeps
/// them, a retry after it makes a new key for a request the counterparty
/// would still have recognised. A note: how long the service retries is
/// what decides, and only the code that retries says that.
fn outbound(r: &Retention, cp: &Counterparty) -> Option<Diagnostic> {
    let (w, keeps) = cp.outbound_key_retention()?;
    if r.duration >= keeps {
        return None;
    }
    Some(
        Diagnostic::new(
            NAME,
            Severity::Note,
            r.file,
            r.span,
            format!("{}; {} keeps sent keys {keeps}", kept(r), cp.name),
        )
        .with_primary_label(primary_label(r))
        .with_note(format!(
            "these are keys sent to {}: a retry after {} gets a new key, and {} treats it as a new request",
            cp.name, r.duration, cp.name
        ))
        .with_note(source_note(cp, w))
        .with_help(format!(
            "keep sent keys as long as the retries of one request may run, up to {keeps}"
        )),
    )
}

/// The written retention rewritten in its own form for `want`: an SQL
/// interval (`'24 hours'` → `'35 days'`), a duration string (`24h` →
/// `35d`), or a number in the same unit (`86400` → `3024000`). `None` when
/// the form is not recognised.
fn rewrite(written: &str, was: Duration, want: Duration) -> Option<String> {
    let t = written.trim();
    let inner = t.trim_matches(['\'', '"']);
    let quote = &t[..t.len() - t.trim_start_matches(['\'', '"']).len()];
    let digits: String = inner.chars().take_while(char::is_ascii_digit).collect();
    if digits.is_empty() || was.secs == 0 {
        return None;
    }
    let rest = inner[digits.len()..].trim();
    let unit_word = rest.trim_end_matches('s').to_ascii_lowercase();
    if ["second", "minute", "hour", "day", "week"].contains(&unit_word.as_str()) {
        let days = want.secs / 86_400;
        let text = if want.secs.is_multiple_of(86_400) {
            format!("{days} day{}", if days == 1 { "" } else { "s" })
        } else {
            format!("{} hours", want.secs.div_ceil(3_600))
        };
        return Some(format!("{quote}{text}{quote}"));
    }
    if rest.is_empty() && quote.is_empty() {
        // a number in some unit: scale it by the same ratio
        let n: u64 = digits.parse().ok()?;
        let scaled = (want.secs as u128 * n as u128) / was.secs as u128;
        let exact = (want.secs as u128 * n as u128).is_multiple_of(was.secs as u128);
        return exact.then(|| scaled.to_string());
    }
    if rest.chars().all(|c| c.is_ascii_alphabetic()) && rest.len() <= 2 {
        return Some(format!("{quote}{want}{quote}"));
    }
    None
}

/// A short duration found by its name alone, whose name is a store's only
/// through `replay` (`REPLAY_WINDOW_SECS = 300`): likely a signature
/// tolerance (`rules/retention.toml`).
fn looks_like_tolerance(r: &Retention) -> bool {
    let words = knowledge::retention_words();
    let name = match &r.target {
        StoreRef::Constant(n) | StoreRef::ConfigPath(n) => n,
        StoreRef::Table(_) | StoreRef::RedisPrefix(_) => return false,
    };
    r.site.is_none()
        && r.duration.secs <= words.tolerance_scale_secs
        && words.store_only_by_ambiguous_word(name)
}

fn site_label(target: &StoreRef) -> String {
    match target {
        StoreRef::RedisPrefix(p) if !p.is_empty() => {
            format!("`{p}` keys are written here with this expiry")
        }
        _ => "the store is written here with this expiry".to_string(),
    }
}

fn definition_label(target: &StoreRef) -> String {
    match target {
        StoreRef::Table(t) => format!("`{t}` is defined here"),
        StoreRef::RedisPrefix(p) => format!("`{p}` keys are written here"),
        StoreRef::ConfigPath(p) | StoreRef::Constant(p) => format!("`{p}` is set here"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_config_path_is_shortened_in_the_headline() {
        assert_eq!(
            headline_path("spec.template.spec.containers[0].env[0].STRIPE_DEDUP_TTL_HOURS"),
            "STRIPE_DEDUP_TTL_HOURS"
        );
        assert_eq!(
            headline_path("stripe.webhooks.dedup_ttl"),
            "stripe.webhooks.dedup_ttl"
        );
        assert_eq!(headline_path("queues[1].ttl"), "queues[1].ttl");
        let long = "platform.payments.services.webhooks.providers.stripe.dedup.ttl_hours";
        let short = headline_path(long);
        assert!(
            short.starts_with("….") && long.ends_with(&short["….".len()..]),
            "{short}"
        );
        assert!(short.chars().count() <= HEADLINE_PATH, "{short}");
    }
    use crate::duration::{DAY, HOUR};
    use crate::facts::retention::RetentionFact;
    use crate::facts::FileFacts;
    use crate::model::retention::{attribute, Attribution};

    /// A SQL retention as the SQL front end records it.
    fn sql_fact(secs: u64) -> RetentionFact {
        RetentionFact {
            span: Span::new(70, 80),
            duration: Duration::from_secs(secs),
            target: StoreRef::Table("processed_stripe_events".into()),
            via: "DELETE with interval".into(),
            context: vec!["processed_stripe_events".into(), "cleanup".into()],
        }
    }

    struct Tables(Vec<(String, FileId, Span)>);

    impl StoreDefinitions for Tables {
        fn definition(&self, target: &StoreRef) -> Option<(FileId, Span)> {
            let StoreRef::Table(t) = target else {
                return None;
            };
            self.0
                .iter()
                .find(|(n, _, _)| n == t)
                .map(|(_, f, s)| (*f, *s))
        }
    }

    fn diagnose_sql(secs: u64, defs: &dyn StoreDefinitions) -> Option<Diagnostic> {
        let facts = FileFacts {
            file: 1,
            retention: vec![sql_fact(secs)],
            ..FileFacts::default()
        };
        let mut sources = crate::source::SourceMap::default();
        for p in ["migrations/0001_events.sql", "migrations/0002_cleanup.sql"] {
            sources.files.push(crate::source::SourceFile::new(
                p,
                crate::source::FileKind::Sql,
                "",
            ));
        }
        let empty = FileFacts::default();
        let model = crate::model::retention::RetentionModel::build(
            &[empty, facts],
            &sources,
            &crate::config::Config::default(),
        );
        let cat = model.catalogue();
        assert_eq!(model.items.len(), 1);
        diagnose(&model.items[0], &cat, defs)
    }

    #[test]
    fn sql_delete_after_24h_on_stripe_events_is_an_error_with_coverage_and_floor() {
        let defs = Tables(vec![(
            "processed_stripe_events".into(),
            0,
            Span::new(13, 36),
        )]);
        let d = diagnose_sql(DAY, &defs).unwrap();
        assert_eq!(d.severity, Severity::Error);
        assert_eq!(
            d.message,
            "`processed_stripe_events` keeps keys 24h; Stripe resends up to 30d"
        );
        assert!(d.notes[0].starts_with("24h covers 3.3% of that window"));
        assert!(d.notes[1].contains("35d (30d + 5d margin"));
        assert_eq!((d.file, d.span), (1, Span::new(70, 80)));
        assert_eq!(d.labels.len(), 1);
        assert_eq!((d.labels[0].file, d.labels[0].span), (0, Span::new(13, 36)));
        assert_eq!(
            d.labels[0].message,
            "`processed_stripe_events` is defined here"
        );
        assert!(d.notes[2].contains("process-undelivered-events"));
        assert_eq!(d.help.as_deref(), Some("keep keys at least 35d"));
    }

    #[test]
    fn sql_retention_of_40_days_on_stripe_events_gives_nothing() {
        assert!(diagnose_sql(40 * DAY, &Tables(vec![])).is_none());
        assert!(diagnose_sql(35 * DAY, &Tables(vec![])).is_none());
    }

    #[test]
    fn sql_retention_of_32_days_on_stripe_events_is_a_warning() {
        let d = diagnose_sql(32 * DAY, &Tables(vec![])).unwrap();
        assert_eq!(d.severity, Severity::Warning);
        assert_eq!(
            d.help.as_deref(),
            Some("keep keys at least 35d (30d + 5d margin)")
        );
        assert!(d.labels.is_empty());
    }

    #[test]
    fn unknown_counterparty_below_default_floor_is_a_note_asking_to_declare_it() {
        let r = Retention {
            file: 0,
            span: Span::new(0, 3),
            duration: Duration::from_secs(24 * HOUR),
            target: StoreRef::ConfigPath("api.idempotency.ttl".into()),
            via: "config key `api.idempotency.ttl`".into(),
            context: vec!["api".into(), "idempotency".into(), "ttl".into()],
            unit_assumed: false,
            site: None,
            attribution: Attribution::Unknown,
            labels: Vec::new(),
        };
        let cat = Catalogue::builtin();
        assert_eq!(attribute(&r.context, &cat), Attribution::Unknown);
        let d = diagnose(&r, &cat, &Tables(vec![])).unwrap();
        assert_eq!(d.severity, Severity::Note);
        assert_eq!(
            d.message,
            "`api.idempotency.ttl` keeps keys 24h; no counterparty is known for this store"
        );
        let help = d.help.unwrap_or_default();
        assert!(help.starts_with("declare the counterparty with `[[store]] counterparty = ...`"));
        assert!(help.ends_with("keep keys at least 35d (30d default horizon + 5d margin)"));
    }

    fn stripe_constant(name: &str, secs: u64) -> Retention {
        Retention {
            file: 0,
            span: Span::new(0, 3),
            duration: Duration::from_secs(secs),
            target: StoreRef::Constant(name.into()),
            via: format!("`{name}`"),
            context: vec![name.into(), "src/webhooks/stripe.rs".into()],
            unit_assumed: false,
            site: None,
            attribution: Attribution::Named {
                id: "stripe-webhooks".into(),
                name: "src/webhooks/stripe.rs".into(),
            },
            labels: Vec::new(),
        }
    }

    #[test]
    fn five_minute_replay_window_constant_is_a_note_that_names_the_signature_tolerance() {
        let cat = Catalogue::builtin();
        let diagnose_const = |name: &str, secs: u64| {
            diagnose(&stripe_constant(name, secs), &cat, &Tables(vec![])).unwrap()
        };
        let d = diagnose_const("REPLAY_WINDOW_SECS", 300);
        assert_eq!(d.severity, Severity::Note);
        assert!(d.notes.join(" ").contains("timestamp tolerance"));
        // a day-long replay window, or a dedup window of five minutes, is a retention
        assert_eq!(
            diagnose_const("REPLAY_WINDOW_SECS", DAY).severity,
            Severity::Error
        );
        assert_eq!(
            diagnose_const("REPLAY_DEDUP_WINDOW", 300).severity,
            Severity::Error
        );
    }

    #[test]
    fn bare_number_read_as_seconds_is_at_most_a_warning() {
        let r = Retention {
            file: 0,
            span: Span::new(0, 5),
            duration: Duration::from_secs(DAY),
            target: StoreRef::ConfigPath("stripe.dedup.ttl".into()),
            via: "config key".into(),
            context: vec!["stripe".into()],
            unit_assumed: true,
            site: None,
            attribution: Attribution::Named {
                id: "stripe-webhooks".into(),
                name: "stripe".into(),
            },
            labels: Vec::new(),
        };
        let d = diagnose(&r, &Catalogue::builtin(), &Tables(vec![])).unwrap();
        assert_eq!(d.severity, Severity::Warning);
        assert!(d.notes.join(" ").contains("read as seconds"));
    }

    #[test]
    fn outbound_key_retention_is_not_the_horizon_of_an_inbound_store() {
        // Stripe API v1 keeps keys 24h (outbound); a 2-day inbound store is
        // still below Stripe's 30-day resend window.
        let cat = Catalogue::builtin();
        let a = attribute(&["stripe_api".to_string()], &cat);
        assert_eq!(a.id(), Some("stripe-webhooks"));
    }

    #[test]
    fn a_24h_cache_of_keys_sent_to_stripe_is_within_its_key_retention() {
        let cat = Catalogue::builtin();
        let context = vec!["stripe.api.idempotency_key_ttl".to_string()];
        assert!(crate::model::retention::names_counterparty_api(
            &context[0],
            &cat
        ));
        let attribution = crate::model::retention::attribute_outbound(&context, &cat).unwrap();
        assert_eq!(attribution.id(), Some("stripe-api-v1"));
        let r = |secs| Retention {
            file: 0,
            span: Span::new(0, 5),
            duration: Duration::from_secs(secs),
            target: StoreRef::ConfigPath(context[0].clone()),
            via: "config key".into(),
            context: context.clone(),
            unit_assumed: false,
            site: None,
            attribution: attribution.clone(),
            labels: Vec::new(),
        };
        assert!(diagnose(&r(DAY), &cat, &Tables(vec![])).is_none());
        assert!(diagnose(&r(2 * DAY), &cat, &Tables(vec![])).is_none());
        let short = diagnose(&r(HOUR), &cat, &Tables(vec![])).unwrap();
        assert_eq!(short.severity, Severity::Note);
        assert!(short.message.contains("Stripe API v1 keeps sent keys 24h"));
    }

    #[test]
    fn a_written_retention_is_rewritten_in_its_own_form() {
        let (day, floor) = (Duration::from_secs(DAY), Duration::from_secs(35 * DAY));
        assert_eq!(
            rewrite("'24 hours'", day, floor).as_deref(),
            Some("'35 days'")
        );
        assert_eq!(rewrite("\"24h\"", day, floor).as_deref(), Some("\"35d\""));
        assert_eq!(rewrite("86400", day, floor).as_deref(), Some("3024000"));
        assert_eq!(rewrite("24", day, floor).as_deref(), Some("840"));
        assert_eq!(rewrite("24 * 60 * 60", day, floor), None);
        assert_eq!(rewrite("Duration::from_secs(86400)", day, floor), None);
    }

    #[test]
    fn coverage_under_a_tenth_of_a_percent_is_not_printed_as_zero() {
        assert_eq!(
            coverage(Duration::from_secs(300), Duration::from_secs(30 * 86_400)),
            "<0.1%"
        );
        assert_eq!(
            coverage(
                Duration::from_secs(86_400),
                Duration::from_secs(30 * 86_400)
            ),
            "3.3%"
        );
    }
}
