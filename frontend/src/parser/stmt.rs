//! Items, statements, blocks and written types.

use super::Parser;
use crate::ast::{
    Block, ElseIf, ElseIfs, ExprKind, ExternFn, FnDecl, ForLoop, Ident, Item, Param, Stmt,
    StmtKind, TypeExpr, TypeExprKind,
};
use crate::diag::Diagnostic;
use crate::lexer::{Token, TokenKind};

impl Parser<'_, '_> {
    /// One top-level item.
    pub(super) fn item(&mut self) -> Option<Item> {
        if self.at(&TokenKind::Fn) {
            return self.fn_decl().map(Item::Fn);
        }
        // `extern` is a keyword only here, before a library string.
        if matches!(self.peek(), TokenKind::Ident(w) if w == "extern")
            && matches!(self.peek_at(1), TokenKind::Str(_))
        {
            return self.extern_fn().map(Item::Extern);
        }
        self.stmt(true).map(Item::Stmt)
    }

    /// `extern "lib" fn name(params) -> ret;`
    fn extern_fn(&mut self) -> Option<ExternFn> {
        let start = self.bump().span;
        let lib_span = self.span();
        let TokenKind::Str(lib) = self.peek().clone() else {
            self.error_expected("a library name string");
            return None;
        };
        self.bump();
        if !self.at(&TokenKind::Fn) {
            self.error_expected("`fn`");
            return None;
        }
        self.bump();
        let (name, params, ret) = self.fn_sig()?;
        if !self.expect(&TokenKind::Semi, "`;` (an `extern` function has no body)") {
            return None;
        }
        Some(ExternFn {
            lib,
            lib_span,
            name,
            params,
            ret,
            span: self.span_from(start),
        })
    }

    fn ident(&mut self, what: &str) -> Option<Ident> {
        if let TokenKind::Ident(_) = self.peek() {
            if let Token {
                kind: TokenKind::Ident(name),
                span,
            } = self.bump()
            {
                return Some(Ident { name, span });
            }
        }
        self.error_expected(what);
        None
    }

    fn fn_decl(&mut self) -> Option<FnDecl> {
        let start = self.bump().span;
        let (name, params, ret) = self.fn_sig()?;
        if !self.at(&TokenKind::LBrace) {
            self.error_expected("`{`");
            return None;
        }
        let body = self.block()?;
        Some(FnDecl {
            name,
            params,
            ret,
            body,
            span: self.span_from(start),
        })
    }

    /// `name(params) -> ret` of a function declaration (after `fn`).
    fn fn_sig(&mut self) -> Option<(Ident, Vec<Param>, Option<TypeExpr>)> {
        let name = self.ident("a function name")?;
        if !self.expect(&TokenKind::LParen, "`(`") {
            return None;
        }
        let mut params = Vec::new();
        while !self.at(&TokenKind::RParen) {
            let pname = self.ident("a parameter name")?;
            if !self.expect(&TokenKind::Colon, "`:` and a parameter type") {
                return None;
            }
            let ty = self.ty()?;
            let decl = self.new_decl();
            params.push(Param {
                name: pname,
                ty,
                decl,
            });
            if !self.eat(&TokenKind::Comma) {
                break;
            }
        }
        if !self.expect(&TokenKind::RParen, "`,` or `)`") {
            return None;
        }
        let ret = if self.eat(&TokenKind::Arrow) {
            Some(self.ty()?)
        } else {
            None
        };
        Some((name, params, ret))
    }

    /// A written type: `int float bool str void [T]`.
    pub(super) fn ty(&mut self) -> Option<TypeExpr> {
        let start = self.span();
        let kind = match self.peek() {
            TokenKind::IntTy => TypeExprKind::Int,
            TokenKind::FloatTy => TypeExprKind::Float,
            TokenKind::BoolTy => TypeExprKind::Bool,
            TokenKind::StrTy => TypeExprKind::Str,
            TokenKind::VoidTy => TypeExprKind::Void,
            TokenKind::LBracket => {
                if !self.enter(0) {
                    return None;
                }
                self.bump();
                let inner = self.ty();
                self.leave();
                let inner = inner?;
                if !self.expect(&TokenKind::RBracket, "`]`") {
                    return None;
                }
                return Some(TypeExpr {
                    kind: TypeExprKind::Array(Box::new(inner)),
                    span: self.span_from(start),
                });
            }
            _ => {
                self.error_expected("a type");
                return None;
            }
        };
        self.bump();
        Some(TypeExpr { kind, span: start })
    }

    /// A `{ ... }` block (the current token must be `{`).
    pub(super) fn block(&mut self) -> Option<Block> {
        let start = self.span();
        if !self.expect(&TokenKind::LBrace, "`{`") {
            return None;
        }
        if !self.enter(0) {
            return None;
        }
        let mut stmts = Vec::new();
        while !self.at(&TokenKind::RBrace) && !self.at_eof() {
            let before = self.pos;
            if let Some(s) = self.stmt(false) {
                stmts.push(s);
            }
            if self.recovering {
                self.sync();
            }
            if self.pos == before && !self.at_eof() && !self.at(&TokenKind::RBrace) {
                self.bump();
            }
        }
        // Exactly as long as it is: a vector's first push reserves four
        // statements (over a kilobyte), and most blocks (an `if`'s arms)
        // hold one; generated code with a million of them kept 1.6 KB of
        // unused capacity per `if`-`else`, a third of the frontend's peak.
        stmts.shrink_to_fit();
        self.leave();
        if !self.at(&TokenKind::RBrace) {
            if !self.aborted {
                self.recovering = false;
                self.error(
                    Diagnostic::error("unclosed `{`: expected `}`, found end of file", start)
                        .with_label("this `{` is never closed"),
                );
            }
            return None;
        }
        self.bump();
        Some(Block {
            stmts,
            span: self.span_from(start),
        })
    }

