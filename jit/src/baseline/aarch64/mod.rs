//! The AArch64 back end of the baseline tier: AAPCS64 code emitted with
//! dynasmrt's aarch64 assembler into a byte vector, **position
//! independent** (no absolute address anywhere in the code: runtime
//! helpers are called through `VmCtx::helpers`, string constants loaded
//! from `VmCtx::strings`, Waddle functions called through
//! `VmCtx::entries`), so the image can run wherever a loader maps it (see
//! [`super::image`] for the entry convention).
//!
//! Frame: `stp x29, x30, [sp, #-32]!; mov x29, sp; str x19, [sp, #16]`,
//! then `sp` drops by the body frame: the outgoing stack-argument area at
//! `[sp]`, then one 8-byte slot per SSA value (value `v` at
//! `[sp + 8 * (out + v)]`), then the array-literal scratch words. `x19`
//! holds the `VmCtx` pointer; `x8`–`x17` and `d0`–`d2` are scratch within
//! an instruction; nothing is kept in registers between instructions
//! except the flags of a just-computed comparison.

mod inst;
pub(crate) mod tramp;

use dynasmrt::aarch64::Aarch64Relocation;
use dynasmrt::{dynasm, DynamicLabel, DynasmApi, DynasmLabelApi, VecAssembler};
use waddle_opt::abi::{
    TrapCode, VMCTX_FUEL_OFFSET, VMCTX_HELPERS_OFFSET, VMCTX_STACK_LIMIT_OFFSET,
    VMCTX_TRAP_CODE_OFFSET, VMCTX_TRAP_COL_OFFSET, VMCTX_TRAP_FILE_OFFSET, VMCTX_TRAP_LINE_OFFSET,
    VMCTX_TRAP_LOC_SET_OFFSET,
};
use waddle_opt::ir::{InstKind, SrcLoc, Type, Value};

use super::cold::{Cold, ColdPaths};
use super::driver::{Backend, FnCx};
use super::moves::MoveOp;
use super::plan::slot;
use crate::helpers::Helper;

/// The assembler the AArch64 image is emitted into.
pub(crate) type Asm = VecAssembler<Aarch64Relocation>;

/// Integer argument registers after `x0` (which carries the `VmCtx`).
pub(crate) const INT_ARGS: [u8; 7] = [1, 2, 3, 4, 5, 6, 7];
/// Number of `d` argument registers.
pub(crate) const FLOAT_ARGS: usize = 8;

/// Where each native argument of a Waddle signature travels (AAPCS64).
#[derive(Copy, Clone, Debug)]
pub(crate) enum ArgLoc {
    /// `x` register number.
    Int(u8),
    /// `d` register number.
    Float(u8),
    /// Stack word number `k` at the call.
    Stack(usize),
}

/// The AAPCS64 locations of a Waddle function's parameters (the `VmCtx`
/// in `x0` excluded), and the number of stack words.
pub(crate) fn arg_locs(params: &[Type]) -> (Vec<ArgLoc>, usize) {
    let (mut ni, mut nf, mut ns) = (0, 0, 0);
    let locs = params
        .iter()
        .map(|&t| {
            if t == Type::Float {
                if nf < FLOAT_ARGS {
                    nf += 1;
                    return ArgLoc::Float(nf as u8 - 1);
                }
            } else if ni < INT_ARGS.len() {
                ni += 1;
                return ArgLoc::Int(INT_ARGS[ni - 1]);
            }
            ns += 1;
            ArgLoc::Stack(ns - 1)
        })
        .collect();
    (locs, ns)
}

/// Condition codes of a live comparison.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) enum Cond {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    /// Float `<` (false when unordered).
    Mi,
    /// Float `<=` (false when unordered).
    Ls,
    /// Negation of `Mi`.
    Pl,
    /// Negation of `Ls`.
    Hi,
}

impl Cond {
    /// The condition that holds exactly when `self` does not.
    fn invert(self) -> Cond {
        match self {
            Cond::Eq => Cond::Ne,
            Cond::Ne => Cond::Eq,
            Cond::Lt => Cond::Ge,
            Cond::Ge => Cond::Lt,
            Cond::Le => Cond::Gt,
            Cond::Gt => Cond::Le,
            Cond::Mi => Cond::Pl,
            Cond::Pl => Cond::Mi,
            Cond::Ls => Cond::Hi,
            Cond::Hi => Cond::Ls,
        }
    }
}

