//! The x86-64 back end of the baseline tier: System V code emitted with
//! dynasmrt's x64 assembler.
//!
//! Frame (every function): `push rbp; mov rbp, rsp; push rbx`, the
//! callee-saved home registers in use (`push r12`...), then the slot area:
//! value `v` lives at `[rbp - 16 - 8 * (saved + v)]`, the array-literal
//! scratch area below the slots, then (recursive functions) the word
//! keeping the depth counter read at entry; `rsp` stays 16-byte aligned in
//! the body. `rbx` holds the `VmCtx` pointer for the whole function;
//! `rax`, `rcx`, `rdx`, `xmm0`, `xmm1` are scratch inside an instruction.
//!
//! Home registers: `r12`–`r15`, `r10`, `r11` and `xmm8`–`xmm15` mirror the
//! slots of the plan's best-ranked loop values
//! ([`crate::baseline::plan::FuncPlan::homes`]) for the whole function:
//! every write of such a slot also writes its home, every read takes the
//! home, and the caller-saved homes are reloaded from their slots after
//! each call. Loop-carried values thus stay in registers across blocks and
//! back edges instead of going through a store and a reload each
//! iteration.
//!
//! Register cache (a single-pass cache on top of the slot frame): slots
//! are always written (write-through), and `rsi`, `rdi`, `r8`, `r9`,
//! `xmm2`–`xmm7` additionally hold copies of recently computed or loaded
//! values, so later uses in the same block read a register instead of
//! memory. The cache is emptied at every label (block starts, edge
//! splits) and after every call (all cache registers are caller-saved);
//! a register written as a call argument drops its entry. Because every
//! value is in its slot at every call, the conservative GC scan sees all
//! references. A comparison whose only use is the branch right after it
//! lives only in the flags ([`crate::baseline::plan::FuncPlan::fused`]).
//! Arithmetic, comparisons and division are encoded in [`inst`], the home
//! registers and the register cache kept in [`regs`], entry trampolines in
//! [`tramp`]; everything else is shared ([`super::isel`],
//! [`super::driver`]).

mod inst;
mod regs;
mod tramp;

use dynasmrt::x64::X64Relocation;
use dynasmrt::{dynasm, DynamicLabel, DynasmApi, DynasmLabelApi, VecAssembler};
use waddle_opt::abi::{
    TrapCode, ARRAY_DATA_OFFSET, ARRAY_LEN_OFFSET, VMCTX_DEPTH_LEFT_OFFSET, VMCTX_ENTRIES_OFFSET,
    VMCTX_FUEL_OFFSET, VMCTX_STACK_LIMIT_OFFSET, VMCTX_TRAP_CODE_OFFSET,
};
use waddle_opt::ir::{InstKind, Value};

use super::conv::{helper_arg_regs, ArgLoc, HelperArg};
use super::driver::{Backend, FnCx};
use super::isel::{Callee, Cond};
use super::plan::slot_in;
use crate::helpers::Helper;
use regs::{FCACHE, FHOME, ICACHE, IHOME, IHOME_SAVED};

/// The assembler every x64 function and trampoline is emitted into.
pub(crate) type Asm = VecAssembler<X64Relocation>;

/// The x64 baseline back end: one per compilation unit.
pub(crate) struct X64 {
    /// The code being emitted.
    pub ops: Asm,
    /// Whether `roundsd` (SSE4.1) may be used.
    sse41: bool,
    /// A bool value whose defining comparison's flags are live: the
    /// condition under which it is true.
    flags: Option<(Value, Cond)>,
    /// Register cache: the value each of [`ICACHE`] holds a copy of.
    icache: [Option<Value>; ICACHE.len()],
    /// The value each of [`FCACHE`] holds a copy of.
    fcache: [Option<Value>; FCACHE.len()],
    /// Round-robin replacement positions.
    inext: usize,
    fnext: usize,
    /// Whether loads of the current instruction may fill the cache: only
    /// in instructions that call nothing, so arguments being set up in
    /// cache registers are never evicted.
    fill: bool,
    /// Frame displacement of the array-literal scratch word 0 of the
    /// current function (the words follow upwards).
    scratch: i32,
    /// Frame displacement of the lowest word of the current body frame
    /// (`rsp` after the prologue).
    frame_low: i32,
    /// Value slots and scratch words of the current function.
    frame_words: (usize, usize),
    /// Whether the lowest word of the body frame is alignment padding.
    pad: bool,
    /// Frame displacement of slot 0 of the current function (below `rbx`
    /// and the saved callee-saved home registers).
    base: i32,
    /// Home registers of the current function: the value each of
    /// [`IHOME`] mirrors for the whole function.
    ihome: [Option<Value>; IHOME.len()],
    /// The value each of [`FHOME`] mirrors for the whole function.
    fhome: [Option<Value>; FHOME.len()],
    /// Frame displacement of the word where a recursive function keeps
    /// the `VmCtx::depth_left` value its prologue read.
    depth_word: i32,
    /// The slot of each value of the current function
    /// ([`super::plan::FuncPlan::slot_of`]).
    slot_of: Vec<u32>,
}

