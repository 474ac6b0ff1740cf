//! Judgements of a word in Rust code: a method of the standard library, a
//! word of a message's prose, part of a C declaration.

use super::*;

impl Keywords {
    /// Whether the word at `start` of Rust code names a method of the
    /// standard library (`[rust_std_methods]` of `rules/prefilter.toml`) as
    /// std's own call or definition of it reads: `.dedup()`,
    /// `.dedup_by_key(|e| e.id)`, `fn dedup(&mut self)`, `fn dedup_by<F>(&mut
    /// self, same: F) where F: FnMut(..)`. Such a method removes equal
    /// neighbours from a collection; it keeps no key. Anything else (a
    /// store's `dedup(&key)`, a comment between the tokens) is not.
    pub(super) fn std_method_at(&self, bytes: &[u8], start: usize) -> bool {
        use crate::lex::rust::{ident_byte, ident_len};
        let len = ident_len(&bytes[start..]);
        if len == 0 || ident_byte(start.checked_sub(1).map(|p| bytes[p])) {
            return false;
        }
        let name = &bytes[start..start + len];
        let is = |names: &[String]| names.iter().any(|n| n.as_bytes() == name);
        let (bare, closure) = (
            is(&self.std_methods.no_arguments),
            is(&self.std_methods.closure_argument),
        );
        if !(bare || closure) {
            return false;
        }
        let after = |at: usize| {
            let mut at = at;
            while bytes.get(at).is_some_and(u8::is_ascii_whitespace) {
                at += 1;
            }
            at
        };
        // What follows, token by token, past whitespace.
        let follows = |mut at: usize, tokens: &[&[u8]]| {
            for t in tokens {
                at = after(at);
                if !bytes[at.min(bytes.len())..].starts_with(t) {
                    return None;
                }
                at += t.len();
            }
            Some(at)
        };
        let mut before = start;
        while before > 0 && bytes[before - 1].is_ascii_whitespace() {
            before -= 1;
        }
        let end = start + len;
        if before > 0 && bytes[before - 1] == b'.' {
            let Some(open) = follows(end, &[b"("]) else {
                return false;
            };
            return if bare {
                follows(open, &[b")"]).is_some()
            } else {
                follows(open, &[b"|"]).is_some() || follows(open, &[b"move", b"|"]).is_some()
            };
        }
        let defines = bytes[..before].ends_with(b"fn")
            && before < start
            && !ident_byte(before.checked_sub(3).map(|p| bytes[p]));
        if !defines {
            return false;
        }
        if bare {
            return follows(end, &[b"(", b"&", b"mut", b"self", b")"]).is_some();
        }
        // `<F..>(&mut self, f: F) where F: FnMut(..)`, up to the body.
        let Some(generics) = follows(end, &[b"<"]) else {
            return false;
        };
        let head = &bytes[generics..bytes.len().min(generics + STD_SIGNATURE_BYTES)];
        let head = &head[..memchr::memchr2(b'{', b';', head).unwrap_or(head.len())];
        memchr::memmem::find(head, b"&mut self").is_some()
            && memchr::memmem::find(head, b"FnMut(").is_some()
    }
}

/// Whether the word `bytes[start..start + len]`, inside the Rust string
/// literal `literal`, is a word of prose: the literal holds a space, and
/// the name around the word ([`name_part`] bytes) is letters alone (`call
/// was idempotent`, `(replayed)`). A name with a separator or a digit
/// (`idem:{}`, `Idempotency-Key`, `dedup_v2`) is not; nor is a word with a
/// space in it (`drop index`), nor a lone word (`"idempotent"`).
pub(super) fn prose_word(
    bytes: &[u8],
    literal: &std::ops::Range<usize>,
    start: usize,
    len: usize,
) -> bool {
    let text = &bytes[literal.clone()];
    let start = start - literal.start;
    let end = (start + len).min(text.len());
    let from = text[..start]
        .iter()
        .rposition(|b| !name_part(b))
        .map_or(0, |p| p + 1);
    let to = text[end..]
        .iter()
        .position(|b| !name_part(b))
        .map_or(text.len(), |p| end + p);
    memchr::memchr(b' ', text).is_some() && text[from..to].iter().all(u8::is_ascii_alphabetic)
}