    fn semi(&mut self) -> bool {
        self.expect(&TokenKind::Semi, "`;`")
    }

    /// The `;` ending a `let`/`var` or assignment statement. In the REPL the
    /// last top-level statement of an entry may leave it out
    /// (`let x = 1` at the prompt).
    fn end_stmt(&mut self, top: bool) {
        if top && self.repl_tail && self.at_eof() && !self.recovering {
            return;
        }
        self.semi();
    }

    /// One statement; `top` for a top-level statement.
    pub(super) fn stmt(&mut self, top: bool) -> Option<Stmt> {
        let start = self.span();
        let kind = match self.peek() {
            TokenKind::Let | TokenKind::Var => self.let_stmt(top)?,
            TokenKind::If => return self.if_stmt(),
            TokenKind::While => {
                self.bump();
                let cond = self.expr();
                let body = self.block_after_cond()?;
                StmtKind::While { cond, body }
            }
            TokenKind::For => self.for_stmt()?,
            TokenKind::Break => {
                self.bump();
                self.semi();
                StmtKind::Break
            }
            TokenKind::Continue => {
                self.bump();
                self.semi();
                StmtKind::Continue
            }
            TokenKind::Return => {
                self.bump();
                let value = if self.at(&TokenKind::Semi) {
                    None
                } else {
                    Some(self.expr())
                };
                self.semi();
                StmtKind::Return(value)
            }
            TokenKind::LBrace => StmtKind::Block(self.block()?),
            TokenKind::Semi => {
                self.bump();
                StmtKind::Empty
            }
            TokenKind::Fn => {
                let span = self.span();
                self.error(Diagnostic::error(
                    "functions may only be declared at the top level",
                    span,
                ));
                self.recovering = false;
                self.fn_decl();
                self.recovering = false;
                return None;
            }
            _ => self.expr_stmt(top)?,
        };
        Some(Stmt {
            kind,
            span: self.span_from(start),
        })
    }

    fn block_after_cond(&mut self) -> Option<Block> {
        if !self.at(&TokenKind::LBrace) {
            self.error_expected("`{`");
            return None;
        }
        self.block()
    }

    fn let_stmt(&mut self, top: bool) -> Option<StmtKind> {
        let mutable = self.bump().kind == TokenKind::Var;
        let name = self.ident("a variable name")?;
        let ty = if self.eat(&TokenKind::Colon) {
            Some(self.ty()?)
        } else {
            None
        };
        if !self.expect(&TokenKind::Assign, "`=`") {
            return None;
        }
        let init = self.expr();
        self.end_stmt(top);
        let decl = self.new_decl();
        Some(StmtKind::Let {
            mutable,
            name,
            ty,
            init,
            decl,
        })
    }

    fn if_stmt(&mut self) -> Option<Stmt> {
        let start = self.bump().span;
        if !self.enter(0) {
            return None;
        }
        let r = self.if_rest(start);
        self.leave();
        r
    }

    /// The rest of an `if` statement after its `if`: the whole `else if`
    /// chain is parsed in a loop, at the nesting depth of its first `if`.
    fn if_rest(&mut self, start: crate::ast::Span) -> Option<Stmt> {
        let cond = self.expr();
        let then_block = self.block_after_cond()?;
        let mut else_ifs = ElseIfs::default();
        let mut else_block = None;
        while self.eat(&TokenKind::Else) {
            if self.at(&TokenKind::If) {
                let arm_start = self.bump().span;
                let cond = self.expr();
                let block = self.block_after_cond()?;
                else_ifs.push(ElseIf {
                    cond,
                    block,
                    span: self.span_from(arm_start),
                });
            } else {
                else_block = Some(self.block_after_cond()?);
                break;
            }
        }
        Some(Stmt {
            kind: StmtKind::If {
                cond,
                then_block,
                else_ifs,
                else_block,
            },
            span: self.span_from(start),
        })
    }

    fn for_stmt(&mut self) -> Option<StmtKind> {
        self.bump();
        let var = self.ident("a loop variable name")?;
        if !self.expect(&TokenKind::In, "`in`") {
            return None;
        }
        let lo = self.expr();
        if !self.expect(&TokenKind::DotDot, "`..`") {
            return None;
        }
        let hi = self.expr();
        let body = self.block_after_cond()?;
        let decl = self.new_decl();
        Some(StmtKind::For(Box::new(ForLoop {
            var,
            decl,
            lo,
            hi,
            body,
        })))
    }

    fn expr_stmt(&mut self, top: bool) -> Option<StmtKind> {
        let expr = self.expr();
        let op = match self.peek() {
            TokenKind::Assign => Some(None),
            TokenKind::OpAssign(op) => Some(Some(*op)),
            _ => None,
        };
        if let Some(op) = op {
            let op_span = self.bump().span;
            if !matches!(
                expr.kind,
                ExprKind::Name(_) | ExprKind::Index { .. } | ExprKind::Error
            ) {
                self.report(
                    Diagnostic::error("invalid assignment target", expr.span)
                        .with_label("cannot assign to this expression")
                        .with_note(
                            "only a variable name or an index expression `a[i]` can be assigned",
                        ),
                );
            }
            let value = self.expr();
            self.end_stmt(top);
            return Some(StmtKind::Assign {
                target: expr,
                op,
                op_span,
                value,
            });
        }
        if self.eat(&TokenKind::Semi) {
            return Some(StmtKind::Expr { expr, semi: true });
        }
        if top && self.repl_tail && self.at_eof() && !self.recovering {
            return Some(StmtKind::Expr { expr, semi: false });
        }
        self.semi();
        Some(StmtKind::Expr { expr, semi: true })
    }
}
