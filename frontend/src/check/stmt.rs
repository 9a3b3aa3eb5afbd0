//! Statements: bindings, assignment (mutability, compound operators),
//! control flow, `break`/`continue`/`return` placement.

use super::ctx::{BindKind, Checker, Ty};
use super::Var;
use crate::ast::{Block, Expr, ExprKind, ForLoop, Stmt, StmtKind};
use crate::diag::Diagnostic;
use waddle_opt::ir::Type;

impl<'m> Checker<'m> {
    /// A block: opens a scope.
    pub fn block(&mut self, b: &'m Block) {
        self.push_scope();
        // The block's own declarations go into its scope: sized once, as a
        // scope of a million names rehashed each key (a cache miss each)
        // at every doubling.
        let lets = (b.stmts.iter())
            .filter(|s| matches!(s.kind, StmtKind::Let { .. }))
            .count();
        if let Some(scope) = self.body.scopes.last_mut() {
            scope.reserve(lets, &self.locals);
        }
        for s in &b.stmts {
            self.stmt(s);
        }
        self.pop_scope();
    }

    /// A condition: must be `bool`.
    fn cond(&mut self, e: &'m Expr) {
        let t = self.value(e, Some(Type::Bool));
        if let Some(t) = t {
            if t != Type::Bool {
                self.err(
                    Diagnostic::error(
                        format!("mismatched types: expected `bool`, found `{t}`"),
                        e.span,
                    )
                    .with_label("conditions must be `bool`"),
                );
            }
        }
    }

    /// A statement that is not a global declaration.
    pub fn stmt(&mut self, s: &'m Stmt) {
        match &s.kind {
            StmtKind::Let {
                mutable,
                name,
                ty,
                init,
                decl,
            } => {
                let written = ty.as_ref().map(|t| self.resolve_ty(t, false));
                let hint = written.flatten();
                // A bad annotation was reported; do not add "cannot infer".
                let skip = written == Some(None) && super::expr::needs_context(init);
                let found = if skip { None } else { self.value(init, hint) };
                let t = match written {
                    Some(w) => {
                        self.coerce(found, w, init.span);
                        w
                    }
                    None => found,
                };
                let kind = if *mutable {
                    BindKind::Var
                } else {
                    BindKind::Let
                };
                let l = self.declare(name, t, kind);
                self.decls[decl.0 as usize] = Some(Var::Local(l));
            }
            StmtKind::Assign {
                target,
                op,
                op_span,
                value,
            } => {
                let tt = self.place(target);
                let vt = self.value(value, tt);
                match op {
                    None => {
                        self.coerce(vt, tt, value.span);
                    }
                    Some(op) => {
                        if let Some(t) = tt {
                            if self.arith_result(*op, t, *op_span).is_some() {
                                self.coerce(vt, tt, value.span);
                            }
                        }
                    }
                }
            }
            StmtKind::If {
                cond,
                then_block,
                else_ifs,
                else_block,
            } => {
                self.cond(cond);
                self.block(then_block);
                for arm in else_ifs.iter() {
                    self.cond(&arm.cond);
                    self.block(&arm.block);
                }
                if let Some(b) = else_block {
                    self.block(b);
                }
            }
            StmtKind::While { cond, body } => {
                self.cond(cond);
                self.body.loops += 1;
                self.block(body);
                self.body.loops -= 1;
            }
            StmtKind::For(f) => {
                let ForLoop {
                    var,
                    decl,
                    lo,
                    hi,
                    body,
                } = &**f;
                for e in [lo, hi] {
                    let t = self.value(e, Some(Type::Int));
                    if let Some(t) = t.filter(|&t| t != Type::Int) {
                        self.err(
                            Diagnostic::error(
                                format!("mismatched types: expected `int`, found `{t}`"),
                                e.span,
                            )
                            .with_label("range bounds must be `int`"),
                        );
                    }
                }
                self.push_scope();
                let l = self.declare(var, Some(Type::Int), BindKind::ForVar);
                self.decls[decl.0 as usize] = Some(Var::Local(l));
                self.body.loops += 1;
                self.block(body);
                self.body.loops -= 1;
                self.pop_scope();
            }
            StmtKind::Break | StmtKind::Continue => {
                if self.body.loops == 0 {
                    let kw = if s.kind == StmtKind::Break {
                        "break"
                    } else {
                        "continue"
                    };
                    self.err(
                        Diagnostic::error(format!("`{kw}` outside of a loop"), s.span)
                            .with_label(format!("`{kw}` may only appear inside `while` or `for`")),
                    );
                }
            }
            StmtKind::Return(value) => self.ret(s, value.as_ref()),
            StmtKind::Expr { expr, .. } => {
                self.expr(expr, None);
            }
            StmtKind::Block(b) => self.block(b),
            StmtKind::Empty => {}
        }
    }

    fn ret(&mut self, s: &'m Stmt, value: Option<&'m Expr>) {
        let Some(ret) = self.body.ret else {
            self.err(
                Diagnostic::error("`return` outside of a function", s.span)
                    .with_label("top-level code cannot return"),
            );
            if let Some(v) = value {
                self.expr(v, None);
            }
            return;
        };
        let name = self.body.fn_name.clone();
        match (value, ret) {
            (Some(v), Some(Type::Unit)) => {
                self.expr(v, None);
                self.err(
                    Diagnostic::error(
                        format!("function `{name}` has no result type but returns a value"),
                        v.span,
                    )
                    .with_note(format!("declare the result type: `fn {name}(...) -> T`")),
                );
            }
            (Some(v), _) => {
                let t = self.value(v, ret);
                self.coerce(t, ret, v.span);
            }
            (None, Some(t)) if t != Type::Unit => {
                self.err(
                    Diagnostic::error(
                        format!("mismatched types: expected `{t}`, found `void`"),
                        s.span,
                    )
                    .with_label(format!("function `{name}` must return a `{t}` value")),
                );
            }
            (None, _) => {}
        }
    }

    /// An assignment target: a `var` name or an index expression. Returns
    /// the type a stored value must have.
    fn place(&mut self, target: &'m Expr) -> Ty {
        match &target.kind {
            ExprKind::Name(ident) => {
                let Some((var, t)) = self.lookup(ident) else {
                    return self.set_ty(target.id, None);
                };
                self.names[target.id.0 as usize] = Some(var);
                let (mutable, kind, decl_span) = match var {
                    Var::Local(l) => {
                        let slot = &self.locals[l.0 as usize];
                        (slot.kind == BindKind::Var, slot.kind, Some(slot.span))
                    }
                    Var::Global(g) => {
                        let slot = &self.globals[g.0 as usize];
                        let kind = if slot.mutable {
                            BindKind::Var
                        } else {
                            BindKind::Let
                        };
                        (slot.mutable, kind, slot.span)
                    }
                };
                if !mutable {
                    let what = match kind {
                        BindKind::Param => "parameters are immutable",
                        BindKind::ForVar => "`for` loop variables are immutable",
                        _ => "declared with `let`; use `var` for a mutable binding",
                    };
                    let mut d = Diagnostic::error(
                        format!("cannot assign to immutable binding `{}`", ident.name),
                        ident.span,
                    )
                    .with_label("cannot assign twice to an immutable binding")
                    .with_note(what);
                    if let Some(sp) = decl_span {
                        d = d.with_secondary(sp, "declared here");
                    }
                    self.err(d);
                }
                self.set_ty(target.id, t)
            }
            ExprKind::Index { .. } => self.expr(target, None),
            _ => {
                self.err(Diagnostic::error("invalid assignment target", target.span));
                self.expr(target, None);
                None
            }
        }
    }
}
