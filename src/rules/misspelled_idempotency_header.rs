//! `misspelled-idempotency-header`: header names that are near-misses of the
//! published idempotency headers (`rules/headers.toml`).

use super::Context;
use crate::diagnostic::{Diagnostic, Edit, RuleId, Severity};
use crate::facts::headers::StrRole;
use crate::header_names::{classify, header_cased, Miss, REPLAYED};
use crate::knowledge;
use crate::model::headers::HeaderUse;

pub const NAME: RuleId = RuleId::MisspelledIdempotencyHeader;

/// Whether a use is in a place where it must be a header name. Strings that
/// only look like one (`idempotency_key` as a JSON field or column,
/// `idempotency-keys` as a resource name) are left alone: precision over
/// recall.
fn in_header_position(u: &HeaderUse, miss: Miss) -> bool {
    match u.role {
        StrRole::Read | StrRole::Write | StrRole::HeaderName => true,
        StrRole::ConfKey | StrRole::Mention => match miss {
            // Spelt like a header or not, a listed non-header name is a
            // header only where nothing else can stand.
            // A provider's own name with one `_` among its hyphens is a
            // header only where it is read or written as one.
            Miss::NotAHeader | Miss::Variant | Miss::Mixed => false,
            Miss::Underscore | Miss::Separator => header_cased(&u.value),
            // In a config file a value is a header only where its path says
            // so (handled above) or where it is spelt like one.
            Miss::Typo if u.in_config => header_cased(&u.value),
            // A lowercase literal in code is a header only if it keeps the
            // header's last word: `idempotancy-key` is a typo of one, while
            // `idempotency-kv` (a KV namespace) or `idempotency-replay` (a
            // queue) are names of other things.
            Miss::Typo => {
                u.value.contains('-') && (header_cased(&u.value) || keeps_last_word(&u.value))
            }
        },
    }
}

/// Whether the last `-` part of `value` is the last part of a canonical name
/// (`key`, `replayed`).
fn keeps_last_word(value: &str) -> bool {
    let last = value.rsplit(['-', '_']).next().unwrap_or(value);
    knowledge::headers().canonical.iter().any(|c| {
        c.name
            .rsplit('-')
            .next()
            .is_some_and(|w| w.eq_ignore_ascii_case(last))
    })
}

/// The canonical spelling in the case style of the original.
fn respell(original: &str, canonical: &str) -> String {
    if original.chars().all(|c| !c.is_ascii_uppercase()) {
        canonical.to_ascii_lowercase()
    } else if original.chars().all(|c| !c.is_ascii_lowercase()) {
        canonical.to_ascii_uppercase()
    } else {
        canonical.to_string()
    }
}

