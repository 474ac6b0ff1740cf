//! A hand-written reader of the Prisma schema language: a tokenizer and a
//! parser into blocks (`model`, `enum`, and the blocks it skips), fields and
//! attributes, each with byte spans. Only what the lowering reads is kept;
//! an attribute's arguments are kept as a small tree of values. No crate on
//! crates.io is a well-kept Prisma schema parser (Prisma's own, the `psl`
//! crates of prisma-engines, is not published there by Prisma; what is
//! there are one-version forks, pest-generated and pulling in validation
//! for every connector), and the grammar is small.
//! Never panics; a model it cannot read is returned as unreadable, with where
//! and why, and the next block is read.

use crate::source::Span;

/// One token. Comments are dropped; newlines are kept, since a field is one
/// line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Tok {
    Ident(String),
    Str(String),
    Num(String),
    Punct(char),
    /// `@` or `@@`.
    At(bool),
    Newline,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Token {
    pub tok: Tok,
    pub span: Span,
}

/// Cut `text` into tokens. A character of no token (`#`, `$`) becomes a
/// `Punct`; an unclosed string runs to its line's end.
pub fn tokens(text: &str) -> Vec<Token> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let start = i;
        let tok = match c {
            b'\n' => {
                i += 1;
                Tok::Newline
            }
            b' ' | b'\t' | b'\r' => {
                i += 1;
                continue;
            }
            b'/' if b.get(i + 1) == Some(&b'/') => {
                i = memchr::memchr(b'\n', &b[i..]).map_or(b.len(), |n| i + n);
                continue;
            }
            b'"' => {
                let (s, end) = string(text, i);
                i = end;
                Tok::Str(s)
            }
            b'@' => {
                let double = b.get(i + 1) == Some(&b'@');
                i += if double { 2 } else { 1 };
                Tok::At(double)
            }
            c if c.is_ascii_alphabetic() || c == b'_' => {
                while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                    i += 1;
                }
                Tok::Ident(text[start..i].to_string())
            }
            c if c.is_ascii_digit()
                || (c == b'-' && b.get(i + 1).is_some_and(u8::is_ascii_digit)) =>
            {
                i += 1;
                while i < b.len() && (b[i].is_ascii_digit() || b[i] == b'.') {
                    i += 1;
                }
                Tok::Num(text[start..i].to_string())
            }
            _ => {
                // one character, whole (a multi-byte one too)
                let ch = text[i..].chars().next().unwrap_or('?');
                i += ch.len_utf8();
                Tok::Punct(ch)
            }
        };
        out.push(Token {
            tok,
            span: Span::new(start, i),
        });
    }
    out
}

/// A string literal from its opening quote: its value (escapes read) and
/// the offset after it.
fn string(text: &str, open: usize) -> (String, usize) {
    let mut out = String::new();
    let mut chars = text[open + 1..].char_indices();
    while let Some((k, c)) = chars.next() {
        match c {
            '"' => return (out, open + 1 + k + 1),
            '\n' => return (out, open + 1 + k),
            '\\' => match chars.next() {
                Some((_, 'n')) => out.push('\n'),
                Some((_, 't')) => out.push('\t'),
                Some((_, e)) => out.push(e),
                None => break,
            },
            c => out.push(c),
        }
    }
    (out, text.len())
}

/// An attribute argument's value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Value {
    Str(String),
    Num(String),
    /// A name, possibly dotted (`Desc`, `db.Uuid`).
    Ident(String),
    /// `now()`, `dbgenerated("gen_random_uuid()")`, `eventId(sort: Desc)`.
    Call(String, Vec<Arg>),
    Array(Vec<Value>),
}

impl Value {
    /// The name a field reference is written with (`eventId`,
    /// `eventId(sort: Desc)`).
    pub fn name(&self) -> Option<&str> {
        match self {
            Value::Ident(n) | Value::Call(n, _) => Some(n),
            _ => None,
        }
    }
}

/// One argument: `name: value` or a positional value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Arg {
    pub name: Option<String>,
    pub value: Value,
}

