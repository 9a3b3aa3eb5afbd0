//! The IR text format: parser (the inverse of [`super::print`], whose module
//! documentation describes the format).
//!
//! The parser never panics: any input yields a [`Program`] or a
//! [`ParseError`] with a 1-based line and column. Values and blocks keep the
//! numbers written in the text; numbers that are skipped are filled with
//! detached placeholders (a block with no parameters and a `return`, or a
//! value defined by an `iconst 0` that is in no block), exactly like the
//! arena entries a transformation leaves behind. Instructions are numbered in
//! text order, placeholders last. To keep placeholder filling bounded, value
//! and block numbers must be below `max(65536, 64 × input length)`.

mod body;
mod lexer;

use std::fmt;

use cranelift_entity::EntityRef;

use super::entities::{FuncId, GlobalId, HostFnId};
use super::function::{Function, GlobalData, HostFnDecl, Program, Signature};
use super::instructions::SrcLoc;
use super::types::{ScalarType, Type};
use lexer::{Tok, Token};

/// A syntax or resolution error in IR text, with its location.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct ParseError {
    /// 1-based line.
    pub line: u32,
    /// 1-based column, in characters.
    pub col: u32,
    /// What is wrong.
    pub message: String,
}

impl ParseError {
    /// An error at `line:col`.
    pub fn new(line: u32, col: u32, message: impl Into<String>) -> ParseError {
        ParseError {
            line,
            col,
            message: message.into(),
        }
    }
}

impl fmt::Display for ParseError {
    /// `line:col: message`
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.line, self.col, self.message)
    }
}

impl std::error::Error for ParseError {}

/// Parses a whole program printed by [`super::print_program`].
pub fn parse_program(text: &str) -> Result<Program, ParseError> {
    let mut p = Parser::new(text)?;
    let mut prog = Program::default();
    let mut refs = Refs::default();
    let mut main_at: Option<(FuncId, u32, u32)> = None;
    loop {
        let t = p.peek().clone();
        match &t.tok {
            Tok::Eof => break,
            Tok::Word(w) if w == "file" => {
                p.next();
                p.expect_index("file index", "", prog.files.len())?;
                let name = p.expect_str()?;
                prog.files.push(name);
            }
            Tok::Word(w) if w == "global" => {
                p.next();
                p.expect_index("global", "g", prog.globals.len())?;
                let name = p.expect_str()?;
                p.expect(&Tok::Colon)?;
                let ty = p.parse_type()?;
                if ty == Type::Unit {
                    return Err(ParseError::new(t.line, t.col, "a global cannot be void"));
                }
                prog.globals.push(GlobalData { name, ty });
            }
            Tok::Word(w) if w == "host" => {
                p.next();
                p.expect_index("host function", "h", prog.host_fns.len())?;
                let name = p.expect_str()?;
                let sig = p.parse_signature()?;
                prog.host_fns.push(HostFnDecl { name, sig });
            }
            Tok::Word(w) if w == "main" => {
                p.next();
                if main_at.is_some() {
                    return Err(ParseError::new(t.line, t.col, "`main` given twice"));
                }
                let at = p.peek().clone();
                let id = p.expect_entity("function", "fn")?;
                main_at = Some((FuncId::new(id as usize), at.line, at.col));
            }
            Tok::Word(w) if w == "fn" => {
                let f = p.parse_function(prog.funcs.len(), &mut refs)?;
                prog.funcs.push(f);
            }
            _ => return Err(p.unexpected(&t, "`file`, `global`, `host`, `main` or `fn`")),
        }
    }
    refs.check(&prog)?;
    if let Some((id, line, col)) = main_at {
        if !prog.funcs.is_valid(id) {
            return Err(ParseError::new(
                line,
                col,
                format!("undefined function {id}"),
            ));
        }
        prog.main = Some(id);
    }
    Ok(prog)
}

/// Parses text holding exactly one function (as printed by
/// [`super::print_function`]). The function's id is ignored, and callees and
/// globals it refers to are not resolved (there is no program to resolve them
/// in).
pub fn parse_function(text: &str) -> Result<Function, ParseError> {
    let mut p = Parser::new(text)?;
    let t = p.peek().clone();
    if !matches!(&t.tok, Tok::Word(w) if w == "fn") {
        return Err(p.unexpected(&t, "`fn`"));
    }
    let mut refs = Refs::default();
    let f = p.parse_function(usize::MAX, &mut refs)?;
    let t = p.peek().clone();
    if t.tok != Tok::Eof {
        return Err(p.unexpected(&t, "end of input after the function"));
    }
    Ok(f)
}

/// Cross-function references checked once the whole program is parsed.
#[derive(Default)]
pub(super) struct Refs {
    /// Callee, the name written after it (if any), and where.
    calls: Vec<(FuncId, Option<String>, u32, u32)>,
    /// Global references and where.
    globals: Vec<(GlobalId, u32, u32)>,
    /// Host function references, the name written after them, and where.
    pub(super) hosts: Vec<(HostFnId, Option<String>, u32, u32)>,
}

