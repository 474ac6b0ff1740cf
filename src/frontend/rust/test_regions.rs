//! The test regions of a parsed Rust file: its `#[cfg(test)]` items and
//! `#[test]`-like functions (`#[test]`, `#[tokio::test]`, `#[sqlx::test]`,
//! ...), whose code the retention, header and flow rules do not judge
//! unless the user asks (`--include-tests`, `tests = true`).

use crate::source::Span;
use syn::visit::Visit;

/// The byte spans of `#[cfg(test)]` items and `#[test]`-like functions
/// (`#[test]`, `#[tokio::test]`, `#[sqlx::test]`, ...) in a Rust file.
#[cfg(test)]
pub fn rust_regions(file: &syn::File) -> Vec<Span> {
    let mut v = Regions::default();
    v.visit_file(file);
    v.0
}

/// The test regions of a file, as [`rust_regions`] finds them, read item
/// by item.
#[derive(Default)]
pub struct Regions(pub Vec<Span>);

fn is_test_attr(a: &syn::Attribute) -> bool {
    let path = a.path();
    if path.segments.last().is_some_and(|s| s.ident == "test") {
        return true;
    }
    if path.is_ident("cfg") {
        let mut test = false;
        let _ = a.parse_nested_meta(|m| {
            test |= m.path.is_ident("test");
            Ok(())
        });
        return test;
    }
    false
}

impl Regions {
    /// A test item is one region; any other item is walked for test items
    /// inside it.
    fn item<T: syn::spanned::Spanned + std::any::Any>(
        &mut self,
        attrs: &[syn::Attribute],
        item: &T,
        walk: impl FnOnce(&mut Self),
    ) {
        if attrs.iter().any(is_test_attr) {
            self.0.push(super::span::of(item));
        } else {
            walk(self);
        }
    }
}

impl<'ast> Visit<'ast> for Regions {
    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        self.item(&m.attrs, m, |v| syn::visit::visit_item_mod(v, m));
    }

    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        self.item(&f.attrs, f, |v| syn::visit::visit_item_fn(v, f));
    }

    fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
        self.item(&f.attrs, f, |v| syn::visit::visit_impl_item_fn(v, f));
    }

    fn visit_item_impl(&mut self, i: &'ast syn::ItemImpl) {
        self.item(&i.attrs, i, |v| syn::visit::visit_item_impl(v, i));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rust_test_modules_and_functions_are_regions() {
        let src = "pub const TTL: u64 = 86400;\n#[cfg(test)]\nmod tests { const T: u64 = 5; }\n#[tokio::test]\nasync fn replays() {}\n#[cfg(feature = \"x\")]\nmod real {}\n";
        let file = syn::parse_file(src).unwrap();
        let regions = rust_regions(&file);
        let texts: Vec<&str> = regions.iter().map(|s| &src[s.start..s.end]).collect();
        assert_eq!(texts.len(), 2, "{texts:?}");
        assert!(texts[0].starts_with("#[cfg(test)]"));
        assert!(texts[1].contains("async fn replays"));
    }
}
