//! Byte spans of syntax nodes, without printing them.
//!
//! syn's `Spanned` finds a node's span by printing the node back into a
//! token stream and joining its first and last tokens: asking for the span
//! of a call whose argument is a closure prints the closure, and asking for
//! the span of a function's block prints the function. The visitors ask at
//! every call, method call and `let`.
//!
//! Here the first and the last token of the common node shapes are found by
//! walking down the edges of the tree (`a.b(c)?` starts where `a` starts
//! and ends at its `?`); any other shape, or a node with attributes, falls
//! back to `Spanned`, so the span is always the one syn gives. On omicron
//! this took the visitors from 346 to 223 ms of CPU (2026-12-03). The test
//! at the end checks the walked span against the printed one on every
//! expression, call, block and item of a corpus of real Rust.

use crate::source::Span;
use proc_macro2::Span as TokenSpan;
use std::any::Any;
use syn::spanned::Spanned;

/// The byte span of a node: from its first token's start to its last
/// token's end, as `Spanned` gives it.
pub fn of<T: Spanned + Any>(node: &T) -> Span {
    walked(node as &dyn Any).unwrap_or_else(|| printed(node))
}

/// The span `Spanned` gives, by printing the node.
fn printed(node: &impl Spanned) -> Span {
    super::byte_span(node.span())
}

fn walked(node: &dyn Any) -> Option<Span> {
    let (first, last) = if let Some(e) = node.downcast_ref::<syn::Expr>() {
        (expr_first(e)?, expr_last(e)?)
    } else if let Some(c) = node.downcast_ref::<syn::ExprCall>() {
        if !c.attrs.is_empty() {
            return None;
        }
        (expr_first(&c.func)?, c.paren_token.span.close())
    } else if let Some(m) = node.downcast_ref::<syn::ExprMethodCall>() {
        if !m.attrs.is_empty() {
            return None;
        }
        (expr_first(&m.receiver)?, m.paren_token.span.close())
    } else if let Some(b) = node.downcast_ref::<syn::Block>() {
        (b.brace_token.span.open(), b.brace_token.span.close())
    } else if let Some(f) = node.downcast_ref::<syn::ItemFn>() {
        (
            outer_attr_first(&f.attrs)?,
            f.block.brace_token.span.close(),
        )
    } else if let Some(f) = node.downcast_ref::<syn::ImplItemFn>() {
        (
            outer_attr_first(&f.attrs)?,
            f.block.brace_token.span.close(),
        )
    } else if let Some(i) = node.downcast_ref::<syn::ItemImpl>() {
        (outer_attr_first(&i.attrs)?, i.brace_token.span.close())
    } else if let Some(m) = node.downcast_ref::<syn::ItemMod>() {
        let last = match (&m.content, &m.semi) {
            (Some((brace, _)), _) => brace.span.close(),
            (None, Some(semi)) => semi.spans[0],
            (None, None) => return None,
        };
        (outer_attr_first(&m.attrs)?, last)
    } else {
        return None;
    };
    // one lookup of the byte range, as `Spanned` does
    Some(super::byte_span(first.join(last)?))
}

/// Where an item with outer attributes starts: at the first one's `#`.
/// Without one, the item starts at a visibility or keyword: not walked.
fn outer_attr_first(attrs: &[syn::Attribute]) -> Option<TokenSpan> {
    attrs
        .iter()
        .find(|a| matches!(a.style, syn::AttrStyle::Outer))
        .map(|a| a.pound_token.span)
}

/// A path's first token, unless it has a `<T as Trait>::` qualifier.
fn path_first(qself: &Option<syn::QSelf>, p: &syn::Path) -> Option<TokenSpan> {
    if qself.is_some() {
        return None;
    }
    match &p.leading_colon {
        Some(c) => Some(c.spans[0]),
        None => Some(p.segments.first()?.ident.span()),
    }
}

/// A path's last token: its last segment's name or the `>` of its generic
/// arguments.
fn path_last(p: &syn::Path) -> Option<TokenSpan> {
    let last = p.segments.last()?;
    match &last.arguments {
        syn::PathArguments::None => Some(last.ident.span()),
        syn::PathArguments::AngleBracketed(a) => Some(a.gt_token.span),
        syn::PathArguments::Parenthesized(_) => None,
    }
}

