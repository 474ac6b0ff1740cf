//! Searching a file for many words at once, ASCII case-insensitively.

use aho_corasick::AhoCorasick;

/// Where [`Words`] falls back to an automaton (Teddy does not build):
/// above this many files a run scans enough bytes that a DFA, slower to
/// build (about 2 ms for the prefilter's words) but faster to search, pays
/// for itself; below it (a pre-commit run on a few staged files) the
/// contiguous NFA, quick to build, wins. Measured 2026-12-01: one 5 KiB
/// file, read+prefilter 3.0 to 3.8 ms with DFAs, 1.3 to 2.6 ms with NFAs;
/// omicron (3,472 files), 174 ms with DFAs, 294 to 701 ms with NFAs.
pub const DFA_FROM_FILES: usize = 64;

/// A searcher for `words`, matched ASCII case-insensitively: the words are
/// lowered here and searched in a lowered copy of the text ([`lowered`]).
/// A case-sensitive leftmost-first search keeps aho-corasick's SIMD
/// (Teddy) searcher, which its case-insensitive and overlapping searches
/// cannot use: measured 2026-12-02 over bitnami/charts (62 MiB), lowering
/// and one such search 14 ms, the case-insensitive overlapping search it
/// replaces 110 ms. Every occurrence of every word is still seen
/// ([`Words::occurrences`]).
///
/// Teddy is asked for by name ([`aho_corasick::packed`]): an automaton
/// picks its own prefilter, and for a few words it picks one that looks for
/// one or two bytes it ranks rare (for `redis`, `valkey`, `keydb`, bytes
/// common in code), stopping at each. Measured 2026-12-05 over the lowered
/// files of a payment switch (76 MB): those three words, 85 ms by the
/// automaton, 6.6 ms by Teddy; the prefilter's 54 words, 19.9 and 19.5 ms;
/// the same occurrences. An automaton remains for what Teddy does not take
/// (over 64 words, a machine without SIMD).
pub(super) struct Words {
    pub(super) search: Search,
    /// The lowered words, by pattern index.
    pub(super) words: Vec<Vec<u8>>,
}

/// How [`Words`] finds the leftmost word from a position.
pub(super) enum Search {
    /// One Teddy searcher per slice of at most [`TEDDY_WORDS`] words.
    Teddy(Vec<aho_corasick::packed::Searcher>),
    Automaton(AhoCorasick),
}

/// The most words one Teddy searcher is given. Teddy takes up to 64, but
/// over 32 it runs in its fat form (16 buckets, half the bytes a step);
/// and a word list over 64 (the prefilter's listed words with the project's
/// effect words, about 70) would fall back to an automaton. So a long list
/// is cut into slices of at most 32, each searched with slim Teddy, and the
/// leftmost start of all is taken ([`Words::leftmost`]). Measured
/// 2026-12-06 on the hyperswitch fork (63 MiB, `perf`): the prefilter's
/// searches 13% of the run's samples with one DFA, 5.7% in slices; CPU
/// 1.20 -> 1.11 s (docs/performance.md).
pub(super) const TEDDY_WORDS: usize = 32;

impl Words {
    pub(super) fn new(words: &[String], dfa: bool) -> Self {
        let mut words: Vec<Vec<u8>> = words
            .iter()
            .map(|w| w.as_bytes().to_ascii_lowercase())
            .filter(|w| !w.is_empty())
            .collect();
        if words.is_empty() {
            words.push(b"idempot".to_vec());
        }
        Self::searched_by(words, dfa, true)
    }

    /// [`Words::new`] for lowered words, with Teddy when `teddy` and it
    /// builds, else with an automaton.
    pub(super) fn searched_by(words: Vec<Vec<u8>>, dfa: bool, teddy: bool) -> Self {
        let teddy = teddy
            .then(|| {
                let slices = words.len().div_ceil(TEDDY_WORDS).max(1);
                let per = words.len().div_ceil(slices).max(1);
                words
                    .chunks(per)
                    .map(|slice| {
                        aho_corasick::packed::Config::new()
                            .match_kind(aho_corasick::packed::MatchKind::LeftmostFirst)
                            .builder()
                            .extend(slice)
                            .build()
                    })
                    .collect::<Option<Vec<_>>>()
            })
            .flatten();
        let search = match teddy {
            Some(t) => Search::Teddy(t),
            None => Search::Automaton(
                AhoCorasick::builder()
                    .kind(Some(if dfa {
                        aho_corasick::AhoCorasickKind::DFA
                    } else {
                        aho_corasick::AhoCorasickKind::ContiguousNFA
                    }))
                    .match_kind(aho_corasick::MatchKind::LeftmostFirst)
                    .build(&words)
                    .or_else(|_| AhoCorasick::new(["idempot"]))
                    .unwrap_or_else(|_| unreachable!("a one-word automaton always builds")),
            ),
        };
        Words { search, words }
    }

