//! `misspelled-idempotency-header`: header names that are near-misses of the
//! published idempotency headers (`rules/headers.toml`).

use super::Context;
use crate::catalogue::osa_distance;
use crate::diagnostic::{Diagnostic, Edit, RuleId, Severity};
use crate::frontend::StrRole;
use crate::knowledge;
use crate::model::headers::HeaderUse;

pub const NAME: RuleId = RuleId::MisspelledIdempotencyHeader;

const REPLAYED: &str = "Idempotent-Replayed";

/// How a name misses its canonical spelling.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Miss {
    /// An underscore where the canonical name has a hyphen.
    Underscore,
    /// Separators dropped or added (`IdempotencyKey`).
    Separator,
    /// A spelling mistake within edit distance, or the replay-header family.
    Typo,
    /// A name the catalogue lists as no header (`Idempotency-Keys`, the
    /// plural of tables and metrics), used where only a header name can
    /// stand: read from or written to a header map, or declared as one.
    NotAHeader,
    /// A provider's own variant (`Idempotence-Key`, YooKassa's) in a header's
    /// place, in a file that names no such provider but spells the
    /// canonical name elsewhere: a slip of the one it is near.
    Variant,
}

/// Whether this rule can say anything of a string spelled `value`: it
/// misses a canonical name ([`classify`]) or is the replay header, whose
/// right spellings the rule compares with the wrong ones. The header model
/// keeps no other string.
pub fn concerns(value: &str) -> bool {
    value.eq_ignore_ascii_case(REPLAYED) || classify(value).is_some()
}

/// The canonical name `value` misses, if any, and how.
fn classify(value: &str) -> Option<(&'static str, Miss)> {
    if !may_miss(value) {
        return None;
    }
    let h = knowledge::headers();
    let lower = value.to_ascii_lowercase();
    // A name listed as no header, or as a provider's own variant, is judged
    // below by where it stands.
    let mut known = h.canonical.iter().chain(
        h.legitimate
            .iter()
            .filter(|k| k.header && k.markers.is_empty()),
    );
    if known.any(|k| k.name.eq_ignore_ascii_case(value)) {
        return None;
    }
    let hyphened = lower.replace(['_', ' '], "-");
    let squashed: String = lower
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .collect();
    // A legitimate variant spelt with other separators is still that variant
    // (`x-idempotency-key`); with an underscore it misses that variant, not
    // the canonical name (`X_Idempotency_Key`).
    let names = names();
    if let Some((k, _)) = h
        .legitimate
        .iter()
        .zip(&names.legitimate)
        .find(|(_, sq)| **sq == squashed)
    {
        // `Idempotency_Keys` is a table or metric name like the plural the
        // catalogue lists (`header = false`), not a header to respell; in a
        // header's place ([`in_header_position`]) it misses the header it
        // is one edit from.
        if !k.header {
            return nearest_canonical(&hyphened).map(|c| (c, Miss::NotAHeader));
        }
        if !k.markers.is_empty() && !value.contains('_') {
            return nearest_canonical(&hyphened).map(|c| (c, Miss::Variant));
        }
        if value.contains('_') {
            return Some((k.name.as_str(), Miss::Underscore));
        }
        return None;
    }
    // Only an ASCII name's byte counts bound its edits in characters.
    let counts = hyphened.is_ascii().then(|| byte_counts(&hyphened));
    for ((c, (cl, sq)), cc) in h.canonical.iter().zip(&names.canonical).zip(&names.counts) {
        let name: &'static str = c.name.as_str();
        if *sq == squashed {
            if value.contains('_') {
                return Some((name, Miss::Underscore));
            }
            return Some((name, Miss::Separator));
        }
        // The distance is at least the difference in length.
        if hyphened.len() >= 10
            && hyphened.len().abs_diff(cl.len()) <= 2
            && counts
                .as_ref()
                .is_none_or(|v| counts_within_two_edits(v, cc))
            && osa_distance(&hyphened, cl) <= 2
        {
            return Some((name, Miss::Typo));
        }
    }
    // The replay-header family: Idempotency-Replayed, Idempotent-Replay,
    // Idempotence-Replayed ...
    if hyphened.starts_with("idempot")
        && hyphened.contains("-replay")
        && hyphened.matches('-').count() == 1
    {
        let canonical = h
            .canonical
            .iter()
            .find(|c| c.name == REPLAYED)
            .map(|c| c.name.as_str())?;
        return Some((canonical, Miss::Typo));
    }
    None
}

