//! Recursive-descent parser with Pratt-style binary expressions, producing
//! [`crate::ast::Module`] (docs/language.md "Programs and scopes", "Statements",
//! "Expressions").
//!
//! Error recovery: a syntax error puts the parser into recovery mode, where
//! further errors are suppressed until the enclosing statement loop
//! re-synchronizes at `;`, `}` or a statement keyword. Nesting is capped at
//! [`MAX_DEPTH`] so no input can overflow the native stack of the parser or
//! of later passes that recurse over the tree.

mod expr;
mod stmt;

use crate::ast::{DeclId, Expr, ExprId, ExprKind, FileId, Module, Span};
use crate::diag::Diagnostic;
use crate::lexer::{Token, TokenKind, TokenStream};
use crate::SourceMap;

/// Deepest nesting of expressions, blocks and types the parser accepts.
/// Flat left-associative chains (`a + b + c + ...`) do not nest and may
/// have any length.
pub const MAX_DEPTH: u32 = 256;

/// Largest source file, in bytes, the parser accepts (64 MiB); a larger
/// one is a compile error. Readers of source files (the CLI) read at most
/// one byte more than this, so no input makes them grow without bound.
pub const MAX_SOURCE_BYTES: usize = 64 << 20;

/// Parses every file of `sources` into one module, recovering from errors
/// so that several independent syntax errors are reported at once.
pub fn parse(sources: &SourceMap, repl: bool) -> Result<Module, Vec<Diagnostic>> {
    let mut diags = Vec::new();
    let mut module = Module::default();
    let nfiles = sources.files.len();
    let mut ids = (0u32, 0u32);
    for (i, file) in sources.files.iter().enumerate() {
        let fid = FileId(i as u32);
        if file.text.len() > MAX_SOURCE_BYTES {
            diags.push(
                Diagnostic::error(
                    format!(
                        "source file is too large: {} bytes, the limit is {} MiB",
                        file.text.len(),
                        MAX_SOURCE_BYTES >> 20
                    ),
                    Span {
                        file: fid,
                        start: 0,
                        end: 0,
                    },
                )
                .with_label("the file starts here"),
            );
            continue;
        }
        // The file's lexical errors come before its syntax errors, as if
        // it had been lexed whole first.
        let first = diags.len();
        let mut p = Parser::new(&file.text, fid, &mut diags, ids, repl && i + 1 == nfiles);
        p.items(&mut module.items);
        ids = (p.next_expr, p.next_decl);
        let (lexed, _) = p.lexer.finish();
        diags.splice(first..first, lexed);
    }
    module.expr_count = ids.0;
    module.decl_count = ids.1;
    if diags.is_empty() {
        Ok(module)
    } else {
        Err(diags)
    }
}

/// Tokens lexed at a time ([`TokenStream`]).
const WINDOW: usize = 4096;

/// Parser state for one file (id counters carry over between files).
pub(crate) struct Parser<'d, 's> {
    /// The tokens from number `base` of the file on (a window: consumed
    /// tokens are dropped when more are lexed).
    toks: Vec<Token>,
    base: usize,
    /// The number of the current token in the file.
    pos: usize,
    /// The rest of the file's tokens.
    lexer: TokenStream<'s>,
    diags: &'d mut Vec<Diagnostic>,
    next_expr: u32,
    next_decl: u32,
    /// Current recursion depth (expressions, blocks, types).
    depth: u32,
    /// Set after the nesting limit was hit: the rest of the file is skipped.
    aborted: bool,
    /// Set after an error until the next statement boundary.
    recovering: bool,
    /// Whether a final top-level expression may omit its `;` (REPL mode,
    /// last file).
    repl_tail: bool,
    /// End offset of the last consumed token.
    prev_end: u32,
    file: FileId,
}

/// Tokens past the current one the parser may look at ([`Parser::peek_at`]).
const LOOKAHEAD: usize = 1;

impl<'d, 's> Parser<'d, 's> {
    /// A parser of `text` (file `file`) at its first token, reporting to
    /// `diags` and numbering expressions and declarations from `ids`;
    /// `repl_tail`: a final top-level expression may omit its `;`.
    fn new(
        text: &'s str,
        file: FileId,
        diags: &'d mut Vec<Diagnostic>,
        ids: (u32, u32),
        repl_tail: bool,
    ) -> Self {
        let mut lexer = TokenStream::new(text, file);
        let mut toks = Vec::new();
        lexer.fill(&mut toks, WINDOW);
        Parser {
            toks,
            base: 0,
            pos: 0,
            lexer,
            diags,
            next_expr: ids.0,
            next_decl: ids.1,
            depth: 0,
            aborted: false,
            recovering: false,
            repl_tail,
            prev_end: 0,
            file,
        }
    }
}

impl Parser<'_, '_> {
    /// The index in `toks` of the token `k` positions ahead (the last,
    /// `Eof`, past the end of the file).
    fn index(&self, k: usize) -> usize {
        (self.pos - self.base + k).min(self.toks.len() - 1)
    }

    /// The current token kind (`Eof` once parsing was aborted).
    fn peek(&self) -> &TokenKind {
        if self.aborted {
            return &TokenKind::Eof;
        }
        &self.toks[self.index(0)].kind
    }

    /// The kind of the token `k` (at most [`LOOKAHEAD`]) positions ahead.
    fn peek_at(&self, k: usize) -> &TokenKind {
        debug_assert!(k <= LOOKAHEAD);
        if self.aborted {
            return &TokenKind::Eof;
        }
        &self.toks[self.index(k)].kind
    }