/// The AArch64 baseline back end: one per image.
pub(crate) struct Aarch64 {
    /// The code being emitted.
    pub ops: Asm,
    /// Words of the outgoing stack-argument area of the current function.
    out: usize,
    /// Body frame size in bytes of the current function.
    frame: usize,
    exit: DynamicLabel,
    overflow: DynamicLabel,
    flags: Option<(Value, Cond)>,
}

/// Largest byte offset of an `ldr x, [base, #off]` (scaled 12-bit).
const MAX_LDR_OFF: usize = 32760;

impl Aarch64 {
    /// A back end with an empty assembler.
    pub fn new() -> Aarch64 {
        let mut ops = Asm::new(0);
        let exit = ops.new_dynamic_label();
        let overflow = ops.new_dynamic_label();
        Aarch64 {
            ops,
            out: 0,
            frame: 0,
            exit,
            overflow,
            flags: None,
        }
    }

    /// Current code offset.
    pub fn offset(&self) -> usize {
        self.ops.offset().0
    }

    /// Byte offset from `sp` of slot `s`.
    fn slot_off(&self, s: usize) -> usize {
        8 * (self.out + s)
    }

    /// `X(r) = k` by `movz`/`movk`.
    pub(crate) fn mov_imm(&mut self, r: u8, k: i64) {
        mov_imm(&mut self.ops, r, k);
    }

    /// `x16 = sp + off` when `off` is too large for an immediate offset.
    fn far_addr(&mut self, off: usize) {
        self.mov_imm(16, off as i64);
        dynasm!(self.ops ; .arch aarch64 ; mov x17, sp ; add x16, x17, x16);
    }