/// Whether the host has SSE4.1 (`roundsd`); false on other hosts, where
/// the generated code is never run.
fn has_sse41() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::is_x86_feature_detected!("sse4.1")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

impl X64 {
    /// A back end with an empty assembler.
    pub fn new() -> X64 {
        let ops = Asm::new(0);
        X64 {
            ops,
            sse41: has_sse41(),
            flags: None,
            icache: [None; ICACHE.len()],
            fcache: [None; FCACHE.len()],
            inext: 0,
            fnext: 0,
            fill: false,
            scratch: 0,
            frame_low: 0,
            frame_words: (0, 0),
            pad: false,
            base: -16,
            ihome: [None; IHOME.len()],
            fhome: [None; FHOME.len()],
            depth_word: 0,
            slot_of: Vec::new(),
        }
    }

    /// The slot of value `v` of the current function.
    fn slot(&self, v: Value) -> usize {
        slot_in(&self.slot_of, v)
    }

    /// The frame displacement of value `v`'s slot.
    pub(crate) fn disp(&self, v: Value) -> i32 {
        self.slot_disp(self.slot(v))
    }

    /// The frame displacement of slot `s`.
    fn slot_disp(&self, s: usize) -> i32 {
        self.base - 8 * s as i32
    }
}

impl Backend for X64 {
    type Tramp = Asm;
    const INT_ARGS: &'static [u8] = &[6, 2, 1, 8, 9];
    const HELPER_INT_ARGS: &'static [u8] = &[7, 6, 2, 1, 8, 9];
    const FLOAT_ARGS: usize = 8;
    const ACC: u8 = 0;

    /// `Rq(r) = v`.
    fn ld(&mut self, r: u8, v: Value) {
        match self.icached(v) {
            Some(c) if c == r => return,
            Some(c) => dynasm!(self.ops ; .arch x64 ; mov Rq(r), Rq(c)),
            None if self.fill && !ICACHE.contains(&r) => {
                // Keep a copy for later uses of `v` in this block.
                let d = self.disp(v);
                let i = self.inext;
                self.inext = (i + 1) % ICACHE.len();
                let c = ICACHE[i];
                dynasm!(self.ops ; .arch x64
                    ; mov Rq(c), QWORD [rbp + d]
                    ; mov Rq(r), Rq(c)
                );
                self.icache[i] = Some(v);
                return;
            }
            None => {
                let d = self.disp(v);
                dynasm!(self.ops ; .arch x64 ; mov Rq(r), QWORD [rbp + d]);
            }
        }
        self.clobber_int(r);
    }

    /// `v = Rq(r)` (also kept in its home or a cache register).
    fn st(&mut self, v: Value, r: u8) {
        let d = self.disp(v);
        dynasm!(self.ops ; .arch x64 ; mov QWORD [rbp + d], Rq(r));
        self.forget_slot(self.slot(v));
        if self.homes_of_slot(self.slot(v)) != (None, None) {
            return self.sync_home_int(self.slot(v), r);
        }
        let i = self.inext;
        self.inext = (i + 1) % ICACHE.len();
        let c = ICACHE[i];
        if c != r {
            dynasm!(self.ops ; .arch x64 ; mov Rq(c), Rq(r));
        }
        self.icache[i] = Some(v);
    }