    /// The current token's span.
    fn span(&self) -> Span {
        self.toks[self.index(0)].span
    }

    /// Lexes more tokens when fewer than the current one and
    /// [`LOOKAHEAD`] are left, dropping the consumed ones.
    fn refill(&mut self) {
        if self.toks.len() - (self.pos - self.base) > LOOKAHEAD {
            return;
        }
        self.toks.drain(..self.pos - self.base);
        self.base = self.pos;
        self.lexer.fill(&mut self.toks, WINDOW);
    }

    fn at(&self, k: &TokenKind) -> bool {
        self.peek() == k
    }

    fn at_eof(&self) -> bool {
        self.at(&TokenKind::Eof)
    }

    /// Consumes the current token (never moves past `Eof`).
    /// A consumed token is moved out (the parser never looks back), so an
    /// identifier's or string's text is not copied.
    fn bump(&mut self) -> Token {
        let i = self.index(0);
        if self.at_eof() {
            return self.toks[i].clone();
        }
        let kind = std::mem::replace(&mut self.toks[i].kind, TokenKind::Eof);
        let t = Token {
            kind,
            span: self.toks[i].span,
        };
        self.pos += 1;
        self.prev_end = t.span.end;
        self.refill();
        t
    }

    /// Consumes the token if it is `k`.
    fn eat(&mut self, k: &TokenKind) -> bool {
        if self.at(k) {
            self.bump();
            true
        } else {
            false
        }
    }

    /// Consumes `k` or reports "expected `what`, found ...".
    fn expect(&mut self, k: &TokenKind, what: &str) -> bool {
        if self.eat(k) {
            return true;
        }
        self.error_expected(what);
        false
    }

    fn error_expected(&mut self, what: &str) {
        let found = self.peek().describe();
        let span = self.span();
        self.error(Diagnostic::error(
            format!("expected {what}, found {found}"),
            span,
        ));
    }

    /// Records a syntax error unless one is already being recovered from.
    fn error(&mut self, d: Diagnostic) {
        // At the end of a file that ends inside an unterminated string or
        // comment (already reported), errors are consequences, not news.
        let eof_cascade = self.at_eof() && self.lexer.unterminated();
        if !self.recovering && !self.aborted && !eof_cascade {
            self.diags.push(d);
        }
        self.recovering = true;
    }

    /// Records an error that needs no resynchronization (the parse goes on
    /// normally), unless an earlier error is being recovered from.
    fn report(&mut self, d: Diagnostic) {
        if !self.recovering && !self.aborted {
            self.diags.push(d);
        }
    }

    /// A span from `start` to the end of the last consumed token.
    fn span_from(&self, start: Span) -> Span {
        Span {
            file: self.file,
            start: start.start,
            end: self.prev_end.max(start.start),
        }
    }

    fn new_expr(&mut self, kind: ExprKind, span: Span) -> Expr {
        let id = ExprId(self.next_expr);
        self.next_expr += 1;
        Expr { id, kind, span }
    }

    fn error_expr(&mut self, span: Span) -> Expr {
        self.new_expr(ExprKind::Error, span)
    }

    fn new_decl(&mut self) -> DeclId {
        let d = DeclId(self.next_decl);
        self.next_decl += 1;
        d
    }

    /// Enters one nesting level; `false` (after reporting once) when the
    /// limit is exceeded, in which case the rest of the file is skipped.
    fn enter(&mut self, extra: u32) -> bool {
        if self.aborted {
            return false;
        }
        if self.depth + extra >= MAX_DEPTH {
            let span = self.span();
            self.diags.push(
                Diagnostic::error("program is nested too deeply", span)
                    .with_label(format!("nesting limit of {MAX_DEPTH} reached here")),
            );
            self.aborted = true;
            return false;
        }
        self.depth += 1;
        true
    }

    fn leave(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }

    /// Skips to a statement boundary after an error: past a `;`, or before a
    /// `}` or a statement keyword (outside nested braces).
    fn sync(&mut self) {
        let mut nest = 0u32;
        loop {
            match self.peek() {
                TokenKind::Eof => break,
                TokenKind::LBrace => nest += 1,
                TokenKind::RBrace if nest == 0 => break,
                TokenKind::RBrace => nest -= 1,
                TokenKind::Semi if nest == 0 => {
                    self.bump();
                    break;
                }
                TokenKind::Let
                | TokenKind::Var
                | TokenKind::If
                | TokenKind::While
                | TokenKind::For
                | TokenKind::Fn
                | TokenKind::Return
                | TokenKind::Break
                | TokenKind::Continue
                    if nest == 0 =>
                {
                    break
                }
                _ => {}
            }
            self.bump();
        }
        self.recovering = false;
    }

    /// Top-level items until end of file.
    fn items(&mut self, out: &mut Vec<crate::ast::Item>) {
        while !self.at_eof() {
            let before = self.pos;
            if self.at(&TokenKind::RBrace) {
                let span = self.span();
                self.error(Diagnostic::error("unexpected `}`", span).with_label("no open `{`"));
                self.bump();
                self.recovering = false;
                continue;
            }
            if let Some(item) = self.item() {
                out.push(item);
            }
            if self.recovering {
                self.sync();
            }
            if self.pos == before && !self.at_eof() {
                self.bump();
            }
        }
    }
}

#[cfg(test)]
mod tests;
