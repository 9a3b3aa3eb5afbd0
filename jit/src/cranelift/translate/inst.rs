//! Translation of Waddle instructions (see docs/language.md for the semantics
//! each one must reproduce bit for bit).

use cranelift_codegen::ir::{
    self,
    condcodes::{FloatCC, IntCC},
    immediates::Ieee64,
    types, InstBuilder, MemFlagsData, StackSlotData, StackSlotKind,
};
use cranelift_frontend::FunctionBuilder;
use waddle_opt::abi::{
    ElemLayout, TrapCode, ARRAY_DATA_OFFSET, ARRAY_LEN_OFFSET, STR_LEN_OFFSET,
    VMCTX_ENTRIES_OFFSET, VMCTX_GLOBALS_OFFSET, VMCTX_STRINGS_OFFSET,
};
use waddle_opt::ir::{BinaryOp, Cmp, Function, Inst, InstKind, SrcLoc, Type, UnaryOp, Value};

use super::{flags, header_flags, index_of, word_offset, Addressing, Translator};
use crate::abi::{encode_type, native_type};
use crate::helpers::{cmp_code, Helper};

fn int_cc(c: Cmp) -> IntCC {
    match c {
        Cmp::Eq => IntCC::Equal,
        Cmp::Ne => IntCC::NotEqual,
        Cmp::Lt => IntCC::SignedLessThan,
        Cmp::Le => IntCC::SignedLessThanOrEqual,
        Cmp::Gt => IntCC::SignedGreaterThan,
        Cmp::Ge => IntCC::SignedGreaterThanOrEqual,
    }
}

fn float_cc(c: Cmp) -> FloatCC {
    match c {
        Cmp::Eq => FloatCC::Equal,
        Cmp::Ne => FloatCC::NotEqual,
        Cmp::Lt => FloatCC::LessThan,
        Cmp::Le => FloatCC::LessThanOrEqual,
        Cmp::Gt => FloatCC::GreaterThan,
        Cmp::Ge => FloatCC::GreaterThanOrEqual,
    }
}

/// Whether unary `op` is translated inline, without a helper call (see
/// [`pure_unary`]).
pub(super) fn is_pure_unary(op: UnaryOp) -> bool {
    !matches!(
        op,
        UnaryOp::FSin | UnaryOp::FCos | UnaryOp::FTan | UnaryOp::FExp | UnaryOp::FLog
    )
}

/// Whether binary `op` is translated inline, without a helper call or a
/// trap (see [`pure_binary`]).
pub(super) fn is_pure_binary(op: BinaryOp) -> bool {
    !matches!(op, BinaryOp::IDiv | BinaryOp::IRem | BinaryOp::FRem)
}

/// The inline translation of unary `op` on `x`; `None` for an operation
/// that calls a helper ([`is_pure_unary`]). Shared by function bodies and
/// their segments ([`super::segment`]), so both compute the same bits.
pub(super) fn pure_unary(b: &mut FunctionBuilder, op: UnaryOp, x: ir::Value) -> Option<ir::Value> {
    if !is_pure_unary(op) {
        return None;
    }
    let ins = b.ins();
    Some(match op {
        UnaryOp::INeg => ins.ineg(x),
        UnaryOp::FNeg => ins.fneg(x),
        UnaryOp::BNot => ins.bxor_imm_s(x, 1),
        UnaryOp::IToF => ins.fcvt_from_sint(types::F64, x),
        UnaryOp::FToI => ins.fcvt_to_sint_sat(types::I64, x),
        UnaryOp::IAbs => ins.iabs(x),
        UnaryOp::FAbs => ins.fabs(x),
        UnaryOp::FSqrt => ins.sqrt(x),
        UnaryOp::FFloor => ins.floor(x),
        UnaryOp::FCeil => ins.ceil(x),
        UnaryOp::FSin | UnaryOp::FCos | UnaryOp::FTan | UnaryOp::FExp | UnaryOp::FLog => {
            unreachable!("excluded by `is_pure_unary`")
        }
    })
}

