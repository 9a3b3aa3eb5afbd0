//! Expressions: precedence climbing (Pratt) over the table of docs/language.md
//! "Expressions"; comparisons (level 3) do not chain.

use super::{Parser, MAX_DEPTH};
use crate::ast::{BinOp, Call, Expr, ExprKind, Ident, Name, UnOp};
use crate::diag::Diagnostic;
use crate::lexer::TokenKind;

/// Precedence level of the comparison operators.
const CMP: u8 = 3;

/// The binary operator of a token and its precedence level (1 = lowest).
fn binop(k: &TokenKind) -> Option<(BinOp, u8)> {
    use TokenKind as T;
    Some(match k {
        T::OrOr => (BinOp::Or, 1),
        T::AndAnd => (BinOp::And, 2),
        T::EqEq => (BinOp::Eq, CMP),
        T::NotEq => (BinOp::Ne, CMP),
        T::Lt => (BinOp::Lt, CMP),
        T::Le => (BinOp::Le, CMP),
        T::Gt => (BinOp::Gt, CMP),
        T::Ge => (BinOp::Ge, CMP),
        T::Pipe => (BinOp::BitOr, 4),
        T::Caret => (BinOp::BitXor, 5),
        T::Amp => (BinOp::BitAnd, 6),
        T::Shl => (BinOp::Shl, 7),
        T::Shr => (BinOp::Shr, 7),
        T::Plus => (BinOp::Add, 8),
        T::Minus => (BinOp::Sub, 8),
        T::Star => (BinOp::Mul, 9),
        T::Slash => (BinOp::Div, 9),
        T::Percent => (BinOp::Rem, 9),
        _ => return None,
    })
}

impl Parser<'_, '_> {
    /// A full expression.
    pub(super) fn expr(&mut self) -> Expr {
        self.expr_bp(1)
    }

    /// An expression whose binary operators all have level ≥ `min`.
    fn expr_bp(&mut self, min: u8) -> Expr {
        let start = self.span();
        if !self.enter(0) {
            return self.error_expr(start);
        }
        let mut lhs = self.unary();
        let mut last_cmp = false;
        while let Some((op, prec)) = binop(self.peek()) {
            if prec < min {
                break;
            }
            let op_span = self.bump().span;
            if prec == CMP && last_cmp {
                self.report(
                    Diagnostic::error("comparison operators cannot be chained", op_span)
                        .with_secondary(lhs.span, "this is already a comparison")
                        .with_note("split the comparison with `&&`, e.g. `a < b && b < c`"),
                );
            }
            // A left-associative chain (`1 + 1 + ... + 1`) grows the tree
            // down its left spine without nesting: every later stage walks
            // such spines iteratively, so its length is not limited.
            let rhs = self.expr_bp(prec + 1);
            last_cmp = prec == CMP;
            let span = lhs.span.to(rhs.span);
            lhs = self.new_expr(
                ExprKind::Binary {
                    op,
                    op_span,
                    lhs: Box::new(lhs),
                    rhs: Box::new(rhs),
                },
                span,
            );
        }
        self.leave();
        lhs
    }

    fn unary(&mut self) -> Expr {
        let op = match self.peek() {
            TokenKind::Minus => UnOp::Neg,
            TokenKind::Bang => UnOp::Not,
            _ => return self.postfix(),
        };
        let start = self.bump().span;
        if !self.enter(0) {
            return self.error_expr(start);
        }
        let operand = self.unary();
        self.leave();
        let span = start.to(operand.span);
        self.new_expr(
            ExprKind::Unary {
                op,
                operand: Box::new(operand),
            },
            span,
        )
    }

    fn postfix(&mut self) -> Expr {
        let mut e = self.primary();
        let mut chain = 0u32;
        loop {
            match self.peek() {
                TokenKind::LBracket => {
                    chain += 1;
                    if self.depth + chain >= MAX_DEPTH {
                        self.enter(chain);
                        return e;
                    }
                    let bracket = self.bump().span;
                    let index = self.expr();
                    self.expect(&TokenKind::RBracket, "`]`");
                    let span = self.span_from(e.span);
                    e = self.new_expr(
                        ExprKind::Index {
                            base: Box::new(e),
                            index: Box::new(index),
                            bracket,
                        },
                        span,
                    );
                }
                TokenKind::LParen => {
                    let span = self.span();
                    self.error(
                        Diagnostic::error("only named functions can be called", span)
                            .with_secondary(e.span, "this is not a function name"),
                    );
                    return e;
                }
                _ => return e,
            }
        }
    }