fn macro_last(m: &syn::Macro) -> TokenSpan {
    match &m.delimiter {
        syn::MacroDelimiter::Paren(p) => p.span.close(),
        syn::MacroDelimiter::Brace(b) => b.span.close(),
        syn::MacroDelimiter::Bracket(b) => b.span.close(),
    }
}

/// An expression's first token. `None` for a shape not walked, and for any
/// expression with attributes (printed first).
fn expr_first(e: &syn::Expr) -> Option<TokenSpan> {
    use syn::Expr as E;
    match e {
        E::Call(x) if x.attrs.is_empty() => expr_first(&x.func),
        E::MethodCall(x) if x.attrs.is_empty() => expr_first(&x.receiver),
        E::Field(x) if x.attrs.is_empty() => expr_first(&x.base),
        E::Index(x) if x.attrs.is_empty() => expr_first(&x.expr),
        E::Try(x) if x.attrs.is_empty() => expr_first(&x.expr),
        E::Await(x) if x.attrs.is_empty() => expr_first(&x.base),
        E::Binary(x) if x.attrs.is_empty() => expr_first(&x.left),
        E::Cast(x) if x.attrs.is_empty() => expr_first(&x.expr),
        E::Assign(x) if x.attrs.is_empty() => expr_first(&x.left),
        E::Path(x) if x.attrs.is_empty() => path_first(&x.qself, &x.path),
        E::Struct(x) if x.attrs.is_empty() => path_first(&x.qself, &x.path),
        E::Macro(x) if x.attrs.is_empty() => path_first(&None, &x.mac.path),
        E::Lit(x) if x.attrs.is_empty() => Some(x.lit.span()),
        E::Paren(x) if x.attrs.is_empty() => Some(x.paren_token.span.open()),
        E::Tuple(x) if x.attrs.is_empty() => Some(x.paren_token.span.open()),
        E::Array(x) if x.attrs.is_empty() => Some(x.bracket_token.span.open()),
        E::Reference(x) if x.attrs.is_empty() => Some(x.and_token.span),
        E::Unary(x) if x.attrs.is_empty() => Some(x.op.span()),
        E::Return(x) if x.attrs.is_empty() => Some(x.return_token.span),
        E::If(x) if x.attrs.is_empty() => Some(x.if_token.span),
        E::Match(x) if x.attrs.is_empty() => Some(x.match_token.span),
        E::Block(x) if x.attrs.is_empty() && x.label.is_none() => {
            Some(x.block.brace_token.span.open())
        }
        _ => None,
    }
}

