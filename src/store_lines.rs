//! The lines of a text through which code can reach an idempotency store's
//! Redis client: those that call an identifier named with a Redis link word
//! of `rules/redis.toml` (`IdempotencyStore::connect(..)`). The Redis model
//! links instances through them; the prefilter asks whether a file has
//! any; a file whose text is let go after its parse keeps only them.

use crate::knowledge;

/// Each line of `text` (with its line ending) and its byte offset.
pub fn lines_at(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.split_inclusive('\n').scan(0, |offset, line| {
        let start = *offset;
        *offset += line.len();
        Some((start, line))
    })
}

/// The lines of `text` that the Redis model's store code (`model::redis`)
/// can use, with their byte
/// offsets: those that call something named for idempotency. What is kept
/// of a file whose text is let go after its parse.
pub fn store_code_lines(text: &str) -> Vec<(usize, String)> {
    let words = &knowledge::redis().link_words;
    let keep =
        |(start, line): (usize, &str)| store_callee(line, words).map(|_| (start, line.to_string()));
    match word_lines(text) {
        Some(starts) => starts
            .into_iter()
            .filter_map(|start| {
                let len = text[start..]
                    .find('\n')
                    .map_or(text.len() - start, |n| n + 1);
                keep((start, &text[start..start + len]))
            })
            .collect(),
        None if words.may_match_within(text) => lines_at(text).filter_map(keep).collect(),
        None => Vec::new(),
    }
}

/// The starts of the lines of `text` that hold a Redis link word in any
/// case, in order: the only lines where an identifier can match the words
/// (a part or both words of a pair are in the name itself, and [`snake`]
/// only inserts `_`). `None` when a word holds a separator, which such a
/// search cannot rule out.
///
/// [`snake`]: crate::knowledge::snake
pub fn word_lines(text: &str) -> Option<Vec<usize>> {
    let finders = link_word_finders()?;
    let lower = text.to_ascii_lowercase();
    let mut at: Vec<usize> = finders
        .iter()
        .flat_map(|f| f.find_iter(lower.as_bytes()))
        .collect();
    at.sort_unstable();
    let mut starts: Vec<usize> = Vec::new();
    // The end of the last line recorded: its other words add nothing.
    let mut line_end = 0;
    for a in at {
        if a < line_end {
            continue;
        }
        starts.push(text[..a].rfind('\n').map_or(0, |n| n + 1));
        line_end = text[a..].find('\n').map_or(text.len(), |n| a + n + 1);
    }
    Some(starts)
}

/// A searcher for each word of `rules/redis.toml`'s link words
/// (substrings, parts, both words of each pair), lowered, for a lowered
/// text. A search a word by its first byte in either case was slow on code,
/// where `i` (of `idem`) is everywhere.
fn link_word_finders() -> Option<&'static [memchr::memmem::Finder<'static>]> {
    static S: std::sync::OnceLock<Option<Vec<memchr::memmem::Finder<'static>>>> =
        std::sync::OnceLock::new();
    S.get_or_init(|| {
        let words = &knowledge::redis().link_words;
        let all: Vec<&String> = words.every_word().collect();
        if all
            .iter()
            .any(|w| w.is_empty() || !w.bytes().all(|b| b.is_ascii_alphanumeric()))
        {
            return None;
        }
        Some(
            all.iter()
                .map(|w| {
                    memchr::memmem::Finder::new(w.to_ascii_lowercase().as_bytes()).into_owned()
                })
                .collect(),
        )
    })
    .as_deref()
}

/// The first identifier on the line that is named for idempotency and is
/// called (followed by `(`, `::new`, `.new`, `::connect`, ...).
pub fn store_callee(line: &str, words: &knowledge::Words) -> Option<String> {
    let code = line.trim_start();
    if code.starts_with("//") || code.starts_with('#') || code.starts_with("--") {
        return None;
    }
    let mut rest = line;
    while let Some(i) = rest.find(|c: char| c.is_ascii_alphabetic() || c == '_') {
        let tail = &rest[i..];
        let len = tail
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(tail.len());
        let ident = &tail[..len];
        let after = tail[len..].trim_start();
        let called = after.starts_with('(')
            || after.starts_with("::")
            || after.starts_with(".new")
            || after.starts_with(".connect")
            || after.starts_with(".from_url");
        if called && words.matches(&knowledge::snake(ident)) {
            return Some(ident.to_string());
        }
        rest = &tail[len..];
    }
    None
}