    /// Where the leftmost word at or after `at` starts in a lowered text.
    pub(super) fn leftmost(&self, lower: &[u8], at: usize) -> Option<usize> {
        self.leftmost_from(lower, at, &mut Vec::new())
    }

    /// [`Words::leftmost`], with what each Teddy slice found last in
    /// `found` (per slice: not yet asked, none left, or where its next word
    /// starts), so that a search from a later position asks again only the
    /// slices whose last find lies before it: every slice's text is still
    /// scanned once.
    pub(super) fn leftmost_from(
        &self,
        lower: &[u8],
        at: usize,
        found: &mut Vec<Option<Option<usize>>>,
    ) -> Option<usize> {
        match &self.search {
            Search::Teddy(slices) => {
                found.resize(slices.len(), None);
                let mut best: Option<usize> = None;
                for (t, seen) in slices.iter().zip(found.iter_mut()) {
                    let next = match *seen {
                        Some(None) => None,
                        Some(Some(p)) if p >= at => Some(p),
                        _ => {
                            let p = t
                                .find_in(lower, aho_corasick::Span::from(at..lower.len()))
                                .map(|m| m.start());
                            *seen = Some(p);
                            p
                        }
                    };
                    best = match (best, next) {
                        (Some(b), Some(n)) => Some(b.min(n)),
                        (b, n) => b.or(n),
                    };
                }
                best
            }
            Search::Automaton(ac) => ac
                .find(aho_corasick::Input::new(lower).span(at..lower.len()))
                .map(|m| m.start()),
        }
    }

    /// Whether a lowered text holds a word.
    pub(super) fn is_match(&self, lower: &[u8]) -> bool {
        self.leftmost(lower, 0).is_some()
    }

    /// Every `(start, word index)` at which a word occurs in a lowered
    /// text, overlapping ones included, by start: the leftmost-first search
    /// finds the next start, and every word is tried there.
    pub(super) fn occurrences<'a>(
        &'a self,
        lower: &'a [u8],
    ) -> impl Iterator<Item = (usize, usize)> + 'a {
        let mut at = 0;
        let mut pending: Vec<(usize, usize)> = Vec::new();
        let mut found = Vec::new();
        std::iter::from_fn(move || loop {
            if let Some(o) = pending.pop() {
                return Some(o);
            }
            let start = self.leftmost_from(lower, at, &mut found)?;
            at = start + 1;
            let rest = &lower[start..];
            // Reversed, so that `pop` gives them in pattern order.
            pending.extend(
                self.words
                    .iter()
                    .enumerate()
                    .rev()
                    .filter(|(_, w)| rest.starts_with(w))
                    .map(|(i, _)| (start, i)),
            );
        })
    }

    /// The longest word's length, in bytes.
    pub(super) fn longest(&self) -> usize {
        self.words.iter().map(Vec::len).max().unwrap_or(0)
    }
}

/// Run `f` on an ASCII-lowered copy of `bytes` (same length, so offsets
/// carry over), in a buffer each thread keeps.
pub(super) fn lowered<R>(bytes: &[u8], f: impl FnOnce(&[u8]) -> R) -> R {
    thread_local! {
        static BUF: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
    }
    BUF.with(|b| match b.try_borrow_mut() {
        Ok(mut buf) => {
            buf.clear();
            buf.extend(bytes.iter().map(u8::to_ascii_lowercase));
            let r = f(&buf);
            // A large file's copy is not kept for the rest of the run.
            if buf.capacity() > 256 << 10 {
                *buf = Vec::new();
            }
            r
        }
        Err(_) => f(&bytes.to_ascii_lowercase()),
    })
}