    /// `xmm(x) = v`.
    fn ldf(&mut self, x: u8, v: Value) {
        match self.fcached(v) {
            Some(c) if c == x => return,
            Some(c) => dynasm!(self.ops ; .arch x64 ; movapd Rx(x), Rx(c)),
            None if self.fill && !FCACHE.contains(&x) => {
                let d = self.disp(v);
                let i = self.fnext;
                self.fnext = (i + 1) % FCACHE.len();
                let c = FCACHE[i];
                dynasm!(self.ops ; .arch x64
                    ; movsd Rx(c), QWORD [rbp + d]
                    ; movapd Rx(x), Rx(c)
                );
                self.fcache[i] = Some(v);
                return;
            }
            None => {
                let d = self.disp(v);
                dynasm!(self.ops ; .arch x64 ; movsd Rx(x), QWORD [rbp + d]);
            }
        }
        self.clobber_float(x);
    }

    /// `v = xmm(x)` (also kept in its home or a cache register).
    fn stf(&mut self, v: Value, x: u8) {
        let d = self.disp(v);
        dynasm!(self.ops ; .arch x64 ; movsd QWORD [rbp + d], Rx(x));
        self.forget_slot(self.slot(v));
        if self.homes_of_slot(self.slot(v)) != (None, None) {
            return self.sync_home_float(self.slot(v), x);
        }
        let i = self.fnext;
        self.fnext = (i + 1) % FCACHE.len();
        let c = FCACHE[i];
        if c != x {
            dynasm!(self.ops ; .arch x64 ; movapd Rx(c), Rx(x));
        }
        self.fcache[i] = Some(v);
    }

    /// The shared return sequence (result already in `rax`/`xmm0`).
    fn epilogue(&mut self) {
        for (i, r) in IHOME[..self.saved_homes()].iter().enumerate() {
            let d = -16 - 8 * i as i32;
            dynasm!(self.ops ; .arch x64 ; mov Rq(*r), QWORD [rbp + d]);
        }
        dynasm!(self.ops ; .arch x64
            ; mov rbx, QWORD [rbp - 8]
            ; leave
            ; ret
        );
    }

    fn new_label(&mut self) -> DynamicLabel {
        self.ops.new_dynamic_label()
    }

    fn bind(&mut self, l: DynamicLabel) {
        self.flags = None;
        self.forget_all();
        dynasm!(self.ops ; .arch x64 ; =>l);
    }

    fn offset(&self) -> usize {
        self.ops.offset().0
    }

    fn align_entry(&mut self) {
        self.ops.align(16, 0xcc);
    }

    fn enter(&mut self, cx: &FnCx<'_>, overflow: DynamicLabel) {
        self.flags = None;
        self.slot_of.clone_from(&cx.plan.slot_of);
        self.forget_all();
        // Homes: the best-ranked candidates of each class, callee-saved
        // integer registers first.
        (self.ihome, self.fhome) = cx.plan.assign_homes(cx.func);
        if cx.plan.calls_in_loops {
            // Reloading caller-saved homes after every call in a loop
            // costs more than it saves: callee-saved ones only.
            self.ihome[IHOME_SAVED..].fill(None);
            self.fhome = [None; FHOME.len()];
        }
        let saved = self.saved_homes();
        self.base = -16 - 8 * saved as i32;
        let mut words = cx.plan.frame_words();
        self.scratch = self.base + 8 - 8 * words as i32;
        if cx.recursive {
            // One more word, below the scratch area: the saved depth.
            self.depth_word = self.base - 8 * words as i32;
            words += 1;
        }
        // After `push rbp; push rbx` and the saved homes, rsp is
        // 8 * (1 + saved) mod 16.
        let pad = (1 + saved + words) % 2;
        let size = (8 * (words + pad)) as i32;
        let neg = -size;
        // The body frame lies below rbx and the saved homes.
        self.frame_low = self.base + 8 - size;
        self.frame_words = (cx.plan.slots(), cx.plan.scratch);
        self.pad = pad == 1;
        dynasm!(self.ops ; .arch x64
            ; push rbp
            ; mov rbp, rsp
            ; push rbx
        );
        for &r in &IHOME[..saved] {
            dynasm!(self.ops ; .arch x64 ; push Rq(r));
        }
        dynasm!(self.ops ; .arch x64
            ; mov rbx, rdi
            ; lea rax, [rsp + neg]
            ; cmp rax, QWORD [rbx + VMCTX_STACK_LIMIT_OFFSET]
            ; jb =>overflow
            ; sub rsp, size
        );
    }

    fn extra_words(&self) -> usize {
        usize::from(self.pad)
    }

    fn const_in_slot(&self, cx: &FnCx<'_>, v: Value) -> bool {
        !cx.plan.imm_only[v] || self.homes_of_slot(self.slot(v)) != (None, None)
    }

