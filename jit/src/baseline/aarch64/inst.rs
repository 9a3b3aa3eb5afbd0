//! AArch64 lowering of each Waddle instruction (semantics bit for bit as
//! the interpreter's). `sdiv` never faults (`MIN / -1` wraps, `x / 0` is
//! 0), so only the zero check is needed; `fcvtzs` saturates and maps NaN to
//! 0 exactly as Rust's `as i64`; `frintm`/`frintp` keep the sign of zero.

use dynasmrt::{dynasm, DynamicLabel, DynasmApi, DynasmLabelApi};
use waddle_opt::abi::{
    TrapCode, ARRAY_DATA_OFFSET, ARRAY_LEN_OFFSET, STR_LEN_OFFSET, VMCTX_ENTRIES_OFFSET,
    VMCTX_GLOBALS_OFFSET, VMCTX_STRINGS_OFFSET,
};
use waddle_opt::ir::{BinaryOp, Cmp, FuncId, InstData, InstKind, SrcLoc, Type, UnaryOp, Value};

use super::{arg_locs, Aarch64, ArgLoc, Cond};
use crate::abi::encode_type;
use crate::baseline::cold::ColdPaths;
use crate::baseline::driver::FnCx;
use crate::baseline::plan::int_const;
use crate::helpers::{cmp_code, Helper};

const LEN: u32 = ARRAY_LEN_OFFSET as u32;
const DATA: u32 = ARRAY_DATA_OFFSET as u32;

/// Signed integer condition of a comparison.
fn int_cond(c: Cmp) -> Cond {
    match c {
        Cmp::Eq => Cond::Eq,
        Cmp::Ne => Cond::Ne,
        Cmp::Lt => Cond::Lt,
        Cmp::Le => Cond::Le,
        Cmp::Gt => Cond::Gt,
        Cmp::Ge => Cond::Ge,
    }
}