/// The canonical name within two edits of `hyphened` (lowercase, `-`
/// separated), if any.
fn nearest_canonical(hyphened: &str) -> Option<&'static str> {
    let h = knowledge::headers();
    let names = names();
    h.canonical
        .iter()
        .zip(&names.canonical)
        .find(|(_, (cl, _))| {
            hyphened.len().abs_diff(cl.len()) <= 2 && osa_distance(hyphened, cl) <= 2
        })
        .map(|(c, _)| c.name.as_str())
}

/// A screen before [`classify`], which allocates: whether `value` can be
/// one of its cases at all. Each case needs a length near a catalogue name:
/// the same letters and digits as a known name (a separator miss), within
/// two edits of a canonical name, or the `Idempotency-Replayed` family.
fn may_miss(value: &str) -> bool {
    struct Lengths {
        /// Letters and digits of each known name.
        squashed: Vec<usize>,
        /// Byte lengths within two edits of a canonical name.
        near: Vec<(usize, usize)>,
    }
    static L: std::sync::OnceLock<Lengths> = std::sync::OnceLock::new();
    let l = L.get_or_init(|| {
        let h = knowledge::headers();
        Lengths {
            squashed: h
                .canonical
                .iter()
                .chain(&h.legitimate)
                .map(|k| squash(&k.name).len())
                .collect(),
            near: h
                .canonical
                .iter()
                .map(|c| (c.name.len().saturating_sub(2), c.name.len() + 2))
                .collect(),
        }
    });
    if !value.is_ascii() {
        return true;
    }
    let prefix = value.get(..7).unwrap_or("");
    if prefix.eq_ignore_ascii_case("idempot") {
        return true;
    }
    let n = value.len();
    let alnum = value.bytes().filter(u8::is_ascii_alphanumeric).count();
    l.squashed.contains(&alnum)
        || (n >= 10 && l.near.iter().any(|&(lo, hi)| (lo..=hi).contains(&n)))
}

/// The catalogue's names as [`classify`] compares them, made once: each
/// legitimate name squashed, each canonical name lowercased and squashed.
struct Names {
    legitimate: Vec<String>,
    canonical: Vec<(String, String)>,
    /// The byte counts of each canonical name, lowercase.
    counts: Vec<ByteCounts>,
}

type ByteCounts = [u8; 128];

/// How often each ASCII byte occurs in `s` (saturating; other bytes not
/// counted), for a screen before [`osa_distance`].
fn byte_counts(s: &str) -> ByteCounts {
    let mut out = [0u8; 128];
    for b in s.bytes().filter(u8::is_ascii) {
        out[usize::from(b)] = out[usize::from(b)].saturating_add(1);
    }
    out
}

/// Whether two ASCII names can be within two edits: an insertion or a
/// deletion changes the byte counts by one in sum, a substitution by two, a
/// transposition not at all, so two edits change them by at most four. A
/// saturated count only makes the sum smaller, never rejects a near name.
fn counts_within_two_edits(a: &ByteCounts, b: &ByteCounts) -> bool {
    a.iter()
        .zip(b)
        .map(|(x, y)| u32::from(x.abs_diff(*y)))
        .sum::<u32>()
        <= 4
}

fn names() -> &'static Names {
    static N: std::sync::OnceLock<Names> = std::sync::OnceLock::new();
    N.get_or_init(|| {
        let h = knowledge::headers();
        Names {
            legitimate: h.legitimate.iter().map(|k| squash(&k.name)).collect(),
            canonical: h
                .canonical
                .iter()
                .map(|c| (c.name.to_ascii_lowercase(), squash(&c.name)))
                .collect(),
            counts: h
                .canonical
                .iter()
                .map(|c| byte_counts(&c.name.to_ascii_lowercase()))
                .collect(),
        }
    })
}

fn squash(s: &str) -> String {
    s.chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .map(|c| c.to_ascii_lowercase())
        .collect()
}