pub fn check(ctx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    let uses = &ctx.model.headers.uses;
    let misses: Vec<(&HeaderUse, &'static str, Miss)> = uses
        .iter()
        .filter_map(|u| classify(&u.value).map(|(c, m)| (u, c, m)))
        .filter(|(u, _, m)| in_header_position(u, *m))
        .filter(|(u, c, m)| *m != Miss::Variant || slip_of(ctx, u, c))
        .collect();

    // Every spelling of the replay header in the repository, right or wrong.
    let replay_spellings: Vec<&HeaderUse> = uses
        .iter()
        .filter(|u| u.value.eq_ignore_ascii_case(REPLAYED) && u.role != StrRole::ConfKey)
        .chain(
            misses
                .iter()
                .filter(|(_, c, _)| *c == REPLAYED)
                .map(|(u, _, _)| *u),
        )
        .collect();

    odd_names(ctx, uses, out);
    for (u, canonical, miss) in &misses {
        let d = if *canonical == REPLAYED {
            match replay_diagnostic(u, &replay_spellings) {
                Some(d) => d,
                None => continue,
            }
        } else {
            match (miss, ctx.model.headers.underscores_passed) {
                (Miss::Underscore, _) if u.forwarded_upstream => {
                    forwarded_underscore_diagnostic(u, canonical)
                }
                (Miss::Underscore, Some((file, span))) => {
                    passed_underscore_diagnostic(u, canonical, file, span)
                }
                _ => key_diagnostic(u, canonical, *miss),
            }
        };
        let fixed = match miss {
            Miss::Mixed => u.value.replace('_', "-"),
            _ => respell(&u.value, canonical),
        };
        out.push(d.with_fix(
            format!("rename to `{fixed}`"),
            vec![Edit {
                file: u.file,
                span: u.span,
                replacement: fixed.clone(),
            }],
        ));
    }
}

/// The one request of a client that sends its key under another name: in
/// one directory (a Go package, a provider's client module), every request
/// but one sends the key under the same name, at least twice, and one
/// sends it under another (`X-Idempotency-Key`, `Idempotency-Token`) that
/// is no miss of a published name. One API reads one name, so the odd
/// request's key is ignored and a retry of it runs again. A warning, not
/// an error: an endpoint may read another name, which the code cannot
/// say; a request that sends both names at once is left alone.
fn odd_names(ctx: &Context<'_>, uses: &[HeaderUse], out: &mut Vec<Diagnostic>) {
    let sent = |u: &&HeaderUse| {
        u.role == StrRole::Write
            && !u.in_config
            && knowledge::contains_ignore_ascii_case(&u.value, "idempot")
            && !knowledge::contains_ignore_ascii_case(&u.value, "replay")
    };
    let dir = |u: &HeaderUse| {
        let p = ctx.sources.path(u.file);
        p.rsplit_once('/').map_or("", |(d, _)| d)
    };
    let mut by_dir: std::collections::BTreeMap<&str, Vec<&HeaderUse>> = Default::default();
    for u in uses.iter().filter(sent) {
        by_dir.entry(dir(u)).or_default().push(u);
    }
    for (d, group) in by_dir {
        let mut names: Vec<(String, Vec<&HeaderUse>)> = Vec::new();
        for u in group {
            let lower = u.value.to_ascii_lowercase();
            match names.iter_mut().find(|(n, _)| *n == lower) {
                Some((_, us)) => us.push(u),
                None => names.push((lower, vec![u])),
            }
        }
        names.sort_by_key(|(_, us)| std::cmp::Reverse(us.len()));
        let [(_, usual), (_, odd)] = names.as_slice() else {
            continue;
        };
        let [u] = odd.as_slice() else { continue };
        // Both names on one request: a client that sends both on purpose.
        let lines_between = |o: &HeaderUse| {
            let (a, b) = (
                o.span.start.min(u.span.start),
                o.span.start.max(u.span.start),
            );
            let text = ctx.sources.text(u.file);
            text.get(a..b)
                .map_or(usize::MAX, |t| t.matches('\n').count())
        };
        let beside = usual
            .iter()
            .any(|o| o.file == u.file && lines_between(o) <= 3);
        // The usual name must itself be right: `Idempotency_Key` sent twice
        // does not make one `Idempotency-Key` the odd one.
        let usual_misses = classify(&usual[0].value).is_some();
        if usual.len() < 2 || beside || usual_misses || classify(&u.value).is_some() {
            continue;
        }
        let name = usual[0].value.clone();
        out.push(odd_name_diagnostic(u, usual, d).with_fix(
            format!("rename to `{name}`"),
            vec![Edit {
                file: u.file,
                span: u.span,
                replacement: name,
            }],
        ));
    }
}

fn odd_name_diagnostic(u: &HeaderUse, usual: &[&HeaderUse], dir: &str) -> Diagnostic {
    let name = &usual[0].value;
    let others = usual.len();
    at(
        u,
        Severity::Warning,
        format!(
            "key sent as `{}`, while {others} other requests beside it send `{name}`",
            u.value
        ),
    )
    .with_primary_label(format!("the other requests send `{name}`"))
    .with_label(usual[0].file, usual[0].span, format!("sent as `{name}` here"))
    .with_note(format!("the requests in `{dir}` send their key as `{name}` {others} times and as `{}` once; one API reads its key under one name: under any other the key is ignored, and a retried request runs again", u.value))
    .with_help(format!(
        "send `{name}` as the other requests do; if this endpoint reads another name, suppress this with a comment that says so"
    ))
}

/// Whether a provider's variant in `u`'s file is a slip of `canonical`:
/// the file names none of the variant's providers and spells the canonical
/// name elsewhere (an API reference that declares `Idempotency-Key` on
/// every other operation).
fn slip_of(ctx: &Context<'_>, u: &HeaderUse, canonical: &str) -> bool {
    let Some(entry) = knowledge::headers()
        .legitimate
        .iter()
        .find(|k| k.name.eq_ignore_ascii_case(&u.value))
    else {
        return false;
    };
    let text = ctx.sources.text(u.file).to_ascii_lowercase();
    // A file that names other providers' headers too is a list of them.
    let lists_variants = knowledge::headers().legitimate.iter().any(|k| {
        let name = k.name.to_ascii_lowercase();
        k.header
            && !k.name.eq_ignore_ascii_case(&u.value)
            && (name.contains("idempot") || name.ends_with("request-id"))
            && text.contains(&name)
    });
    !lists_variants
        && !entry.markers.iter().any(|m| text.contains(m.as_str()))
        && text.contains(&canonical.to_ascii_lowercase())
}

/// How a use spells its header, for labels: "read as", "sent as".
fn verb(role: StrRole) -> &'static str {
    match role {
        StrRole::Read => "read as",
        StrRole::Write => "sent as",
        _ => "spelled",
    }
}

