//! The AArch64 back end of the baseline tier: AAPCS64 code emitted with
//! dynasmrt's aarch64 assembler into a byte vector, **position
//! independent** (no absolute address anywhere in the code: runtime
//! helpers are called through `VmCtx::helpers`, string constants loaded
//! from `VmCtx::strings`, Waddle functions called through
//! `VmCtx::entries`), so the image can run wherever a loader maps it (see
//! [`super::image`] for the entry convention).
//!
//! Frame: `stp x29, x30, [sp, #-R]!; mov x29, sp; str x19, [sp, #16]`,
//! the saved home registers from `[sp, #32]` up (the frame record is `R`
//! bytes), then `sp` drops by the body frame: the outgoing stack-argument
//! area at `[sp]`, then one 8-byte slot per SSA value (value `v` at
//! `[sp + 8 * (out + v)]`), then the array-literal scratch words. `x19`
//! holds the `VmCtx` pointer; `x8`–`x17` and `d0`–`d2` are scratch within
//! an instruction. Home registers (`x20`–`x28`, `d8`–`d15`, all
//! callee-saved) mirror the slots of the plan's best-ranked loop values
//! ([`crate::baseline::plan::FuncPlan::homes`]) for the whole function:
//! every slot write also writes the home, reads take the home, and the
//! slots stay written through, so the conservative scan sees every
//! reference. Otherwise nothing is kept in registers between instructions
//! except the flags of a just-computed comparison. Arithmetic and
//! comparisons are encoded in [`inst`], entry trampolines in [`tramp`];
//! everything else is shared ([`super::isel`], [`super::driver`]).

mod inst;
mod tramp;

use dynasmrt::aarch64::Aarch64Relocation;
use dynasmrt::{dynasm, DynamicLabel, DynasmApi, DynasmLabelApi, VecAssembler};
use waddle_opt::abi::{
    TrapCode, ARRAY_DATA_OFFSET, ARRAY_LEN_OFFSET, VMCTX_DEPTH_LEFT_OFFSET, VMCTX_ENTRIES_OFFSET,
    VMCTX_FUEL_OFFSET, VMCTX_HELPERS_OFFSET, VMCTX_STACK_LIMIT_OFFSET, VMCTX_TIER_COUNTERS_OFFSET,
    VMCTX_TRAP_CODE_OFFSET,
};
use waddle_opt::ir::{InstKind, Value};

use super::conv::{helper_arg_regs, ArgLoc, HelperArg};
use super::driver::{Backend, FnCx};
use super::isel::{Callee, Cond};
use super::plan::slot_in;
use crate::helpers::Helper;

/// The assembler the AArch64 image is emitted into.
pub(crate) type Asm = VecAssembler<Aarch64Relocation>;

const LEN: u32 = ARRAY_LEN_OFFSET as u32;
const DATA: u32 = ARRAY_DATA_OFFSET as u32;

/// The AArch64 baseline back end: one per image.
pub(crate) struct Aarch64 {
    /// The code being emitted.
    pub ops: Asm,
    /// Words of the outgoing stack-argument area of the current function.
    out: usize,
    /// Body frame size in bytes of the current function.
    frame: usize,
    /// Slot number of the array-literal scratch word 0.
    scratch: usize,
    /// Scratch words of the current function.
    scratch_words: usize,
    flags: Option<(Value, Cond)>,
    /// Bytes of the frame record (`x29`, `x30`, `x19`, the depth word and
    /// the saved homes), a multiple of 16.
    record: usize,
    /// The value each of [`IHOME`] mirrors in the current function.
    ihome: [Option<Value>; IHOME.len()],
    /// The value each of [`FHOME`] mirrors in the current function.
    fhome: [Option<Value>; FHOME.len()],
    /// The slot of each value of the current function
    /// ([`super::plan::FuncPlan::slot_of`]).
    slot_of: Vec<u32>,
}

