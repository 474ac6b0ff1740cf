//! Cache abstractions in Rust: which types are a cache with a Redis backend
//! (`enum Cache { Redis(RedisCache), Memory(..) }`, `impl Cache for
//! RedisCache`), and which types idempotency code keeps its keys in (a field
//! `cache: Cache` of `IdempotencyService`). The model joins them with the
//! config that selects the backend (`cache_type = "redis"`). Not for Redis
//! commands (`retention`, `flow`).

use crate::facts::store::{CacheFacts, CacheUse};
use crate::knowledge::{self, name_words};
use syn::visit::{self, Visit};

fn has(words: &[String], w: &str) -> bool {
    words.iter().any(|x| x == w)
}

fn is_cache(name: &str) -> bool {
    has(&name_words(name), "cache")
}

fn is_redis(name: &str) -> bool {
    name_words(name)
        .iter()
        .any(|w| w == "redis" || w == "valkey" || w == "rediscluster")
}

/// Whether a method's receiver is a cache: the name it is reached by says
/// so (`cache`, `self.cache`, `state.response_cache`), or it is a cache
/// made on the spot (`memory::new()`, `MemoryCache::default()`).
pub(crate) fn names_cache(recv: &syn::Expr) -> bool {
    match recv {
        syn::Expr::Path(p) => p
            .path
            .segments
            .last()
            .is_some_and(|s| is_cache(&s.ident.to_string())),
        syn::Expr::Field(f) => match &f.member {
            syn::Member::Named(n) => is_cache(&n.to_string()),
            syn::Member::Unnamed(_) => false,
        },
        syn::Expr::Reference(r) => names_cache(&r.expr),
        syn::Expr::Paren(p) => names_cache(&p.expr),
        syn::Expr::Call(_) => fresh_store(recv).is_some(),
        _ => false,
    }
}

/// A store made on the spot for one call (`memory::new()`,
/// `MemoryCache::new()`, `HashMap::new()`): what is claimed in it is gone
/// with it, and no other request sees it. The constructor's path.
pub(crate) fn fresh_store(recv: &syn::Expr) -> Option<String> {
    let syn::Expr::Call(c) = recv else {
        return None;
    };
    let syn::Expr::Path(p) = &*c.func else {
        return None;
    };
    let segs = super::path_idents(&p.path);
    let last = segs.last()?;
    let constructor = matches!(last.as_str(), "new" | "default" | "with_capacity");
    let store = segs.iter().any(|s| {
        let w = name_words(s);
        is_cache(s)
            || w.iter()
                .any(|w| matches!(w.as_str(), "memory" | "store" | "map"))
    });
    (constructor && store).then(|| segs.join("::"))
}

/// Whether a function names idempotency in its signature: its name, a
/// parameter, or a parameter's type (`key: &IdempotencyKey`). Reads the
/// names only, with no printing: it runs for every function read.
pub(crate) fn names_idempotency_sig(sig: &syn::Signature) -> bool {
    idem(&sig.ident.to_string())
        || sig.inputs.iter().any(|a| match a {
            syn::FnArg::Typed(t) => pat_names_idempotency(&t.pat) || type_names_idempotency(&t.ty),
            syn::FnArg::Receiver(_) => false,
        })
}

fn idem(s: &str) -> bool {
    s.as_bytes()
        .windows(7)
        .any(|w| w.eq_ignore_ascii_case(b"idempot"))
}

fn pat_names_idempotency(p: &syn::Pat) -> bool {
    match p {
        syn::Pat::Ident(i) => idem(&i.ident.to_string()),
        syn::Pat::Type(t) => pat_names_idempotency(&t.pat),
        syn::Pat::Reference(r) => pat_names_idempotency(&r.pat),
        syn::Pat::TupleStruct(ts) => ts.elems.iter().any(pat_names_idempotency),
        syn::Pat::Tuple(t) => t.elems.iter().any(pat_names_idempotency),
        _ => false,
    }
}

fn type_names_idempotency(t: &syn::Type) -> bool {
    match t {
        syn::Type::Reference(r) => type_names_idempotency(&r.elem),
        syn::Type::Paren(p) => type_names_idempotency(&p.elem),
        syn::Type::Group(g) => type_names_idempotency(&g.elem),
        syn::Type::Slice(s) => type_names_idempotency(&s.elem),
        syn::Type::Array(a) => type_names_idempotency(&a.elem),
        syn::Type::Tuple(t) => t.elems.iter().any(type_names_idempotency),
        syn::Type::Path(p) => p.path.segments.iter().any(|s| {
            idem(&s.ident.to_string())
                || matches!(&s.arguments, syn::PathArguments::AngleBracketed(a)
                    if a.args.iter().any(|g| matches!(g, syn::GenericArgument::Type(t) if type_names_idempotency(t))))
        }),
        _ => false,
    }
}