    fn zero_words(&mut self, words: &[u32], entry: bool) {
        if words.is_empty() {
            return;
        }
        let (slots, scratch) = self.frame_words;
        let (base, scratch_disp, low) = (self.base, self.scratch, self.frame_low);
        let disp = |w: usize| {
            if w < slots {
                base - 8 * w as i32
            } else if w < slots + scratch {
                scratch_disp + 8 * (w - slots) as i32
            } else {
                // The padding word, the lowest of the body frame.
                low
            }
        };
        if !entry {
            // No register is free between instructions: immediate stores.
            for &w in words {
                let d = disp(w as usize);
                dynasm!(self.ops ; .arch x64 ; mov QWORD [rbp + d], 0);
                if (w as usize) < slots {
                    self.forget_slot(w as usize);
                }
            }
            return;
        }
        // rax, r10 and r11 carry no arguments (and no homes yet).
        dynasm!(self.ops ; .arch x64 ; xor eax, eax);
        if words.len() <= 16 {
            for &w in words {
                let d = disp(w as usize);
                dynasm!(self.ops ; .arch x64 ; mov QWORD [rbp + d], rax);
            }
            return;
        }
        // Many words: the whole body frame [rsp, rbp + base + 8), below rbx
        // and the saved homes, which keep the caller's values.
        let lo = self.frame_low;
        let n = (self.base + 8 - lo) / 8;
        dynasm!(self.ops ; .arch x64
            ; lea r11, [rbp + lo]
            ; mov r10d, n
            ; zero:
            ; mov QWORD [r11], rax
            ; add r11, 8
            ; sub r10d, 1
            ; jnz <zero
        );
    }

    fn clear_scratch(&mut self, k: usize) {
        let off = self.scratch + 8 * k as i32;
        dynasm!(self.ops ; .arch x64 ; mov QWORD [rbp + off], 0);
    }

    /// Keeps the value read in the frame: the return stores it back
    /// instead of a load/add/store of the counter (calls in between are
    /// balanced within one `VmCtx`; the trap path never gives frames back).
    fn depth_enter(&mut self, overflow: DynamicLabel) {
        self.flags = None;
        let w = self.depth_word;
        dynasm!(self.ops ; .arch x64
            ; mov rax, QWORD [rbx + VMCTX_DEPTH_LEFT_OFFSET]
            ; mov QWORD [rbp + w], rax
            ; sub rax, 1
            ; jb =>overflow
            ; mov QWORD [rbx + VMCTX_DEPTH_LEFT_OFFSET], rax
        );
    }

    fn depth_leave(&mut self) {
        self.flags = None;
        let w = self.depth_word;
        dynasm!(self.ops ; .arch x64
            ; mov rcx, QWORD [rbp + w]
            ; mov QWORD [rbx + VMCTX_DEPTH_LEFT_OFFSET], rcx
        );
    }

    fn spill_param(&mut self, p: Value, loc: ArgLoc, is_bool: bool) {
        // Raw stores: the argument registers still hold later parameters
        // (homes are never argument registers).
        let d = self.disp(p);
        match loc {
            ArgLoc::Int(r) if is_bool => {
                dynasm!(self.ops ; .arch x64 ; movzx eax, Rb(r) ; mov QWORD [rbp + d], rax);
                self.sync_home_int(self.slot(p), 0);
            }
            ArgLoc::Int(r) => {
                dynasm!(self.ops ; .arch x64 ; mov QWORD [rbp + d], Rq(r));
                self.sync_home_int(self.slot(p), r);
                // An argument register that is also a cache register keeps
                // the parameter for the entry block's uses (later
                // parameters and constants never write cache registers).
                if let Some(i) = ICACHE.iter().position(|&c| c == r) {
                    if self.homes_of_slot(self.slot(p)) == (None, None) {
                        self.icache[i] = Some(p);
                    }
                }
            }
            ArgLoc::Float(x) => {
                dynasm!(self.ops ; .arch x64 ; movsd QWORD [rbp + d], Rx(x));
                self.sync_home_float(self.slot(p), x);
            }
            ArgLoc::Stack(k) => {
                let s = 16 + 8 * k as i32;
                if is_bool {
                    dynasm!(self.ops ; .arch x64 ; movzx eax, BYTE [rbp + s]);
                } else {
                    dynasm!(self.ops ; .arch x64 ; mov rax, QWORD [rbp + s]);
                }
                dynasm!(self.ops ; .arch x64 ; mov QWORD [rbp + d], rax);
                self.sync_home_int(self.slot(p), 0);
            }
        }
    }

