//! The x86-64 back end of the baseline tier: System V code emitted with
//! dynasmrt's x64 assembler.
//!
//! Frame (every function): `push rbp; mov rbp, rsp; push rbx`, then the
//! slot area: value `v` lives at `[rbp - 16 - 8 * v]`, the array-literal
//! scratch area below the slots; `rsp` stays 16-byte aligned in the body.
//! `rbx` holds the `VmCtx` pointer for the whole function; `rax`, `rcx`,
//! `rdx`, `xmm0`, `xmm1` are scratch inside an instruction.
//!
//! Register cache (a single-pass cache on top of the slot frame): slots
//! are always written (write-through), and `rsi`, `rdi`, `r8`–`r11`,
//! `xmm2`–`xmm15` additionally hold copies of recently computed or loaded
//! values, so later uses in the same block read a register instead of
//! memory. The cache is emptied at every label (block starts, edge
//! splits) and after every call (all cache registers are caller-saved);
//! a register written as a call argument drops its entry. Because every
//! value is in its slot at every call, the conservative GC scan sees all
//! references. A comparison whose only use is the branch right after it
//! lives only in the flags ([`crate::baseline::plan::FuncPlan::fused`]).
//! Instructions are in [`inst`], entry trampolines in [`tramp`].

pub(crate) mod disasm;
mod inst;
pub(crate) mod tramp;

use dynasmrt::x64::X64Relocation;
use dynasmrt::{dynasm, DynamicLabel, DynasmApi, DynasmLabelApi, VecAssembler};
use waddle_opt::abi::{
    TrapCode, VMCTX_FUEL_OFFSET, VMCTX_STACK_LIMIT_OFFSET, VMCTX_TRAP_CODE_OFFSET,
    VMCTX_TRAP_COL_OFFSET, VMCTX_TRAP_FILE_OFFSET, VMCTX_TRAP_LINE_OFFSET,
    VMCTX_TRAP_LOC_SET_OFFSET,
};
use waddle_opt::ir::{BinaryOp, InstData, InstKind, SrcLoc, Type, UnaryOp, Value};

use super::cold::{Cold, ColdPaths};
use super::driver::{Backend, FnCx};
use super::moves::MoveOp;
use super::plan::slot;
use crate::helpers::Helper;

/// The assembler every x64 function and trampoline is emitted into.
pub(crate) type Asm = VecAssembler<X64Relocation>;

/// Integer argument registers after `rdi` (which carries the `VmCtx`).
pub(crate) const INT_ARGS: [u8; 5] = [6, 2, 1, 8, 9];
/// Number of `xmm` argument registers.
pub(crate) const FLOAT_ARGS: usize = 8;

/// Where each native argument of a Waddle signature travels.
#[derive(Copy, Clone, Debug)]
pub(crate) enum ArgLoc {
    /// An integer register (dynasm number).
    Int(u8),
    /// `xmm` register number.
    Float(u8),
    /// Stack word number `k` above the return address.
    Stack(usize),
}

/// The System V locations of a Waddle function's parameters (the `VmCtx`
/// in `rdi` excluded), and the number of stack words.
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

/// Condition codes of a comparison whose flags are still live.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) enum Cond {
    E,
    Ne,
    L,
    Le,
    G,
    Ge,
    A,
    Ae,
    B,
    Be,
}

impl Cond {
    /// The condition that holds exactly when `self` does not.
    fn invert(self) -> Cond {
        match self {
            Cond::E => Cond::Ne,
            Cond::Ne => Cond::E,
            Cond::L => Cond::Ge,
            Cond::Ge => Cond::L,
            Cond::Le => Cond::G,
            Cond::G => Cond::Le,
            // Only used for ordered float compares: not-above includes
            // unordered, which is what `!(x > y)` means.
            Cond::A => Cond::Be,
            Cond::Ae => Cond::B,
            Cond::B => Cond::Ae,
            Cond::Be => Cond::A,
        }
    }
}

/// The x64 baseline back end: one per compilation unit.
pub(crate) struct X64 {
    /// The code being emitted.
    pub ops: Asm,
    /// Whether `roundsd` (SSE4.1) may be used.
    sse41: bool,
    /// The shared trap exit of the current function.
    exit: DynamicLabel,
    /// The stack-overflow path of the current function.
    overflow: DynamicLabel,
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
}