/// `@unique(map: "x")`, `@@index([a, b])`, `@db.VarChar(64)`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Attribute {
    /// Without the `@`s (`unique`, `db.VarChar`).
    pub name: String,
    pub args: Vec<Arg>,
    /// From the `@` to the end of the name.
    pub span: Span,
}

impl Attribute {
    /// The argument named `name`, else (with `positional`) the first
    /// positional one.
    pub fn arg(&self, name: &str, positional: bool) -> Option<&Value> {
        self.args
            .iter()
            .find(|a| a.name.as_deref() == Some(name))
            .or_else(|| {
                positional
                    .then(|| self.args.iter().find(|a| a.name.is_none()))
                    .flatten()
            })
            .map(|a| &a.value)
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Field {
    pub name: String,
    pub span: Span,
    /// The type's name (`String`, `User`, `Unsupported`).
    pub ty: String,
    pub optional: bool,
    pub list: bool,
    pub attributes: Vec<Attribute>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Model {
    pub name: String,
    pub name_span: Span,
    /// From the keyword to the closing brace.
    pub span: Span,
    pub fields: Vec<Field>,
    pub attributes: Vec<Attribute>,
}

/// A top-level block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Block {
    Model(Model),
    Enum(String),
    /// A model the parser could not read: its name (when it got that far),
    /// where it failed, and why.
    Unreadable {
        name: Option<String>,
        span: Span,
        at: Span,
        why: String,
    },
}

/// Block keywords that open a block at the top level.
const BLOCKS: &[&str] = &["model", "view", "enum", "type", "datasource", "generator"];

/// Parse a schema into its blocks, in file order. Text between blocks that
/// opens none is skipped line by line.
pub fn blocks(text: &str) -> Vec<Block> {
    let toks = tokens(text);
    let mut p = Parser { toks: &toks, at: 0 };
    let mut out = Vec::new();
    while p.at < toks.len() {
        let opens = match p.peek() {
            Some(Tok::Ident(kw)) if BLOCKS.contains(&kw.as_str()) => p.opens_block(),
            _ => false,
        };
        if !opens {
            p.skip_line();
            continue;
        }
        let kw = match p.peek() {
            Some(Tok::Ident(kw)) => kw.clone(),
            _ => String::new(),
        };
        match kw.as_str() {
            "model" => out.push(p.model()),
            "enum" => {
                let name = p.ident_at(p.at + 1).unwrap_or_default();
                p.skip_block();
                out.push(Block::Enum(name));
            }
            _ => p.skip_block(),
        }
    }
    out
}

struct Parser<'t> {
    toks: &'t [Token],
    at: usize,
}

/// Why a model could not be read, and where.
type Failure = (Span, String);

impl<'t> Parser<'t> {
    fn peek(&self) -> Option<&'t Tok> {
        self.toks.get(self.at).map(|t| &t.tok)
    }

    fn span(&self) -> Span {
        self.toks
            .get(self.at)
            .or(self.toks.last())
            .map_or(Span::default(), |t| t.span)
    }

    fn ident_at(&self, i: usize) -> Option<String> {
        match self.toks.get(i).map(|t| &t.tok) {
            Some(Tok::Ident(s)) => Some(s.clone()),
            _ => None,
        }
    }

    /// Whether the tokens here are `<keyword> <name> {`.
    fn opens_block(&self) -> bool {
        self.ident_at(self.at + 1).is_some()
            && self.toks.get(self.at + 2).map(|t| &t.tok) == Some(&Tok::Punct('{'))
    }

    fn skip_line(&mut self) {
        while let Some(t) = self.peek() {
            self.at += 1;
            if *t == Tok::Newline {
                break;
            }
        }
    }

    fn skip_newlines(&mut self) {
        while self.peek() == Some(&Tok::Newline) {
            self.at += 1;
        }
    }

    /// Skip a block from its keyword past its closing brace (braces inside
    /// counted), or to the next line that opens a block when it never
    /// closes.
    fn skip_block(&mut self) {
        self.at += 3;
        let mut depth = 1usize;
        while let Some(t) = self.peek() {
            match t {
                Tok::Punct('{') => depth += 1,
                Tok::Punct('}') => depth -= 1,
                Tok::Newline if self.next_line_opens_block() => {
                    self.at += 1;
                    return;
                }
                _ => {}
            }
            self.at += 1;
            if depth == 0 {
                return;
            }
        }
    }