/// The replay header: error when the code reads it from Stripe, or when
/// another spelling exists in the repository (labelled; the wrong side is the
/// one that differs from Stripe's spelling, or, where nobody uses that, from
/// the repository's writer); warning for a read with
/// no writer in the repository, or a mention in a Stripe client; note for a
/// server that consistently emits its own name (at each write). Other uses of
/// a spelling the repository itself writes are consistent and not reported.
fn replay_diagnostic(u: &HeaderUse, spellings: &[&HeaderUse]) -> Option<Diagnostic> {
    // A read from Stripe is wrong whatever the repository's own servers send.
    if u.role == StrRole::Read && u.stripe_context {
        return Some(stripe_read_diagnostic(u));
    }
    let differ: Vec<&HeaderUse> = spellings
        .iter()
        .copied()
        .filter(|o| !o.value.eq_ignore_ascii_case(&u.value))
        .collect();
    // Where no one uses Stripe's spelling, the repository's only writer is
    // the reference: the readers that differ from it are the wrong ones.
    let reference_writer = u.role == StrRole::Write
        && !differ
            .iter()
            .any(|o| o.role == StrRole::Write || o.value.eq_ignore_ascii_case(REPLAYED));
    // Prefer the canonical spelling, then the opposite side, as the label.
    let other = differ.iter().min_by_key(|o| {
        (
            !o.value.eq_ignore_ascii_case(REPLAYED),
            o.role == u.role,
            o.file,
            o.span.start,
        )
    });
    if let (Some(o), false) = (other, reference_writer) {
        return Some(both_spellings_diagnostic(u, o));
    }
    let written_here = spellings
        .iter()
        .any(|o| o.role == StrRole::Write && o.value.eq_ignore_ascii_case(&u.value));
    Some(match u.role {
        _ if u.stripe_context && u.role != StrRole::Write => stripe_mention_diagnostic(u),
        StrRole::Write => own_replay_header_diagnostic(u),
        _ if written_here => return None,
        StrRole::Read => unknown_sender_read_diagnostic(u),
        _ => own_replay_header_diagnostic(u),
    })
}

fn both_spellings_diagnostic(u: &HeaderUse, o: &HeaderUse) -> Diagnostic {
    at(
        u,
        Severity::Error,
        format!(
            "replay header {} `{}` here, {} `{}` elsewhere",
            verb(u.role),
            u.value,
            verb(o.role),
            o.value
        ),
    )
    .with_note("the side that looks for one spelling never sees the other")
    .with_primary_label(format!("{} `{}`", verb(u.role), u.value))
    .with_label(
        o.file,
        o.span,
        format!("{} `{}` here", verb(o.role), o.value),
    )
    .with_help(format!(
        "Stripe sends `{REPLAYED}`; use that spelling on both sides"
    ))
}

/// A finding of this rule at a header use; each message has its builder below.
fn at(u: &HeaderUse, severity: Severity, message: String) -> Diagnostic {
    Diagnostic::new(NAME, severity, u.file, u.span, message)
}

fn stripe_read_diagnostic(u: &HeaderUse) -> Diagnostic {
    at(
        u,
        Severity::Error,
        format!("`{}` is not Stripe's replay header", u.value),
    )
    .with_note(format!(
        "Stripe sends `{REPLAYED}`, so this lookup never sees a replay"
    ))
    .with_primary_label(format!("Stripe sends `{REPLAYED}`"))
    .with_help(format!(
        "read `{REPLAYED}`; otherwise a replayed request looks like a new one and is booked twice"
    ))
}