/// The inline translation of binary `op` on the Waddle operands `a` and
/// `b` of `func` (translated as `x` and `y`); `None` for an operation that
/// may trap or calls a helper ([`is_pure_binary`]). Shared by function
/// bodies and their segments ([`super::segment`]).
pub(super) fn pure_binary(
    fb: &mut FunctionBuilder,
    func: &Function,
    op: BinaryOp,
    (a, x): (Value, ir::Value),
    (b, y): (Value, ir::Value),
) -> Option<ir::Value> {
    if !is_pure_binary(op) {
        return None;
    }
    if op == BinaryOp::FMul {
        // `2.0 * x` is exactly `x + x` (the same rounding, overflow,
        // signed zero and NaN), and needs no constant in a register.
        if is_fconst(func, b, 2.0) {
            return Some(fb.ins().fadd(x, x));
        }
        if is_fconst(func, a, 2.0) {
            return Some(fb.ins().fadd(y, y));
        }
    }
    let ins = fb.ins();
    Some(match op {
        BinaryOp::IAdd => ins.iadd(x, y),
        BinaryOp::ISub => ins.isub(x, y),
        BinaryOp::IMul => ins.imul(x, y),
        BinaryOp::IAnd => ins.band(x, y),
        BinaryOp::IOr => ins.bor(x, y),
        BinaryOp::IXor => ins.bxor(x, y),
        // Cranelift shifts take the count modulo the bit width.
        BinaryOp::IShl => ins.ishl(x, y),
        BinaryOp::IShr => ins.sshr(x, y),
        BinaryOp::IMin => ins.smin(x, y),
        BinaryOp::IMax => ins.smax(x, y),
        BinaryOp::FAdd => ins.fadd(x, y),
        BinaryOp::FSub => ins.fsub(x, y),
        BinaryOp::FMul => ins.fmul(x, y),
        BinaryOp::FDiv => ins.fdiv(x, y),
        BinaryOp::FMin | BinaryOp::FMax => {
            // Cranelift's fmin/fmax propagate NaN and order -0 < +0;
            // Rust's min/max return the other operand for one NaN.
            let m = if op == BinaryOp::FMin {
                ins.fmin(x, y)
            } else {
                ins.fmax(x, y)
            };
            let x_nan = fb.ins().fcmp(FloatCC::Unordered, x, x);
            let y_nan = fb.ins().fcmp(FloatCC::Unordered, y, y);
            let m = fb.ins().select(y_nan, x, m);
            fb.ins().select(x_nan, y, m)
        }
        BinaryOp::ICmp(c) | BinaryOp::BCmp(c) => ins.icmp(int_cc(c), x, y),
        BinaryOp::FCmp(c) => ins.fcmp(float_cc(c), x, y),
        BinaryOp::IDiv | BinaryOp::IRem | BinaryOp::FRem => {
            unreachable!("excluded by `is_pure_binary`")
        }
    })
}

/// Whether `v` is the float constant `k` (bit for bit).
fn is_fconst(func: &Function, v: Value, k: f64) -> bool {
    match func.values()[v].def {
        waddle_opt::ir::ValueDef::Inst(i) => {
            matches!(func.inst(i).kind, InstKind::FConst(bits) if bits == k.to_bits())
        }
        _ => false,
    }
}

