//! `fresh-key-per-retry`: a key made fresh (UUID, ULID, random, the clock)
//! where it should be stable, and sent as the idempotency key: inside a
//! loop or a closure a retry wrapper runs again (`model::flows`' fresh keys,
//! and `model::retries`' for an `async` attempt block or a project helper
//! that mints the key), mixed with the identity of the input it handles, or
//! minted where a request is built from the operation's data.

use super::Context;
use crate::diagnostic::{Diagnostic, RuleId, Severity};
use crate::facts::retry::FreshKind;
use crate::model::retries::FreshFinding;
use crate::source::{FileId, FileKind};

pub const NAME: RuleId = RuleId::FreshKeyPerRetry;

/// How to fix it, in the code of the file's language: the key made once
/// before the retry, or derived from the work's own id.
fn help(ctx: &Context<'_>, file: FileId) -> String {
    let (once, stable) = match ctx.sources.get(file).kind {
        FileKind::Script(_) => ("const key = randomUUID();", "\"payout-\" + job.id"),
        FileKind::Python => ("key = str(uuid4())", "f\"payout-{job.id}\""),
        FileKind::Go => ("key := uuid.NewString()", "\"payout-\" + job.ID"),
        _ => (
            "let key = Uuid::new_v4();",
            "format!(\"payout-{}\", job.id)",
        ),
    };
    format!(
        "make the key once, before the retry (`{once}` above the loop or the retry call), or derive it from a stable id (`{stable}`), so every attempt carries the same key"
    )
}

pub fn check(ctx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    for (file, k) in &ctx.model.flows.fresh_keys {
        out.push(
            Diagnostic::new(
                NAME,
                Severity::Error,
                *file,
                k.generator,
                format!("`{}` makes a new idempotency key on every retry", k.what),
            )
            .with_primary_label("a fresh key per attempt")
            .with_note(format!(
                "the key is made on every pass of this {} and sent {}: each retry is a new request to the server, which applies it again",
                k.scope_what, k.how
            ))
            .with_label(*file, k.scope, "retried here")
            .with_label(*file, k.sent, "sent here")
            .with_help(help(ctx, *file)),
        );
    }
    for f in &ctx.model.retries.fresh {
        let seen = ctx
            .model
            .flows
            .fresh_keys
            .iter()
            .any(|(file, k)| *file == f.file && k.generator == f.send.at);
        if !seen {
            out.push(diagnostic(ctx, f));
        }
    }
}

fn diagnostic(ctx: &Context<'_>, f: &FreshFinding) -> Diagnostic {
    let s = &f.send;
    let via = f
        .via
        .as_ref()
        .map(|v| format!(" ({v})"))
        .unwrap_or_default();
    let d = match &s.kind {
        FreshKind::Retried { scope, what } => Diagnostic::new(
            NAME,
            Severity::Error,
            f.file,
            s.at,
            format!("`{}` makes a new idempotency key on every retry", f.what),
        )
        .with_primary_label("a fresh key per attempt")
        .with_note(format!(
            "the key is made on every pass of this {what}{via} and sent {}: each retry is a new request to the server, which applies it again",
            s.how
        ))
        .with_label(f.file, *scope, "retried here")
        .with_help(help(ctx, f.file)),
        FreshKind::Mixed { from } => Diagnostic::new(
            NAME,
            Severity::Warning,
            f.file,
            s.at,
            format!(
                "`{}` makes the idempotency key for the same `{from}` new on every call",
                f.what
            ),
        )
        .with_primary_label("a fresh part of the key")
        .with_note(format!(
            "the key is sent {} and holds both the identity of `{from}` and a value made fresh: when the same `{from}` is handled again (a redelivered message, a retried job), the key differs and the server applies it again",
            s.how
        ))
        .with_help(format!(
            "build the key from `{from}`'s stable identity alone (an id, a delivery offset, a sequence number)"
        )),
        FreshKind::Redelivered { why } => Diagnostic::new(
            NAME,
            Severity::Warning,
            f.file,
            s.at,
            format!(
                "`{}` makes a new idempotency key each time this code is run again",
                f.what
            ),
        )
        .with_primary_label("a fresh key per run")
        .with_note(format!(
            "the key is sent {}, and {}: a rerun for the same work carries another key, so the provider executes it again. The rerun is the sender's, not in this code, so this is a warning",
            s.how,
            why.as_deref().unwrap_or("its sender runs it again")
        ))
        .with_help(
            "derive the key from the stable id of the work this run handles (the invoice, payout or event id, and the attempt it is on), so a rerun sends the same key",
        ),
        FreshKind::Diverges { stable } => {
            let text = ctx
                .sources
                .text(f.file)
                .get(stable.start..stable.end)
                .unwrap_or("another value");
            Diagnostic::new(
                NAME,
                Severity::Warning,
                f.file,
                s.at,
                format!(
                    "`{}` makes a new idempotency key where the same key is `{text}` elsewhere",
                    f.what
                ),
            )
            .with_primary_label("a fresh key per call")
            .with_label(f.file, *stable, "the same key, from a stable value")
            .with_note(format!(
                "the key is sent {} and made new on every call, while this function also gives it as `{text}`: a second call for the same work never matches the first, so a duplicate is neither found nor refused",
                s.how
            ))
            .with_help(format!("use `{text}` here too, so every call for the same work carries one key"))
        }
        FreshKind::PerCall => per_call(f),
        FreshKind::Built { function, from } => Diagnostic::new(
            NAME,
            Severity::Note,
            f.file,
            s.at,
            format!(
                "`{}` makes a new idempotency key on each build in `{function}`",
                f.what
            ),
        )
        .with_primary_label("a key minted per build")
        .with_note(format!(
            "the key is sent {} from `{function}`, which builds the request from `{from}`: a resend that builds the request again carries a new key, so the server cannot recognise it. No retry is visible here, so this is a note: it is a mistake wherever the same operation is sent twice",
            s.how
        ))
        .with_help(format!(
            "derive the key from the operation's stable id in `{from}` (the attempt, payment or refund id)"
        )),
    };
    d.with_label(f.file, s.sent, "sent here")
}

/// A key minted on every call, with no rerun in sight (Python and Go).
fn per_call(f: &FreshFinding) -> Diagnostic {
    let s = &f.send;
    Diagnostic::new(
        NAME,
        Severity::Note,
        f.file,
        s.at,
        format!("`{}` makes a new idempotency key on every call", f.what),
    )
    .with_primary_label("a key minted per call")
    .with_note(format!(
        "the key is sent {} and made new each time this code runs: a client's own resend of this one request carries it (an SDK's network retries reuse it), but a rerun of the work (a retried task or activity, a redelivered event, a second submit) carries another key, and the provider applies it again. No rerun is visible here, so this is a note",
        s.how
    ))
    .with_help(
        "derive the key from the stable id of the work (the payout, order or event id), so every run for the same work sends the same key",
    )
}