impl Refs {
    /// Errors for callees or globals that do not exist, or callee names that
    /// do not match.
    fn check(&self, prog: &Program) -> Result<(), ParseError> {
        for (id, name, line, col) in &self.calls {
            let Some(f) = prog.funcs.get(*id) else {
                return Err(ParseError::new(
                    *line,
                    *col,
                    format!("undefined function {id}"),
                ));
            };
            if let Some(name) = name {
                if *name != f.name {
                    return Err(ParseError::new(
                        *line,
                        *col,
                        format!("{id} is named {:?}, not {name:?}", f.name),
                    ));
                }
            }
        }
        for (h, name, line, col) in &self.hosts {
            let Some(hf) = prog.host_fns.get(*h) else {
                return Err(ParseError::new(
                    *line,
                    *col,
                    format!("undefined host function {h}"),
                ));
            };
            if let Some(name) = name.as_ref().filter(|n| **n != hf.name) {
                return Err(ParseError::new(
                    *line,
                    *col,
                    format!("{h} is named {:?}, not {name:?}", hf.name),
                ));
            }
        }
        for (g, line, col) in &self.globals {
            if !prog.globals.is_valid(*g) {
                return Err(ParseError::new(
                    *line,
                    *col,
                    format!("undefined global {g}"),
                ));
            }
        }
        Ok(())
    }
}

/// Token stream with helpers shared by the top level and function bodies.
pub(super) struct Parser {
    toks: Vec<Token>,
    pos: usize,
    /// Largest value/block number accepted (exclusive).
    entity_limit: u32,
}

impl Parser {
    fn new(text: &str) -> Result<Parser, ParseError> {
        let toks = lexer::tokenize(text)?;
        let limit = text
            .len()
            .saturating_mul(64)
            .clamp(1 << 16, u32::MAX as usize);
        Ok(Parser {
            toks,
            pos: 0,
            entity_limit: limit as u32,
        })
    }

    /// The next token (the final `Eof` repeats forever).
    fn peek(&self) -> &Token {
        &self.toks[self.pos.min(self.toks.len() - 1)]
    }

    /// The token after the next one.
    fn peek2(&self) -> &Token {
        &self.toks[(self.pos + 1).min(self.toks.len() - 1)]
    }

    /// Consumes and returns the next token.
    fn next(&mut self) -> Token {
        let t = self.peek().clone();
        if self.pos < self.toks.len() - 1 {
            self.pos += 1;
        }
        t
    }

    /// An "expected X, found Y" error at `t`.
    fn unexpected(&self, t: &Token, expected: &str) -> ParseError {
        ParseError::new(
            t.line,
            t.col,
            format!("expected {expected}, found {}", t.tok.describe()),
        )
    }

    /// Consumes `tok` or fails.
    fn expect(&mut self, tok: &Tok) -> Result<Token, ParseError> {
        let t = self.next();
        if t.tok == *tok {
            Ok(t)
        } else {
            Err(self.unexpected(&t, &tok.describe()))
        }
    }

    /// Consumes `tok` if it is next.
    fn eat(&mut self, tok: &Tok) -> bool {
        if self.peek().tok == *tok {
            self.next();
            true
        } else {
            false
        }
    }

    /// Consumes a word, returning it with its token.
    fn expect_word(&mut self, what: &str) -> Result<(String, Token), ParseError> {
        let t = self.next();
        match &t.tok {
            Tok::Word(w) => Ok((w.clone(), t.clone())),
            _ => Err(self.unexpected(&t, what)),
        }
    }

    /// Consumes a string literal.
    fn expect_str(&mut self) -> Result<String, ParseError> {
        let t = self.next();
        match t.tok {
            Tok::Str(s) => Ok(s),
            _ => Err(self.unexpected(&t, "a string literal")),
        }
    }

    /// Consumes an entity name `prefix` + decimal number, returning the number.
    fn expect_entity(&mut self, what: &str, prefix: &str) -> Result<u32, ParseError> {
        let (w, t) = self.expect_word(what)?;
        entity_number(&w, prefix).ok_or_else(|| {
            ParseError::new(
                t.line,
                t.col,
                format!("expected {what} (`{prefix}N`), found `{w}`"),
            )
        })
    }

    /// Like [`Parser::expect_entity`], bounded by the entity limit.
    fn expect_bounded_entity(&mut self, what: &str, prefix: &str) -> Result<u32, ParseError> {
        let at = self.peek().clone();
        let n = self.expect_entity(what, prefix)?;
        if n >= self.entity_limit {
            return Err(ParseError::new(
                at.line,
                at.col,
                format!("{what} number {n} is too large for this input"),
            ));
        }
        Ok(n)
    }

    /// Consumes an entity name whose number must be `expected` (the next
    /// free index of its table).
    fn expect_index(
        &mut self,
        what: &str,
        prefix: &str,
        expected: usize,
    ) -> Result<(), ParseError> {
        let at = self.peek().clone();
        let n = self.expect_entity(what, prefix)?;
        if n as usize != expected {
            return Err(ParseError::new(
                at.line,
                at.col,
                format!("expected {what} {prefix}{expected} next, found {prefix}{n}"),
            ));
        }
        Ok(())
    }