/// Whether the word at `start` of Rust code (outside strings and comments)
/// is part of a C declaration: Rust names its types in UpperCamelCase and
/// C in lower case with `_` (`ff_replay`, `c_uint`, `size_t`), so a type
/// named C's way is a binding's mirror of C, not Rust's own
/// (https://rust-lang.github.io/api-guidelines/naming.html, "Types |
/// UpperCamelCase", read 2026-12-05). The word is C's where its name is
/// such a type where it is declared (`struct ff_replay`, `union`, `type`),
/// such a type that the file declares (`replay: ff_replay`), or the name of
/// a field, constant or static declared with such a type (`pub replay:
/// ff_replay,`, `pub const CONNECT_DATA_IDEMPOTENT: c_uint = 0x2;`). A
/// binding's or a struct literal's field (`Event { dedup: dedup_key }`),
/// a parameter, and anything typed in UpperCamelCase or as a primitive
/// (`pub const IDEMPOTENCY_TTL_SECS: u64`) are not.
pub(super) fn c_declaration_at(bytes: &[u8], start: usize) -> bool {
    use crate::lex::rust::{c_cased, c_typed, ident_byte};
    let s = bytes[..start]
        .iter()
        .rposition(|&b| !ident_byte(Some(b)))
        .map_or(0, |p| p + 1);
    let e = start + crate::lex::rust::ident_len(&bytes[start..]);
    let name = &bytes[s..e];
    let before = bytes[..s].trim_ascii_end();
    let keyword = previous_word(bytes, s);
    if c_cased(name) && matches!(keyword, b"struct" | b"union" | b"type") {
        return true;
    }
    let declared = match keyword {
        b"pub" | b"const" | b"static" => true,
        b"mut" => previous_word(bytes, before.len() - keyword.len()) == b"static",
        _ => before.ends_with(b")") && visibility_before(bytes, s),
    };
    if declared && c_typed(&bytes[e..]) {
        return true;
    }
    c_cased(name) && declares_c_type(bytes, name)
}

/// The identifier that ends where only whitespace lies before `at`;
/// empty when something else does.
pub(super) fn previous_word(bytes: &[u8], at: usize) -> &[u8] {
    use crate::lex::rust::ident_byte;
    let end = bytes[..at].trim_ascii_end().len();
    let from = bytes[..end]
        .iter()
        .rposition(|&b| !ident_byte(Some(b)))
        .map_or(0, |p| p + 1);
    &bytes[from..end]
}

/// Whether a restricted visibility (`pub(crate)`, `pub(in a::b)`) ends
/// right before `at`.
pub(super) fn visibility_before(bytes: &[u8], at: usize) -> bool {
    let head = bytes[..at].trim_ascii_end();
    let Some(open) = memchr::memrchr(b'(', head) else {
        return false;
    };
    !head[open..].contains(&b'\n') && previous_word(bytes, open) == b"pub"
}

/// Whether the file declares `name` as a type (`struct name`, `union name`,
/// `type name`).
pub(super) fn declares_c_type(bytes: &[u8], name: &[u8]) -> bool {
    use crate::lex::rust::ident_byte;
    memchr::memmem::find_iter(bytes, name).any(|at| {
        !ident_byte(bytes.get(at + name.len()).copied())
            && !ident_byte(at.checked_sub(1).map(|p| bytes[p]))
            && matches!(previous_word(bytes, at), b"struct" | b"union" | b"type")
    })
}

/// How far past a std method's name its signature is read, at most.
pub(super) const STD_SIGNATURE_BYTES: usize = 512;