    /// Whether the line after the newline here opens a top-level block.
    fn next_line_opens_block(&self) -> bool {
        let next = Parser {
            toks: self.toks,
            at: self.at + 1,
        };
        matches!(next.peek(), Some(Tok::Ident(kw)) if BLOCKS.contains(&kw.as_str()))
            && next.opens_block()
    }

    /// A `model` block; on a line it cannot read, the block is skipped and
    /// returned as unreadable.
    fn model(&mut self) -> Block {
        let start = self.span().start;
        let name = self.ident_at(self.at + 1).unwrap_or_default();
        let name_span = self
            .toks
            .get(self.at + 1)
            .map_or(Span::default(), |t| t.span);
        self.at += 3;
        let mut model = Model {
            name,
            name_span,
            span: Span::default(),
            fields: Vec::new(),
            attributes: Vec::new(),
        };
        match self.model_body(&mut model) {
            Ok(end) => {
                model.span = Span::new(start, end);
                Block::Model(model)
            }
            Err((at, why)) => {
                // resume at the next block (or after this one's brace)
                self.at = self.at.saturating_sub(1);
                while self.peek().is_some() {
                    if self.peek() == Some(&Tok::Newline) && self.next_line_opens_block() {
                        break;
                    }
                    if self.peek() == Some(&Tok::Punct('}')) && self.line_start() {
                        self.at += 1;
                        break;
                    }
                    self.at += 1;
                }
                Block::Unreadable {
                    name: Some(model.name),
                    span: Span::new(start, self.span().start.max(start)),
                    at,
                    why,
                }
            }
        }
    }

    /// Whether the token here is the first of its line.
    fn line_start(&self) -> bool {
        self.at == 0 || self.toks.get(self.at - 1).map(|t| &t.tok) == Some(&Tok::Newline)
    }

    /// The lines of a model up to its closing brace (whose end it returns).
    fn model_body(&mut self, model: &mut Model) -> Result<usize, Failure> {
        loop {
            self.skip_newlines();
            match self.peek() {
                None => return Err((self.span(), "the model's `}` is missing".into())),
                Some(Tok::Punct('}')) => {
                    let end = self.span().end;
                    self.at += 1;
                    return Ok(end);
                }
                Some(Tok::At(true)) => {
                    let a = self.attribute()?;
                    model.attributes.push(a);
                }
                Some(Tok::Ident(_)) if self.line_start() && self.next_is_block_start() => {
                    return Err((self.span(), "the model's `}` is missing".into()));
                }
                Some(Tok::Ident(_)) => {
                    let f = self.field()?;
                    model.fields.push(f);
                }
                Some(_) => return Err((self.span(), "expected a field or `@@` attribute".into())),
            }
            self.end_of_line()?;
        }
    }

    fn next_is_block_start(&self) -> bool {
        matches!(self.peek(), Some(Tok::Ident(kw)) if BLOCKS.contains(&kw.as_str()))
            && self.opens_block()
    }

    /// After a field or block attribute: a newline, or the model's `}`.
    fn end_of_line(&mut self) -> Result<(), Failure> {
        match self.peek() {
            None | Some(Tok::Newline | Tok::Punct('}')) => Ok(()),
            Some(_) => Err((self.span(), "unexpected text after a field".into())),
        }
    }

    /// `name Type[?|[]] @attr…`.
    fn field(&mut self) -> Result<Field, Failure> {
        let name_tok = &self.toks[self.at];
        let name = self.ident_at(self.at).unwrap_or_default();
        self.at += 1;
        let Some(ty) = self.ident_at(self.at) else {
            return Err((self.span(), format!("the field `{name}` has no type")));
        };
        self.at += 1;
        if self.peek() == Some(&Tok::Punct('(')) {
            // `Unsupported("tsvector")`
            self.args(0)?;
        }
        let mut field = Field {
            name,
            span: name_tok.span,
            ty,
            optional: false,
            list: false,
            attributes: Vec::new(),
        };
        match self.peek() {
            Some(Tok::Punct('?')) => {
                field.optional = true;
                self.at += 1;
            }
            Some(Tok::Punct('[')) => {
                self.at += 1;
                if self.peek() != Some(&Tok::Punct(']')) {
                    return Err((self.span(), "expected `]` after `[`".into()));
                }
                field.list = true;
                self.at += 1;
                if self.peek() == Some(&Tok::Punct('?')) {
                    self.at += 1;
                }
            }
            _ => {}
        }
        while self.peek() == Some(&Tok::At(false)) {
            let a = self.attribute()?;
            field.attributes.push(a);
        }
        Ok(field)
    }