impl Translator<'_, '_> {
    /// Translates one instruction.
    pub(super) fn inst(&mut self, i: Inst) {
        let data = self.func.inst(i);
        let loc = data.loc;
        let rty = data.result.map(|r| self.func.value_type(r));
        let result = match &data.kind {
            InstKind::IConst(n) => Some(self.b.ins().iconst(types::I64, *n)),
            InstKind::FConst(bits) => Some(self.b.ins().f64const(Ieee64::with_bits(*bits))),
            InstKind::BConst(v) => Some(self.b.ins().iconst(types::I8, i64::from(*v))),
            InstKind::SConst(s) => Some(self.string_const(s)),
            InstKind::Copy(a) => Some(self.val(*a)),
            InstKind::Unary(op, a) => Some(self.unary(*op, *a)),
            InstKind::Binary(op, a, b) => Some(self.binary(*op, *a, *b, loc)),
            InstKind::Call(callee, args) => self.call(*callee, args, rty, loc),
            InstKind::GlobalGet(g) => {
                let base = self.globals_base();
                let off = word_offset(index_of(*g)).unwrap_or(i32::MAX);
                Some(self.load_word(rty.unwrap_or(Type::Int), base, off))
            }
            InstKind::GlobalSet(g, v) => {
                let base = self.globals_base();
                let off = word_offset(index_of(*g)).unwrap_or(i32::MAX);
                self.store_word(*v, base, off);
                None
            }
            InstKind::ArrayLit(elems) => Some(self.array_lit(elems, rty, loc)),
            InstKind::ArrayRepeat(v, n) => {
                let ty = encode_type(self.func.value_type(*v));
                let ty = self.b.ins().iconst(types::I32, i64::from(ty));
                let w = self.word(*v);
                let n = self.val(*n);
                let ctx = self.ctx();
                self.call_helper(Helper::ArrayRepeat, &[ctx, ty, w, n], Some(loc))
            }
            InstKind::ArrayLen(a) | InstKind::StrLen(a) => {
                // A string's length never changes; the result may move
                // only where no collection can free the object first.
                let movable = self.len_results_movable;
                let (off, fl) = if matches!(data.kind, InstKind::ArrayLen(_)) {
                    (ARRAY_LEN_OFFSET, header_flags(self.len_fixed && movable))
                } else {
                    (STR_LEN_OFFSET, header_flags(movable))
                };
                let a = self.val(*a);
                Some(self.b.ins().load(types::I64, fl, a, off))
            }
            InstKind::BoundsCheck(a, idx) => {
                let a = self.val(*a);
                let idx = self.val(*idx);
                let fl = header_flags(self.len_fixed);
                let len = self.b.ins().load(types::I64, fl, a, ARRAY_LEN_OFFSET);
                let out = self
                    .b
                    .ins()
                    .icmp(IntCC::UnsignedGreaterThanOrEqual, idx, len);
                self.trap_if(out, TrapCode::IndexOutOfBounds, loc);
                None
            }
            InstKind::ArrayGet(a, idx) => {
                let (addr, layout) = self.elem_addr(*a, *idx);
                Some(self.load_elem(layout, rty.unwrap_or(Type::Int), addr))
            }
            InstKind::ArraySet(a, idx, v) => {
                let (addr, layout) = self.elem_addr(*a, *idx);
                self.store_elem(layout, *v, addr);
                None
            }
            InstKind::ArrayPush(a, v) => {
                let a = self.val(*a);
                let w = self.word(*v);
                let ctx = self.ctx();
                self.call_helper(Helper::ArrayPush, &[ctx, a, w], Some(loc));
                None
            }
            InstKind::ArrayPop(a) => Some(self.array_pop(*a, rty, loc)),
            InstKind::StrConcat(a, b) => {
                let (a, b) = (self.val(*a), self.val(*b));
                let ctx = self.ctx();
                self.call_helper(Helper::StrConcat, &[ctx, a, b], Some(loc))
            }
            InstKind::StrCmp(c, a, b) => {
                let (a, b) = (self.val(*a), self.val(*b));
                let cc = self.b.ins().iconst(types::I32, i64::from(cmp_code(*c)));
                self.call_helper(Helper::StrCmp, &[a, b, cc], None)
            }
            InstKind::ToStr(v) | InstKind::Print(v) => {
                let ty = encode_type(self.func.value_type(*v));
                let ty = self.b.ins().iconst(types::I32, i64::from(ty));
                let w = self.word(*v);
                let h = if matches!(data.kind, InstKind::ToStr(_)) {
                    Helper::ToStr
                } else {
                    Helper::Print
                };
                let ctx = self.ctx();
                self.call_helper(h, &[ctx, ty, w], Some(loc))
            }
            InstKind::Assert(c) => {
                let c = self.val(*c);
                let tb = self.trap_block(TrapCode::AssertionFailed, loc);
                let cont = self.b.create_block();
                self.b.ins().brif(c, cont, &[], tb, &[]);
                self.b.switch_to_block(cont);
                None
            }
            InstKind::Clock => {
                let ctx = self.ctx();
                self.call_helper(Helper::Clock, &[ctx], Some(loc))
            }
            InstKind::HostCall(h, args) => self.host_call(h.as_u32(), args, rty, loc),
        };
        if let (Some(r), Some(v)) = (data.result, result) {
            self.def(r, v);
        }
    }