    /// `X(r) = slot[s]`.
    fn ld_slot(&mut self, r: u8, s: usize) {
        let off = self.slot_off(s);
        if off <= MAX_LDR_OFF {
            let o = off as u32;
            dynasm!(self.ops ; .arch aarch64 ; ldr X(r), [sp, #o]);
        } else {
            self.far_addr(off);
            dynasm!(self.ops ; .arch aarch64 ; ldr X(r), [x16]);
        }
    }

    /// `slot[s] = X(r)`.
    fn st_slot(&mut self, s: usize, r: u8) {
        let off = self.slot_off(s);
        if off <= MAX_LDR_OFF {
            let o = off as u32;
            dynasm!(self.ops ; .arch aarch64 ; str X(r), [sp, #o]);
        } else {
            self.far_addr(off);
            dynasm!(self.ops ; .arch aarch64 ; str X(r), [x16]);
        }
    }

    /// `X(r) = v`.
    fn ld(&mut self, r: u8, v: Value) {
        self.ld_slot(r, slot(v));
    }

    /// `v = X(r)`.
    fn st(&mut self, v: Value, r: u8) {
        self.st_slot(slot(v), r);
    }

    /// `D(d) = v`.
    fn ldf(&mut self, d: u8, v: Value) {
        let off = self.slot_off(slot(v));
        if off <= MAX_LDR_OFF {
            let o = off as u32;
            dynasm!(self.ops ; .arch aarch64 ; ldr D(d), [sp, #o]);
        } else {
            self.far_addr(off);
            dynasm!(self.ops ; .arch aarch64 ; ldr D(d), [x16]);
        }
    }

    /// `v = D(d)`.
    fn stf(&mut self, v: Value, d: u8) {
        let off = self.slot_off(slot(v));
        if off <= MAX_LDR_OFF {
            let o = off as u32;
            dynasm!(self.ops ; .arch aarch64 ; str D(d), [sp, #o]);
        } else {
            self.far_addr(off);
            dynasm!(self.ops ; .arch aarch64 ; str D(d), [x16]);
        }
    }

    /// `X(r) = [X(base) + 8 * index]` for a table index known at compile time.
    fn ld_table(&mut self, r: u8, base: u8, index: usize) {
        let off = 8 * index;
        if off <= MAX_LDR_OFF {
            let o = off as u32;
            dynasm!(self.ops ; .arch aarch64 ; ldr X(r), [X(base), o]);
        } else {
            self.mov_imm(17, off as i64);
            dynasm!(self.ops ; .arch aarch64 ; ldr X(r), [X(base), x17]);
        }
    }

    /// Calls a runtime helper through `VmCtx::helpers` (arguments in place).
    fn call_helper(&mut self, h: Helper) {
        let off = VMCTX_HELPERS_OFFSET as u32;
        dynasm!(self.ops ; .arch aarch64 ; ldr x16, [x19, #off]);
        self.ld_table(16, 16, h as usize);
        dynasm!(self.ops ; .arch aarch64 ; blr x16);
    }

    /// Leaves through `label` when the trap record holds a trap.
    fn check_trap(&mut self, label: DynamicLabel) {
        let off = VMCTX_TRAP_CODE_OFFSET as u32;
        dynasm!(self.ops ; .arch aarch64
            ; ldr w8, [x19, #off]
            ; cbnz w8, =>label
        );
    }

    /// After a helper that may fail: a trap leaves, pointing at `loc`.
    fn check_trap_at(&mut self, loc: SrcLoc, cold: &mut ColdPaths<DynamicLabel>) {
        let ops = &mut self.ops;
        let l = cold.propagate(loc, || ops.new_dynamic_label());
        self.check_trap(l);
    }

    /// The label of the path raising `code` at `loc`.
    fn trap_label(
        &mut self,
        code: TrapCode,
        loc: SrcLoc,
        cold: &mut ColdPaths<DynamicLabel>,
    ) -> DynamicLabel {
        let ops = &mut self.ops;
        cold.trap(code, loc, || ops.new_dynamic_label())
    }

    /// Writes the 32-bit `value` at `VmCtx + off`.
    fn store_ctx_u32(&mut self, off: i32, value: u32) {
        self.mov_imm(8, i64::from(value));
        let o = off as u32;
        dynasm!(self.ops ; .arch aarch64 ; str w8, [x19, #o]);
    }

    /// Writes `loc` into the trap record.
    fn store_loc(&mut self, loc: SrcLoc) {
        self.store_ctx_u32(VMCTX_TRAP_FILE_OFFSET, loc.file);
        self.store_ctx_u32(VMCTX_TRAP_LINE_OFFSET, loc.line);
        self.store_ctx_u32(VMCTX_TRAP_COL_OFFSET, loc.col);
        self.store_ctx_u32(VMCTX_TRAP_LOC_SET_OFFSET, 1);
    }

    /// `b.cond l`.
    fn bcond(&mut self, c: Cond, l: DynamicLabel) {
        match c {
            Cond::Eq => dynasm!(self.ops ; .arch aarch64 ; b.eq =>l),
            Cond::Ne => dynasm!(self.ops ; .arch aarch64 ; b.ne =>l),
            Cond::Lt => dynasm!(self.ops ; .arch aarch64 ; b.lt =>l),
            Cond::Le => dynasm!(self.ops ; .arch aarch64 ; b.le =>l),
            Cond::Gt => dynasm!(self.ops ; .arch aarch64 ; b.gt =>l),
            Cond::Ge => dynasm!(self.ops ; .arch aarch64 ; b.ge =>l),
            Cond::Mi => dynasm!(self.ops ; .arch aarch64 ; b.mi =>l),
            Cond::Ls => dynasm!(self.ops ; .arch aarch64 ; b.ls =>l),
            Cond::Pl => dynasm!(self.ops ; .arch aarch64 ; b.pl =>l),
            Cond::Hi => dynasm!(self.ops ; .arch aarch64 ; b.hi =>l),
        }
    }

    /// `x8 = cond ? 1 : 0`.
    fn cset(&mut self, c: Cond) {
        match c {
            Cond::Eq => dynasm!(self.ops ; .arch aarch64 ; cset x8, eq),
            Cond::Ne => dynasm!(self.ops ; .arch aarch64 ; cset x8, ne),
            Cond::Lt => dynasm!(self.ops ; .arch aarch64 ; cset x8, lt),
            Cond::Le => dynasm!(self.ops ; .arch aarch64 ; cset x8, le),
            Cond::Gt => dynasm!(self.ops ; .arch aarch64 ; cset x8, gt),
            Cond::Ge => dynasm!(self.ops ; .arch aarch64 ; cset x8, ge),
            Cond::Mi => dynasm!(self.ops ; .arch aarch64 ; cset x8, mi),
            Cond::Ls => dynasm!(self.ops ; .arch aarch64 ; cset x8, ls),
            Cond::Pl => dynasm!(self.ops ; .arch aarch64 ; cset x8, pl),
            Cond::Hi => dynasm!(self.ops ; .arch aarch64 ; cset x8, hi),
        }
    }

    /// The return sequence (result already in `x0`/`d0`).
    fn epilogue(&mut self) {
        dynasm!(self.ops ; .arch aarch64
            ; mov sp, x29
            ; ldr x19, [x29, #16]
            ; ldp x29, x30, [sp], #32
            ; ret
        );
    }

    /// `cmp X(r), #k` for any `k` (through `x17` when not an immediate).
    fn cmp_imm(&mut self, r: u8, k: i64) {
        if (0..4096).contains(&k) {
            let k = k as u32;
            dynasm!(self.ops ; .arch aarch64 ; cmp XSP(r), #k);
        } else {
            self.mov_imm(17, k);
            dynasm!(self.ops ; .arch aarch64 ; cmp X(r), x17);
        }
    }
}

/// Emits `X(r) = k` as `movz` plus `movk` for the other non-zero halfwords
/// (or `movn` for small negatives).
pub(crate) fn mov_imm(ops: &mut Asm, r: u8, k: i64) {
    let u = k as u64;
    if (-0x1_0000..0).contains(&k) {
        let n = !u as u32;
        dynasm!(ops ; .arch aarch64 ; movn X(r), #n);
        return;
    }
    let mut first = true;
    for shift in [0u32, 16, 32, 48] {
        let half = ((u >> shift) & 0xffff) as u32;
        if half == 0 && !(first && shift == 48) {
            continue;
        }
        if first {
            dynasm!(ops ; .arch aarch64 ; movz X(r), #half, lsl #shift);
            first = false;
        } else {
            dynasm!(ops ; .arch aarch64 ; movk X(r), #half, lsl #shift);
        }
    }
}

/// Words of outgoing stack arguments the calls of `cx`'s function need.
fn outgoing_words(cx: &FnCx<'_>) -> usize {
    let mut out = 0;
    for &b in &cx.plan.order {
        for &i in &cx.func.blocks[b].insts {
            if let InstKind::Call(callee, _) = &cx.func.inst(i).kind {
                if let Some(f) = cx.env.program.funcs.get(*callee) {
                    out = out.max(arg_locs(&f.sig.params).1);
                }
            }
        }
    }
    out
}

impl Backend for Aarch64 {
    type Label = DynamicLabel;

    fn new_label(&mut self) -> DynamicLabel {
        self.ops.new_dynamic_label()
    }

    fn bind(&mut self, l: DynamicLabel) {
        self.flags = None;
        dynasm!(self.ops ; .arch aarch64 ; =>l);
    }

    fn prologue(&mut self, cx: &FnCx<'_>, cold: &mut ColdPaths<DynamicLabel>) {
        self.flags = None;
        self.exit = self.ops.new_dynamic_label();
        self.overflow = self.ops.new_dynamic_label();
        self.out = outgoing_words(cx);
        let words = self.out + cx.plan.frame_words();
        self.frame = (8 * words).next_multiple_of(16);
        let overflow = self.overflow;
        let limit = VMCTX_STACK_LIMIT_OFFSET as u32;
        dynasm!(self.ops ; .arch aarch64
            ; stp x29, x30, [sp, #-32]!
            ; mov x29, sp
            ; str x19, [sp, #16]
            ; mov x19, x0
        );
        self.mov_imm(16, self.frame as i64);
        dynasm!(self.ops ; .arch aarch64
            ; mov x17, sp
            ; sub x16, x17, x16
            ; ldr x17, [x19, #limit]
            ; cmp x16, x17
            ; b.lo =>overflow
            ; mov sp, x16
        );
        let entry = cx.func.entry();
        let params = &cx.func.blocks[entry].params;
        let (locs, _) = arg_locs(&cx.func.sig.params);
        for (&p, &loc) in params.iter().zip(&locs) {
            let is_bool = cx.func.value_type(p) == Type::Bool;
            match loc {
                ArgLoc::Int(r) if is_bool => {
                    dynasm!(self.ops ; .arch aarch64 ; and XSP(r), X(r), #0xff);
                    self.st(p, r);
                }
                ArgLoc::Int(r) => self.st(p, r),
                ArgLoc::Float(d) => self.stf(p, d),
                ArgLoc::Stack(k) => {
                    // Caller's stack arguments start above the frame record.
                    let off = (32 + 8 * k) as u32;
                    if is_bool {
                        dynasm!(self.ops ; .arch aarch64 ; ldrb w8, [x29, #off]);
                    } else {
                        dynasm!(self.ops ; .arch aarch64 ; ldr x8, [x29, #off]);
                    }
                    self.st(p, 8);
                }
            }
        }
        for &(v, k) in &cx.plan.consts {
            self.const_word(Some(v), k);
        }
        if cx.env.fuel {
            let refill = self.ops.new_dynamic_label();
            let resume = self.ops.new_dynamic_label();
            self.fuel_dec(refill, resume);
            cold.fuel(resume, None, refill);
        }
    }

    fn inst(
        &mut self,
        cx: &FnCx<'_>,
        data: &waddle_opt::ir::InstData,
        cold: &mut ColdPaths<DynamicLabel>,
    ) {
        self.flags = None;
        self.lower(cx, data, cold);
    }

    fn moves(&mut self, ops: &[MoveOp]) {
        self.flags = None;
        for &op in ops {
            match op {
                MoveOp::Copy { dst, src } => {
                    self.ld_slot(8, src);
                    self.st_slot(dst, 8);
                }
                MoveOp::ToTemp(src) => self.ld_slot(9, src),
                MoveOp::FromTemp(dst) => self.st_slot(dst, 9),
            }
        }
    }

    fn fuel_tick(&mut self, loc: SrcLoc, cold: &mut ColdPaths<DynamicLabel>) {
        self.flags = None;
        let refill = self.ops.new_dynamic_label();
        let resume = self.ops.new_dynamic_label();
        self.fuel_dec(refill, resume);
        cold.fuel(resume, Some(loc), refill);
    }

    fn jump(&mut self, l: DynamicLabel) {
        dynasm!(self.ops ; .arch aarch64 ; b =>l);
    }

    fn branch(&mut self, _cx: &FnCx<'_>, v: Value, k: i64, eq: bool, l: DynamicLabel) {
        if let Some((fv, c)) = self.flags {
            if fv == v && (k == 0 || k == 1) {
                let taken = if (k == 1) == eq { c } else { c.invert() };
                self.bcond(taken, l);
                return;
            }
        }
        self.ld(8, v);
        if k == 0 {
            if eq {
                dynasm!(self.ops ; .arch aarch64 ; cbz x8, =>l);
            } else {
                dynasm!(self.ops ; .arch aarch64 ; cbnz x8, =>l);
            }
            return;
        }
        self.cmp_imm(8, k);
        self.bcond(if eq { Cond::Eq } else { Cond::Ne }, l);
    }

    fn ret(&mut self, cx: &FnCx<'_>, v: Option<Value>) {
        self.flags = None;
        if let Some(v) = v {
            if cx.func.value_type(v) == Type::Float {
                self.ldf(0, v);
            } else {
                self.ld(0, v);
            }
        }
        self.epilogue();
    }

    fn finish(&mut self, _cx: &FnCx<'_>, mut cold: ColdPaths<DynamicLabel>) {
        self.flags = None;
        let exit = self.exit;
        let overflow = self.overflow;
        dynasm!(self.ops ; .arch aarch64 ; =>overflow);
        self.store_ctx_u32(VMCTX_TRAP_CODE_OFFSET, TrapCode::StackOverflow as u32);
        dynasm!(self.ops ; .arch aarch64 ; b =>exit);
        let mut i = 0;
        while i < cold.list.len() {
            match cold.list[i] {
                Cold::Trap { label, code, loc } => {
                    dynasm!(self.ops ; .arch aarch64 ; =>label);
                    self.store_ctx_u32(VMCTX_TRAP_CODE_OFFSET, code as u32);
                    self.store_loc(loc);
                    dynasm!(self.ops ; .arch aarch64 ; b =>exit);
                }
                Cold::Propagate { label, loc } => {
                    let set = VMCTX_TRAP_LOC_SET_OFFSET as u32;
                    dynasm!(self.ops ; .arch aarch64
                        ; =>label
                        ; ldr w8, [x19, #set]
                        ; cbnz w8, =>exit
                    );
                    self.store_loc(loc);
                    dynasm!(self.ops ; .arch aarch64 ; b =>exit);
                }
                Cold::Fuel { label, resume, loc } => {
                    dynasm!(self.ops ; .arch aarch64 ; =>label ; mov x0, x19);
                    self.call_helper(Helper::Fuel);
                    match loc {
                        Some(loc) => self.check_trap_at(loc, &mut cold),
                        None => self.check_trap(exit),
                    }
                    dynasm!(self.ops ; .arch aarch64 ; b =>resume);
                }
            }
            i += 1;
        }
        dynasm!(self.ops ; .arch aarch64
            ; =>exit
            ; mov x0, xzr
            ; fmov d0, xzr
        );
        self.epilogue();
    }
}

impl Aarch64 {
    /// Decrements the fuel counter; jumps to `refill` when it reaches zero.
    fn fuel_dec(&mut self, refill: DynamicLabel, resume: DynamicLabel) {
        let off = VMCTX_FUEL_OFFSET as u32;
        dynasm!(self.ops ; .arch aarch64
            ; ldr x8, [x19, #off]
            ; subs x8, x8, #1
            ; str x8, [x19, #off]
            ; b.eq =>refill
            ; =>resume
        );
    }
}