    /// `@name(args)` or `@@name(args)`, the name possibly dotted.
    fn attribute(&mut self) -> Result<Attribute, Failure> {
        let start = self.span().start;
        self.at += 1;
        let mut name = self.ident_at(self.at).ok_or_else(|| {
            (
                self.span(),
                "expected an attribute name after `@`".to_string(),
            )
        })?;
        self.at += 1;
        while self.peek() == Some(&Tok::Punct('.')) {
            let part = self
                .ident_at(self.at + 1)
                .ok_or_else(|| (self.span(), "expected a name after `.`".to_string()))?;
            name.push('.');
            name.push_str(&part);
            self.at += 2;
        }
        let end = self.toks[self.at - 1].span.end;
        let args = if self.peek() == Some(&Tok::Punct('(')) {
            self.args(0)?
        } else {
            Vec::new()
        };
        Ok(Attribute {
            name,
            args,
            span: Span::new(start, end),
        })
    }

    /// `( arg, … )` from its `(`; `depth` bounds the nesting.
    fn args(&mut self, depth: usize) -> Result<Vec<Arg>, Failure> {
        self.at += 1;
        let mut out = Vec::new();
        loop {
            self.skip_newlines();
            if self.peek() == Some(&Tok::Punct(')')) {
                self.at += 1;
                return Ok(out);
            }
            let name = match (
                self.ident_at(self.at),
                self.toks.get(self.at + 1).map(|t| &t.tok),
            ) {
                (Some(n), Some(Tok::Punct(':'))) => {
                    self.at += 2;
                    Some(n)
                }
                _ => None,
            };
            let value = self.value(depth + 1)?;
            out.push(Arg { name, value });
            self.skip_newlines();
            match self.peek() {
                Some(Tok::Punct(',')) => self.at += 1,
                Some(Tok::Punct(')')) => {}
                _ => return Err((self.span(), "expected `,` or `)` in arguments".into())),
            }
        }
    }

    fn value(&mut self, depth: usize) -> Result<Value, Failure> {
        if depth > crate::frontend::MAX_NESTING {
            return Err((self.span(), "arguments nested too deep".into()));
        }
        let here = self.span();
        let Some(tok) = self.peek() else {
            return Err((here, "the arguments never close".into()));
        };
        self.at += 1;
        Ok(match tok {
            Tok::Str(s) => Value::Str(s.clone()),
            Tok::Num(n) => Value::Num(n.clone()),
            Tok::Ident(n) => {
                let mut name = n.clone();
                while self.peek() == Some(&Tok::Punct('.')) {
                    let Some(part) = self.ident_at(self.at + 1) else {
                        break;
                    };
                    name.push('.');
                    name.push_str(&part);
                    self.at += 2;
                }
                if self.peek() == Some(&Tok::Punct('(')) {
                    Value::Call(name, self.args(depth)?)
                } else {
                    Value::Ident(name)
                }
            }
            Tok::Punct('[') => {
                let mut items = Vec::new();
                loop {
                    self.skip_newlines();
                    if self.peek() == Some(&Tok::Punct(']')) {
                        self.at += 1;
                        break;
                    }
                    items.push(self.value(depth + 1)?);
                    self.skip_newlines();
                    match self.peek() {
                        Some(Tok::Punct(',')) => self.at += 1,
                        Some(Tok::Punct(']')) => {}
                        _ => return Err((self.span(), "expected `,` or `]` in a list".into())),
                    }
                }
                Value::Array(items)
            }
            _ => return Err((here, "expected a value".into())),
        })
    }
}