/// Home registers of integer-class values: `x20`–`x28` (callee-saved).
const IHOME: [u8; 9] = [20, 21, 22, 23, 24, 25, 26, 27, 28];
/// Home registers of float values: `d8`–`d15` (callee-saved low halves).
const FHOME: [u8; 8] = [8, 9, 10, 11, 12, 13, 14, 15];

/// Largest byte offset of an `ldr x, [base, #off]` (scaled 12-bit).
const MAX_LDR_OFF: usize = 32760;

impl Aarch64 {
    /// A back end with an empty assembler.
    pub fn new() -> Aarch64 {
        let ops = Asm::new(0);
        Aarch64 {
            ops,
            out: 0,
            frame: 0,
            scratch: 0,
            scratch_words: 0,
            flags: None,
            record: 32,
            ihome: [None; IHOME.len()],
            fhome: [None; FHOME.len()],
            slot_of: Vec::new(),
        }
    }

    /// The slot of value `v` of the current function.
    fn slot(&self, v: Value) -> usize {
        slot_in(&self.slot_of, v)
    }

    /// The home registers of the value in slot `s`: integer, float.
    fn homes_of_slot(&self, s: usize) -> (Option<u8>, Option<u8>) {
        let pick = |homes: &[Option<Value>], regs: &[u8]| {
            let i = homes
                .iter()
                .position(|e| e.is_some_and(|v| self.slot(v) == s))?;
            Some(regs[i])
        };
        (pick(&self.ihome, &IHOME), pick(&self.fhome, &FHOME))
    }