    /// The interned string for constant `s` (loaded from the string table,
    /// which is filled before code runs).
    fn string_const(&mut self, s: &str) -> ir::Value {
        let idx = self.env.string_index.get(s).copied().unwrap_or(0);
        let (p, off) = match self.env.addressing {
            Addressing::Absolute if !self.env.strings_from_ctx => {
                let addr = self.env.string_table + idx * 8;
                (self.b.ins().iconst(types::I64, addr as i64), 0)
            }
            Addressing::Absolute | Addressing::Tables => {
                let ctx = self.ctx();
                let table = self
                    .b
                    .ins()
                    .load(types::I64, flags(), ctx, VMCTX_STRINGS_OFFSET);
                (table, word_offset(idx).unwrap_or(i32::MAX))
            }
        };
        self.b
            .ins()
            .load(types::I64, flags().with_readonly(), p, off)
    }

    /// `v` as a raw word (for helpers and memory): bools zero-extended,
    /// floats by their bits.
    fn word(&mut self, v: Value) -> ir::Value {
        let cv = self.val(v);
        match self.func.value_type(v) {
            Type::Bool => self.b.ins().uextend(types::I64, cv),
            Type::Float => self.b.ins().bitcast(types::I64, MemFlagsData::new(), cv),
            _ => cv,
        }
    }

    /// Loads a word holding a value of type `ty` from `base + off`.
    fn load_word(&mut self, ty: Type, base: ir::Value, off: i32) -> ir::Value {
        match ty {
            Type::Float => self.b.ins().load(types::F64, flags(), base, off),
            Type::Bool => {
                let w = self.b.ins().load(types::I64, flags(), base, off);
                self.b.ins().ireduce(types::I8, w)
            }
            _ => self.b.ins().load(types::I64, flags(), base, off),
        }
    }

    /// Stores `v` as a word at `base + off`.
    fn store_word(&mut self, v: Value, base: ir::Value, off: i32) {
        let cv = self.val(v);
        let cv = if self.func.value_type(v) == Type::Bool {
            self.b.ins().uextend(types::I64, cv)
        } else {
            cv
        };
        self.b.ins().store(flags(), cv, base, off);
    }

    /// The globals area's base address.
    fn globals_base(&mut self) -> ir::Value {
        let ctx = self.ctx();
        self.b
            .ins()
            .load(types::I64, flags(), ctx, VMCTX_GLOBALS_OFFSET)
    }

    /// Address of element `idx` of array `a` (no check), and the layout
    /// of its elements.
    fn elem_addr(&mut self, a: Value, idx: Value) -> (ir::Value, ElemLayout) {
        let layout = ElemLayout::of_array(self.func.value_type(a));
        let a = self.val(a);
        let idx = self.val(idx);
        let fl = header_flags(self.data_fixed);
        let data = self.b.ins().load(types::I64, fl, a, ARRAY_DATA_OFFSET);
        (self.elem_at(data, idx, layout), layout)
    }

