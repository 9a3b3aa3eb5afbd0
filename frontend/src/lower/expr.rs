//! Lowering of expressions (docs/language.md "Expressions", "Built-in
//! functions"; details 1, 3, 12, 15).
//!
//! Operands are evaluated left to right. `&&` and `||` become a branch and a
//! join block with a `bool` parameter. Only instructions that can raise a
//! runtime error carry a source location.

use waddle_opt::ir::{
    BinaryOp, BlockCall, Cmp, FuncId, GlobalId, HostFnId, InstKind, SrcLoc, Type, UnaryOp, Value,
};

use super::FnLower;
use crate::ast::{BinOp, Expr, ExprKind, Ident, Span, UnOp};
use crate::check::{Callee, Var};
use crate::Builtin;

impl FnLower<'_> {
    /// The type the checker gave `e` (`int` if the tables lack it).
    pub(super) fn ty(&self, e: &Expr) -> Type {
        self.typed
            .expr_types
            .get(e.id.0 as usize)
            .copied()
            .unwrap_or(Type::Int)
    }

    /// Lowers `e` for its value; `None` for a `void` call.
    pub(super) fn expr(&mut self, e: &Expr) -> Option<Value> {
        let ty = self.ty(e);
        let v = match &e.kind {
            ExprKind::Int(n) => self.emit_value(InstKind::IConst(*n), Type::Int, SrcLoc::NONE),
            ExprKind::Float(x) => {
                self.emit_value(InstKind::FConst(x.to_bits()), Type::Float, SrcLoc::NONE)
            }
            ExprKind::Bool(b) => self.emit_value(InstKind::BConst(*b), Type::Bool, SrcLoc::NONE),
            ExprKind::Str(s) => {
                self.emit_value(InstKind::SConst(s.as_str().into()), Type::Str, SrcLoc::NONE)
            }
            ExprKind::Name(_) => self.read_name(e, ty),
            ExprKind::Unary { op, operand } => {
                let x = self.value(operand);
                let uop = match (op, self.ty(operand)) {
                    (UnOp::Neg, Type::Float) => UnaryOp::FNeg,
                    (UnOp::Neg, _) => UnaryOp::INeg,
                    (UnOp::Not, _) => UnaryOp::BNot,
                };
                self.emit_value(InstKind::Unary(uop, x), ty, SrcLoc::NONE)
            }
            ExprKind::Binary { .. } => self.binary_chain(e),
            ExprKind::Call(call) => return self.call(e, &call.callee, &call.args, ty),
            ExprKind::Index {
                base,
                index,
                bracket,
            } => {
                let a = self.value(base);
                let i = self.value(index);
                self.index_get(a, i, ty, *bracket)
            }
            ExprKind::ArrayLit(elems) => {
                let vals = elems.iter().map(|x| self.value(x)).collect();
                let loc = self.loc(e.span);
                self.emit_value(InstKind::ArrayLit(vals), ty, loc)
            }
            ExprKind::ArrayRepeat {
                value,
                count,
                bracket,
            } => {
                let v = self.value(value);
                let n = self.value(count);
                let loc = self.loc(*bracket);
                self.emit_value(InstKind::ArrayRepeat(v, n), ty, loc)
            }
            ExprKind::Error => self.zero(ty),
        };
        Some(v)
    }

    /// A binary expression and the binary expressions down its left spine,
    /// bottom up, without recursion on the spine (a flat chain such as
    /// `1 + 1 + ... + 1` may have any length).
    fn binary_chain(&mut self, top: &Expr) -> Value {
        let mut spine = Vec::new();
        let mut first = top;
        while let ExprKind::Binary { lhs, .. } = &first.kind {
            spine.push(first);
            first = lhs;
        }
        let mut l = self.value(first);
        for node in spine.iter().rev() {
            let ExprKind::Binary {
                op,
                op_span,
                lhs,
                rhs,
            } = &node.kind
            else {
                unreachable!("the spine holds binary expressions only");
            };
            l = match op {
                BinOp::And | BinOp::Or => self.short_circuit(*op, l, rhs),
                _ => {
                    let operand_ty = self.ty(lhs);
                    let r = self.value(rhs);
                    self.binary(*op, operand_ty, l, r, *op_span)
                }
            };
        }
        l
    }

    /// Lowers `e`, which must produce a value.
    pub(super) fn value(&mut self, e: &Expr) -> Value {
        match self.expr(e) {
            Some(v) => v,
            None => self.zero(Type::Int),
        }
    }

    /// What a name expression refers to.
    pub(super) fn name_var(&self, e: &Expr) -> Option<Var> {
        self.typed.names.get(e.id.0 as usize).copied().flatten()
    }

    /// Reads the variable that name expression `e` refers to.
    pub(super) fn read_name(&mut self, e: &Expr, ty: Type) -> Value {
        match self.name_var(e) {
            Some(Var::Local(l)) => {
                let b = self.cur_block();
                self.ssa.read(l.0, b)
            }
            Some(Var::Global(g)) => self.emit_value(
                InstKind::GlobalGet(GlobalId::from_u32(g.0)),
                ty,
                SrcLoc::NONE,
            ),
            None => self.zero(ty),
        }
    }

    /// `a[i]` as a read: bounds check (located at `[`), then load.
    pub(super) fn index_get(&mut self, a: Value, i: Value, ty: Type, bracket: Span) -> Value {
        let loc = self.loc(bracket);
        self.emit(InstKind::BoundsCheck(a, i), Type::Unit, loc);
        self.emit_value(InstKind::ArrayGet(a, i), ty, SrcLoc::NONE)
    }

    /// `l && rhs` / `l || rhs` with `l` already evaluated: `rhs` runs only
    /// when `l` does not decide the result.
    pub(super) fn short_circuit(&mut self, op: BinOp, l: Value, rhs: &Expr) -> Value {
        let from = self.cur_block();
        let rhs_block = self.ssa.create_block();
        let join = self.ssa.create_block();
        let result = self.ssa.add_param(join, Type::Bool);
        let (then, otherwise) = if op == BinOp::Or {
            (
                BlockCall::new(join, vec![l]),
                BlockCall::new(rhs_block, vec![]),
            )
        } else {
            (
                BlockCall::new(rhs_block, vec![]),
                BlockCall::new(join, vec![l]),
            )
        };
        self.ssa.branch(from, l, then, otherwise);
        self.ssa.seal(rhs_block);
        self.cur = Some(rhs_block);
        let r = self.value(rhs);
        let end = self.cur_block();
        self.ssa.jump(end, join, vec![r]);
        self.ssa.seal(join);
        self.cur = Some(join);
        result
    }

    /// A binary operation other than `&&`/`||` on operands of type
    /// `operand_ty`. `/` and `%` on ints are located at the operator.
    pub(super) fn binary(
        &mut self,
        op: BinOp,
        operand_ty: Type,
        l: Value,
        r: Value,
        op_span: Span,
    ) -> Value {
        if let Some(cmp) = comparison(op) {
            let kind = match operand_ty {
                Type::Str => InstKind::StrCmp(cmp, l, r),
                Type::Bool => InstKind::Binary(BinaryOp::BCmp(cmp), l, r),
                Type::Float => InstKind::Binary(BinaryOp::FCmp(cmp), l, r),
                _ => InstKind::Binary(BinaryOp::ICmp(cmp), l, r),
            };
            return self.emit_value(kind, Type::Bool, SrcLoc::NONE);
        }
        if operand_ty == Type::Str {
            let loc = self.loc(op_span);
            return self.emit_value(InstKind::StrConcat(l, r), Type::Str, loc);
        }
        if let (Type::Bool, BinOp::And | BinOp::Or) = (operand_ty, op) {
            // Only reachable for ill-formed compound assignments; evaluate
            // both operands (no short circuit possible any more).
            let (t, f) = if op == BinOp::And { (r, l) } else { (l, r) };
            return self.select_bool(l, t, f);
        }
        let float = operand_ty == Type::Float;
        let bop = match (op, float) {
            (BinOp::Add, false) => BinaryOp::IAdd,
            (BinOp::Sub, false) => BinaryOp::ISub,
            (BinOp::Mul, false) => BinaryOp::IMul,
            (BinOp::Div, false) => BinaryOp::IDiv,
            (BinOp::Rem, false) => BinaryOp::IRem,
            (BinOp::Add, true) => BinaryOp::FAdd,
            (BinOp::Sub, true) => BinaryOp::FSub,
            (BinOp::Mul, true) => BinaryOp::FMul,
            (BinOp::Div, true) => BinaryOp::FDiv,
            (BinOp::Rem, true) => BinaryOp::FRem,
            (BinOp::BitAnd, _) => BinaryOp::IAnd,
            (BinOp::BitOr, _) => BinaryOp::IOr,
            (BinOp::BitXor, _) => BinaryOp::IXor,
            (BinOp::Shl, _) => BinaryOp::IShl,
            (BinOp::Shr, _) => BinaryOp::IShr,
            // Comparisons and `&&`/`||` were handled above.
            (_, _) => BinaryOp::IAdd,
        };
        let loc = if bop.may_trap() {
            self.loc(op_span)
        } else {
            SrcLoc::NONE
        };
        self.emit_value(InstKind::Binary(bop, l, r), operand_ty, loc)
    }

    /// `if c { t } else { f }` on already computed bools, as control flow.
    fn select_bool(&mut self, c: Value, t: Value, f: Value) -> Value {
        let from = self.cur_block();
        let join = self.ssa.create_block();
        let result = self.ssa.add_param(join, Type::Bool);
        self.ssa.branch(
            from,
            c,
            BlockCall::new(join, vec![t]),
            BlockCall::new(join, vec![f]),
        );
        self.ssa.seal(join);
        self.cur = Some(join);
        result
    }

    /// A call of a user function or a builtin; arguments left to right.
    fn call(&mut self, e: &Expr, callee: &Ident, args: &[Expr], ty: Type) -> Option<Value> {
        let target = self.typed.calls.get(e.id.0 as usize).copied().flatten();
        let vals: Vec<Value> = args.iter().map(|a| self.value(a)).collect();
        let loc = self.loc(callee.span);
        match target {
            Some(Callee::Func(f)) => {
                let ret = self
                    .typed
                    .funcs
                    .get(f.0 as usize)
                    .map_or(ty, |info| info.sig.ret);
                self.emit(InstKind::Call(FuncId::from_u32(f.0), vals), ret, loc)
            }
            Some(Callee::Host(h)) => {
                let ret = (self.typed.host_fns.get(h as usize)).map_or(ty, |info| info.sig.ret);
                self.emit(InstKind::HostCall(HostFnId::from_u32(h), vals), ret, loc)
            }
            Some(Callee::Builtin(b)) => {
                let arg_tys: Vec<Type> = args.iter().map(|a| self.ty(a)).collect();
                self.builtin(b, &vals, &arg_tys, ty, loc)
            }
            None => (ty != Type::Unit).then(|| self.zero(ty)),
        }
    }

    /// A builtin call with evaluated arguments `vals` of types `tys`.
    fn builtin(
        &mut self,
        b: Builtin,
        vals: &[Value],
        tys: &[Type],
        ty: Type,
        loc: SrcLoc,
    ) -> Option<Value> {
        let (x, xt) = match (vals.first(), tys.first()) {
            (Some(&v), Some(&t)) => (v, t),
            _ if b == Builtin::Clock => {
                return self.emit(InstKind::Clock, Type::Float, SrcLoc::NONE)
            }
            // Missing argument: only ill-typed input; produce a zero.
            _ => return (ty != Type::Unit).then(|| self.zero(ty)),
        };
        let y = vals.get(1).copied().unwrap_or(x);
        let float = xt == Type::Float;
        let unary = |op| InstKind::Unary(op, x);
        let (kind, rty, loc) = match b {
            Builtin::Print => (InstKind::Print(x), Type::Unit, SrcLoc::NONE),
            Builtin::Len if xt == Type::Str => (InstKind::StrLen(x), Type::Int, SrcLoc::NONE),
            Builtin::Len => (InstKind::ArrayLen(x), Type::Int, SrcLoc::NONE),
            Builtin::Push => (InstKind::ArrayPush(x, y), Type::Unit, loc),
            Builtin::Pop => (InstKind::ArrayPop(x), ty, loc),
            Builtin::Float => (unary(UnaryOp::IToF), Type::Float, SrcLoc::NONE),
            Builtin::Int => (unary(UnaryOp::FToI), Type::Int, SrcLoc::NONE),
            Builtin::Str => (InstKind::ToStr(x), Type::Str, loc),
            Builtin::Sqrt => (unary(UnaryOp::FSqrt), Type::Float, SrcLoc::NONE),
            Builtin::Sin => (unary(UnaryOp::FSin), Type::Float, SrcLoc::NONE),
            Builtin::Cos => (unary(UnaryOp::FCos), Type::Float, SrcLoc::NONE),
            Builtin::Tan => (unary(UnaryOp::FTan), Type::Float, SrcLoc::NONE),
            Builtin::Exp => (unary(UnaryOp::FExp), Type::Float, SrcLoc::NONE),
            Builtin::Log => (unary(UnaryOp::FLog), Type::Float, SrcLoc::NONE),
            Builtin::Floor => (unary(UnaryOp::FFloor), Type::Float, SrcLoc::NONE),
            Builtin::Ceil => (unary(UnaryOp::FCeil), Type::Float, SrcLoc::NONE),
            Builtin::Abs if float => (unary(UnaryOp::FAbs), Type::Float, SrcLoc::NONE),
            Builtin::Abs => (unary(UnaryOp::IAbs), Type::Int, SrcLoc::NONE),
            Builtin::Min | Builtin::Max => {
                let op = match (b == Builtin::Min, float) {
                    (true, false) => BinaryOp::IMin,
                    (false, false) => BinaryOp::IMax,
                    (true, true) => BinaryOp::FMin,
                    (false, true) => BinaryOp::FMax,
                };
                (InstKind::Binary(op, x, y), xt, SrcLoc::NONE)
            }
            Builtin::Assert => (InstKind::Assert(x), Type::Unit, loc),
            Builtin::Clock => (InstKind::Clock, Type::Float, SrcLoc::NONE),
        };
        self.emit(kind, rty, loc)
    }
}

/// The condition code of a comparison operator.
fn comparison(op: BinOp) -> Option<Cmp> {
    Some(match op {
        BinOp::Eq => Cmp::Eq,
        BinOp::Ne => Cmp::Ne,
        BinOp::Lt => Cmp::Lt,
        BinOp::Le => Cmp::Le,
        BinOp::Gt => Cmp::Gt,
        BinOp::Ge => Cmp::Ge,
        _ => return None,
    })
}