    /// The home registers in use, in save order: `(is_float, register)`.
    fn saved_homes(&self) -> Vec<(bool, u8)> {
        let ints = (self.ihome.iter().zip(IHOME)).filter(|(e, _)| e.is_some());
        let floats = (self.fhome.iter().zip(FHOME)).filter(|(e, _)| e.is_some());
        ints.map(|(_, r)| (false, r))
            .chain(floats.map(|(_, r)| (true, r)))
            .collect()
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

    /// `X(r) = slot[s]` (from its home register when it has one).
    fn ld_slot(&mut self, r: u8, s: usize) {
        match self.homes_of_slot(s) {
            (Some(h), _) => {
                dynasm!(self.ops ; .arch aarch64 ; mov X(r), X(h));
                return;
            }
            (_, Some(h)) => {
                dynasm!(self.ops ; .arch aarch64 ; fmov X(r), D(h));
                return;
            }
            _ => {}
        }
        let off = self.slot_off(s);
        if off <= MAX_LDR_OFF {
            let o = off as u32;
            dynasm!(self.ops ; .arch aarch64 ; ldr X(r), [sp, #o]);
        } else {
            self.far_addr(off);
            dynasm!(self.ops ; .arch aarch64 ; ldr X(r), [x16]);
        }
    }

    /// `slot[s] = X(r)` (and its home register, if any).
    fn st_slot(&mut self, s: usize, r: u8) {
        let off = self.slot_off(s);
        if off <= MAX_LDR_OFF {
            let o = off as u32;
            dynasm!(self.ops ; .arch aarch64 ; str X(r), [sp, #o]);
        } else {
            self.far_addr(off);
            dynasm!(self.ops ; .arch aarch64 ; str X(r), [x16]);
        }
        match self.homes_of_slot(s) {
            (Some(h), _) => dynasm!(self.ops ; .arch aarch64 ; mov X(h), X(r)),
            (_, Some(h)) => dynasm!(self.ops ; .arch aarch64 ; fmov D(h), X(r)),
            _ => {}
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

    /// Writes the 32-bit `value` at `VmCtx + off`.
    fn store_ctx_u32(&mut self, off: i32, value: u32) {
        self.mov_imm(8, i64::from(value));
        let o = off as u32;
        dynasm!(self.ops ; .arch aarch64 ; str w8, [x19, #o]);
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
            Cond::Above => dynasm!(self.ops ; .arch aarch64 ; b.hi =>l),
            Cond::AboveEq => dynasm!(self.ops ; .arch aarch64 ; b.hs =>l),
            Cond::Below => dynasm!(self.ops ; .arch aarch64 ; b.lo =>l),
            Cond::BelowEq => dynasm!(self.ops ; .arch aarch64 ; b.ls =>l),
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
            Cond::Above => dynasm!(self.ops ; .arch aarch64 ; cset x8, hi),
            Cond::AboveEq => dynasm!(self.ops ; .arch aarch64 ; cset x8, hs),
            Cond::Below => dynasm!(self.ops ; .arch aarch64 ; cset x8, lo),
            Cond::BelowEq => dynasm!(self.ops ; .arch aarch64 ; cset x8, ls),
        }
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
        for &i in &cx.func.blocks()[b].insts {
            if let InstKind::Call(callee, _) = &cx.func.inst(i).kind {
                if let Some(f) = cx.env.program.funcs.get(*callee) {
                    out = out.max(Aarch64::arg_locs(&f.sig().params).1);
                }
            }
        }
    }
    out
}

impl Backend for Aarch64 {
    type Tramp = Asm;
    const INT_ARGS: &'static [u8] = &[1, 2, 3, 4, 5, 6, 7];
    const HELPER_INT_ARGS: &'static [u8] = &[0, 1, 2, 3, 4, 5, 6, 7];
    const FLOAT_ARGS: usize = 8;
    const ACC: u8 = 8;

    /// `X(r) = v`.
    fn ld(&mut self, r: u8, v: Value) {
        self.ld_slot(r, self.slot(v));
    }

    /// `v = X(r)`.
    fn st(&mut self, v: Value, r: u8) {
        self.st_slot(self.slot(v), r);
    }

    /// `D(d) = v`.
    fn ldf(&mut self, d: u8, v: Value) {
        match self.homes_of_slot(self.slot(v)) {
            (Some(h), _) => {
                dynasm!(self.ops ; .arch aarch64 ; fmov D(d), X(h));
                return;
            }
            (_, Some(h)) => {
                dynasm!(self.ops ; .arch aarch64 ; fmov D(d), D(h));
                return;
            }
            _ => {}
        }
        let off = self.slot_off(self.slot(v));
        if off <= MAX_LDR_OFF {
            let o = off as u32;
            dynasm!(self.ops ; .arch aarch64 ; ldr D(d), [sp, #o]);
        } else {
            self.far_addr(off);
            dynasm!(self.ops ; .arch aarch64 ; ldr D(d), [x16]);
        }
    }

    /// `v = D(d)` (and its home register, if any).
    fn stf(&mut self, v: Value, d: u8) {
        let off = self.slot_off(self.slot(v));
        if off <= MAX_LDR_OFF {
            let o = off as u32;
            dynasm!(self.ops ; .arch aarch64 ; str D(d), [sp, #o]);
        } else {
            self.far_addr(off);
            dynasm!(self.ops ; .arch aarch64 ; str D(d), [x16]);
        }
        match self.homes_of_slot(self.slot(v)) {
            (Some(h), _) => dynasm!(self.ops ; .arch aarch64 ; fmov X(h), D(d)),
            (_, Some(h)) => dynasm!(self.ops ; .arch aarch64 ; fmov D(h), D(d)),
            _ => {}
        }
    }

    /// The return sequence (result already in `x0`/`d0`).
    fn epilogue(&mut self) {
        dynasm!(self.ops ; .arch aarch64
            ; mov sp, x29
            ; ldr x19, [x29, #16]
        );
        for (k, (float, r)) in self.saved_homes().into_iter().enumerate() {
            let off = (32 + 8 * k) as u32;
            if float {
                dynasm!(self.ops ; .arch aarch64 ; ldr D(r), [x29, #off]);
            } else {
                dynasm!(self.ops ; .arch aarch64 ; ldr X(r), [x29, #off]);
            }
        }
        let record = self.record as i32;
        dynasm!(self.ops ; .arch aarch64
            ; ldp x29, x30, [sp], #record
            ; ret
        );
    }

    fn new_label(&mut self) -> DynamicLabel {
        self.ops.new_dynamic_label()
    }

    fn bind(&mut self, l: DynamicLabel) {
        self.flags = None;
        dynasm!(self.ops ; .arch aarch64 ; =>l);
    }

    fn offset(&self) -> usize {
        self.ops.offset().0
    }

    fn align_entry(&mut self) {
        // Instructions are 4 bytes: every offset is aligned.
    }

    fn enter(&mut self, cx: &FnCx<'_>, overflow: DynamicLabel) {
        self.flags = None;
        self.slot_of.clone_from(&cx.plan.slot_of);
        self.out = outgoing_words(cx);
        self.scratch = cx.plan.slots();
        self.scratch_words = cx.plan.scratch;
        let words = self.out + cx.plan.frame_words();
        self.frame = (8 * words).next_multiple_of(16);
        let limit = VMCTX_STACK_LIMIT_OFFSET as u32;
        // Homes: the best-ranked candidates of each class.
        (self.ihome, self.fhome) = cx.plan.assign_homes(cx.func);
        let saved = self.saved_homes();
        self.record = (32 + 8 * saved.len()).next_multiple_of(16);
        let neg = -(self.record as i32);
        // The depth word (`[x29, #24]`) is zeroed with `x19`'s store: only
        // recursive functions write it (`depth_enter`), and the GC scan
        // covers the record, so it must not keep an old word.
        dynasm!(self.ops ; .arch aarch64
            ; stp x29, x30, [sp, #neg]!
            ; mov x29, sp
            ; stp x19, xzr, [sp, #16]
            ; mov x19, x0
        );
        for (k, &(float, r)) in saved.iter().enumerate() {
            let off = (32 + 8 * k) as u32;
            if float {
                dynasm!(self.ops ; .arch aarch64 ; str D(r), [sp, #off]);
            } else {
                dynasm!(self.ops ; .arch aarch64 ; str X(r), [sp, #off]);
            }
        }
        if saved.len() % 2 == 1 {
            // The record's alignment word, scanned too.
            let off = (32 + 8 * saved.len()) as u32;
            dynasm!(self.ops ; .arch aarch64 ; str xzr, [sp, #off]);
        }
        self.mov_imm(16, self.frame as i64);
        dynasm!(self.ops ; .arch aarch64
            ; mov x17, sp
            ; sub x16, x17, x16
            ; ldr x17, [x19, #limit]
            ; cmp x16, x17
            ; b.lo =>overflow
            ; mov sp, x16
        );
    }

    fn extra_words(&self) -> usize {
        // The outgoing arguments, then the alignment word above the
        // scratch area, if any.
        self.frame / 8 - self.scratch - self.scratch_words
    }

    fn const_in_slot(&self, _cx: &FnCx<'_>, _v: Value) -> bool {
        true
    }

    fn zero_words(&mut self, words: &[u32], entry: bool) {
        if words.is_empty() {
            return;
        }
        let used = self.scratch + self.scratch_words;
        if entry && words.len() > 16 {
            // Many words: [sp, sp + frame), a multiple of 16 bytes. x16/x17
            // carry no arguments.
            dynasm!(self.ops ; .arch aarch64 ; mov x16, sp);
            self.mov_imm(17, self.frame as i64);
            dynasm!(self.ops ; .arch aarch64
                ; add x17, x16, x17
                ; zero:
                ; stp xzr, xzr, [x16], #16
                ; cmp x16, x17
                ; b.lo <zero
            );
            return;
        }
        for &w in words {
            let w = w as usize;
            let off = if w < used {
                self.slot_off(w)
            } else if w - used < self.out {
                8 * (w - used)
            } else {
                8 * (self.out + used)
            };
            if off <= MAX_LDR_OFF {
                let o = off as u32;
                dynasm!(self.ops ; .arch aarch64 ; str xzr, [sp, #o]);
            } else {
                self.far_addr(off);
                dynasm!(self.ops ; .arch aarch64 ; str xzr, [x16]);
            }
        }
    }

    fn clear_scratch(&mut self, k: usize) {
        dynasm!(self.ops ; .arch aarch64 ; mov x8, xzr);
        self.st_slot(self.scratch + k, 8);
    }

    /// Keeps the value read in the frame record's spare word
    /// (`[x29, #24]`): the return stores it back instead of a
    /// load/add/store of the counter (calls in between are balanced within
    /// one `VmCtx`; the trap path never gives frames back).
    fn depth_enter(&mut self, overflow: DynamicLabel) {
        self.flags = None;
        let depth = VMCTX_DEPTH_LEFT_OFFSET as u32;
        dynasm!(self.ops ; .arch aarch64
            ; ldr x16, [x19, #depth]
            ; str x16, [x29, #24]
            ; subs x16, x16, #1
            ; b.lt =>overflow
            ; str x16, [x19, #depth]
        );
    }

    fn depth_leave(&mut self) {
        self.flags = None;
        let depth = VMCTX_DEPTH_LEFT_OFFSET as u32;
        dynasm!(self.ops ; .arch aarch64
            ; ldr x16, [x29, #24]
            ; str x16, [x19, #depth]
        );
    }

    fn spill_param(&mut self, p: Value, loc: ArgLoc, is_bool: bool) {
        match loc {
            ArgLoc::Int(r) => {
                if is_bool {
                    dynasm!(self.ops ; .arch aarch64 ; and XSP(r), X(r), #0xff);
                }
                self.st(p, r);
            }
            ArgLoc::Float(d) => self.stf(p, d),
            ArgLoc::Stack(k) => {
                // Caller's stack arguments start above the frame record.
                let off = (self.record + 8 * k) as u32;
                if is_bool {
                    dynasm!(self.ops ; .arch aarch64 ; ldrb w8, [x29, #off]);
                } else {
                    dynasm!(self.ops ; .arch aarch64 ; ldr x8, [x29, #off]);
                }
                self.st(p, 8);
            }
        }
    }

    fn const_word(&mut self, _cx: &FnCx<'_>, v: Value, k: i64) {
        if k == 0 {
            dynasm!(self.ops ; .arch aarch64 ; mov x8, xzr);
        } else {
            self.mov_imm(8, k);
        }
        self.st(v, 8);
    }

    fn fuel_dec(&mut self, refill: DynamicLabel, resume: DynamicLabel) {
        self.flags = None;
        let off = VMCTX_FUEL_OFFSET as u32;
        dynasm!(self.ops ; .arch aarch64
            ; ldr x8, [x19, #off]
            ; subs x8, x8, #1
            ; str x8, [x19, #off]
            ; b.eq =>refill
            ; =>resume
        );
    }

    fn counter_dec(&mut self, cell: usize, slow: DynamicLabel, resume: DynamicLabel) {
        // Images are position-independent: `cell` is the counter's offset
        // in the table at `VmCtx::tier_counters`, which the loader fills.
        self.flags = None;
        let table = VMCTX_TIER_COUNTERS_OFFSET as u32;
        self.mov_imm(8, cell as i64);
        dynasm!(self.ops ; .arch aarch64
            ; ldr x9, [x19, #table]
            ; add x9, x9, x8
            ; ldr x8, [x9]
            ; subs x8, x8, #1
            ; str x8, [x9]
            ; b.eq =>slow
            ; =>resume
        );
    }

    fn begin_inst(&mut self, _kind: &InstKind) {
        self.flags = None;
    }

    fn load_ctx_table(&mut self, table: i32, index: usize, r: Value) {
        let off = table as u32;
        dynasm!(self.ops ; .arch aarch64 ; ldr x8, [x19, #off]);
        self.ld_table(8, 8, index);
        self.st(r, 8);
    }

    fn store_ctx_table(&mut self, table: i32, index: usize, v: Value) {
        let off = table as u32;
        self.ld(9, v);
        dynasm!(self.ops ; .arch aarch64 ; ldr x8, [x19, #off]);
        let idx = 8 * index;
        if idx <= MAX_LDR_OFF {
            let o = idx as u32;
            dynasm!(self.ops ; .arch aarch64 ; str x9, [x8, #o]);
        } else {
            self.mov_imm(17, idx as i64);
            dynasm!(self.ops ; .arch aarch64 ; str x9, [x8, x17]);
        }
    }

    fn load_field(&mut self, r: Value, obj: Value, offset: i32) {
        let off = offset as u32;
        self.ld(8, obj);
        dynasm!(self.ops ; .arch aarch64 ; ldr x8, [x8, #off]);
        self.st(r, 8);
    }

    fn store_scratch(&mut self, k: usize, v: Value) {
        self.ld(8, v);
        self.st_slot(self.scratch + k, 8);
    }

    fn call_helper(&mut self, h: Helper, args: &[HelperArg]) {
        let regs = helper_arg_regs(h, args, Self::HELPER_INT_ARGS);
        for (&a, &loc) in args.iter().zip(&regs) {
            match (a, loc) {
                (HelperArg::Val(v), ArgLoc::Float(d)) => self.ldf(d, v),
                (HelperArg::Val(v), ArgLoc::Int(r)) => self.ld(r, v),
                (HelperArg::Ctx, ArgLoc::Int(r)) => {
                    dynasm!(self.ops ; .arch aarch64 ; mov X(r), x19)
                }
                (HelperArg::Imm(k), ArgLoc::Int(r)) => self.mov_imm(r, k),
                (HelperArg::Scratch, ArgLoc::Int(r)) => {
                    let off = self.slot_off(self.scratch);
                    self.mov_imm(r, off as i64);
                    dynasm!(self.ops ; .arch aarch64 ; mov x17, sp ; add X(r), x17, X(r));
                }
                (HelperArg::SlotBase, ArgLoc::Int(r)) => {
                    let off = self.slot_off(0);
                    self.mov_imm(r, off as i64);
                    dynasm!(self.ops ; .arch aarch64 ; mov x17, sp ; add X(r), x17, X(r));
                }
                (HelperArg::FrameEnd, ArgLoc::Int(r)) => {
                    // Above the frame record and the saved homes.
                    self.mov_imm(r, self.record as i64);
                    dynasm!(self.ops ; .arch aarch64 ; add X(r), x29, X(r));
                }
                _ => {}
            }
        }
        let off = VMCTX_HELPERS_OFFSET as u32;
        dynasm!(self.ops ; .arch aarch64 ; ldr x16, [x19, #off]);
        self.ld_table(16, 16, h as usize);
        dynasm!(self.ops ; .arch aarch64 ; blr x16);
    }

    fn zext_byte(&mut self, reg: u8) {
        dynasm!(self.ops ; .arch aarch64 ; and XSP(reg), X(reg), #0xff);
    }

    const SLOT_STRIDE: i64 = 8;

    fn jump_if_result_zero(&mut self, l: DynamicLabel) {
        dynasm!(self.ops ; .arch aarch64 ; cbz x0, =>l);
    }

    fn load_slot0_result(&mut self, float: bool) {
        let off = self.slot_off(0);
        if off <= MAX_LDR_OFF {
            let o = off as u32;
            if float {
                dynasm!(self.ops ; .arch aarch64 ; ldr d0, [sp, #o]);
            } else {
                dynasm!(self.ops ; .arch aarch64 ; ldr x0, [sp, #o]);
            }
        } else {
            self.far_addr(off);
            if float {
                dynasm!(self.ops ; .arch aarch64 ; ldr d0, [x16]);
            } else {
                dynasm!(self.ops ; .arch aarch64 ; ldr x0, [x16]);
            }
        }
    }

    fn jump_if_trap(&mut self, l: DynamicLabel) {
        let off = VMCTX_TRAP_CODE_OFFSET as u32;
        dynasm!(self.ops ; .arch aarch64
            ; ldr w8, [x19, #off]
            ; cbnz w8, =>l
        );
    }

    fn bounds_check(&mut self, a: Value, i: Value, l: DynamicLabel) {
        self.ld(8, a);
        self.ld(9, i);
        dynasm!(self.ops ; .arch aarch64
            ; ldr x10, [x8, #LEN]
            ; cmp x9, x10
            ; b.hs =>l
        );
    }

    fn array_get(&mut self, a: Value, i: Value, r: Option<Value>, _float: bool, byte: bool) {
        // A word load serves floats too: slots hold their bits.
        self.ld(8, a);
        self.ld(9, i);
        dynasm!(self.ops ; .arch aarch64 ; ldr x10, [x8, #DATA]);
        if byte {
            dynasm!(self.ops ; .arch aarch64 ; ldrb w8, [x10, x9]);
        } else {
            dynasm!(self.ops ; .arch aarch64 ; ldr x8, [x10, x9, lsl #3]);
        }
        self.st_opt(r, 8);
    }

    fn array_set(&mut self, a: Value, i: Value, v: Value, byte: bool) {
        self.ld(8, a);
        self.ld(9, i);
        self.ld(11, v);
        dynasm!(self.ops ; .arch aarch64 ; ldr x10, [x8, #DATA]);
        if byte {
            dynasm!(self.ops ; .arch aarch64 ; strb w11, [x10, x9]);
        } else {
            dynasm!(self.ops ; .arch aarch64 ; str x11, [x10, x9, lsl #3]);
        }
    }

    fn array_pop(&mut self, a: Value, r: Option<Value>, empty: DynamicLabel, byte: bool) {
        self.ld(8, a);
        dynasm!(self.ops ; .arch aarch64
            ; ldr x9, [x8, #LEN]
            ; cbz x9, =>empty
            ; sub x9, x9, #1
            ; str x9, [x8, #LEN]
            ; ldr x10, [x8, #DATA]
        );
        if byte {
            dynasm!(self.ops ; .arch aarch64 ; ldrb w8, [x10, x9]);
        } else {
            dynasm!(self.ops ; .arch aarch64 ; ldr x8, [x10, x9, lsl #3]);
        }
        self.st_opt(r, 8);
    }

    fn call_function(&mut self, callee: Callee<'_>, unlinked: Option<DynamicLabel>) {
        let Callee { id, sig, args } = callee;
        let (locs, _) = Self::arg_locs(&sig.params);
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
        self.ld_table(16, 16, id.as_u32() as usize);
        if let Some(l) = unlinked {
            dynasm!(self.ops ; .arch aarch64 ; cbz x16, =>l);
        }
        dynasm!(self.ops ; .arch aarch64 ; blr x16);
    }

    fn materialize(&mut self, r: Value, cond: Cond) {
        self.cset(cond);
        self.st(r, 8);
    }

    fn flags_mut(&mut self) -> &mut Option<(Value, Cond)> {
        &mut self.flags
    }

    fn move_slot(&mut self, dst: usize, src: usize) {
        self.ld_slot(8, src);
        self.st_slot(dst, 8);
    }

    fn move_to_temp(&mut self, src: usize) {
        self.ld_slot(9, src);
    }

    fn move_from_temp(&mut self, dst: usize) {
        self.st_slot(dst, 9);
    }

    fn jump(&mut self, l: DynamicLabel) {
        dynasm!(self.ops ; .arch aarch64 ; b =>l);
    }

    fn jump_if(&mut self, cond: Cond, l: DynamicLabel) {
        self.bcond(cond, l);
    }

    fn branch_on_slot(&mut self, v: Value, k: i64, eq: bool, l: DynamicLabel) {
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

    fn store_trap_code(&mut self, code: TrapCode) {
        self.store_ctx_u32(VMCTX_TRAP_CODE_OFFSET, code as u32);
    }

    fn trap_return(&mut self) {
        dynasm!(self.ops ; .arch aarch64 ; mov x0, xzr ; fmov d0, xzr);
        self.epilogue();
    }

    fn tramp(&mut self) -> &mut Asm {
        &mut self.ops
    }
}
