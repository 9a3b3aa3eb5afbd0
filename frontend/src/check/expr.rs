//! Expressions: operator typing per the precedence table of docs/language.md,
//! names, calls, indexing, and array literals whose element type may come
//! from context (detail #10).

use super::ctx::{Checker, Ty};
use super::Callee;
use crate::ast::{BinOp, Expr, ExprKind, UnOp};
use crate::diag::Diagnostic;
use crate::Builtin;
use waddle_opt::ir::Type;

/// Source spelling of a binary operator.
pub(crate) fn op_text(op: BinOp) -> &'static str {
    match op {
        BinOp::Or => "||",
        BinOp::And => "&&",
        BinOp::Eq => "==",
        BinOp::Ne => "!=",
        BinOp::Lt => "<",
        BinOp::Le => "<=",
        BinOp::Gt => ">",
        BinOp::Ge => ">=",
        BinOp::BitOr => "|",
        BinOp::BitXor => "^",
        BinOp::BitAnd => "&",
        BinOp::Shl => "<<",
        BinOp::Shr => ">>",
        BinOp::Add => "+",
        BinOp::Sub => "-",
        BinOp::Mul => "*",
        BinOp::Div => "/",
        BinOp::Rem => "%",
    }
}

/// Whether an expression is an array literal whose element type cannot be
/// known without context (`[]`, `[[], []]`, `[[]; 3]`).
pub(crate) fn needs_context(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::ArrayLit(v) => v.iter().all(needs_context),
        ExprKind::ArrayRepeat { value, .. } => needs_context(value),
        _ => false,
    }
}

impl<'m> Checker<'m> {
    /// Checks an expression that must produce a value (not `void`).
    pub fn value(&mut self, e: &'m Expr, hint: Ty) -> Ty {
        let t = self.expr(e, hint);
        if t == Some(Type::Unit) {
            self.err(
                Diagnostic::error("`void` is not a value", e.span)
                    .with_label("this expression has type `void`")
                    .with_note("a `void` result cannot be bound, assigned, printed, passed, stored or compared"),
            );
            return None;
        }
        t
    }