fn type_idents(ty: &syn::Type) -> Vec<String> {
    use quote::ToTokens;
    ty.to_token_stream().into_iter().flat_map(flatten).collect()
}

fn flatten(t: proc_macro2::TokenTree) -> Vec<String> {
    match t {
        proc_macro2::TokenTree::Ident(i) => vec![i.to_string()],
        proc_macro2::TokenTree::Group(g) => g.stream().into_iter().flat_map(flatten).collect(),
        _ => Vec::new(),
    }
}

fn last_ident(ty: &syn::Type) -> Option<String> {
    match ty {
        syn::Type::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
        _ => None,
    }
}

#[derive(Default)]
pub(super) struct Visitor {
    pub(super) out: CacheFacts,
    /// The idempotency-named type whose `impl` block is being read.
    owner: Option<String>,
}

impl Visitor {
    fn uses_in(&mut self, owner: &str, ty: &syn::Type) {
        use syn::spanned::Spanned;
        let types = type_idents(ty);
        if types.iter().any(|t| is_cache(t)) {
            self.out.store_uses.push(CacheUse {
                owner: owner.to_string(),
                types,
                span: super::byte_span(ty.span()),
            });
        }
    }

    fn params(&mut self, owner: &str, sig: &syn::Signature) {
        for a in &sig.inputs {
            if let syn::FnArg::Typed(t) = a {
                self.uses_in(owner, &t.ty);
            }
        }
    }
}

impl<'ast> Visit<'ast> for Visitor {
    fn visit_item_struct(&mut self, s: &'ast syn::ItemStruct) {
        let name = s.ident.to_string();
        if knowledge::redis()
            .link_words
            .matches(&knowledge::snake(&name))
        {
            for f in &s.fields {
                self.uses_in(&name, &f.ty);
            }
        }
        visit::visit_item_struct(self, s);
    }

    fn visit_item_enum(&mut self, e: &'ast syn::ItemEnum) {
        let name = e.ident.to_string();
        if is_cache(&name) {
            for v in &e.variants {
                let inner = v.fields.iter().find_map(|f| last_ident(&f.ty));
                let variant = v.ident.to_string();
                if is_redis(&variant) || inner.as_deref().is_some_and(is_redis) {
                    let backend = inner.filter(|i| is_redis(i)).unwrap_or(variant);
                    self.out.redis_backends.push((name.clone(), backend));
                }
            }
        }
        visit::visit_item_enum(self, e);
    }

    fn visit_item_impl(&mut self, i: &'ast syn::ItemImpl) {
        let self_ty = last_ident(&i.self_ty);
        if let (Some((_, tr, _)), Some(ty)) = (&i.trait_, &self_ty) {
            let tr = tr.segments.last().map(|s| s.ident.to_string());
            if let Some(tr) = tr {
                if is_cache(&tr) && is_redis(ty) {
                    self.out.redis_backends.push((tr, ty.clone()));
                }
            }
        }
        let named = self_ty
            .as_deref()
            .filter(|t| knowledge::redis().link_words.matches(&knowledge::snake(t)))
            .map(str::to_string);
        let outer = std::mem::replace(&mut self.owner, named);
        visit::visit_item_impl(self, i);
        self.owner = outer;
    }

    fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
        if let Some(owner) = self.owner.clone() {
            self.params(&owner, &f.sig);
        }
        visit::visit_impl_item_fn(self, f);
    }

    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        let name = f.sig.ident.to_string();
        if knowledge::redis().link_words.matches(&name) {
            self.params(&name, &f.sig);
        }
        visit::visit_item_fn(self, f);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> CacheFacts {
        let mut f = crate::facts::FileFacts::default();
        super::super::parse(text, &mut f);
        f.code.expect("parsed").cache
    }

    #[test]
    fn an_enum_or_trait_with_a_redis_implementation_is_a_redis_backed_cache() {
        let f = read(
            "pub enum Cache { Memory(memory::MemoryCache), Redis(redis::RedisCache) }\n\
             impl KeyCache for RedisKeyCache {}\n\
             impl KeyCache for MemoryKeyCache {}\n",
        );
        assert_eq!(
            f.redis_backends,
            vec![
                ("Cache".to_string(), "RedisCache".to_string()),
                ("KeyCache".to_string(), "RedisKeyCache".to_string())
            ]
        );
    }

    #[test]
    fn idempotency_code_that_holds_or_takes_a_cache_is_a_cache_use() {
        let f = read(
            "pub struct IdempotencyLayer { cache: Arc<dyn KeyCache>, name: String }\n\
             impl IdempotencyLayer { fn new(c: Cache) -> Self { todo!() } }\n\
             pub struct SessionStore { cache: Cache }\n",
        );
        assert_eq!(f.store_uses.len(), 2);
        assert_eq!(f.store_uses[0].owner, "IdempotencyLayer");
        assert!(f.store_uses[0].types.contains(&"KeyCache".to_string()));
    }
}
