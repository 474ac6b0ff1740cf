//! `fresh-key-per-retry`: a key made fresh (UUID, ULID, random, the clock)
//! inside a loop or a closure a retry wrapper runs again, and sent as the
//! idempotency key from that same body. Reads `model::flows`' fresh keys.

use super::Context;
use crate::diagnostic::{Diagnostic, Severity};

pub const NAME: &str = "fresh-key-per-retry";

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
            .with_help(
                "make the key once, before the retry (`let key = Uuid::new_v4();` above the loop or the retry call), or derive it from a stable id (`format!(\"payout-{}\", job.id)`), so every attempt carries the same key",
            ),
        );
    }
}