    /// `data + index * element size` for elements laid out as `layout`.
    fn elem_at(&mut self, data: ir::Value, index: ir::Value, layout: ElemLayout) -> ir::Value {
        let off = match layout.shift() {
            0 => index,
            k => self.b.ins().ishl_imm_s(index, i64::from(k)),
        };
        self.b.ins().iadd(data, off)
    }

    /// Loads an element of type `ty` laid out as `layout` from `addr`.
    fn load_elem(&mut self, layout: ElemLayout, ty: Type, addr: ir::Value) -> ir::Value {
        match layout {
            ElemLayout::Byte => self.b.ins().load(types::I8, flags(), addr, 0),
            ElemLayout::Word | ElemLayout::Ref => self.load_word(ty, addr, 0),
        }
    }

    /// Stores the element `v` laid out as `layout` at `addr`.
    fn store_elem(&mut self, layout: ElemLayout, v: Value, addr: ir::Value) {
        match layout {
            ElemLayout::Byte => {
                let cv = self.val(v);
                self.b.ins().store(flags(), cv, addr, 0);
            }
            ElemLayout::Word | ElemLayout::Ref => self.store_word(v, addr, 0),
        }
    }

    /// `[e0, e1, ...]`: the elements go to a stack slot of this frame, then
    /// to the allocation helper.
    fn array_lit(&mut self, elems: &[Value], rty: Option<Type>, loc: SrcLoc) -> ir::Value {
        let elem_ty = rty.and_then(Type::element).unwrap_or(Type::Int);
        let ptr = if elems.is_empty() {
            self.b.ins().iconst(types::I64, 0)
        } else {
            let size = u32::try_from(elems.len() * 8).unwrap_or(u32::MAX);
            let slot = self.b.create_sized_stack_slot(StackSlotData::new(
                StackSlotKind::ExplicitSlot,
                size,
                3,
            ));
            let base = self.b.ins().stack_addr(types::I64, slot, 0);
            for (k, &e) in elems.iter().enumerate() {
                let off = word_offset(k).unwrap_or(i32::MAX);
                self.store_word(e, base, off);
            }
            base
        };
        let ty = self
            .b
            .ins()
            .iconst(types::I32, i64::from(encode_type(elem_ty)));
        let n = self.b.ins().iconst(types::I64, elems.len() as i64);
        let ctx = self.ctx();
        let r = self.call_helper(Helper::ArrayNew, &[ctx, ty, ptr, n], Some(loc));
        r.unwrap_or(ptr)
    }

    /// A host-function call: the arguments as words in a stack slot, one
    /// helper call, the result word narrowed to the result type.
    fn host_call(
        &mut self,
        id: u32,
        args: &[Value],
        rty: Option<Type>,
        loc: SrcLoc,
    ) -> Option<ir::Value> {
        let ptr = if args.is_empty() {
            self.b.ins().iconst(types::I64, 0)
        } else {
            let size = u32::try_from(args.len() * 8).unwrap_or(u32::MAX);
            let slot = self.b.create_sized_stack_slot(StackSlotData::new(
                StackSlotKind::ExplicitSlot,
                size,
                3,
            ));
            let base = self.b.ins().stack_addr(types::I64, slot, 0);
            for (k, &a) in args.iter().enumerate() {
                let off = word_offset(k).unwrap_or(i32::MAX);
                self.store_word(a, base, off);
            }
            base
        };
        let id = self.b.ins().iconst(types::I32, i64::from(id));
        let n = self.b.ins().iconst(types::I64, args.len() as i64);
        let ctx = self.ctx();
        self.store_copy_depth();
        let w = self.call_helper(Helper::HostCall, &[ctx, id, ptr, n], Some(loc))?;
        Some(match rty? {
            Type::Float => self.b.ins().bitcast(types::F64, MemFlagsData::new(), w),
            Type::Bool => self.b.ins().ireduce(types::I8, w),
            _ => w,
        })
    }

