//! `retry-outlives-key-retention`: a retry that resends the same keyed
//! request for longer than the counterparty keeps the key. Reads
//! `model::retries`; the spans and the keepers are computed there.

use super::Context;
use crate::diagnostic::{Diagnostic, RuleId, Severity};
use crate::duration::{Duration, DAY};
use crate::model::retries::{Keeper, RetryFinding, RetrySpan};

pub const NAME: RuleId = RuleId::RetryOutlivesKeyRetention;

pub fn check(ctx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    for f in &ctx.model.retries.findings {
        out.push(diagnostic(f));
    }
    unit_slips(ctx, out);
}

/// A retry schedule read in another unit than it is written in
/// (`schedule_ms.map(Duration::from_secs)`): every delay a thousand times
/// longer, so a schedule of a few seconds resends the same keyed request
/// hours and days later. A note: which requests the schedule resends is not
/// known here; judged only in a package that holds an idempotency store or
/// a keyed request (`model::Joins::judged_files`).
fn unit_slips(ctx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    use crate::facts::retention::Purpose;
    for (file, s) in ctx.model.unit_slips(Purpose::Retry) {
        out.push(
            Diagnostic::new(
                NAME,
                Severity::Note,
                file,
                s.span,
                "a retry delay is read in the wrong unit: each wait is off by a factor of 1000",
            )
            .with_note(s.what.clone())
            .with_primary_label("seconds and milliseconds mixed")
            .with_note(
                "a 60,000 ms backoff read as seconds waits 16.7 hours: the same keyed request is resent after the server may have dropped its key (many keep keys 12 to 24 hours), and runs as a new request",
            )
            .with_help("read the value in the unit its name gives (`Duration::from_millis` for `_ms`)"),
        );
    }
}

/// `POST /v1/payouts`, or `a request` when the builder shows neither.
fn request_text(f: &RetryFinding) -> String {
    let r = &f.request.1;
    let path = r.url.as_deref().map(|u| {
        let rest = u
            .strip_prefix("https://")
            .or_else(|| u.strip_prefix("http://"))
            .map_or(u, |r| r.find('/').map_or("", |i| &r[i..]));
        match rest.find('/') {
            Some(i) if !rest.starts_with('/') => rest[i..].to_string(),
            _ => rest.to_string(),
        }
    });
    match (
        r.method.as_deref(),
        path.filter(|p| p.starts_with('/') && p.len() <= 40),
    ) {
        (Some(m), Some(p)) => format!("`{m} {p}`"),
        (None, Some(p)) => format!("`{p}`"),
        (Some(m), None) => format!("a `{m}`"),
        (None, None) => "a request".to_string(),
    }
}

/// What a second execution makes: the path's last word, singular (`payout`).
fn effect_noun(f: &RetryFinding) -> Option<String> {
    let url = f.request.1.url.as_deref()?;
    let word = url.split(['/', '?']).rfind(|s| {
        !s.is_empty()
            && s.chars()
                .all(|c| c.is_ascii_lowercase() || c == '_' || c == '-')
    })?;
    let singular = word.strip_suffix('s').unwrap_or(word);
    (singular.len() >= 3).then(|| singular.replace(['_', '-'], " "))
}

fn diagnostic(f: &RetryFinding) -> Diagnostic {
    // Headlines stay under 100 characters: name the key generically, then
    // drop the path, before anything else.
    let header = format!("`{}`", f.request.1.header);
    let short = match f.request.1.method.as_deref() {
        Some(m) => format!("a `{m}`"),
        None => "a request".to_string(),
    };
    let full = request_text(f);
    let tries = [
        (&full, &header[..]),
        (&full, "key"),
        (&short, &header[..]),
        (&short, "key"),
        (&short, ""),
    ];
    // The headline's line (`warning[retry-outlives-key-retention]: …`)
    // stays under 100 columns too.
    let budget = 99 - "warning[]: ".len() - NAME.as_str().len();
    let mut last = None;
    for (req, key) in tries {
        let d = build(f, req, key);
        if d.message.chars().count() <= budget {
            return d;
        }
        last = Some(d);
    }
    last.unwrap_or_else(|| build(f, &short, ""))
}

