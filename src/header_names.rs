//! Header names: which strings are shaped like an HTTP header name, and
//! which of them miss a published idempotency header (`rules/headers.toml`)
//! and how. The front ends keep only the strings the header rule can speak
//! of ([`header_relevant`]); the rule reports the misses ([`classify`]).

use crate::catalogue::osa_distance;
use crate::knowledge;

/// Strings longer than this cannot be header names.
const MAX_HEADER_LEN: usize = 64;

/// Whether a string could be a header name (`Idempotency-Key`,
/// `idempotency_key`).
pub fn header_shaped(s: &str) -> bool {
    (3..=MAX_HEADER_LEN).contains(&s.len())
        && s.starts_with(|c: char| c.is_ascii_alphabetic())
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

/// What the header model keeps of the strings: those shaped like a header
/// name that the header rule can speak of (a miss of a canonical name, or
/// the replay header). A large OpenAPI file holds hundreds of thousands of
/// header-shaped names, and almost none of them concern the rule.
pub fn header_relevant(s: &str) -> bool {
    header_shaped(s) && concerns(s)
}

pub const REPLAYED: &str = "Idempotent-Replayed";

/// Whether a name's `_`- or `-`-joined words each start with a capital and
/// are not all capitals (`Idempotency_Key`, `Webhook_Id`): spelt as a
/// header, so a header wherever it stands.
pub fn header_cased(value: &str) -> bool {
    let parts: Vec<&str> = value.split(['-', '_']).collect();
    parts.len() > 1
        && parts.iter().all(|p| {
            let mut cs = p.chars();
            matches!(cs.next(), Some(c) if c.is_ascii_uppercase())
                && !cs.clone().all(|c| c.is_ascii_uppercase())
        })
}

/// The names of `rules/headers.toml` that hold a `-`, spelt with `_`
/// instead (`webhook_id`, `paypal_request_id`), lower-cased: misses the
/// header rule reports where the name stands as a header's.
pub fn underscored_names() -> &'static [String] {
    static NAMES: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    NAMES.get_or_init(|| {
        let h = knowledge::headers();
        h.canonical
            .iter()
            .chain(&h.legitimate)
            .filter(|h| h.name.contains('-'))
            .map(|h| h.name.to_ascii_lowercase().replace('-', "_"))
            .collect()
    })
}

/// How a name misses its canonical spelling.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Miss {
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
    /// An underscore among the hyphens of a name that ends in a canonical
    /// one (`x-trigger-request-idempotency_key`): a provider's own header
    /// spelt with one separator wrong. Its right spelling is the name with
    /// hyphens throughout, not the canonical name.
    Mixed,
}

/// Whether the header rule (`misspelled-idempotency-header`) can say
/// anything of a string spelled `value`: it misses a canonical name ([`classify`]) or is the replay header, whose
/// right spellings the rule compares with the wrong ones. The header model
/// keeps no other string.
pub fn concerns(value: &str) -> bool {
    value.eq_ignore_ascii_case(REPLAYED) || classify(value).is_some()
}

/// The canonical name `value` misses, if any, and how.
pub fn classify(value: &str) -> Option<(&'static str, Miss)> {
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
    mixed_separators(&lower).map(|c| (c, Miss::Mixed))
}

/// The canonical request header a name with both `-` and `_` ends in,
/// hyphens put back (`x-trigger-request-idempotency_key` ends in
/// `idempotency-key`); a prefix of the provider's own precedes it.
fn mixed_separators(lower: &str) -> Option<&'static str> {
    if !(lower.contains('-') && lower.contains('_')) {
        return None;
    }
    let hyphened = lower.replace('_', "-");
    knowledge::headers()
        .canonical
        .iter()
        .filter(|c| c.direction.as_deref() == Some("request"))
        .find(|c| {
            let name = c.name.to_ascii_lowercase();
            hyphened
                .strip_suffix(name.as_str())
                .is_some_and(|p| p.ends_with('-') && p.len() > 1)
        })
        .map(|c| c.name.as_str())
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
    if prefix.eq_ignore_ascii_case("idempot") || (value.contains('-') && value.contains('_')) {
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
    fn an_underscore_among_hyphens_of_a_providers_own_name_is_mixed() {
        assert_eq!(
            classify("x-trigger-request-idempotency_key"),
            Some(("Idempotency-Key", Miss::Mixed))
        );
        for ok in [
            "x-trigger-request-idempotency-key",
            "x_trigger_idempotency_key",
        ] {
            assert_eq!(classify(ok), None, "{ok}");
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