    /// `pop(a)`: empty check, shrink, load the old last element.
    fn array_pop(&mut self, a: Value, rty: Option<Type>, loc: SrcLoc) -> ir::Value {
        let av = self.val(a);
        let len = self.b.ins().load(types::I64, flags(), av, ARRAY_LEN_OFFSET);
        let empty = self.b.ins().icmp_imm_s(IntCC::Equal, len, 0);
        self.trap_if(empty, TrapCode::PopEmpty, loc);
        let nl = self.b.ins().iadd_imm_s(len, -1);
        self.b.ins().store(flags(), nl, av, ARRAY_LEN_OFFSET);
        let data = self
            .b
            .ins()
            .load(types::I64, flags(), av, ARRAY_DATA_OFFSET);
        let layout = ElemLayout::of_array(self.func.value_type(a));
        let addr = self.elem_at(data, nl, layout);
        self.load_elem(layout, rty.unwrap_or(Type::Int), addr)
    }

    /// A direct call through the callee's entry slot (or of this function's
    /// own code, for a self call when the unit allows it), then the trap
    /// check.
    /// Calls that cannot be executed (callee without a body, wrong number of
    /// arguments) trap `assertion failed` at the call, as in the interpreter.
    fn call(
        &mut self,
        callee: waddle_opt::ir::FuncId,
        args: &[Value],
        rty: Option<Type>,
        loc: SrcLoc,
    ) -> Option<ir::Value> {
        let callee_fn = self.env.program.funcs.get(callee);
        let ok = callee_fn.is_some_and(|f| f.sig().params.len() == args.len());
        let declared = callee_fn.is_some_and(|f| f.is_declaration());
        let off = word_offset(index_of(callee));
        let (true, Some(off)) = (ok, off) else {
            self.trap_always(TrapCode::AssertionFailed, loc);
            let t = rty.and_then(native_type)?;
            return Some(self.zero(t));
        };
        let mut cargs = Vec::with_capacity(args.len() + 1);
        let ctx = self.ctx();
        cargs.push(ctx);
        cargs.extend(args.iter().map(|&a| self.val(a)));
        if self.inline_self && self.inlined.is_none() && self.is_self(callee) {
            let cargs = cargs[1..].to_vec();
            return self.inline_self_call(&cargs, loc);
        }
        if let Some((_, fref)) = self.self_call.filter(|&(me, _)| me == callee) {
            if self.guards_here() {
                let args = cargs[1..].to_vec();
                return self
                    .guarded_self_call(&args, loc, |t| t.direct_self_call(fref, &cargs, loc));
            }
            return self.direct_self_call(fref, &cargs, loc);
        }
        let sig = self.callee_sig(callee);
        let ctx = self.ctx();
        let entries = self
            .b
            .ins()
            .load(types::I64, flags(), ctx, VMCTX_ENTRIES_OFFSET);
        let code = self.b.ins().load(types::I64, flags(), entries, off);
        if declared {
            // Defined in another unit: its slot is filled when the units are
            // linked; calling a still-empty slot is the interpreter's error
            // for calling a function without a body.
            let unlinked = self.b.ins().icmp_imm_u(IntCC::Equal, code, 0);
            self.trap_if(unlinked, TrapCode::AssertionFailed, loc);
        }
        self.store_copy_depth();
        let call = self.b.ins().call_indirect(sig, code, &cargs);
        let r = self.b.inst_results(call).first().copied();
        self.check_trap(Some(loc));
        r
    }