    /// Checks an expression; `hint` is the type the context expects (used
    /// to type empty array literals). Records and returns its type.
    pub fn expr(&mut self, e: &'m Expr, hint: Ty) -> Ty {
        let t = match &e.kind {
            ExprKind::Int(_) => Some(Type::Int),
            ExprKind::Float(_) => Some(Type::Float),
            ExprKind::Bool(_) => Some(Type::Bool),
            ExprKind::Str(_) => Some(Type::Str),
            ExprKind::Error => None,
            ExprKind::Name(ident) => match self.lookup(ident) {
                Some((var, t)) => {
                    self.names[e.id.0 as usize] = Some(var);
                    t
                }
                None => None,
            },
            ExprKind::Unary { op, operand } => {
                let t = self.value(operand, None);
                match (op, t) {
                    (_, None) => None,
                    (UnOp::Neg, Some(t @ (Type::Int | Type::Float))) => Some(t),
                    (UnOp::Not, Some(Type::Bool)) => Some(Type::Bool),
                    (op, Some(t)) => {
                        let (sym, want) = match op {
                            UnOp::Neg => ("-", "`int` or `float`"),
                            UnOp::Not => ("!", "`bool`"),
                        };
                        self.err(
                            Diagnostic::error(
                                format!("unary operator `{sym}` cannot be applied to type `{t}`"),
                                e.span,
                            )
                            .with_label(format!("expected {want}")),
                        );
                        if *op == UnOp::Not {
                            Some(Type::Bool)
                        } else {
                            None
                        }
                    }
                }
            }
            ExprKind::Binary { .. } => self.binary_chain(e),
            ExprKind::Call(call) => {
                let crate::ast::Call { callee, args } = &**call;
                if let Some(&f) = self.func_by_name.get(callee.name.as_str()) {
                    self.calls[e.id.0 as usize] = Some(Callee::Func(f));
                    let slot = &self.funcs[f.0 as usize];
                    let (params, ret) = (slot.params.clone(), slot.ret);
                    self.check_arity(&callee.name, params.len(), e, args);
                    for (i, a) in args.iter().enumerate() {
                        let want = params.get(i).copied().flatten();
                        let t = self.value(a, want);
                        if i < params.len() {
                            self.coerce(t, want, a.span);
                        }
                    }
                    ret
                } else if let Some(b) = Builtin::from_name(&callee.name) {
                    self.calls[e.id.0 as usize] = Some(Callee::Builtin(b));
                    self.builtin(b, e, args)
                } else if let Some(&h) = self.host_by_name.get(callee.name.as_str()) {
                    self.calls[e.id.0 as usize] = Some(Callee::Host(h));
                    let sig = self.hosts[h as usize].sig.clone();
                    self.check_arity(&callee.name, sig.params.len(), e, args);
                    for (i, a) in args.iter().enumerate() {
                        let want = sig.params.get(i).copied();
                        let t = self.value(a, want);
                        if want.is_some() {
                            self.coerce(t, want, a.span);
                        }
                    }
                    Some(sig.ret)
                } else {
                    let mut d = Diagnostic::error(
                        format!("undefined function `{}`", callee.name),
                        callee.span,
                    )
                    .with_label("no function with this name");
                    if self
                        .body
                        .scopes
                        .iter()
                        .any(|s| s.contains(callee.name.as_bytes(), &self.locals))
                        || self.global_by_name.contains_key(callee.name.as_str())
                    {
                        d = d.with_note(format!(
                            "`{}` is a variable; only functions can be called",
                            callee.name
                        ));
                    }
                    self.err(d);
                    for a in args {
                        if !needs_context(a) {
                            self.expr(a, None);
                        }
                    }
                    None
                }
            }
            ExprKind::Index { base, index, .. } => {
                let bt = self.value(base, None);
                let it = self.value(index, Some(Type::Int));
                if let Some(it) = it.filter(|&t| t != Type::Int) {
                    self.err(
                        Diagnostic::error(
                            format!("mismatched types: expected `int`, found `{it}`"),
                            index.span,
                        )
                        .with_label("array indices must be `int`"),
                    );
                }
                match bt {
                    None => None,
                    Some(t) if t.is_array() => t.element(),
                    Some(t) => {
                        let mut d = Diagnostic::error(
                            format!("cannot index into a value of type `{t}`"),
                            base.span,
                        )
                        .with_label("only arrays can be indexed");
                        if t == Type::Str {
                            d = d.with_note("strings cannot be indexed in Waddle version 1");
                        }
                        self.err(d);
                        None
                    }
                }
            }
            ExprKind::ArrayLit(elems) => self.array_lit(e, elems, hint),
            ExprKind::ArrayRepeat { value, count, .. } => {
                let elem_hint = hint.and_then(|h| h.element());
                let vt = if needs_context(value) && elem_hint.is_none() {
                    self.err(cannot_infer(e));
                    None
                } else {
                    self.value(value, elem_hint)
                };
                let ct = self.value(count, Some(Type::Int));
                if let Some(ct) = ct.filter(|&t| t != Type::Int) {
                    self.err(
                        Diagnostic::error(
                            format!("mismatched types: expected `int`, found `{ct}`"),
                            count.span,
                        )
                        .with_label("the repeat count must be `int`"),
                    );
                }
                vt.and_then(|t| self.array_of(t, e))
            }
        };
        self.set_ty(e.id, t)
    }

    /// `[T]`, or an error when nested too deeply.
    fn array_of(&mut self, t: Type, e: &Expr) -> Ty {
        let r = t.array_of();
        if r.is_none() {
            self.err(Diagnostic::error(
                format!(
                    "array type is nested too deeply (at most {} levels)",
                    Type::MAX_ARRAY_DEPTH
                ),
                e.span,
            ));
        }
        r
    }

    fn array_lit(&mut self, e: &'m Expr, elems: &'m [Expr], hint: Ty) -> Ty {
        let mut elem: Ty = hint.and_then(|h| h.element());
        if elems.is_empty() {
            if elem.is_none() {
                self.err(cannot_infer(e));
                return None;
            }
            return hint;
        }
        let mut bad = false;
        let mut deferred = Vec::new();
        for el in elems {
            if elem.is_none() && needs_context(el) {
                deferred.push(el);
                continue;
            }
            let t = self.value(el, elem);
            match (elem, t) {
                (_, None) => bad = true,
                (None, Some(t)) => elem = Some(t),
                (Some(w), Some(t)) => bad |= !self.coerce(Some(t), Some(w), el.span),
            }
        }
        if elem.is_none() {
            // Only context-dependent elements (or only errors) and no context.
            if !deferred.is_empty() && !bad {
                self.err(cannot_infer(e));
            }
            return None;
        }
        for el in deferred {
            let t = self.value(el, elem);
            self.coerce(t, elem, el.span);
        }
        elem.and_then(|t| self.array_of(t, e))
    }

    /// Reports an arity mismatch of a call.
    pub fn check_arity(&mut self, name: &str, want: usize, e: &Expr, args: &[Expr]) -> bool {
        if args.len() == want {
            return true;
        }
        let s = |n: usize| if n == 1 { "" } else { "s" };
        let was = if args.len() == 1 { "was" } else { "were" };
        self.err(
            Diagnostic::error(
                format!(
                    "function `{name}` takes {want} argument{} but {} {was} supplied",
                    s(want),
                    args.len()
                ),
                e.span,
            )
            .with_label(format!("expected {want} argument{}", s(want))),
        );
        false
    }