impl Aarch64 {
    /// Lowers one instruction.
    pub(super) fn lower(
        &mut self,
        cx: &FnCx<'_>,
        data: &InstData,
        cold: &mut ColdPaths<DynamicLabel>,
    ) {
        let loc = data.loc;
        let r = data.result;
        match &data.kind {
            // Written once in the prologue (`FuncPlan::consts`).
            InstKind::IConst(_) | InstKind::FConst(_) | InstKind::BConst(_) => {}
            InstKind::SConst(s) => {
                let idx = cx.env.string_index.get(s).copied().unwrap_or(0);
                let off = VMCTX_STRINGS_OFFSET as u32;
                dynasm!(self.ops ; .arch aarch64 ; ldr x8, [x19, #off]);
                self.ld_table(8, 8, idx);
                self.st_opt(r, 8);
            }
            InstKind::Copy(a) => {
                self.ld(8, *a);
                self.st_opt(r, 8);
            }
            InstKind::Unary(op, a) => self.unary(*op, *a, r),
            InstKind::Binary(op, a, b) => self.binary(cx, *op, *a, *b, r, loc, cold),
            InstKind::Call(callee, args) => self.call(cx, *callee, args, r, loc, cold),
            InstKind::GlobalGet(g) => {
                let off = VMCTX_GLOBALS_OFFSET as u32;
                dynasm!(self.ops ; .arch aarch64 ; ldr x8, [x19, #off]);
                self.ld_table(8, 8, g.as_u32() as usize);
                self.st_opt(r, 8);
            }
            InstKind::GlobalSet(g, v) => {
                let off = VMCTX_GLOBALS_OFFSET as u32;
                self.ld(9, *v);
                dynasm!(self.ops ; .arch aarch64 ; ldr x8, [x19, #off]);
                let idx = 8 * g.as_u32() as usize;
                if idx <= super::MAX_LDR_OFF {
                    let o = idx as u32;
                    dynasm!(self.ops ; .arch aarch64 ; str x9, [x8, #o]);
                } else {
                    self.mov_imm(17, idx as i64);
                    dynasm!(self.ops ; .arch aarch64 ; str x9, [x8, x17]);
                }
            }
            InstKind::ArrayLit(elems) => {
                let elem_ty = r
                    .map(|r| cx.func.value_type(r))
                    .and_then(Type::element)
                    .unwrap_or(Type::Int);
                let base = cx.plan.slots;
                for (k, &e) in elems.iter().enumerate() {
                    self.ld(8, e);
                    self.st_slot(base + k, 8);
                }
                let off = self.slot_off(base);
                self.mov_imm(2, off as i64);
                dynasm!(self.ops ; .arch aarch64 ; mov x17, sp ; add x2, x17, x2);
                self.mov_imm(1, i64::from(encode_type(elem_ty)));
                self.mov_imm(3, elems.len() as i64);
                dynasm!(self.ops ; .arch aarch64 ; mov x0, x19);
                self.call_helper(Helper::ArrayNew);
                self.check_trap_at(loc, cold);
                self.st_opt(r, 0);
            }
            InstKind::ArrayRepeat(v, n) => {
                self.ld(2, *v);
                self.ld(3, *n);
                self.mov_imm(1, i64::from(encode_type(cx.func.value_type(*v))));
                dynasm!(self.ops ; .arch aarch64 ; mov x0, x19);
                self.call_helper(Helper::ArrayRepeat);
                self.check_trap_at(loc, cold);
                self.st_opt(r, 0);
            }
            InstKind::ArrayLen(a) | InstKind::StrLen(a) => {
                let off = if matches!(data.kind, InstKind::ArrayLen(_)) {
                    LEN
                } else {
                    STR_LEN_OFFSET as u32
                };
                self.ld(8, *a);
                dynasm!(self.ops ; .arch aarch64 ; ldr x8, [x8, #off]);
                self.st_opt(r, 8);
            }
            InstKind::BoundsCheck(a, i) => {
                let l = self.trap_label(TrapCode::IndexOutOfBounds, loc, cold);
                self.ld(8, *a);
                self.ld(9, *i);
                dynasm!(self.ops ; .arch aarch64
                    ; ldr x10, [x8, #LEN]
                    ; cmp x9, x10
                    ; b.hs =>l
                );
            }
            InstKind::ArrayGet(a, i) => {
                self.ld(8, *a);
                self.ld(9, *i);
                dynasm!(self.ops ; .arch aarch64
                    ; ldr x10, [x8, #DATA]
                    ; ldr x8, [x10, x9, lsl #3]
                );
                self.st_opt(r, 8);
            }
            InstKind::ArraySet(a, i, v) => {
                self.ld(8, *a);
                self.ld(9, *i);
                self.ld(11, *v);
                dynasm!(self.ops ; .arch aarch64
                    ; ldr x10, [x8, #DATA]
                    ; str x11, [x10, x9, lsl #3]
                );
            }
            InstKind::ArrayPush(a, v) => {
                self.ld(1, *a);
                self.ld(2, *v);
                dynasm!(self.ops ; .arch aarch64 ; mov x0, x19);
                self.call_helper(Helper::ArrayPush);
                self.check_trap_at(loc, cold);
            }
            InstKind::ArrayPop(a) => {
                let l = self.trap_label(TrapCode::PopEmpty, loc, cold);
                self.ld(8, *a);
                dynasm!(self.ops ; .arch aarch64
                    ; ldr x9, [x8, #LEN]
                    ; cbz x9, =>l
                    ; sub x9, x9, #1
                    ; str x9, [x8, #LEN]
                    ; ldr x10, [x8, #DATA]
                    ; ldr x8, [x10, x9, lsl #3]
                );
                self.st_opt(r, 8);
            }
            InstKind::StrConcat(a, b) => {
                self.ld(1, *a);
                self.ld(2, *b);
                dynasm!(self.ops ; .arch aarch64 ; mov x0, x19);
                self.call_helper(Helper::StrConcat);
                self.check_trap_at(loc, cold);
                self.st_opt(r, 0);
            }
            InstKind::StrCmp(c, a, b) => {
                self.ld(0, *a);
                self.ld(1, *b);
                self.mov_imm(2, i64::from(cmp_code(*c)));
                self.call_helper(Helper::StrCmp);
                dynasm!(self.ops ; .arch aarch64 ; and x0, x0, #0xff);
                self.st_opt(r, 0);
            }
            InstKind::ToStr(v) | InstKind::Print(v) => {
                self.ld(2, *v);
                self.mov_imm(1, i64::from(encode_type(cx.func.value_type(*v))));
                dynasm!(self.ops ; .arch aarch64 ; mov x0, x19);
                self.call_helper(if matches!(data.kind, InstKind::ToStr(_)) {
                    Helper::ToStr
                } else {
                    Helper::Print
                });
                self.check_trap_at(loc, cold);
                self.st_opt(r, 0);
            }
            InstKind::Assert(c) => {
                let l = self.trap_label(TrapCode::AssertionFailed, loc, cold);
                self.ld(8, *c);
                dynasm!(self.ops ; .arch aarch64 ; cbz x8, =>l);
            }
            InstKind::Clock => {
                dynasm!(self.ops ; .arch aarch64 ; mov x0, x19);
                self.call_helper(Helper::Clock);
                self.check_trap_at(loc, cold);
                if let Some(r) = r {
                    self.stf(r, 0);
                }
            }
        }
    }

    /// Stores `X(reg)` into the result slot, if there is a result.
    fn st_opt(&mut self, r: Option<Value>, reg: u8) {
        if let Some(r) = r {
            self.st(r, reg);
        }
    }

    /// The bool result of a comparison whose flags are live: kept in the
    /// flags only when the branch right after is its one use.
    fn set_bool(&mut self, cx: &FnCx<'_>, r: Option<Value>, cond: Cond) {
        let Some(r) = r else { return };
        if !cx.plan.fused[r] {
            self.cset(cond);
            self.st(r, 8);
        }
        self.flags = Some((r, cond));
    }

    /// Stores `d0` into the result slot, if there is a result.
    fn stf_opt(&mut self, r: Option<Value>) {
        if let Some(r) = r {
            self.stf(r, 0);
        }
    }

    /// A constant word into the result slot.
    pub(super) fn const_word(&mut self, r: Option<Value>, k: i64) {
        let Some(r) = r else { return };
        if k == 0 {
            dynasm!(self.ops ; .arch aarch64 ; mov x8, xzr);
        } else {
            self.mov_imm(8, k);
        }
        self.st(r, 8);
    }

    /// A unary operation.
    fn unary(&mut self, op: UnaryOp, a: Value, r: Option<Value>) {
        match op {
            UnaryOp::INeg => {
                self.ld(8, a);
                dynasm!(self.ops ; .arch aarch64 ; neg x8, x8);
            }
            UnaryOp::BNot => {
                self.ld(8, a);
                dynasm!(self.ops ; .arch aarch64 ; eor x8, x8, #1);
            }
            UnaryOp::IAbs => {
                self.ld(8, a);
                dynasm!(self.ops ; .arch aarch64 ; cmp x8, #0 ; cneg x8, x8, lt);
            }
            UnaryOp::IToF => {
                self.ld(8, a);
                dynasm!(self.ops ; .arch aarch64 ; scvtf d0, x8);
                return self.stf_opt(r);
            }
            UnaryOp::FToI => {
                self.ldf(0, a);
                dynasm!(self.ops ; .arch aarch64 ; fcvtzs x8, d0);
            }
            UnaryOp::FNeg | UnaryOp::FAbs | UnaryOp::FSqrt | UnaryOp::FFloor | UnaryOp::FCeil => {
                self.ldf(0, a);
                match op {
                    UnaryOp::FNeg => dynasm!(self.ops ; .arch aarch64 ; fneg d0, d0),
                    UnaryOp::FAbs => dynasm!(self.ops ; .arch aarch64 ; fabs d0, d0),
                    UnaryOp::FSqrt => dynasm!(self.ops ; .arch aarch64 ; fsqrt d0, d0),
                    UnaryOp::FFloor => dynasm!(self.ops ; .arch aarch64 ; frintm d0, d0),
                    _ => dynasm!(self.ops ; .arch aarch64 ; frintp d0, d0),
                }
                return self.stf_opt(r);
            }
            UnaryOp::FSin | UnaryOp::FCos | UnaryOp::FTan | UnaryOp::FExp | UnaryOp::FLog => {
                let h = match op {
                    UnaryOp::FSin => Helper::Sin,
                    UnaryOp::FCos => Helper::Cos,
                    UnaryOp::FTan => Helper::Tan,
                    UnaryOp::FExp => Helper::Exp,
                    _ => Helper::Log,
                };
                self.ldf(0, a);
                self.call_helper(h);
                return self.stf_opt(r);
            }
        }
        self.st_opt(r, 8);
    }

    /// A binary operation.
    #[allow(clippy::too_many_arguments)]
    fn binary(
        &mut self,
        cx: &FnCx<'_>,
        op: BinaryOp,
        a: Value,
        b: Value,
        r: Option<Value>,
        loc: SrcLoc,
        cold: &mut ColdPaths<DynamicLabel>,
    ) {
        match op {
            BinaryOp::FAdd
            | BinaryOp::FSub
            | BinaryOp::FMul
            | BinaryOp::FDiv
            | BinaryOp::FRem
            | BinaryOp::FMin
            | BinaryOp::FMax => {
                self.ldf(0, a);
                self.ldf(1, b);
                match op {
                    BinaryOp::FAdd => dynasm!(self.ops ; .arch aarch64 ; fadd d0, d0, d1),
                    BinaryOp::FSub => dynasm!(self.ops ; .arch aarch64 ; fsub d0, d0, d1),
                    BinaryOp::FMul => dynasm!(self.ops ; .arch aarch64 ; fmul d0, d0, d1),
                    BinaryOp::FDiv => dynasm!(self.ops ; .arch aarch64 ; fdiv d0, d0, d1),
                    BinaryOp::FRem => self.call_helper(Helper::Fmod),
                    _ => {
                        // Rust's f64::min/max: a NaN operand yields the other
                        // one (also for signalling NaNs, unlike fminnm alone).
                        dynasm!(self.ops ; .arch aarch64
                            ; fcmp d0, d0
                            ; b.vs >x_nan
                            ; fcmp d1, d1
                            ; b.vs >done
                        );
                        if op == BinaryOp::FMin {
                            dynasm!(self.ops ; .arch aarch64 ; fminnm d0, d0, d1);
                        } else {
                            dynasm!(self.ops ; .arch aarch64 ; fmaxnm d0, d0, d1);
                        }
                        dynasm!(self.ops ; .arch aarch64
                            ; b >done
                            ; x_nan:
                            ; fmov d0, d1
                            ; done:
                        );
                    }
                }
                return self.stf_opt(r);
            }
            BinaryOp::FCmp(c) => {
                self.ldf(0, a);
                self.ldf(1, b);
                let cond = match c {
                    Cmp::Eq => Cond::Eq,
                    Cmp::Ne => Cond::Ne,
                    Cmp::Lt => Cond::Mi,
                    Cmp::Le => Cond::Ls,
                    Cmp::Gt => Cond::Gt,
                    Cmp::Ge => Cond::Ge,
                };
                dynasm!(self.ops ; .arch aarch64 ; fcmp d0, d1);
                self.set_bool(cx, r, cond);
                return;
            }
            _ => {}
        }
        self.ld(8, a);
        self.ld(9, b);
        match op {
            BinaryOp::IAdd => dynasm!(self.ops ; .arch aarch64 ; add x8, x8, x9),
            BinaryOp::ISub => dynasm!(self.ops ; .arch aarch64 ; sub x8, x8, x9),
            BinaryOp::IMul => dynasm!(self.ops ; .arch aarch64 ; mul x8, x8, x9),
            BinaryOp::IAnd => dynasm!(self.ops ; .arch aarch64 ; and x8, x8, x9),
            BinaryOp::IOr => dynasm!(self.ops ; .arch aarch64 ; orr x8, x8, x9),
            BinaryOp::IXor => dynasm!(self.ops ; .arch aarch64 ; eor x8, x8, x9),
            // The register shifts take the count modulo 64.
            BinaryOp::IShl => dynasm!(self.ops ; .arch aarch64 ; lsl x8, x8, x9),
            BinaryOp::IShr => dynasm!(self.ops ; .arch aarch64 ; asr x8, x8, x9),
            BinaryOp::IMin => dynasm!(self.ops ; .arch aarch64 ; cmp x8, x9 ; csel x8, x8, x9, lt),
            BinaryOp::IMax => dynasm!(self.ops ; .arch aarch64 ; cmp x8, x9 ; csel x8, x8, x9, gt),
            BinaryOp::IDiv | BinaryOp::IRem => {
                if int_const(cx.func, b).is_none_or(|k| k == 0) {
                    let l = self.trap_label(TrapCode::DivisionByZero, loc, cold);
                    dynasm!(self.ops ; .arch aarch64 ; cbz x9, =>l);
                }
                dynasm!(self.ops ; .arch aarch64 ; sdiv x10, x8, x9);
                if op == BinaryOp::IDiv {
                    dynasm!(self.ops ; .arch aarch64 ; mov x8, x10);
                } else {
                    dynasm!(self.ops ; .arch aarch64 ; msub x8, x10, x9, x8);
                }
            }
            BinaryOp::ICmp(c) | BinaryOp::BCmp(c) => {
                let cond = int_cond(c);
                dynasm!(self.ops ; .arch aarch64 ; cmp x8, x9);
                self.set_bool(cx, r, cond);
                return;
            }
            _ => unreachable!("float operations are handled above"),
        }
        self.st_opt(r, 8);
    }

    /// A direct call through the callee's entry slot, then the trap check.
    #[allow(clippy::too_many_arguments)]
    fn call(
        &mut self,
        cx: &FnCx<'_>,
        callee: FuncId,
        args: &[Value],
        r: Option<Value>,
        loc: SrcLoc,
        cold: &mut ColdPaths<DynamicLabel>,
    ) {
        let f = cx.env.program.funcs.get(callee);
        let Some(f) = f.filter(|f| f.sig.params.len() == args.len()) else {
            let l = self.trap_label(TrapCode::AssertionFailed, loc, cold);
            dynasm!(self.ops ; .arch aarch64 ; b =>l);
            return;
        };
        // A callee without a body here is defined in another compilation
        // unit; calling its still-empty slot is the interpreter's error.
        let unlinked = f
            .is_declaration()
            .then(|| self.trap_label(TrapCode::AssertionFailed, loc, cold));
        let (locs, _) = arg_locs(&f.sig.params);
        for (&a, &l) in args.iter().zip(&locs) {
            match l {
                ArgLoc::Stack(k) => {
                    self.ld(8, a);
                    let off = (8 * k) as u32;
                    dynasm!(self.ops ; .arch aarch64 ; str x8, [sp, #off]);
                }
                ArgLoc::Int(reg) => self.ld(reg, a),
                ArgLoc::Float(d) => self.ldf(d, a),
            }
        }
        let entries = VMCTX_ENTRIES_OFFSET as u32;
        dynasm!(self.ops ; .arch aarch64
            ; mov x0, x19
            ; ldr x16, [x19, #entries]
        );
        self.ld_table(16, 16, callee.as_u32() as usize);
        if let Some(l) = unlinked {
            dynasm!(self.ops ; .arch aarch64 ; cbz x16, =>l);
        }
        dynasm!(self.ops ; .arch aarch64 ; blr x16);
        self.check_trap_at(loc, cold);
        if let Some(r) = r {
            match f.sig.ret {
                Type::Float => self.stf(r, 0),
                Type::Bool => {
                    dynasm!(self.ops ; .arch aarch64 ; and x0, x0, #0xff);
                    self.st(r, 0);
                }
                _ => self.st(r, 0),
            }
        }
    }
}