    /// A decimal `i64` word.
    fn expect_i64(&mut self) -> Result<i64, ParseError> {
        let (w, t) = self.expect_word("an integer")?;
        w.parse::<i64>()
            .map_err(|_| ParseError::new(t.line, t.col, format!("`{w}` is not a 64-bit integer")))
    }

    /// A decimal `u32` word.
    fn expect_u32(&mut self) -> Result<u32, ParseError> {
        let (w, t) = self.expect_word("a number")?;
        if !w.bytes().all(|b| b.is_ascii_digit()) {
            return Err(ParseError::new(
                t.line,
                t.col,
                format!("`{w}` is not a number"),
            ));
        }
        w.parse::<u32>()
            .map_err(|_| ParseError::new(t.line, t.col, format!("`{w}` is out of range")))
    }

    /// A type: `void`, `int`, `float`, `bool`, `str`, or `[T]` nested at most
    /// [`Type::MAX_ARRAY_DEPTH`] deep around a scalar type.
    fn parse_type(&mut self) -> Result<Type, ParseError> {
        let start = self.peek().clone();
        let mut depth = 0usize;
        while self.eat(&Tok::LBracket) {
            depth += 1;
            if depth > Type::MAX_ARRAY_DEPTH as usize {
                return Err(ParseError::new(
                    start.line,
                    start.col,
                    format!("array types nest at most {} deep", Type::MAX_ARRAY_DEPTH),
                ));
            }
        }
        let (w, t) = self.expect_word("a type")?;
        let scalar = match w.as_str() {
            "void" if depth == 0 => return Ok(Type::Unit),
            "int" => ScalarType::Int,
            "float" => ScalarType::Float,
            "bool" => ScalarType::Bool,
            "str" => ScalarType::Str,
            _ => {
                return Err(ParseError::new(
                    t.line,
                    t.col,
                    format!("unknown type `{w}`"),
                ))
            }
        };
        for _ in 0..depth {
            self.expect(&Tok::RBracket)?;
        }
        Ok(if depth == 0 {
            Type::from(scalar)
        } else {
            Type::Array {
                elem: scalar,
                depth: depth as u8,
            }
        })
    }

    /// An optional `@line:col` / `@fN:line:col`; `SrcLoc::NONE` if absent.
    fn parse_loc(&mut self) -> Result<SrcLoc, ParseError> {
        if !self.eat(&Tok::At) {
            return Ok(SrcLoc::NONE);
        }
        let mut file = 0;
        if let Tok::Word(w) = &self.peek().tok {
            if let Some(rest) = w.strip_prefix('f') {
                let t = self.peek().clone();
                file = rest
                    .parse::<u32>()
                    .ok()
                    .filter(|_| rest.bytes().all(|b| b.is_ascii_digit()))
                    .ok_or_else(|| self.unexpected(&t, "a file number `fN`"))?;
                self.next();
                self.expect(&Tok::Colon)?;
            }
        }
        let line = self.expect_u32()?;
        self.expect(&Tok::Colon)?;
        let col = self.expect_u32()?;
        Ok(SrcLoc { file, line, col })
    }

    /// `fn fnN "name"(T, ...) -> T [@loc] [{ body }]`; `index` is the id the
    /// function must have (`usize::MAX`: any).
    fn parse_function(&mut self, index: usize, refs: &mut Refs) -> Result<Function, ParseError> {
        self.expect_word("`fn`")?;
        if index == usize::MAX {
            self.expect_entity("function", "fn")?;
        } else {
            self.expect_index("function", "fn", index)?;
        }
        let name = self.expect_str()?;
        let sig = self.parse_signature()?;
        let mut f = Function::new(name, sig);
        f.loc = self.parse_loc()?;
        if self.eat(&Tok::LBrace) {
            body::parse_body(self, &mut f, refs)?;
        }
        Ok(f)
    }

    /// `(type, ...) -> type`: parameters are not `void`.
    fn parse_signature(&mut self) -> Result<Signature, ParseError> {
        self.expect(&Tok::LParen)?;
        let mut params = Vec::new();
        if !self.eat(&Tok::RParen) {
            loop {
                let at = self.peek().clone();
                let ty = self.parse_type()?;
                if ty == Type::Unit {
                    return Err(ParseError::new(
                        at.line,
                        at.col,
                        "a parameter cannot be void",
                    ));
                }
                params.push(ty);
                if self.eat(&Tok::RParen) {
                    break;
                }
                self.expect(&Tok::Comma)?;
            }
        }
        self.expect(&Tok::Arrow)?;
        let ret = self.parse_type()?;
        Ok(Signature { params, ret })
    }
}

/// `prefix` followed by a decimal `u32` with no sign, or `None`.
fn entity_number(word: &str, prefix: &str) -> Option<u32> {
    let digits = word.strip_prefix(prefix)?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

#[cfg(test)]
mod tests;