    /// The result type of arithmetic/bitwise operator `op` on operands of
    /// type `t`, or `None` after reporting that it does not apply.
    pub fn arith_result(&mut self, op: BinOp, t: Type, op_span: crate::ast::Span) -> Ty {
        let ok = match op {
            BinOp::Add => matches!(t, Type::Int | Type::Float | Type::Str),
            BinOp::Sub | BinOp::Mul | BinOp::Div | BinOp::Rem => {
                matches!(t, Type::Int | Type::Float)
            }
            BinOp::BitOr | BinOp::BitXor | BinOp::BitAnd | BinOp::Shl | BinOp::Shr => {
                t == Type::Int
            }
            BinOp::Or | BinOp::And => t == Type::Bool,
            BinOp::Eq | BinOp::Ne => matches!(t, Type::Int | Type::Float | Type::Bool | Type::Str),
            BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => {
                matches!(t, Type::Int | Type::Float | Type::Str)
            }
        };
        if !ok {
            let sym = op_text(op);
            self.err(
                Diagnostic::error(
                    format!("operator `{sym}` cannot be applied to type `{t}`"),
                    op_span,
                )
                .with_label(format!("`{sym}` does not accept `{t}` operands")),
            );
            return None;
        }
        Some(t)
    }

    /// A binary expression and the binary expressions down its left spine
    /// (`((a + b) - c) + d`), bottom up, without recursion on the spine: a
    /// flat chain may have any length (issue 13, defect 5).
    fn binary_chain(&mut self, top: &'m Expr) -> Ty {
        let mut spine = Vec::new();
        let mut first = top;
        while let ExprKind::Binary { lhs, .. } = &first.kind {
            spine.push(first);
            first = lhs;
        }
        let bottom_is_logic = spine.last().is_some_and(|b| {
            matches!(
                b.kind,
                ExprKind::Binary {
                    op: BinOp::Or | BinOp::And,
                    ..
                }
            )
        });
        let mut lt = self.value(first, bottom_is_logic.then_some(Type::Bool));
        for (k, node) in spine.iter().rev().enumerate() {
            let ExprKind::Binary {
                op,
                op_span,
                lhs,
                rhs,
            } = &node.kind
            else {
                unreachable!("the spine holds binary expressions only");
            };
            lt = self.binary(*op, *op_span, lhs, lt, rhs);
            // The top node's type is recorded by `expr`.
            if k + 1 < spine.len() {
                lt = self.set_ty(node.id, lt);
            }
        }
        lt
    }

    /// `lhs op rhs` where `lhs` is already checked and has type `lt`.
    fn binary(
        &mut self,
        op: BinOp,
        op_span: crate::ast::Span,
        lhs: &'m Expr,
        lt: Ty,
        rhs: &'m Expr,
    ) -> Ty {
        let is_cmp = matches!(
            op,
            BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge
        );
        if matches!(op, BinOp::Or | BinOp::And) {
            for (side, t) in [(lhs, Some(lt)), (rhs, None)] {
                let t = match t {
                    Some(t) => t,
                    None => self.value(side, Some(Type::Bool)),
                };
                if let Some(t) = t.filter(|&t| t != Type::Bool) {
                    self.err(
                        Diagnostic::error(
                            format!("mismatched types: expected `bool`, found `{t}`"),
                            side.span,
                        )
                        .with_label(format!("operands of `{}` must be `bool`", op_text(op))),
                    );
                }
            }
            return Some(Type::Bool);
        }
        let rt = self.value(rhs, lt);
        let result = match (lt, rt) {
            (Some(l), Some(r)) if l != r => {
                let ok = self.arith_result(op, l, op_span).is_some();
                if ok {
                    self.err(
                        Diagnostic::error(
                            format!("mismatched types: expected `{l}`, found `{r}`"),
                            rhs.span,
                        )
                        .with_label(format!("expected `{l}`, like the left operand"))
                        .with_note("there are no implicit conversions; use `float(x)` or `int(x)`"),
                    );
                }
                None
            }
            (Some(l), _) => self.arith_result(op, l, op_span),
            (None, Some(r)) => {
                // Still check the operator against what is known.
                self.arith_result(op, r, op_span);
                None
            }
            (None, None) => None,
        };
        if is_cmp {
            Some(Type::Bool)
        } else {
            result.filter(|_| rt.is_some())
        }
    }
}

/// "cannot infer the type of an empty array literal".
fn cannot_infer(e: &Expr) -> Diagnostic {
    Diagnostic::error("cannot infer the type of an empty array literal", e.span)
        .with_label("type annotations needed")
        .with_note("give the context a type, e.g. `let a: [int] = [];`")
}