    /// A self call: this function's own code, directly (see
    /// `Translator::run`), with the context and native arguments `cargs`.
    /// Under `unwind` a trap never returns here (`super::unwind`): the call
    /// is tagged with its site instead of followed by a test.
    fn direct_self_call(
        &mut self,
        fref: ir::FuncRef,
        cargs: &[ir::Value],
        loc: SrcLoc,
    ) -> Option<ir::Value> {
        self.store_copy_depth();
        if self.unwind.is_some() {
            let tag = self.unwind_sites.len() as u32;
            self.unwind_sites.push((loc, self.inline_sites));
            self.b.set_srcloc(ir::SourceLoc::new(tag));
            let call = self.b.ins().call(fref, cargs);
            self.b.set_srcloc(ir::SourceLoc::default());
            return self.b.inst_results(call).first().copied();
        }
        let call = self.b.ins().call(fref, cargs);
        let r = self.b.inst_results(call).first().copied();
        self.check_trap(Some(loc));
        r
    }

    /// A unary operation.
    fn unary(&mut self, op: UnaryOp, a: Value) -> ir::Value {
        let x = self.val(a);
        if let Some(v) = pure_unary(&mut self.b, op, x) {
            return v;
        }
        match op {
            UnaryOp::FSin => self.math(Helper::Sin, &[x]),
            UnaryOp::FCos => self.math(Helper::Cos, &[x]),
            UnaryOp::FTan => self.math(Helper::Tan, &[x]),
            UnaryOp::FExp => self.math(Helper::Exp, &[x]),
            UnaryOp::FLog => self.math(Helper::Log, &[x]),
            _ => unreachable!("`pure_unary` translates every other operation"),
        }
    }

    /// A call of a pure float helper.
    fn math(&mut self, h: Helper, args: &[ir::Value]) -> ir::Value {
        match self.call_helper(h, args, None) {
            Some(v) => v,
            None => self.b.ins().f64const(0.0),
        }
    }

    /// A binary operation.
    fn binary(&mut self, op: BinaryOp, a: Value, b: Value, loc: SrcLoc) -> ir::Value {
        let (x, y) = (self.val(a), self.val(b));
        if let Some(v) = pure_binary(&mut self.b, self.func, op, (a, x), (b, y)) {
            return v;
        }
        match op {
            BinaryOp::IDiv | BinaryOp::IRem => self.div_rem(op == BinaryOp::IDiv, b, x, y, loc),
            BinaryOp::FRem => self.math(Helper::Fmod, &[x, y]),
            _ => unreachable!("`pure_binary` translates every other operation"),
        }
    }

    /// Integer `/` or `%`: zero divisor traps, `MIN / -1` wraps and
    /// `MIN % -1` is 0 without a hardware fault.
    fn div_rem(
        &mut self,
        div: bool,
        b: Value,
        x: ir::Value,
        y: ir::Value,
        loc: SrcLoc,
    ) -> ir::Value {
        let known = match self.func.values()[b].def {
            waddle_opt::ir::ValueDef::Inst(i) => match self.func.inst(i).kind {
                InstKind::IConst(k) => Some(k),
                _ => None,
            },
            _ => None,
        };
        match known {
            Some(k) if k != 0 && k != -1 => {
                return if div {
                    self.b.ins().sdiv(x, y)
                } else {
                    self.b.ins().srem(x, y)
                };
            }
            Some(0) => {
                self.trap_always(TrapCode::DivisionByZero, loc);
                return self.b.ins().iconst(types::I64, 0);
            }
            _ => {}
        }
        if known.is_none() {
            let zero = self.b.ins().icmp_imm_s(IntCC::Equal, y, 0);
            self.trap_if(zero, TrapCode::DivisionByZero, loc);
        }
        let minus1 = self.b.ins().icmp_imm_s(IntCC::Equal, y, -1);
        let one = self.b.ins().iconst(types::I64, 1);
        let safe = self.b.ins().select(minus1, one, y);
        if div {
            let q = self.b.ins().sdiv(x, safe);
            let neg = self.b.ins().ineg(x);
            self.b.ins().select(minus1, neg, q)
        } else {
            // x % 1 == 0 == x % -1.
            self.b.ins().srem(x, safe)
        }
    }
}