    fn const_word(&mut self, cx: &FnCx<'_>, v: Value, k: i64) {
        if cx.plan.imm_only[v] && self.homes_of_slot(self.slot(v)) == (None, None) {
            // Every use encodes it as an immediate.
            return;
        }
        let d = self.disp(v);
        match i32::try_from(k) {
            Ok(k32) if self.homes_of_slot(self.slot(v)) == (None, None) => {
                dynasm!(self.ops ; .arch x64 ; mov QWORD [rbp + d], k32);
                self.forget_slot(self.slot(v));
            }
            Ok(_) => {
                self.mov_imm(0, k);
                self.st(v, 0);
            }
            Err(_) => {
                dynasm!(self.ops ; .arch x64 ; mov rax, QWORD k);
                self.st(v, 0);
            }
        }
    }

    fn fuel_dec(&mut self, refill: DynamicLabel, resume: DynamicLabel) {
        self.flags = None;
        // The refill path calls a helper and resumes here.
        self.forget_all();
        dynasm!(self.ops ; .arch x64
            ; sub QWORD [rbx + VMCTX_FUEL_OFFSET], 1
            ; je =>refill
            ; =>resume
        );
    }

    fn counter_dec(&mut self, cell: usize, slow: DynamicLabel, resume: DynamicLabel) {
        self.flags = None;
        // The slow path calls a helper and resumes here.
        self.forget_all();
        dynasm!(self.ops ; .arch x64
            ; mov rax, QWORD cell as i64
            ; sub QWORD [rax], 1
            ; je =>slow
            ; =>resume
        );
    }

    fn begin_inst(&mut self, kind: &InstKind) {
        self.flags = None;
        self.fill = !self.calls_out(kind);
    }

    fn load_ctx_table(&mut self, table: i32, index: usize, r: Value) {
        let off = 8 * index as i32;
        dynasm!(self.ops ; .arch x64
            ; mov rax, QWORD [rbx + table]
            ; mov rax, QWORD [rax + off]
        );
        self.st(r, 0);
    }

    fn store_ctx_table(&mut self, table: i32, index: usize, v: Value) {
        let off = 8 * index as i32;
        self.ld(1, v);
        dynasm!(self.ops ; .arch x64
            ; mov rax, QWORD [rbx + table]
            ; mov QWORD [rax + off], rcx
        );
    }

    fn load_field(&mut self, r: Value, obj: Value, offset: i32) {
        self.ld(0, obj);
        dynasm!(self.ops ; .arch x64 ; mov rax, QWORD [rax + offset]);
        self.st(r, 0);
    }

    fn store_scratch(&mut self, k: usize, v: Value) {
        let off = self.scratch + 8 * k as i32;
        self.ld(0, v);
        dynasm!(self.ops ; .arch x64 ; mov QWORD [rbp + off], rax);
    }

    fn call_helper(&mut self, h: Helper, args: &[HelperArg]) {
        let regs = helper_arg_regs(h, args, Self::HELPER_INT_ARGS);
        // Values first: the other arguments are raw writes that never read
        // the register cache, which the value loads keep up to date.
        for (&a, &loc) in args.iter().zip(&regs) {
            match (a, loc) {
                (HelperArg::Val(v), ArgLoc::Int(r)) => self.ld(r, v),
                (HelperArg::Val(v), ArgLoc::Float(x)) => self.ldf(x, v),
                _ => {}
            }
        }
        for (&a, &loc) in args.iter().zip(&regs) {
            let ArgLoc::Int(r) = loc else { continue };
            match a {
                HelperArg::Ctx => dynasm!(self.ops ; .arch x64 ; mov Rq(r), rbx),
                HelperArg::Imm(k) => self.mov_imm(r, k),
                HelperArg::Scratch => {
                    let base = self.scratch;
                    dynasm!(self.ops ; .arch x64 ; lea Rq(r), [rbp + base]);
                }
                HelperArg::SlotBase => {
                    let d = self.slot_disp(0);
                    dynasm!(self.ops ; .arch x64 ; lea Rq(r), [rbp + d]);
                }
                // Above the saved rbp and the return address.
                HelperArg::FrameEnd => dynasm!(self.ops ; .arch x64 ; lea Rq(r), [rbp + 16]),
                HelperArg::Val(_) => {}
            }
        }
        self.call_addr(h.addr());
    }