fn build(f: &RetryFinding, req: &str, key: &str) -> Diagnostic {
    // The key is named in a label too: the shortest headline leaves it out.
    let with = if key.is_empty() {
        String::new()
    } else {
        format!(" with one {key}")
    };
    let header = &f.request.1.header;
    let second = match effect_noun(f) {
        Some(n) => format!("a second {n}"),
        None => "the operation a second time".to_string(),
    };
    let (severity, message, reason) = match (&f.span, &f.keeper) {
        (RetrySpan::Unbounded(why), keeper) => {
            let kept = match keeper {
                Keeper::Window { name, length, .. } => format!("; {name} keeps keys {length}"),
                _ => String::new(),
            };
            (
                Severity::Warning,
                format!("retries {req}{with} and never gives up{kept}"),
                format!(
                    "the policy has no end ({why}): once the server has forgotten the key, the next retry can execute {second}"
                ),
            )
        }
        (
            RetrySpan::Bounded { length, .. },
            Keeper::Window {
                name, length: w, ..
            },
        ) => {
            let length = coarse(*length);
            (
            Severity::Error,
            format!("retries {req}{with} for up to {length}; {name} keeps keys {w}"),
            format!(
                "{name} may forget the key once it is {w} old: a retry after {} can execute {second}, with the same key, so nothing looks wrong",
                after(*w)
            ),
        )
        }
        (RetrySpan::Bounded { length, .. }, keeper) => {
            let length = coarse(*length);
            let who = match keeper {
                Keeper::Unpublished { name, .. } => format!("{name} publishes no key retention"),
                _ => "how long the server keeps keys is unknown".to_string(),
            };
            (
                Severity::Warning,
                format!("retries {req}{with} for up to {length}; {who}"),
                format!(
                    "with no published window to hold it to, a retry after the server forgets the key can execute {second}"
                ),
            )
        }
    };
    // An attempt count the caller chooses, assumed: a note, saying so.
    let (severity, reason) = match &f.assumed {
        Some(a) => (Severity::Note, format!("{a}; {reason}")),
        None => (severity, reason),
    };
    let window = match &f.keeper {
        Keeper::Window { length, .. } => format!("{length}"),
        _ => "the server's window".to_string(),
    };
    let span_label = match &f.span {
        RetrySpan::Bounded { length, how } => {
            format!("resends for up to {} ({how})", coarse(*length))
        }
        RetrySpan::Unbounded(_) => "never gives up".to_string(),
    };
    let mut d =
        Diagnostic::new(NAME, severity, f.file, f.primary, message).with_primary_label(span_label);
    if f.at != f.primary {
        d = d.with_label(f.file, f.at, format!("{} retries here", f.what));
    }
    d = d.with_label(
        f.request.0,
        f.request.1.at,
        format!("the request it resends, keyed by `{header}`"),
    );
    for (sf, ss, what) in &f.settings {
        d = d.with_label(*sf, *ss, what.clone());
    }
    if let Some((kf, ks)) = f.key_made {
        d = d.with_label(kf, ks, "the key is made once, for every attempt");
    }
    let source = match &f.keeper {
        Keeper::Window { source, .. } | Keeper::Unpublished { source, .. }
            if !source.is_empty() =>
        {
            format!(" ({source})")
        }
        _ => String::new(),
    };
    d.with_help(format!(
        "{reason}{source}. Cap the retry span at {window}; after it, reconcile instead of resending: look the operation up by your own reference (metadata, a list call) or hold it for review. A new key is never the answer: it makes the retry a new request. See `idemlint explain {NAME}`"
    ))
}

/// A span as a message states it: to the hour past two days, to the minute
/// past an hour (`32d 21h`, `5h 12m`), exact below.
fn coarse(d: Duration) -> Duration {
    let unit = if d.secs >= 2 * DAY {
        3600
    } else if d.secs >= 3600 {
        60
    } else {
        1
    };
    Duration::from_secs((d.secs + unit / 2) / unit * unit)
}

/// `hour 24`, `day 31`: when a retry starts to be unsafe.
fn after(w: Duration) -> String {
    if w.secs < 2 * DAY && w.secs.is_multiple_of(3600) {
        format!("hour {}", w.secs / 3600)
    } else if w.secs.is_multiple_of(DAY) {
        format!("day {}", w.secs / DAY)
    } else {
        format!("{w}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_unsafe_moment_reads_in_hours_or_days() {
        assert_eq!(after(Duration::from_secs(24 * 3600)), "hour 24");
        assert_eq!(after(Duration::from_secs(31 * DAY)), "day 31");
        assert_eq!(
            coarse(Duration::from_secs(32 * DAY + 21 * 3600 + 8 * 60 + 15)).to_string(),
            "32d 21h"
        );
        assert_eq!(coarse(Duration::from_secs(62_310)).to_string(), "17h 19m");
    }
}
