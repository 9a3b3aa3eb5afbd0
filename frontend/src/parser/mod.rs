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
use crate::lexer::{lex_file, Token, TokenKind};
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
        let (toks, unterminated) = lex_file(&file.text, fid, &mut diags);
        let mut p = Parser {
            toks,
            pos: 0,
            diags: &mut diags,
            next_expr: ids.0,
            next_decl: ids.1,
            depth: 0,
            aborted: false,
            recovering: false,
            repl_tail: repl && i + 1 == nfiles,
            prev_end: 0,
            file: fid,
            quiet_eof: unterminated,
        };
        p.items(&mut module.items);
        ids = (p.next_expr, p.next_decl);
    }
    module.expr_count = ids.0;
    module.decl_count = ids.1;
    if diags.is_empty() {
        Ok(module)
    } else {
        Err(diags)
    }
}

/// Parser state for one file (id counters carry over between files).
pub(crate) struct Parser<'d> {
    toks: Vec<Token>,
    pos: usize,
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
    /// The file ends inside an unterminated string or comment (already
    /// reported): errors at end of file are consequences, not news.
    quiet_eof: bool,
}

impl Parser<'_> {
    /// The current token kind (`Eof` once parsing was aborted).
    fn peek(&self) -> &TokenKind {
        if self.aborted {
            return &TokenKind::Eof;
        }
        &self.toks[self.pos.min(self.toks.len() - 1)].kind
    }

    /// The kind of the token `k` positions ahead.
    fn peek_at(&self, k: usize) -> &TokenKind {
        if self.aborted {
            return &TokenKind::Eof;
        }
        &self.toks[(self.pos + k).min(self.toks.len() - 1)].kind
    }

    /// The current token's span.
    fn span(&self) -> Span {
        self.toks[self.pos.min(self.toks.len() - 1)].span
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
        let i = self.pos.min(self.toks.len() - 1);
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
        let eof_cascade = self.quiet_eof && self.at_eof();
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
