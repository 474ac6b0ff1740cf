//! `ttl-below-replay-horizon`: a retention on an idempotency store shorter
//! than its counterparty's replay floor (longest inbound window + margin).
//! Retentions and their counterparties come from `model::retention`; the
//! windows from `rules/counterparties.toml` and idemlint.toml.

use super::Context;
use crate::diagnostic::{Diagnostic, Severity};
use crate::duration::Duration;
use crate::frontend::StoreRef;
use crate::horizons::Catalogue;
use crate::knowledge::{self, Counterparty, Window};
use crate::model::retention::Retention;
use crate::model::ProjectModel;
use crate::source::{FileId, Span};

pub const NAME: &str = "ttl-below-replay-horizon";

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
        if let Some(d) = diagnose(r, &catalogue, ctx.model) {
            out.push(d);
        }
    }
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

/// The diagnostic for one retention, if it falls short.
pub fn diagnose(
    r: &Retention,
    catalogue: &Catalogue,
    defs: &dyn StoreDefinitions,
) -> Option<Diagnostic> {
    let cp = r.attribution.id().and_then(|id| catalogue.get(id));
    let horizon = cp.and_then(Counterparty::inbound_horizon);
    let (h, known) = match horizon {
        Some((_, h)) => (h, true),
        None => (catalogue.default_horizon, false),
    };
    let v = verdict(r.duration, h, catalogue.margin, known)?;
    let mut d = match (v, cp, horizon) {
        (Verdict::BelowHorizon, Some(cp), Some((w, h))) => {
            below_horizon(r, cp, w, h, catalogue.margin)
        }
        (Verdict::WithinMargin, Some(cp), Some((w, h))) => {
            within_margin(r, cp, w, h, catalogue.margin)
        }
        _ => unknown_counterparty(r, catalogue),
    };
    if r.unit_assumed && d.severity > Severity::Warning {
        d.severity = Severity::Warning;
    }
    if r.unit_assumed {
        let help = d.help.take().unwrap_or_default();
        d = d.with_help(format!(
            "{help}; the value is a bare number, read as seconds: write it with a unit (`24h`) or a unit suffix on the key (`_seconds`)"
        ));
    }
    if looks_like_tolerance(r) && d.severity > Severity::Note {
        d.severity = Severity::Note;
        let help = d.help.take().unwrap_or_default();
        d = d.with_help(format!(
            "{help}; a `replay` window of {} is more often a signed webhook's timestamp tolerance than a store's retention: if it is one, it needs no change (name it `*_tolerance` to say so)",
            r.duration
        ));
    }
    if let crate::model::retention::Attribution::Writer(w) = &r.attribution {
        d = d.with_label(w.file, w.span, w.label());
    }
    if let Some((file, span)) = r.site.filter(|(f, _)| *f != r.file) {
        d = d.with_label(file, span, site_label(&r.target));
    } else if let Some((file, span)) = defs.definition(&r.target).filter(|(f, _)| *f != r.file) {
        d = d.with_label(file, span, definition_label(&r.target));
    }
    Some(d)
}

/// The subject of the message: "`processed_stripe_events` keeps keys 24h",
/// "redis keys `idem:stripe:*` expire after 24h".
fn kept(r: &Retention) -> String {
    let target = &r.target;
    // A bare number is shown as written, not as the seconds it was read as.
    let d = if r.unit_assumed {
        format!("{} (unit not stated: read as seconds)", r.duration.secs)
    } else {
        r.duration.to_string()
    };
    match target {
        StoreRef::Table(t) => format!("`{t}` keeps keys {d}"),
        StoreRef::RedisPrefix(p) if p.is_empty() => format!("redis keys expire after {d}"),
        StoreRef::RedisPrefix(p) => format!("redis keys `{p}*` expire after {d}"),
        StoreRef::ConfigPath(p) => format!("`{p}` keeps keys {d}"),
        StoreRef::Constant(n) => format!("`{n}` keeps keys {d}"),
    }
}

fn plus(a: Duration, b: Duration) -> Duration {
    Duration::from_secs(a.secs.saturating_add(b.secs))
}

fn window_help(cp: &Counterparty, w: &Window) -> String {
    format!(
        "{}'s longest inbound window is {} ({}): {}, read {}",
        cp.name, w.duration, w.what, w.source, w.read
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
        format!(
            "{} but {} may resend an event for {h}: {} covers {pct} of that window; keep at least {} ({h} + {margin} margin)",
            kept(r),
            cp.name,
            r.duration,
            plus(h, margin)
        ),
    )
    .with_help(window_help(cp, w))
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
        format!(
            "{}, past {}'s {h} replay window but inside the {margin} margin for an outage or a restore; keep at least {} ({h} + {margin} margin)",
            kept(r),
            cp.name,
            plus(h, margin)
        ),
    )
    .with_help(window_help(cp, w))
}

fn unknown_counterparty(r: &Retention, catalogue: &Catalogue) -> Diagnostic {
    let (h, m) = (catalogue.default_horizon, catalogue.margin);
    Diagnostic::new(
        NAME,
        Severity::Note,
        r.file,
        r.span,
        format!(
            "{} and no counterparty is known for it: declare one with `[[store]] counterparty = ...` in `idemlint.toml`, or keep at least {} ({h} default horizon + {m} margin)",
            kept(r),
            plus(h, m)
        ),
    )
    .with_help(format!(
        "the store's names match no counterparty of `idemlint horizons`; a store for your own API clients needs its clients' retry window, which only you know (found as {})",
        r.via
    ))
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
    use crate::duration::{DAY, HOUR};
    use crate::frontend::{FileFacts, RetentionFact};
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
            sources.files.push(crate::source::SourceFile {
                path: p.into(),
                kind: crate::source::FileKind::Sql,
                text: std::sync::Arc::from(""),
                bom: false,
            });
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
            "`processed_stripe_events` keeps keys 24h but Stripe may resend an event for 30d: 24h covers 3.3% of that window; keep at least 35d (30d + 5d margin)"
        );
        assert_eq!((d.file, d.span), (1, Span::new(70, 80)));
        assert_eq!(d.labels.len(), 1);
        assert_eq!((d.labels[0].file, d.labels[0].span), (0, Span::new(13, 36)));
        assert_eq!(
            d.labels[0].message,
            "`processed_stripe_events` is defined here"
        );
        assert!(d.help.unwrap().contains("process-undelivered-events"));
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
        assert!(
            d.message.contains("keep at least 35d (30d + 5d margin)"),
            "{}",
            d.message
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
        };
        let cat = Catalogue::builtin();
        assert_eq!(attribute(&r.context, &cat), Attribution::Unknown);
        let d = diagnose(&r, &cat, &Tables(vec![])).unwrap();
        assert_eq!(d.severity, Severity::Note);
        assert!(d.message.starts_with("`api.idempotency.ttl` keeps keys 24h and no counterparty is known for it: declare one with `[[store]] counterparty = ...`"), "{}", d.message);
        assert!(d
            .message
            .ends_with("keep at least 35d (30d default horizon + 5d margin)"));
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
        assert!(d.help.unwrap().contains("timestamp tolerance"));
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
        };
        let d = diagnose(&r, &Catalogue::builtin(), &Tables(vec![])).unwrap();
        assert_eq!(d.severity, Severity::Warning);
        assert!(d.help.unwrap().contains("read as seconds"));
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