/// Whether the name is spelt like an HTTP header (`Idempotency-Key`,
/// `Idempotency_Key`): every part capitalised and more than one part.
fn header_cased(value: &str) -> bool {
    let parts: Vec<&str> = value.split(['-', '_']).collect();
    parts.len() > 1
        && parts.iter().all(|p| {
            let mut cs = p.chars();
            matches!(cs.next(), Some(c) if c.is_ascii_uppercase())
                && !cs.clone().all(|c| c.is_ascii_uppercase())
        })
}

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
            Miss::NotAHeader | Miss::Variant => false,
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
        let fixed = respell(&u.value, canonical);
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rule_concerns_misses_and_the_replay_header_only() {
        for v in [
            "Idempotency_Key",
            "IdempotencyKey",
            "Idempotency-Kye",
            "Idempotent-Replayed",
            "idempotency-replayed",
        ] {
            assert!(concerns(v), "{v}");
        }
        for v in [
            "Idempotency-Key",
            "idempotency-key",
            "description",
            "application-json",
            "key_field",
        ] {
            assert!(!concerns(v), "{v}");
        }
    }

    /// Every name one or two edits from a canonical name (over an alphabet
    /// of its own bytes and a few others) passes the byte-count screen
    /// whenever its distance is at most two.
    #[test]
    fn byte_count_screen_never_rejects_a_near_name() {
        let edits = |s: &str| -> Vec<String> {
            let b = s.as_bytes();
            let mut alphabet: Vec<u8> = b.to_vec();
            alphabet.extend(b"-_xz9");
            alphabet.sort_unstable();
            alphabet.dedup();
            let mut out = Vec::new();
            for i in 0..=b.len() {
                for &c in &alphabet {
                    out.push([&b[..i], &[c], &b[i..]].concat());
                    if i < b.len() {
                        out.push([&b[..i], &[c], &b[i + 1..]].concat());
                    }
                }
                if i < b.len() {
                    out.push([&b[..i], &b[i + 1..]].concat());
                }
                if i + 1 < b.len() {
                    let mut t = b.to_vec();
                    t.swap(i, i + 1);
                    out.push(t);
                }
            }
            out.into_iter()
                .map(|v| String::from_utf8(v).unwrap())
                .collect()
        };
        let mut checked = 0;
        for (cl, _) in &names().canonical {
            let target = byte_counts(cl);
            for one in edits(cl) {
                for two in std::iter::once(one.clone()).chain(edits(&one).into_iter().step_by(7)) {
                    if osa_distance(&two, cl) <= 2 {
                        checked += 1;
                        assert!(
                            counts_within_two_edits(&byte_counts(&two), &target),
                            "{two} vs {cl}"
                        );
                    }
                }
            }
        }
        assert!(checked > 1000, "{checked}");
        // And it does screen: a name of the right length with other letters.
        assert!(!counts_within_two_edits(
            &byte_counts("content-language"),
            &byte_counts("idempotency-key")
        ));
    }

    #[test]
    fn classification() {
        assert_eq!(
            classify("Idempotency-Replayed"),
            Some((REPLAYED, Miss::Typo))
        );
        assert_eq!(
            classify("Idempotancy-Key"),
            Some(("Idempotency-Key", Miss::Typo))
        );
        assert_eq!(
            classify("Idempotency_Key"),
            Some(("Idempotency-Key", Miss::Underscore))
        );
        assert_eq!(
            classify("IdempotencyKey"),
            Some(("Idempotency-Key", Miss::Separator))
        );
        for ok in [
            "Idempotency-Key",
            "idempotency-key",
            "X-Idempotency-Key",
            "Cko-Idempotency-Key",
            "PayPal-Request-Id",
            "I-Twilio-Idempotency-Token",
            "X-Payout-Idempotency",
            "Idempotent-Replayed",
            "x-idempotency-key",
            "HTTP_IDEMPOTENCY_KEY",
        ] {
            assert_eq!(classify(ok), None, "{ok}");
        }
        assert_eq!(
            classify("Idempotence-Key"),
            Some(("Idempotency-Key", Miss::Variant))
        );
        // The plural names tables and metrics: a miss only in a header's place.
        for plural in ["idempotency-keys", "Idempotency_Keys", "Idempotency-Keys"] {
            assert_eq!(
                classify(plural),
                Some(("Idempotency-Key", Miss::NotAHeader)),
                "{plural}"
            );
        }
    }

    #[test]
    fn an_underscore_variant_of_a_legitimate_name_misses_that_name() {
        assert_eq!(
            classify("X_Idempotency_Key"),
            Some(("X-Idempotency-Key", Miss::Underscore))
        );
    }

    #[test]
    fn osa_counts_transpositions_once() {
        assert_eq!(osa_distance("idempotnecy", "idempotency"), 1);
        assert_eq!(osa_distance("abc", "abc"), 0);
    }
}
