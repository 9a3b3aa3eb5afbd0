//! Lowering of statements (docs/language.md "Statements", "Evaluation order").
//!
//! Control flow is built so that Braun's construction can seal every block
//! as soon as its predecessors are known: a loop header is sealed after the
//! loop body has added its backedges, a join or loop exit after its last
//! incoming edge. A statement that is reached with no current block (after
//! `return`, `break` or `continue`) is unreachable and not lowered.

use waddle_opt::ir::{BinaryOp, Block, BlockCall, Cmp, InstKind, SrcLoc, Type, Value};

use super::{FnLower, LoopTargets};
use crate::ast::{
    AssignOp, BinOp, Block as AstBlock, ElseIf, Expr, ExprKind, ForLoop, Span, Stmt, StmtKind,
};
use crate::check::Var;

impl FnLower<'_> {
    /// Lowers the statements of a `{ ... }` block.
    pub(super) fn block(&mut self, block: &AstBlock) {
        for s in &block.stmts {
            self.stmt(s);
        }
    }

    /// Lowers one statement.
    pub(super) fn stmt(&mut self, s: &Stmt) {
        if self.cur.is_none() {
            return;
        }
        match &s.kind {
            StmtKind::Let { init, decl, .. } => {
                let v = self.value(init);
                let var = self.typed.decls.get(decl.0 as usize).copied().flatten();
                self.bind(var, v);
            }
            StmtKind::Assign {
                target,
                op,
                op_span,
                value,
            } => self.assign(target, *op, *op_span, value),
            StmtKind::If {
                cond,
                then_block,
                else_ifs,
                else_block,
            } => self.if_stmt(cond, then_block, else_ifs, else_block.as_ref()),
            StmtKind::While { cond, body } => self.while_stmt(cond, body),
            StmtKind::For(f) => {
                let ForLoop {
                    decl, lo, hi, body, ..
                } = &**f;
                let var = self.typed.decls.get(decl.0 as usize).copied().flatten();
                self.for_stmt(var, lo, hi, body);
            }
            StmtKind::Break => {
                if let Some(t) = self.loops.last().copied() {
                    let b = self.cur_block();
                    self.ssa.jump(b, t.break_to, vec![]);
                    self.cur = None;
                }
            }
            StmtKind::Continue => {
                if let Some(t) = self.loops.last().copied() {
                    let b = self.cur_block();
                    self.ssa.jump(b, t.continue_to, vec![]);
                    self.cur = None;
                }
            }
            StmtKind::Return(e) => {
                let v = match e {
                    Some(e) => self.expr(e),
                    None => None,
                };
                let v = match (v, self.ret) {
                    (_, Type::Unit) => None,
                    (Some(v), _) => Some(v),
                    (None, ty) => Some(self.zero(ty)),
                };
                let b = self.cur_block();
                self.ssa.ret(b, v);
                self.cur = None;
            }
            StmtKind::Expr { expr, semi } => {
                let v = self.expr(expr);
                if self.options.repl && !semi {
                    if let Some(v) = v {
                        self.emit(InstKind::Print(v), Type::Unit, SrcLoc::NONE);
                    }
                }
            }
            StmtKind::Block(b) => self.block(b),
            StmtKind::Empty => {}
        }
    }

    /// `x = e`, `x op= e`, `a[i] = e`, `a[i] op= e` (detail 2): every
    /// `array_set` is immediately preceded by its `bounds_check`, which
    /// comes after everything the right side evaluates.
    fn assign(&mut self, target: &Expr, op: AssignOp, op_span: Span, value: &Expr) {
        match &target.kind {
            ExprKind::Index {
                base,
                index,
                bracket,
            } => {
                let elem_ty = self.ty(base).element().unwrap_or_else(|| self.ty(target));
                let a = self.value(base);
                let i = self.value(index);
                let v = match op {
                    None => {
                        let v = self.value(value);
                        let loc = self.loc(*bracket);
                        self.emit(InstKind::BoundsCheck(a, i), Type::Unit, loc);
                        v
                    }
                    Some(op) => {
                        let old = self.index_get(a, i, elem_ty, *bracket);
                        let v = self.compound(op, elem_ty, old, value, op_span);
                        // `e` may have shrunk the array (a call that pops
                        // it): check again right before the store, so no
                        // tier stores past the length (detail 2).
                        let loc = self.loc(*bracket);
                        self.emit(InstKind::BoundsCheck(a, i), Type::Unit, loc);
                        v
                    }
                };
                self.emit(InstKind::ArraySet(a, i, v), Type::Unit, SrcLoc::NONE);
            }
            _ => {
                let ty = self.place_type(target);
                let v = match op {
                    None => self.value(value),
                    Some(op) => {
                        let old = self.read_name(target, ty);
                        self.compound(op, ty, old, value, op_span)
                    }
                };
                let var = self.name_var(target);
                self.bind(var, v);
            }
        }
    }

    /// The type of the variable a name expression refers to.
    fn place_type(&self, target: &Expr) -> Type {
        let known = match self.name_var(target) {
            Some(Var::Local(l)) => self.typed.locals.get(l.0 as usize).map(|i| i.ty),
            Some(Var::Global(g)) => self.typed.globals.get(g.0 as usize).map(|i| i.ty),
            None => None,
        };
        known.unwrap_or_else(|| self.ty(target))
    }

    /// `old op value` for a compound assignment, `value` evaluated after
    /// `old` was read.
    fn compound(&mut self, op: BinOp, ty: Type, old: Value, value: &Expr, op_span: Span) -> Value {
        let r = self.value(value);
        self.binary(op, ty, old, r, op_span)
    }

    /// `if c0 { b0 } else if c1 { b1 } ... else { bn }`: each condition is
    /// tested in the previous condition's false block, each arm falls into
    /// one join block, which stays unreachable if no arm falls through. The
    /// chain is lowered in a loop, so its length costs no native stack.
    fn if_stmt(
        &mut self,
        cond: &Expr,
        then_block: &AstBlock,
        else_ifs: &[ElseIf],
        else_block: Option<&AstBlock>,
    ) {
        let arms = std::iter::once((cond, then_block))
            .chain(else_ifs.iter().map(|arm| (&arm.cond, &arm.block)));
        let join = self.ssa.create_block();
        let last = else_ifs.len();
        for (i, (cond, block)) in arms.enumerate() {
            let c = self.value(cond);
            let from = self.cur_block();
            let then_b = self.ssa.create_block();
            let has_else = i < last || else_block.is_some();
            let else_b = if has_else {
                self.ssa.create_block()
            } else {
                join
            };
            self.ssa.branch(
                from,
                c,
                BlockCall::new(then_b, vec![]),
                BlockCall::new(else_b, vec![]),
            );
            self.ssa.seal(then_b);
            self.cur = Some(then_b);
            self.block(block);
            self.fall_into(join);
            if !has_else {
                break;
            }
            self.ssa.seal(else_b);
            self.cur = Some(else_b);
        }
        if let Some(b) = else_block {
            self.block(b);
            self.fall_into(join);
        }
        self.ssa.seal(join);
        self.switch_to(join);
    }

    /// If the current block is reachable, ends it with a jump to `to`.
    fn fall_into(&mut self, to: Block) {
        if let Some(b) = self.cur.take() {
            self.ssa.jump(b, to, vec![]);
        }
    }

    /// `while cond { body }`. The condition is evaluated in the loop header;
    /// `while true` has no exit edge, so the code after it is reachable only
    /// through `break`.
    fn while_stmt(&mut self, cond: &Expr, body: &AstBlock) {
        let header = self.ssa.create_block();
        let body_b = self.ssa.create_block();
        let exit = self.ssa.create_block();
        self.fall_into(header);
        self.cur = Some(header);
        if matches!(cond.kind, ExprKind::Bool(true)) {
            self.ssa.jump(header, body_b, vec![]);
        } else {
            let c = self.value(cond);
            let end = self.cur_block();
            self.ssa.branch(
                end,
                c,
                BlockCall::new(body_b, vec![]),
                BlockCall::new(exit, vec![]),
            );
        }
        self.ssa.seal(body_b);
        self.cur = Some(body_b);
        self.loop_body(body, exit, header);
        self.fall_into(header);
        self.ssa.seal(header);
        self.ssa.seal(exit);
        self.switch_to(exit);
    }

    /// `for v in lo..hi { body }`: `lo` then `hi` once; the counter is a
    /// parameter of the header; `continue` goes to the increment.
    fn for_stmt(&mut self, var: Option<Var>, lo: &Expr, hi: &Expr, body: &AstBlock) {
        let lo_v = self.value(lo);
        let hi_v = self.value(hi);
        let header = self.ssa.create_block();
        let i = self.ssa.add_param(header, Type::Int);
        let body_b = self.ssa.create_block();
        let incr = self.ssa.create_block();
        let exit = self.ssa.create_block();
        let pre = self.cur_block();
        self.ssa.jump(pre, header, vec![lo_v]);
        self.cur = Some(header);
        let c = self.emit_value(
            InstKind::Binary(BinaryOp::ICmp(Cmp::Lt), i, hi_v),
            Type::Bool,
            SrcLoc::NONE,
        );
        self.ssa.branch(
            header,
            c,
            BlockCall::new(body_b, vec![]),
            BlockCall::new(exit, vec![]),
        );
        self.ssa.seal(body_b);
        self.cur = Some(body_b);
        self.bind(var, i);
        self.loop_body(body, exit, incr);
        self.fall_into(incr);
        self.ssa.seal(incr);
        self.switch_to(incr);
        if self.cur.is_some() {
            let one = self.emit_value(InstKind::IConst(1), Type::Int, SrcLoc::NONE);
            let next = self.emit_value(
                InstKind::Binary(BinaryOp::IAdd, i, one),
                Type::Int,
                SrcLoc::NONE,
            );
            self.ssa.jump(incr, header, vec![next]);
        }
        self.ssa.seal(header);
        self.ssa.seal(exit);
        self.switch_to(exit);
    }

    /// Lowers a loop body with `break` → `exit` and `continue` → `next`.
    fn loop_body(&mut self, body: &AstBlock, exit: Block, next: Block) {
        self.loops.push(LoopTargets {
            break_to: exit,
            continue_to: next,
        });
        self.block(body);
        self.loops.pop();
    }
}