fn stripe_mention_diagnostic(u: &HeaderUse) -> Diagnostic {
    at(
        u,
        Severity::Warning,
        format!(
            "`{}` in code that talks to Stripe, whose replay header differs",
            u.value
        ),
    )
    .with_primary_label(format!("Stripe sends `{REPLAYED}`"))
    .with_help(format!(
        "if this name is looked up on Stripe's responses, use `{REPLAYED}`"
    ))
}

fn unknown_sender_read_diagnostic(u: &HeaderUse) -> Diagnostic {
    at(
        u,
        Severity::Warning,
        format!("`{}` is read as a replay header; servers send `{REPLAYED}`", u.value),
    )
    .with_primary_label(format!("servers send `{REPLAYED}`"))
    .with_help(format!(
        "if this reads a Stripe response, read `{REPLAYED}`; if it reads your own server, keep one spelling on both sides"
    ))
}

fn own_replay_header_diagnostic(u: &HeaderUse) -> Diagnostic {
    at(
        u,
        Severity::Note,
        format!("this server emits its own replay header `{}`", u.value),
    )
    .with_note(format!(
        "clients written for Stripe's `{REPLAYED}` will not see it"
    ))
    .with_primary_label(format!("clients expect `{REPLAYED}`"))
    .with_help(format!(
        "consider emitting `{REPLAYED}`, the name clients already know"
    ))
}

/// An underscore name where the repository's nginx passes such names: it
/// arrives here, so a note, but it is still not the name others send or read.
fn passed_underscore_diagnostic(
    u: &HeaderUse,
    canonical: &str,
    file: crate::source::FileId,
    span: crate::source::Span,
) -> Diagnostic {
    at(
        u,
        Severity::Note,
        format!("`{}` has an underscore where `{canonical}` is published", u.value),
    )
    .with_note(format!("this repository's nginx passes it, but other proxies and load balancers drop such names, and clients and servers that use `{canonical}` do not match it"))
    .with_primary_label(format!("the published name is `{canonical}`"))
    .with_label(file, span, "this nginx passes `_` names")
    .with_help(format!(
        "use `{canonical}`, which every proxy passes unchanged"
    ))
}

/// `proxy_set_header Idempotency_Key ...`: nginx sends the name upstream as
/// written (`underscores_in_headers` concerns headers from clients), and the
/// upstream looks up `Idempotency-Key`, so the names do not match.
fn forwarded_underscore_diagnostic(u: &HeaderUse, canonical: &str) -> Diagnostic {
    at(
        u,
        Severity::Warning,
        format!("`{}` has an underscore, not a hyphen", u.value),
    )
    .with_primary_label(format!("sent upstream as `{}`", u.value))
    .with_note(format!(
        "nginx forwards the name as written, but an upstream that looks up `{canonical}` does not match `{}`: it sees no key and processes every replay",
        u.value
    ))
    .with_note("`underscores_in_headers` does not change this: it concerns headers from clients")
    .with_help(format!("set `proxy_set_header {canonical} ...`"))
}

fn key_diagnostic(u: &HeaderUse, canonical: &str, miss: Miss) -> Diagnostic {
    match miss {
        Miss::Underscore => at(
            u,
            Severity::Warning,
            format!("`{}` has an underscore, which nginx drops by default", u.value),
        )
        .with_primary_label("nginx drops names with `_`")
        .with_note("nginx ignores client request headers with `_` in their name unless `underscores_in_headers on` is set, so the key never reaches the application")
        .with_help(format!(
            "use `{canonical}`; nginx passes `_` names only with `underscores_in_headers on`"
        )),
        Miss::Mixed => {
            let hyphens = u.value.replace('_', "-");
            at(
                u,
                Severity::Warning,
                format!("`{}` has an underscore among its hyphens", u.value),
            )
            .with_primary_label(format!("hyphens throughout: `{hyphens}`"))
            .with_note(format!(
                "a server that reads `{hyphens}` does not match this name, and nginx drops request headers with `_` by default: the key never arrives and a retried request runs again"
            ))
            .with_help(format!("use `{hyphens}`, the `{canonical}` family's separator throughout"))
        }
        Miss::Separator | Miss::Typo | Miss::NotAHeader | Miss::Variant => at(
            u,
            Severity::Warning,
            format!("`{}` is a near-miss of the idempotency header `{canonical}`", u.value),
        )
        .with_note(format!("a server that expects `{canonical}` ignores it"))
        .with_primary_label(format!("servers expect `{canonical}`"))
        .with_help(format!(
            "use `{canonical}`, or list the name in `rules/headers.toml` if a provider publishes it"
        )),
    }
}