/// Caller-saved registers that cache copies of slots between instructions
/// (`rsi`, `rdi`, `r8`–`r11`): never scratch inside an instruction's own
/// code, only written as call arguments, which [`X64::ld`] accounts for.
const ICACHE: [u8; 6] = [6, 7, 8, 9, 10, 11];
/// `xmm2`–`xmm15`, caching float slots the same way.
const FCACHE: [u8; 14] = [2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15];

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

/// The frame displacement of value `v`'s slot.
pub(crate) fn disp(v: Value) -> i32 {
    -16 - 8 * slot(v) as i32
}

impl X64 {
    /// A back end with an empty assembler.
    pub fn new() -> X64 {
        let mut ops = Asm::new(0);
        let exit = ops.new_dynamic_label();
        let overflow = ops.new_dynamic_label();
        X64 {
            ops,
            sse41: has_sse41(),
            exit,
            overflow,
            flags: None,
            icache: [None; ICACHE.len()],
            fcache: [None; FCACHE.len()],
            inext: 0,
            fnext: 0,
            fill: false,
        }
    }

    /// Current code offset.
    pub fn offset(&self) -> usize {
        self.ops.offset().0
    }

    /// Forgets every cached register copy (at labels and after calls).
    pub(super) fn forget_all(&mut self) {
        self.icache = [None; ICACHE.len()];
        self.fcache = [None; FCACHE.len()];
    }

    /// Forgets the cached copies of the value in slot `s` (its slot is
    /// being overwritten).
    pub(super) fn forget_slot(&mut self, s: usize) {
        for e in self.icache.iter_mut().chain(self.fcache.iter_mut()) {
            if e.is_some_and(|v| slot(v) == s) {
                *e = None;
            }
        }
    }

    /// The cache register holding an integer-class copy of `v`.
    pub(super) fn icached(&self, v: Value) -> Option<u8> {
        let i = self.icache.iter().position(|&e| e == Some(v))?;
        Some(ICACHE[i])
    }

    /// The cache register holding a float copy of `v`.
    pub(super) fn fcached(&self, v: Value) -> Option<u8> {
        let i = self.fcache.iter().position(|&e| e == Some(v))?;
        Some(FCACHE[i])
    }

    /// Register `r` is about to be overwritten: drop what it caches.
    fn clobber_int(&mut self, r: u8) {
        if let Some(i) = ICACHE.iter().position(|&c| c == r) {
            self.icache[i] = None;
        }
    }

    /// `xmm(x)` is about to be overwritten: drop what it caches.
    fn clobber_float(&mut self, x: u8) {
        if let Some(i) = FCACHE.iter().position(|&c| c == x) {
            self.fcache[i] = None;
        }
    }

    /// `Rq(r) = v`.
    fn ld(&mut self, r: u8, v: Value) {
        match self.icached(v) {
            Some(c) if c == r => return,
            Some(c) => dynasm!(self.ops ; .arch x64 ; mov Rq(r), Rq(c)),
            None if self.fill && !ICACHE.contains(&r) => {
                // Keep a copy for later uses of `v` in this block.
                let d = disp(v);
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
                let d = disp(v);
                dynasm!(self.ops ; .arch x64 ; mov Rq(r), QWORD [rbp + d]);
            }
        }
        self.clobber_int(r);
    }