/// An expression's last token (a type's span for a cast, which ends
/// there). `None` for a shape not walked.
fn expr_last(e: &syn::Expr) -> Option<TokenSpan> {
    use syn::Expr as E;
    match e {
        E::Call(x) => Some(x.paren_token.span.close()),
        E::MethodCall(x) => Some(x.paren_token.span.close()),
        E::Field(x) => Some(match &x.member {
            syn::Member::Named(n) => n.span(),
            syn::Member::Unnamed(i) => i.span,
        }),
        E::Index(x) => Some(x.bracket_token.span.close()),
        E::Try(x) => Some(x.question_token.spans[0]),
        E::Await(x) => Some(x.await_token.span),
        E::Binary(x) => expr_last(&x.right),
        E::Assign(x) => expr_last(&x.right),
        E::Reference(x) => expr_last(&x.expr),
        E::Unary(x) => expr_last(&x.expr),
        E::Cast(x) => Some(x.ty.span()),
        E::Path(x) => path_last(&x.path),
        E::Struct(x) => Some(x.brace_token.span.close()),
        E::Macro(x) => Some(macro_last(&x.mac)),
        E::Lit(x) => Some(x.lit.span()),
        E::Paren(x) => Some(x.paren_token.span.close()),
        E::Tuple(x) => Some(x.paren_token.span.close()),
        E::Array(x) => Some(x.bracket_token.span.close()),
        E::Block(x) => Some(x.block.brace_token.span.close()),
        E::Match(x) => Some(x.brace_token.span.close()),
        E::Closure(x) => expr_last(&x.body),
        E::Return(x) => match &x.expr {
            Some(v) => expr_last(v),
            None => Some(x.return_token.span),
        },
        E::If(x) => match &x.else_branch {
            Some((_, v)) => expr_last(v),
            None => Some(x.then_branch.brace_token.span.close()),
        },
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use syn::visit::{self, Visit};

    /// Every node whose span is walked, checked against the printed span.
    struct Check {
        nodes: usize,
        walked: usize,
    }

    impl Check {
        fn check<T: Spanned + Any + quote::ToTokens>(&mut self, node: &T) {
            self.nodes += 1;
            if let Some(fast) = walked(node as &dyn Any) {
                self.walked += 1;
                let slow = printed(node);
                assert_eq!(
                    (fast.start, fast.end),
                    (slow.start, slow.end),
                    "{}",
                    quote::ToTokens::to_token_stream(node)
                );
            }
        }
    }

    impl<'ast> Visit<'ast> for Check {
        fn visit_expr(&mut self, e: &'ast syn::Expr) {
            self.check(e);
            match e {
                syn::Expr::Call(c) => self.check(c),
                syn::Expr::MethodCall(m) => self.check(m),
                _ => {}
            }
            visit::visit_expr(self, e);
        }
        fn visit_block(&mut self, b: &'ast syn::Block) {
            self.check(b);
            visit::visit_block(self, b);
        }
        fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
            self.check(f);
            visit::visit_item_fn(self, f);
        }
        fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
            self.check(f);
            visit::visit_impl_item_fn(self, f);
        }
        fn visit_item_impl(&mut self, i: &'ast syn::ItemImpl) {
            self.check(i);
            visit::visit_item_impl(self, i);
        }
        fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
            self.check(m);
            visit::visit_item_mod(self, m);
        }
        fn visit_macro(&mut self, m: &'ast syn::Macro) {
            // the bodies the visitors parse as argument lists
            if let Ok(args) = m.parse_body_with(
                syn::punctuated::Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated,
            ) {
                args.iter().for_each(|a| self.visit_expr(a));
            }
        }
    }

    fn rust_files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap().flatten() {
            let p = entry.path();
            if p.is_dir() {
                rust_files(&p, out);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p);
            }
        }
    }

    /// idemlint's own sources and the Rust fixtures: real code with every
    /// shape walked above, attributes, closures, macros and non-ASCII text.
    /// `IDEMLINT_SPAN_CORPUS=DIR` adds the Rust files under DIR (a checked
    /// out repository, `~/.cargo/registry/src`).
    fn corpus() -> Vec<std::path::PathBuf> {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut files = Vec::new();
        for dir in ["src", "tests", "testdata"] {
            rust_files(&root.join(dir), &mut files);
        }
        if let Some(dir) = std::env::var_os("IDEMLINT_SPAN_CORPUS") {
            rust_files(std::path::Path::new(&dir), &mut files);
        }
        files
    }

    /// Over the [`corpus`], every walked node's span is the one syn prints.
    #[test]
    fn walked_spans_are_the_printed_spans() {
        let files = corpus();
        let mut c = Check {
            nodes: 0,
            walked: 0,
        };
        for f in &files {
            let Ok(text) = std::fs::read_to_string(f) else {
                continue;
            };
            let Ok(file) = syn::parse_file(&text) else {
                continue;
            };
            c.visit_file(&file);
            proc_macro2::extra::invalidate_current_thread_spans();
        }
        eprintln!(
            "{} files, {} of {} nodes walked",
            files.len(),
            c.walked,
            c.nodes
        );
        assert!(files.len() > 100, "{} files", files.len());
        assert!(c.walked * 10 > c.nodes * 9, "{} of {}", c.walked, c.nodes);
    }

    /// Every token's span (and each group's delimiters) in `text`: the byte
    /// range proc-macro2 counts, and the one read through the line table.
    fn both_spans(text: &str) -> Option<(Vec<Span>, Vec<Span>)> {
        fn spans(ts: proc_macro2::TokenStream, out: &mut Vec<proc_macro2::Span>) {
            for t in ts {
                if let proc_macro2::TokenTree::Group(g) = &t {
                    out.extend([g.span_open(), g.span_close()]);
                    spans(g.stream(), out);
                }
                out.push(t.span());
            }
        }
        let ts = text.parse::<proc_macro2::TokenStream>().ok()?;
        let mut all = Vec::new();
        spans(ts, &mut all);
        let counted: Vec<Span> = all
            .iter()
            .map(|s| {
                let r = s.byte_range();
                Span::new(r.start, r.end)
            })
            .collect();
        let lines = super::super::Lines::of(text);
        let read: Vec<Span> = all.iter().map(|s| super::super::byte_span(*s)).collect();
        drop(lines);
        proc_macro2::extra::invalidate_current_thread_spans();
        Some((counted, read))
    }

    /// Over the same corpus, every token's byte range read through the
    /// file's line table is the one proc-macro2 counts, on ASCII files and
    /// on files with other text.
    #[test]
    fn line_table_spans_are_proc_macro2_spans() {
        let files = corpus();
        let (mut ascii, mut other, mut tokens) = (0, 0, 0);
        for f in &files {
            let Ok(text) = std::fs::read_to_string(f) else {
                continue;
            };
            let Some((counted, read)) = both_spans(&text) else {
                continue;
            };
            assert_eq!(read, counted, "{}", f.display());
            if text.is_ascii() {
                ascii += 1;
            } else {
                other += 1;
            }
            tokens += counted.len();
        }
        eprintln!("{ascii} ASCII files, {other} others, {tokens} tokens");
        assert!(ascii > 100 && other > 0, "{ascii} ASCII, {other} others");
    }

    /// Lines with chars of two, three and four bytes, before, inside and
    /// after tokens, with CRLF line ends and a byte order mark: the line
    /// table gives proc-macro2's byte ranges, and they hold the token.
    #[test]
    fn spans_on_lines_that_are_not_ascii_are_byte_ranges() {
        let texts = [
            "/// Café — the façade\nfn prix() -> &'static str { \"€ 5\" }\n",
            "fn f() {\n    let naïve = \"日本語\"; let x = 1; // 🦀 done\n    g(naïve, x)\n}\n",
            "const A: &str = \"ä\nö\nü\"; const B: u8 = 1;\r\nfn h() { /* ß */ k() }\r\n",
            "\u{feff}fn bom() { let s = \"ok\"; }\n",
            "fn é() {}\nfn plain() { x(1) }\nfn 名() { y(\"🦀🦀\") }",
        ];
        for text in texts {
            let (counted, read) = both_spans(text).expect(text);
            assert_eq!(read, counted, "{text:?}");
            assert!(counted.len() > 5, "{text:?}");
            for s in &read {
                assert!(text.get(s.start..s.end).is_some(), "{text:?} {s:?}");
            }
        }
        let text = texts[1];
        let (_, read) = both_spans(text).unwrap();
        let at = text.rfind("naïve").unwrap();
        assert!(read.contains(&Span::new(at, at + "naïve".len())));
    }

    #[test]
    fn a_call_spans_from_its_path_to_its_closing_paren() {
        let text = "fn f() { let x = a::b(c, || d.e()?).await; }";
        let file = syn::parse_file(text).unwrap();
        let syn::Item::Fn(f) = &file.items[0] else {
            panic!()
        };
        let syn::Stmt::Local(l) = &f.block.stmts[0] else {
            panic!()
        };
        let e = &l.init.as_ref().unwrap().expr;
        let s = of(&**e);
        assert_eq!(&text[s.start..s.end], "a::b(c, || d.e()?).await");
        let syn::Expr::Await(a) = &**e else { panic!() };
        let s = of(&*a.base);
        assert_eq!(&text[s.start..s.end], "a::b(c, || d.e()?)");
        proc_macro2::extra::invalidate_current_thread_spans();
    }
}