    fn zext_byte(&mut self, reg: u8) {
        dynasm!(self.ops ; .arch x64 ; movzx Rd(reg), Rb(reg));
    }

    const SLOT_STRIDE: i64 = -8;

    fn jump_if_result_zero(&mut self, l: DynamicLabel) {
        dynasm!(self.ops ; .arch x64
            ; test rax, rax
            ; jz =>l
        );
    }

    fn load_slot0_result(&mut self, float: bool) {
        let d = self.slot_disp(0);
        if float {
            dynasm!(self.ops ; .arch x64 ; movsd xmm0, QWORD [rbp + d]);
        } else {
            dynasm!(self.ops ; .arch x64 ; mov rax, QWORD [rbp + d]);
        }
    }

    fn jump_if_trap(&mut self, l: DynamicLabel) {
        dynasm!(self.ops ; .arch x64
            ; cmp DWORD [rbx + VMCTX_TRAP_CODE_OFFSET], 0
            ; jne =>l
        );
    }

    fn bounds_check(&mut self, a: Value, i: Value, l: DynamicLabel) {
        let ra = self.ireg(a, 0);
        let ri = self.ireg(i, 1);
        dynasm!(self.ops ; .arch x64
            ; cmp Rq(ri), QWORD [Rq(ra) + ARRAY_LEN_OFFSET]
            ; jae =>l
        );
    }

    fn array_get(&mut self, a: Value, i: Value, r: Option<Value>, float: bool, byte: bool) {
        let ra = self.ireg(a, 0);
        let ri = self.ireg(i, 1);
        dynasm!(self.ops ; .arch x64 ; mov rax, QWORD [Rq(ra) + ARRAY_DATA_OFFSET]);
        let Some(r) = r else { return };
        if byte {
            dynasm!(self.ops ; .arch x64 ; movzx eax, BYTE [rax + Rq(ri)]);
            self.st(r, 0);
        } else if float {
            dynasm!(self.ops ; .arch x64 ; movsd xmm0, QWORD [rax + Rq(ri) * 8]);
            self.stf(r, 0);
        } else {
            dynasm!(self.ops ; .arch x64 ; mov rax, QWORD [rax + Rq(ri) * 8]);
            self.st(r, 0);
        }
    }

    fn array_set(&mut self, a: Value, i: Value, v: Value, byte: bool) {
        let ra = self.ireg(a, 0);
        let ri = self.ireg(i, 1);
        if byte {
            let rv = self.ireg(v, 2);
            dynasm!(self.ops ; .arch x64
                ; mov rax, QWORD [Rq(ra) + ARRAY_DATA_OFFSET]
                ; mov BYTE [rax + Rq(ri)], Rb(rv)
            );
            return;
        }
        match (self.icached(v), self.fcached(v)) {
            (None, Some(x)) => dynasm!(self.ops ; .arch x64
                ; mov rax, QWORD [Rq(ra) + ARRAY_DATA_OFFSET]
                ; movsd QWORD [rax + Rq(ri) * 8], Rx(x)
            ),
            _ => {
                let rv = self.ireg(v, 2);
                dynasm!(self.ops ; .arch x64
                    ; mov rax, QWORD [Rq(ra) + ARRAY_DATA_OFFSET]
                    ; mov QWORD [rax + Rq(ri) * 8], Rq(rv)
                );
            }
        }
    }

    fn array_pop(&mut self, a: Value, r: Option<Value>, empty: DynamicLabel, byte: bool) {
        self.ld(0, a);
        dynasm!(self.ops ; .arch x64
            ; mov rcx, QWORD [rax + ARRAY_LEN_OFFSET]
            ; test rcx, rcx
            ; je =>empty
            ; sub rcx, 1
            ; mov QWORD [rax + ARRAY_LEN_OFFSET], rcx
            ; mov rax, QWORD [rax + ARRAY_DATA_OFFSET]
        );
        if byte {
            dynasm!(self.ops ; .arch x64 ; movzx eax, BYTE [rax + rcx]);
        } else {
            dynasm!(self.ops ; .arch x64 ; mov rax, QWORD [rax + rcx * 8]);
        }
        self.st_opt(r, 0);
    }