    /// `v = Rq(r)` (also kept in a cache register).
    fn st(&mut self, v: Value, r: u8) {
        let d = disp(v);
        dynasm!(self.ops ; .arch x64 ; mov QWORD [rbp + d], Rq(r));
        self.forget_slot(slot(v));
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
                let d = disp(v);
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
                let d = disp(v);
                dynasm!(self.ops ; .arch x64 ; movsd Rx(x), QWORD [rbp + d]);
            }
        }
        self.clobber_float(x);
    }

    /// `v = xmm(x)` (also kept in a cache register).
    fn stf(&mut self, v: Value, x: u8) {
        let d = disp(v);
        dynasm!(self.ops ; .arch x64 ; movsd QWORD [rbp + d], Rx(x));
        self.forget_slot(slot(v));
        let i = self.fnext;
        self.fnext = (i + 1) % FCACHE.len();
        let c = FCACHE[i];
        if c != x {
            dynasm!(self.ops ; .arch x64 ; movapd Rx(c), Rx(x));
        }
        self.fcache[i] = Some(v);
    }

    /// Whether the lowering of `kind` calls a helper or a function.
    fn calls_out(&self, kind: &InstKind) -> bool {
        match kind {
            InstKind::Unary(op, _) => {
                matches!(
                    op,
                    UnaryOp::FSin | UnaryOp::FCos | UnaryOp::FTan | UnaryOp::FExp | UnaryOp::FLog
                ) || (!self.sse41 && matches!(op, UnaryOp::FFloor | UnaryOp::FCeil))
            }
            InstKind::Binary(op, ..) => *op == BinaryOp::FRem,
            InstKind::Call(..)
            | InstKind::ArrayLit(..)
            | InstKind::ArrayRepeat(..)
            | InstKind::ArrayPush(..)
            | InstKind::StrConcat(..)
            | InstKind::StrCmp(..)
            | InstKind::ToStr(..)
            | InstKind::Print(..)
            | InstKind::Clock => true,
            _ => false,
        }
    }

    /// Calls a runtime helper (arguments already in place; `rsp` aligned).
    fn call_helper(&mut self, h: Helper) {
        self.call_addr(h.addr());
    }

    /// Calls the code at absolute address `addr`.
    fn call_addr(&mut self, addr: usize) {
        let a = addr as i64;
        dynasm!(self.ops ; .arch x64 ; mov rax, QWORD a ; call rax);
        self.forget_all();
    }

    /// Leaves through `label` when the trap record holds a trap.
    fn check_trap(&mut self, label: DynamicLabel) {
        dynasm!(self.ops ; .arch x64
            ; cmp DWORD [rbx + VMCTX_TRAP_CODE_OFFSET], 0
            ; jne =>label
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

    /// Writes `loc` into the trap record.
    fn store_loc(&mut self, loc: SrcLoc) {
        let (f, l, c) = (loc.file as i32, loc.line as i32, loc.col as i32);
        dynasm!(self.ops ; .arch x64
            ; mov DWORD [rbx + VMCTX_TRAP_FILE_OFFSET], f
            ; mov DWORD [rbx + VMCTX_TRAP_LINE_OFFSET], l
            ; mov DWORD [rbx + VMCTX_TRAP_COL_OFFSET], c
            ; mov DWORD [rbx + VMCTX_TRAP_LOC_SET_OFFSET], 1
        );
    }

    /// `jcc l`.
    fn jcc(&mut self, c: Cond, l: DynamicLabel) {
        match c {
            Cond::E => dynasm!(self.ops ; .arch x64 ; je =>l),
            Cond::Ne => dynasm!(self.ops ; .arch x64 ; jne =>l),
            Cond::L => dynasm!(self.ops ; .arch x64 ; jl =>l),
            Cond::Le => dynasm!(self.ops ; .arch x64 ; jle =>l),
            Cond::G => dynasm!(self.ops ; .arch x64 ; jg =>l),
            Cond::Ge => dynasm!(self.ops ; .arch x64 ; jge =>l),
            Cond::A => dynasm!(self.ops ; .arch x64 ; ja =>l),
            Cond::Ae => dynasm!(self.ops ; .arch x64 ; jae =>l),
            Cond::B => dynasm!(self.ops ; .arch x64 ; jb =>l),
            Cond::Be => dynasm!(self.ops ; .arch x64 ; jbe =>l),
        }
    }

    /// `al = cond ? 1 : 0`.
    fn setcc(&mut self, c: Cond) {
        match c {
            Cond::E => dynasm!(self.ops ; .arch x64 ; sete al),
            Cond::Ne => dynasm!(self.ops ; .arch x64 ; setne al),
            Cond::L => dynasm!(self.ops ; .arch x64 ; setl al),
            Cond::Le => dynasm!(self.ops ; .arch x64 ; setle al),
            Cond::G => dynasm!(self.ops ; .arch x64 ; setg al),
            Cond::Ge => dynasm!(self.ops ; .arch x64 ; setge al),
            Cond::A => dynasm!(self.ops ; .arch x64 ; seta al),
            Cond::Ae => dynasm!(self.ops ; .arch x64 ; setae al),
            Cond::B => dynasm!(self.ops ; .arch x64 ; setb al),
            Cond::Be => dynasm!(self.ops ; .arch x64 ; setbe al),
        }
    }

    /// The shared return sequence (result already in `rax`/`xmm0`).
    fn epilogue(&mut self) {
        dynasm!(self.ops ; .arch x64
            ; mov rbx, QWORD [rbp - 8]
            ; leave
            ; ret
        );
    }
}

impl Backend for X64 {
    type Label = DynamicLabel;

    fn new_label(&mut self) -> DynamicLabel {
        self.ops.new_dynamic_label()
    }

    fn bind(&mut self, l: DynamicLabel) {
        self.flags = None;
        self.forget_all();
        dynasm!(self.ops ; .arch x64 ; =>l);
    }

    fn prologue(&mut self, cx: &FnCx<'_>, cold: &mut ColdPaths<DynamicLabel>) {
        self.flags = None;
        self.forget_all();
        self.exit = self.ops.new_dynamic_label();
        self.overflow = self.ops.new_dynamic_label();
        let words = cx.plan.frame_words();
        // After `push rbp; push rbx` rsp is 8 mod 16.
        let size = (8 * words + if words.is_multiple_of(2) { 8 } else { 0 }) as i32;
        let neg = -size;
        let overflow = self.overflow;
        dynasm!(self.ops ; .arch x64
            ; push rbp
            ; mov rbp, rsp
            ; push rbx
            ; mov rbx, rdi
            ; lea rax, [rsp + neg]
            ; cmp rax, QWORD [rbx + VMCTX_STACK_LIMIT_OFFSET]
            ; jb =>overflow
            ; sub rsp, size
        );
        let entry = cx.func.entry();
        let params = &cx.func.blocks[entry].params;
        let (locs, _) = arg_locs(&cx.func.sig.params);
        for (&p, &loc) in params.iter().zip(&locs) {
            let d = disp(p);
            let is_bool = cx.func.value_type(p) == Type::Bool;
            match loc {
                ArgLoc::Int(r) if is_bool => {
                    dynasm!(self.ops ; .arch x64 ; movzx eax, Rb(r) ; mov QWORD [rbp + d], rax)
                }
                ArgLoc::Int(r) => dynasm!(self.ops ; .arch x64 ; mov QWORD [rbp + d], Rq(r)),
                ArgLoc::Float(x) => dynasm!(self.ops ; .arch x64 ; movsd QWORD [rbp + d], Rx(x)),
                ArgLoc::Stack(k) => {
                    let s = 16 + 8 * k as i32;
                    if is_bool {
                        dynasm!(self.ops ; .arch x64 ; movzx eax, BYTE [rbp + s])
                    } else {
                        dynasm!(self.ops ; .arch x64 ; mov rax, QWORD [rbp + s])
                    }
                    dynasm!(self.ops ; .arch x64 ; mov QWORD [rbp + d], rax);
                }
            }
        }
        for &(v, k) in &cx.plan.consts {
            self.const_word(Some(v), k);
        }
        if cx.env.fuel {
            // An entry tick that runs out points at the caller's call.
            let refill = self.ops.new_dynamic_label();
            let resume = self.ops.new_dynamic_label();
            dynasm!(self.ops ; .arch x64
                ; sub QWORD [rbx + VMCTX_FUEL_OFFSET], 1
                ; je =>refill
                ; =>resume
            );
            cold.fuel(resume, None, refill);
        }
    }

    fn inst(&mut self, cx: &FnCx<'_>, data: &InstData, cold: &mut ColdPaths<DynamicLabel>) {
        self.flags = None;
        self.fill = !self.calls_out(&data.kind);
        self.lower(cx, data, cold);
        self.fill = false;
    }

    fn moves(&mut self, ops: &[MoveOp]) {
        self.flags = None;
        for &op in ops {
            match op {
                MoveOp::Copy { dst, src } => {
                    let d = -16 - 8 * dst as i32;
                    let cached = self
                        .icache
                        .iter()
                        .position(|e| e.is_some_and(|v| slot(v) == src));
                    match cached {
                        Some(i) => {
                            let c = ICACHE[i];
                            dynasm!(self.ops ; .arch x64 ; mov QWORD [rbp + d], Rq(c));
                        }
                        None => {
                            let s = -16 - 8 * src as i32;
                            dynasm!(self.ops ; .arch x64
                                ; mov rax, QWORD [rbp + s]
                                ; mov QWORD [rbp + d], rax
                            );
                        }
                    }
                    self.forget_slot(dst);
                }
                MoveOp::ToTemp(src) => {
                    let s = -16 - 8 * src as i32;
                    dynasm!(self.ops ; .arch x64 ; mov rcx, QWORD [rbp + s]);
                }
                MoveOp::FromTemp(dst) => {
                    let d = -16 - 8 * dst as i32;
                    dynasm!(self.ops ; .arch x64 ; mov QWORD [rbp + d], rcx);
                    self.forget_slot(dst);
                }
            }
        }
    }

    fn fuel_tick(&mut self, loc: SrcLoc, cold: &mut ColdPaths<DynamicLabel>) {
        self.flags = None;
        // The refill path calls a helper and resumes here.
        self.forget_all();
        let refill = self.ops.new_dynamic_label();
        let resume = self.ops.new_dynamic_label();
        dynasm!(self.ops ; .arch x64
            ; sub QWORD [rbx + VMCTX_FUEL_OFFSET], 1
            ; je =>refill
            ; =>resume
        );
        cold.fuel(resume, Some(loc), refill);
    }

    fn jump(&mut self, l: DynamicLabel) {
        dynasm!(self.ops ; .arch x64 ; jmp =>l);
    }

    fn branch(&mut self, _cx: &FnCx<'_>, v: Value, k: i64, eq: bool, l: DynamicLabel) {
        if let Some((fv, c)) = self.flags {
            if fv == v && (k == 0 || k == 1) {
                let taken = if (k == 1) == eq { c } else { c.invert() };
                self.jcc(taken, l);
                return;
            }
        }
        let d = disp(v);
        match (i32::try_from(k), self.icached(v)) {
            (Ok(k32), Some(c)) => dynasm!(self.ops ; .arch x64 ; cmp Rq(c), k32),
            (Ok(k32), None) => dynasm!(self.ops ; .arch x64 ; cmp QWORD [rbp + d], k32),
            (Err(_), _) => dynasm!(self.ops ; .arch x64
                ; mov rax, QWORD k
                ; cmp QWORD [rbp + d], rax
            ),
        }
        self.jcc(if eq { Cond::E } else { Cond::Ne }, l);
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
        let so = TrapCode::StackOverflow as i32;
        dynasm!(self.ops ; .arch x64
            ; =>overflow
            ; mov DWORD [rbx + VMCTX_TRAP_CODE_OFFSET], so
            ; jmp =>exit
        );
        let mut i = 0;
        while i < cold.list.len() {
            match cold.list[i] {
                Cold::Trap { label, code, loc } => {
                    let c = code as i32;
                    dynasm!(self.ops ; .arch x64
                        ; =>label
                        ; mov DWORD [rbx + VMCTX_TRAP_CODE_OFFSET], c
                    );
                    self.store_loc(loc);
                    dynasm!(self.ops ; .arch x64 ; jmp =>exit);
                }
                Cold::Propagate { label, loc } => {
                    dynasm!(self.ops ; .arch x64
                        ; =>label
                        ; cmp DWORD [rbx + VMCTX_TRAP_LOC_SET_OFFSET], 0
                        ; jne =>exit
                    );
                    self.store_loc(loc);
                    dynasm!(self.ops ; .arch x64 ; jmp =>exit);
                }
                Cold::Fuel { label, resume, loc } => {
                    dynasm!(self.ops ; .arch x64 ; =>label ; mov rdi, rbx);
                    self.call_helper(Helper::Fuel);
                    match loc {
                        Some(loc) => self.check_trap_at(loc, &mut cold),
                        None => self.check_trap(exit),
                    }
                    dynasm!(self.ops ; .arch x64 ; jmp =>resume);
                }
            }
            i += 1;
        }
        dynasm!(self.ops ; .arch x64
            ; =>exit
            ; xor eax, eax
            ; xorps xmm0, xmm0
        );
        self.epilogue();
    }
}