    fn primary(&mut self) -> Expr {
        let start = self.span();
        if let TokenKind::Ident(_) = self.peek() {
            // The name moves out of the token (no copy of its text).
            if let TokenKind::Ident(name) = self.bump().kind {
                let ident = Ident { name, span: start };
                if self.at(&TokenKind::LParen) {
                    return self.call(ident);
                }
                return self.new_expr(ExprKind::Name(ident), start);
            }
        }
        let kind = match self.peek().clone() {
            TokenKind::Int(v) => ExprKind::Int(v),
            TokenKind::Float(v) => ExprKind::Float(v),
            TokenKind::Str(s) => ExprKind::Str(s),
            TokenKind::True => ExprKind::Bool(true),
            TokenKind::False => ExprKind::Bool(false),
            TokenKind::Ident(name) => {
                self.bump();
                let ident = Ident { name, span: start };
                if self.at(&TokenKind::LParen) {
                    return self.call(ident);
                }
                return self.new_expr(ExprKind::Name(ident), start);
            }
            // `int(x)`, `float(x)` and `str(x)` are builtin calls even though
            // the names are type keywords.
            TokenKind::IntTy | TokenKind::FloatTy | TokenKind::StrTy
                if self.peek_at(1) == &TokenKind::LParen =>
            {
                let name = match self.bump().kind {
                    TokenKind::IntTy => "int",
                    TokenKind::FloatTy => "float",
                    _ => "str",
                };
                let ident = Ident {
                    name: Name::new(name),
                    span: start,
                };
                return self.call(ident);
            }
            TokenKind::LParen => {
                self.bump();
                let mut e = self.expr();
                self.expect(&TokenKind::RParen, "`)`");
                e.span = self.span_from(start);
                return e;
            }
            TokenKind::LBracket => return self.array(),
            _ => {
                self.error_expected("an expression");
                return self.error_expr(start);
            }
        };
        self.bump();
        self.new_expr(kind, start)
    }

    /// Comma-separated expressions up to `close` (trailing comma allowed);
    /// the opening token is already consumed.
    fn expr_list(&mut self, close: &TokenKind, what: &str) -> Vec<crate::ast::Expr> {
        let mut out = Vec::new();
        while !self.at(close) && !self.at_eof() {
            let before = self.pos;
            out.push(self.expr());
            if !self.eat(&TokenKind::Comma) || self.pos == before {
                break;
            }
        }
        self.expect(close, what);
        out
    }

    fn call(&mut self, callee: Ident) -> Expr {
        self.bump(); // `(`
        if !self.enter(0) {
            return self.error_expr(callee.span);
        }
        let args = self.expr_list(&TokenKind::RParen, "`,` or `)`");
        self.leave();
        let span = self.span_from(callee.span);
        self.new_expr(ExprKind::Call(Box::new(Call { callee, args })), span)
    }

    fn array(&mut self) -> Expr {
        let bracket = self.bump().span;
        if !self.enter(0) {
            return self.error_expr(bracket);
        }
        let e = if self.eat(&TokenKind::RBracket) {
            ExprKind::ArrayLit(Vec::new())
        } else {
            let first = self.expr();
            if self.eat(&TokenKind::Semi) {
                let count = self.expr();
                self.expect(&TokenKind::RBracket, "`]`");
                ExprKind::ArrayRepeat {
                    value: Box::new(first),
                    count: Box::new(count),
                    bracket,
                }
            } else {
                let mut elems = vec![first];
                if self.eat(&TokenKind::Comma) {
                    elems.extend(self.expr_list(&TokenKind::RBracket, "`,` or `]`"));
                } else {
                    self.expect(&TokenKind::RBracket, "`,`, `;` or `]`");
                }
                ExprKind::ArrayLit(elems)
            }
        };
        self.leave();
        let span = self.span_from(bracket);
        self.new_expr(e, span)
    }
}
