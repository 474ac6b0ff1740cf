//! `unscoped-idempotency-key`: a request-key store guarded on the key alone
//! while the table records which caller sent it.

use super::Context;
use crate::diagnostic::{Diagnostic, Severity};
use crate::model::schema::{Guard, Guarding, Store, StoreKind, Table};

pub const NAME: &str = "unscoped-idempotency-key";

pub fn check(ctx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    for (t, s) in ctx.model.schema.stores() {
        if s.kind != StoreKind::RequestKey || s.scope.is_empty() {
            continue;
        }
        if let Guarding::Guarded(g) = s.guarding(t) {
            let scoped = g
                .key
                .parts
                .iter()
                .any(|p| p.columns().iter().any(|c| s.scope.iter().any(|x| x == c)));
            if !scoped {
                out.push(unscoped(t, &s, g));
            }
        }
    }
}

fn unscoped(t: &Table, s: &Store, g: &Guard) -> Diagnostic {
    let scope = s.scope.join("`, `");
    let mut columns = s.scope.clone();
    columns.extend(s.key.iter().cloned());
    // A digest key usually covers the owner (SHA-256 of account and key):
    // scoped by construction, unless it does not, which only the code says.
    let sev = if s.digest {
        Severity::Note
    } else {
        s.severity(Severity::Warning)
    };
    Diagnostic::new(
        NAME,
        sev,
        g.at.file,
        g.at.span,
        format!(
            "unique guard on `{}` leaves out its caller scope `{scope}`",
            t.name
        ),
    )
    .with_primary_label(format!("guards `({})` alone", g.key.parts_text()))
    .with_note("one caller's key can collide with, or replay, another caller's stored response")
    .with_help(format!(
        "make the key unique per caller: `UNIQUE ({})`, and look keys up with the caller's `{}`",
        columns.join(", "),
        s.scope.join("` and `")
    ))
}
