//! A bound on how deep a module's tree can be, read from its tokens before
//! the parser runs: Ruff's parser, the passes' walks and the tree's drop
//! all recurse once a level, and a chain with no brackets (`not not …`,
//! `a + a + …`, `a.b.b…`, `lambda: lambda: …`) nests as deep as it is long.
//! Brackets are bounded by [`crate::frontend::too_deep`].

use crate::facts::Problem;
use crate::source::Span;
use ruff_python_ast::token::TokenKind;
use ruff_python_parser::{lexer, Mode};

/// Most tokens that nest (operators, `.`, `not`, `lambda`, `await`, a
/// conditional's `if`) one logical line may hold. Over a thousand in one
/// statement is generated code, whose tree no rule needs.
const MAX_CHAIN: usize = 1_000;

/// Deepest indentation read.
const MAX_INDENT: usize = crate::frontend::MAX_NESTING;

/// The problem to report instead of parsing `text`, when one of its
/// statements could nest deeper than the parser may go.
pub fn too_deep(text: &str) -> Option<Problem> {
    let mut lex = lexer::lex(text, Mode::Module);
    let (mut chain, mut indent) = (0usize, 0usize);
    // The chain at each open bracket: a comma ends an element's chain (the
    // elements of a list, a call's arguments are siblings, not nested), a
    // closing bracket resumes the chain around it. A migration's
    // `operations = [..]` with hundreds of `models.CharField(..)` is one
    // statement of thousands of dots, each element shallow.
    let mut open: Vec<usize> = Vec::new();
    loop {
        let kind = lex.next_token();
        match kind {
            TokenKind::EndOfFile => return None,
            TokenKind::Newline => {
                chain = 0;
                open.clear();
            }
            TokenKind::Lpar | TokenKind::Lsqb | TokenKind::Lbrace => open.push(chain),
            TokenKind::Rpar | TokenKind::Rsqb | TokenKind::Rbrace => {
                chain = open.pop().unwrap_or(0);
            }
            TokenKind::Comma => chain = open.last().copied().unwrap_or(0),
            TokenKind::Indent => indent += 1,
            TokenKind::Dedent => indent = indent.saturating_sub(1),
            TokenKind::Lambda | TokenKind::Await | TokenKind::If | TokenKind::Not => chain += 1,
            k if k.is_operator() && !flat(k) => chain += 1,
            _ => {}
        }
        if chain > MAX_CHAIN || indent > MAX_INDENT {
            let what = if indent > MAX_INDENT {
                format!("indented over {MAX_INDENT} levels")
            } else {
                format!("a statement of over {MAX_CHAIN} chained operators")
            };
            return Some(Problem {
                reported: false,
                ..Problem::new(Span::new(0, 0), format!("{what}; not parsed"))
            });
        }
    }
}

/// Operators that separate or bracket rather than nest.
fn flat(k: TokenKind) -> bool {
    matches!(
        k,
        TokenKind::Comma
            | TokenKind::Semi
            | TokenKind::Colon
            | TokenKind::Equal
            | TokenKind::Lpar
            | TokenKind::Rpar
            | TokenKind::Lsqb
            | TokenKind::Rsqb
            | TokenKind::Lbrace
            | TokenKind::Rbrace
            | TokenKind::Ellipsis
            | TokenKind::Rarrow
    )
}