    fn call_function(&mut self, callee: Callee<'_>, unlinked: Option<DynamicLabel>) {
        let Callee { id, sig, args } = callee;
        let (locs, nstack) = Self::arg_locs(&sig.params);
        let area = (8 * (nstack + nstack % 2)) as i32;
        if area > 0 {
            dynasm!(self.ops ; .arch x64 ; sub rsp, area);
        }
        if nstack % 2 == 1 {
            // The alignment word above the arguments: the callee's
            // safepoints scan it, so it must not keep an old word.
            let off = 8 * nstack as i32;
            dynasm!(self.ops ; .arch x64 ; mov QWORD [rsp + off], 0);
        }
        for (&a, &l) in args.iter().zip(&locs) {
            match l {
                ArgLoc::Stack(k) => {
                    let off = 8 * k as i32;
                    self.ld(0, a);
                    dynasm!(self.ops ; .arch x64 ; mov QWORD [rsp + off], rax);
                }
                ArgLoc::Int(reg) => self.ld(reg, a),
                ArgLoc::Float(x) => self.ldf(x, a),
            }
        }
        let off = 8 * id.as_u32() as i32;
        dynasm!(self.ops ; .arch x64
            ; mov rdi, rbx
            ; mov rax, QWORD [rbx + VMCTX_ENTRIES_OFFSET]
        );
        // (The caller-saved homes are reloaded below, after the call.)
        match unlinked {
            Some(l) => dynasm!(self.ops ; .arch x64
                ; mov rax, QWORD [rax + off]
                ; test rax, rax
                ; jz =>l
                ; call rax
            ),
            None => dynasm!(self.ops ; .arch x64 ; call QWORD [rax + off]),
        }
        self.forget_all();
        self.reload_homes();
        if area > 0 {
            dynasm!(self.ops ; .arch x64 ; add rsp, area);
        }
    }

    fn materialize(&mut self, r: Value, cond: Cond) {
        self.setcc(cond);
        dynasm!(self.ops ; .arch x64 ; movzx eax, al);
        self.st(r, 0);
    }

    fn flags_mut(&mut self) -> &mut Option<(Value, Cond)> {
        &mut self.flags
    }

    fn move_slot(&mut self, dst: usize, src: usize) {
        let d = self.slot_disp(dst);
        let r = self.slot_to_reg(src, 0);
        dynasm!(self.ops ; .arch x64 ; mov QWORD [rbp + d], Rq(r));
        self.forget_slot(dst);
        self.sync_home_int(dst, r);
    }

    fn move_to_temp(&mut self, src: usize) {
        let r = self.slot_to_reg(src, 1);
        if r != 1 {
            dynasm!(self.ops ; .arch x64 ; mov rcx, Rq(r));
        }
    }

    fn move_from_temp(&mut self, dst: usize) {
        let d = self.slot_disp(dst);
        dynasm!(self.ops ; .arch x64 ; mov QWORD [rbp + d], rcx);
        self.forget_slot(dst);
        self.sync_home_int(dst, 1);
    }

    fn jump(&mut self, l: DynamicLabel) {
        dynasm!(self.ops ; .arch x64 ; jmp =>l);
    }

    fn jump_if(&mut self, cond: Cond, l: DynamicLabel) {
        self.jcc(cond, l);
    }

    fn branch_on_slot(&mut self, v: Value, k: i64, eq: bool, l: DynamicLabel) {
        let d = self.disp(v);
        match (i32::try_from(k), self.icached(v)) {
            (Ok(k32), Some(c)) => dynasm!(self.ops ; .arch x64 ; cmp Rq(c), k32),
            (Ok(k32), None) => dynasm!(self.ops ; .arch x64 ; cmp QWORD [rbp + d], k32),
            (Err(_), _) => dynasm!(self.ops ; .arch x64
                ; mov rax, QWORD k
                ; cmp QWORD [rbp + d], rax
            ),
        }
        self.jcc(if eq { Cond::Eq } else { Cond::Ne }, l);
    }

    fn store_trap_code(&mut self, code: TrapCode) {
        let c = code as i32;
        dynasm!(self.ops ; .arch x64 ; mov DWORD [rbx + VMCTX_TRAP_CODE_OFFSET], c);
    }

    fn trap_return(&mut self) {
        dynasm!(self.ops ; .arch x64 ; xor eax, eax ; xorps xmm0, xmm0);
        self.epilogue();
    }

    fn tramp(&mut self) -> &mut Asm {
        &mut self.ops
    }
}
