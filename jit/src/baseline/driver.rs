//! The one linear pass shared by every baseline back end: the prologue
//! (frame; parameters into slots, constants, entry fuel), blocks in layout
//! order with each instruction selected by [`super::isel`], terminators as
//! compare-and-branch chains with the edge work (parallel moves of block
//! arguments, back-edge fuel ticks) on the edge itself, then the
//! out-of-line paths, and the entry trampolines. Frame words a safepoint
//! may find unwritten are zeroed before the first safepoint of each path
//! or in the prologue ([`waddle_opt::analysis::gc_slots::unwritten`]).
//! Before each safepoint the
//! slots of dead references are zeroed ([`waddle_opt::analysis::gc_slots`]),
//! and reference words a helper received in the scratch area after it. A back end supplies only
//! encodings, its frame layout and its argument registers ([`Backend`]):
//! QBE's isel/emit/abi split in one trait.

use std::collections::HashMap;
use std::time::Instant;

use cranelift_entity::{EntityRef, SecondaryMap};
use waddle_opt::abi::TrapCode;
use waddle_opt::analysis::gc_slots::dead_ref_clears;
use waddle_opt::analysis::gc_slots::unwritten::{frame_zeroing, FrameWrites, FrameZeroing};
use waddle_opt::ir::{
    Block, BlockCall, FuncId, Function, Inst, InstData, InstKind, Program, Signature, SrcLoc,
    Terminator, Type, UnaryOp, Value,
};

use super::cold::{Cold, ColdPaths};
use super::conv::{arg_locs, ArgLoc, HelperArg, RetClass};
use super::isel::{self, Cond};
use super::moves::{sequentialize, MoveOp};
use super::plan::FuncPlan;
use crate::helpers::Helper;
use crate::options::{CompileStats, FuncStats};

/// Program-wide facts every function's code needs.
pub(crate) struct Env<'a> {
    /// The program being compiled.
    pub program: &'a Program,
    /// Index in `VmCtx::strings` of each string constant's text.
    pub string_index: &'a HashMap<Box<str>, usize>,
    /// Whether to count fuel.
    pub fuel: bool,
    /// Which functions are recursive: their frames count against the
    /// recursion depth (`VmCtx::depth_left`).
    pub recursive: SecondaryMap<FuncId, bool>,
    /// Address of the tiering counters (`JitOptions::tier_counters`): two
    /// `i64` per function, calls then back edges. 0 for position-independent
    /// code: the cells' addresses are then offsets in the table at
    /// `VmCtx::tier_counters` (the back end's `counter_dec` adds it).
    pub counters: Option<usize>,
    /// With counters: a back-edge counter that runs out at a loop header
    /// asks the host to continue the activation on a higher tier
    /// ([`Helper::LoopTierUp`], on-stack replacement from T1). Host code
    /// only (images have no host to enter).
    pub osr: bool,
}

/// The function being compiled, with its plan.
pub(crate) struct FnCx<'a> {
    /// Program-wide facts.
    pub env: &'a Env<'a>,
    /// The function's index (reported with every frame a trap leaves).
    pub fid: FuncId,
    /// The function.
    pub func: &'a Function,
    /// Its plan (block order, frame).
    pub plan: &'a FuncPlan,
    /// Whether it is recursive (its frames count against the depth).
    pub recursive: bool,
    /// Its id.
    pub id: FuncId,
}

/// What a baseline back end provides: encodings of the mid-level
/// operations the shared instruction selection ([`super::isel`]) and this
/// driver are written in, its frame layout and its argument registers.
/// Values live in their frame slots ([`super::plan`]); a back end may keep
/// copies in registers between operations as long as every slot is written
/// through.
pub(crate) trait Backend: Arith {
    /// The assembler's trampoline encodings.
    type Tramp: Trampolines;
    /// Integer argument registers after the one carrying the `VmCtx`.
    const INT_ARGS: &'static [u8];
    /// Integer registers of a helper call's arguments, `VmCtx` included.
    const HELPER_INT_ARGS: &'static [u8];
    /// Number of float argument registers.
    const FLOAT_ARGS: usize;
    /// An integer register free for copies inside an operation.
    const ACC: u8;

    /// Where the arguments of a call to a function with `params` travel,
    /// and the number of stack words.
    fn arg_locs(params: &[Type]) -> (Vec<ArgLoc>, usize) {
        arg_locs(params, Self::INT_ARGS, Self::FLOAT_ARGS)
    }

    // ---- code positions
    /// A fresh, unbound label.
    fn new_label(&mut self) -> Self::Label;
    /// Binds `l` to the current position (forgets register state).
    fn bind(&mut self, l: Self::Label);
    /// Current code offset.
    fn offset(&self) -> usize;
    /// Aligns the start of the next function or trampoline.
    fn align_entry(&mut self);

    // ---- slots (register 0 is the first result register, int and float)
    /// Integer register `reg` = `v`'s slot.
    fn ld(&mut self, reg: u8, v: Value);
    /// `v`'s slot = integer register `reg`.
    fn st(&mut self, v: Value, reg: u8);
    /// Float register `reg` = `v`'s slot.
    fn ldf(&mut self, reg: u8, v: Value);
    /// `v`'s slot = float register `reg`.
    fn stf(&mut self, v: Value, reg: u8);
    /// [`Backend::st`] when there is a result.
    fn st_opt(&mut self, r: Option<Value>, reg: u8) {
        if let Some(r) = r {
            self.st(r, reg);
        }
    }
    /// [`Backend::stf`] when there is a result.
    fn stf_opt(&mut self, r: Option<Value>, reg: u8) {
        if let Some(r) = r {
            self.stf(r, reg);
        }
    }
    /// Zero-extends the low byte of integer register `reg` (a `bool`).
    fn zext_byte(&mut self, reg: u8);

    // ---- frame
    /// Frame set-up and the stack-limit check (taking `overflow` when the
    /// frame does not fit), falling through into the body.
    fn enter(&mut self, cx: &FnCx<'_>, overflow: Self::Label);
    /// Pops the frame and returns (results already in register 0).
    fn epilogue(&mut self);
    /// After [`Backend::enter`] of a recursive function: takes one frame
    /// from `VmCtx::depth_left`, jumping to `overflow` when none is left
    /// (argument registers are still live: scratch registers only).
    fn depth_enter(&mut self, overflow: Self::Label);
    /// Before the epilogue of a normal return of a recursive function:
    /// gives the frame back (the result register is live).
    fn depth_leave(&mut self);
    /// Stores parameter `p`, which arrives at `loc`, into its slot (a
    /// `bool` arrives in the low byte and is zero-extended).
    fn spill_param(&mut self, p: Value, loc: ArgLoc, is_bool: bool);
    /// Writes the constant word `k` into `v`'s slot (unless the back end
    /// never reads it there).
    fn const_word(&mut self, cx: &FnCx<'_>, v: Value, k: i64);
    /// Words of the body frame after the value slots and the scratch words
    /// that nothing writes before a safepoint (outgoing arguments,
    /// alignment padding), numbered from `slots + scratch` on (after
    /// [`Backend::enter`]). The collector scans the whole body frame.
    fn extra_words(&self) -> usize;
    /// Whether [`Backend::const_word`] writes constant `v`'s slot.
    fn const_in_slot(&self, cx: &FnCx<'_>, v: Value) -> bool;
    /// Zeroes the body-frame words `words` (value slots, then scratch
    /// words, then [`Backend::extra_words`]), so no word a finished frame
    /// left there is taken for a GC root: right after [`Backend::enter`]
    /// (`entry`; the argument registers are still live, and the back end
    /// may zero more than asked) or just before a safepoint (without
    /// touching any register).
    fn zero_words(&mut self, words: &[u32], entry: bool);
    /// Zeroes scratch word `k` (a reference passed to a helper, dead now).
    fn clear_scratch(&mut self, k: usize);
    /// Charges one unit of fuel: jumps to `refill` when the batch is empty,
    /// which comes back to `resume`, bound right after.
    fn fuel_dec(&mut self, refill: Self::Label, resume: Self::Label);
    /// Decrements the `i64` tiering counter at address `cell` (for
    /// position-independent code: at offset `cell` in the table at
    /// `VmCtx::tier_counters`, see [`Env::counters`]): jumps to
    /// `slow` when it reaches zero, which comes back to `resume`, bound
    /// right after (scratch registers only).
    fn counter_dec(&mut self, cell: usize, slow: Self::Label, resume: Self::Label);

    // ---- instructions
    /// An instruction of kind `kind` starts.
    fn begin_inst(&mut self, kind: &InstKind);
    /// `r = table[index]` for the `VmCtx` table pointer at `table`.
    fn load_ctx_table(&mut self, table: i32, index: usize, r: Value);
    /// `table[index] = v` for the `VmCtx` table pointer at `table`.
    fn store_ctx_table(&mut self, table: i32, index: usize, v: Value);
    /// `r = *(obj + offset)` (a heap object's header field).
    fn load_field(&mut self, r: Value, obj: Value, offset: i32);
    /// Scratch word `k` of the array-literal area = `v`.
    fn store_scratch(&mut self, k: usize, v: Value);
    /// Calls runtime helper `h` with `args` (in its parameter order).
    fn call_helper(&mut self, h: Helper, args: &[HelperArg]);
    /// Jumps to `l` when the trap record holds a trap.
    fn jump_if_trap(&mut self, l: Self::Label);
    /// Bytes from one value's slot to the next (negative: the slots go
    /// down from slot 0, [`HelperArg::SlotBase`]).
    const SLOT_STRIDE: i64;
    /// Jumps to `l` when the integer result of the helper just called is 0.
    fn jump_if_result_zero(&mut self, l: Self::Label);
    /// Loads slot 0's word (as written by a helper, not through the slot's
    /// home register) into the result register: the float one when
    /// `float`.
    fn load_slot0_result(&mut self, float: bool);
    /// Jumps to `l` unless `0 <= i < len(a)` (unsigned compare).
    fn bounds_check(&mut self, a: Value, i: Value, l: Self::Label);
    /// `r = a[i]` (`float`: the element is a double; `byte`: the array
    /// has one-byte elements, [`waddle_opt::abi::ElemLayout::Byte`], read
    /// zero-extended).
    fn array_get(&mut self, a: Value, i: Value, r: Option<Value>, float: bool, byte: bool);
    /// `a[i] = v` (`byte`: one-byte elements, the low byte of `v` is stored).
    fn array_set(&mut self, a: Value, i: Value, v: Value, byte: bool);
    /// `r = pop(a)`; jumps to `empty` when `a` is empty (`byte`: one-byte
    /// elements).
    fn array_pop(&mut self, a: Value, r: Option<Value>, empty: Self::Label, byte: bool);
    /// Calls `callee` through its entry slot; `unlinked` is taken when the
    /// slot is still empty.
    fn call_function(&mut self, callee: isel::Callee<'_>, unlinked: Option<Self::Label>);
    /// Writes `r = cond ? 1 : 0` from the live flags.
    fn materialize(&mut self, r: Value, cond: Cond);
    /// The back end's record of the bool value whose comparison the
    /// flags hold (it clears it when it clobbers the flags).
    fn flags_mut(&mut self) -> &mut Option<(Value, Cond)>;
    /// Records that the flags hold `cond` for bool `v` (or nothing).
    fn set_flags(&mut self, flags: Option<(Value, Cond)>) {
        *self.flags_mut() = flags;
    }

    // ---- edges and terminators
    /// Copies slot `src` to slot `dst`.
    fn move_slot(&mut self, dst: usize, src: usize);
    /// Loads slot `src` into the move temporary.
    fn move_to_temp(&mut self, src: usize);
    /// Stores the move temporary into slot `dst`.
    fn move_from_temp(&mut self, dst: usize);
    /// A sequentialized parallel copy between slots (it clobbers the flags).
    fn moves(&mut self, ops: &[MoveOp]) {
        self.set_flags(None);
        for &op in ops {
            match op {
                MoveOp::Copy { dst, src } => self.move_slot(dst, src),
                MoveOp::ToTemp(src) => self.move_to_temp(src),
                MoveOp::FromTemp(dst) => self.move_from_temp(dst),
            }
        }
    }
    /// Unconditional jump.
    fn jump(&mut self, l: Self::Label);
    /// Jumps to `l` when the flags hold `cond`.
    fn jump_if(&mut self, cond: Cond, l: Self::Label);
    /// Jumps to `l` when the `int`/`bool` value in `v`'s slot equals `k`
    /// (`eq`) or differs from it (`!eq`).
    fn branch_on_slot(&mut self, v: Value, k: i64, eq: bool, l: Self::Label);
    /// Jumps to `l` when the `int`/`bool` value `v` equals `k` (`eq`) or
    /// differs from it (`!eq`): on the live flags when they hold `v`'s
    /// comparison and `k` is a bool, else on its slot.
    fn branch(&mut self, v: Value, k: i64, eq: bool, l: Self::Label) {
        match *self.flags_mut() {
            Some((fv, c)) if fv == v && (k == 0 || k == 1) => {
                self.jump_if(if (k == 1) == eq { c } else { c.invert() }, l)
            }
            _ => self.branch_on_slot(v, k, eq, l),
        }
    }

    // ---- out-of-line paths
    /// Writes `code` into the trap record.
    fn store_trap_code(&mut self, code: TrapCode);
    /// Returns zero results (the trap exit's tail).
    fn trap_return(&mut self);

    /// The assembler, for emitting entry trampolines.
    fn tramp(&mut self) -> &mut Self::Tramp;
}

/// Encodings of the entry trampolines (see [`crate::abi`]), implemented by
/// each back end's assembler; the sequence is [`emit_trampoline`]'s.
pub(crate) trait Trampolines {
    /// Saves what the trampoline uses and reserves `stack_words` words of
    /// outgoing arguments.
    fn enter(&mut self, stack_words: usize);
    /// Loads argument word `k` of the trampoline's array to `loc`.
    fn arg(&mut self, k: usize, loc: ArgLoc);
    /// Calls entry slot `index`.
    fn call(&mut self, index: usize);
    /// Stores the result word through the trampoline's result pointer.
    fn result(&mut self, class: RetClass);
    /// Restores and returns.
    fn leave(&mut self);
}

/// The encodings of arithmetic and comparisons, implemented in each back
/// end's `inst` module.
pub(crate) trait Arith {
    /// A code position that jumps can target (bound once).
    type Label: Copy;
    /// A unary operation with an encoding (`isel::lower` calls libm for
    /// `sin cos tan exp log` itself, never this).
    fn unary(&mut self, op: UnaryOp, a: Value, r: Option<Value>);
    /// A binary operation (float `%` through [`isel::float_call`]); traps
    /// through `cold`.
    fn binary(&mut self, cx: &FnCx<'_>, inst: isel::Binary, cold: &mut ColdPaths<Self::Label>);
}

/// Where each function of a unit landed: `(offset, size)` of the code and
/// the offset of the entry trampoline, `None` for declarations.
pub(crate) struct UnitLayout {
    /// Code of each function, by `FuncId` index.
    pub code: Vec<Option<(usize, usize)>>,
    /// Trampoline of each function, by `FuncId` index.
    pub trampolines: Vec<Option<usize>>,
}

/// Emits every function with a body and then every entry trampoline of
/// `env.program` through `b`, recording statistics in `stats`.
pub(crate) fn emit_unit<B: Backend>(
    b: &mut B,
    env: &Env<'_>,
    stats: &mut CompileStats,
) -> UnitLayout {
    let program = env.program;
    let mut layout = UnitLayout {
        code: vec![None; program.funcs.len()],
        trampolines: vec![None; program.funcs.len()],
    };
    for (fid, f) in program.funcs.iter() {
        if f.is_declaration() {
            continue;
        }
        let t0 = Instant::now();
        let plan = FuncPlan::new(f);
        let t1 = Instant::now();
        b.align_entry();
        let at = b.offset();
        emit_function(
            b,
            &FnCx {
                env,
                fid,
                func: f,
                plan: &plan,
                recursive: env.recursive[fid],
                id: fid,
            },
        );
        let size = b.offset() - at;
        stats
            .funcs
            .push(FuncStats::new(fid, f, t1 - t0, t1.elapsed(), size));
        layout.code[fid.index()] = Some((at, size));
    }
    let t0 = Instant::now();
    for (fid, f) in program.funcs.iter() {
        if f.is_declaration() {
            continue;
        }
        b.align_entry();
        layout.trampolines[fid.index()] = Some(b.offset());
        emit_trampoline(b, f.sig(), fid.index());
    }
    stats.trampolines = t0.elapsed();
    layout
}

/// The entry trampoline of a function with signature `sig` whose entry
/// slot is number `index`: `fn(vmctx, args: *const Word, ret: *mut Word)`.
fn emit_trampoline<B: Backend>(b: &mut B, sig: &Signature, index: usize) {
    let (locs, nstack) = B::arg_locs(&sig.params);
    let t = b.tramp();
    t.enter(nstack);
    for (k, &loc) in locs.iter().enumerate() {
        t.arg(k, loc);
    }
    t.call(index);
    if sig.ret != Type::Unit {
        t.result(RetClass::of_type(sig.ret));
    }
    t.leave();
}

/// Emits the code of one function (with a body) through `b`.
pub(crate) fn emit_function<B: Backend>(b: &mut B, cx: &FnCx<'_>) {
    let mut cold = ColdPaths::new();
    let clears = dead_ref_clears(cx.func, &cx.plan.order, |v| {
        let s = *cx.plan.slot_of.get(v.index())?;
        (s != super::plan::NO_SLOT).then_some(s)
    });
    let overflow = b.new_label();
    b.enter(cx, overflow);
    let zeroing = plan_zeroing(b, cx);
    let mut labels: SecondaryMap<Block, Option<B::Label>> = SecondaryMap::new();
    for &bl in &cx.plan.order {
        labels[bl] = Some(b.new_label());
    }
    let exit = b.new_label();
    let mut e = Driver {
        b,
        cx,
        labels,
        scratch: Vec::new(),
        pairs: Vec::new(),
    };
    e.prologue(&zeroing.entry, overflow, &mut cold);
    for (i, &bl) in cx.plan.order.iter().enumerate() {
        let next = cx.plan.order.get(i + 1).copied();
        e.b.bind(e.label(bl));
        for &inst in &cx.func.blocks()[bl].insts {
            let data: &InstData = cx.func.inst(inst);
            // Dead references leave their slots before a safepoint, so the
            // conservative scan keeps what Cranelift's stack maps keep.
            for &s in clears.get(&inst).map_or(&[][..], Vec::as_slice) {
                e.b.const_word(cx, cx.plan.slot_values[s as usize], 0);
            }
            if let Some(words) = zeroing.before.get(&inst) {
                e.b.zero_words(words, false);
            }
            e.b.begin_inst(&data.kind);
            isel::lower(e.b, cx, data, &mut cold);
            if let InstKind::ArrayLit(xs) | InstKind::HostCall(_, xs) = &data.kind {
                for (k, &x) in xs.iter().enumerate() {
                    if cx.func.value_type(x).is_ref() {
                        e.b.clear_scratch(k);
                    }
                }
            }
        }
        e.terminator(bl, next, &mut cold);
    }
    emit_cold(e.b, cx, cold, exit, overflow);
}

/// Which words of `cx`'s body frame are zeroed where
/// ([`waddle_opt::analysis::gc_slots::unwritten`]): a value's slot is
/// written at its definition unless it is a constant (written in the
/// prologue when the back end keeps it in its slot), a comparison fused
/// into its branch or a `void` value; an array literal or host call
/// writes its scratch words before it calls out.
fn plan_zeroing<B: Backend>(b: &B, cx: &FnCx<'_>) -> FrameZeroing {
    let (slots, scratch) = (cx.plan.slots(), cx.plan.scratch);
    let words = slots + scratch + b.extra_words();
    let mut on_entry: Vec<u32> = (cx.func.blocks()[cx.func.entry()].params.iter())
        .map(|&p| cx.plan.slot(p) as u32)
        .collect();
    let mut is_const: SecondaryMap<Value, bool> = SecondaryMap::new();
    for &(v, _) in &cx.plan.consts {
        is_const[v] = true;
        if b.const_in_slot(cx, v) {
            on_entry.push(cx.plan.slot(v) as u32);
        }
    }
    let def = |v: Value| {
        let written = !is_const[v] && !cx.plan.fused[v] && cx.func.value_type(v) != Type::Unit;
        written.then_some(cx.plan.slot(v) as u32)
    };
    let before = |i: Inst, f: &mut dyn FnMut(u32)| {
        if let InstKind::ArrayLit(xs) | InstKind::HostCall(_, xs) = &cx.func.inst(i).kind {
            for k in 0..xs.len() {
                f((slots + k) as u32);
            }
        }
    };
    frame_zeroing(
        cx.func,
        &cx.plan.order,
        &FrameWrites {
            words,
            on_entry: &on_entry,
            def: &def,
            before: &before,
            max_inline: 12,
        },
    )
}

/// Charges one unit of fuel; an `out of fuel` trap points at `loc` (at the
/// caller's call when `None`).
fn fuel_tick<B: Backend>(b: &mut B, loc: Option<SrcLoc>, cold: &mut ColdPaths<B::Label>) {
    let refill = b.new_label();
    let resume = b.new_label();
    b.fuel_dec(refill, resume);
    cold.fuel(resume, loc, refill);
}

/// Counts a call (`back_edge` false, in the prologue) or a loop back edge
/// of the function in its tiering counter, if the unit has counters.
fn counter_tick<B: Backend>(
    b: &mut B,
    cx: &FnCx<'_>,
    back_edge: bool,
    cold: &mut ColdPaths<B::Label>,
) {
    let Some(base) = cx.env.counters else {
        return;
    };
    let cell = crate::tables::tier_counter_cell(base, cx.id.index(), back_edge);
    let slow = b.new_label();
    let resume = b.new_label();
    b.counter_dec(cell, slow, resume);
    cold.list.push(Cold::Counter {
        label: slow,
        resume,
        func: cx.id.index() as u32,
        back_edge,
        cell,
    });
}

/// Counts a back edge to loop header `header` when the host may replace
/// the activation there ([`Env::osr`]); else [`counter_tick`].
fn loop_counter_tick<B: Backend>(
    b: &mut B,
    cx: &FnCx<'_>,
    header: Block,
    cold: &mut ColdPaths<B::Label>,
) {
    let Some(base) = cx.env.counters else {
        return;
    };
    if !cx.env.osr || cx.func.values().is_empty() {
        return counter_tick(b, cx, true, cold);
    }
    let cell = crate::tables::tier_counter_cell(base, cx.id.index(), true);
    let slow = b.new_label();
    let resume = b.new_label();
    b.counter_dec(cell, slow, resume);
    cold.list.push(Cold::LoopCounter {
        label: slow,
        resume,
        func: cx.id.index() as u32,
        header: header.as_u32(),
        cell,
    });
}

/// Reports frame `fid`, stopped at `loc`, to the trap record (the
/// [`Helper::TrapFrame`] helper: the trap's location unless one is set,
/// and a frame of the stack trace).
fn trap_frame<B: Backend>(b: &mut B, fid: FuncId, loc: SrcLoc) {
    let imm = |v: u32| HelperArg::Imm(i64::from(v));
    b.call_helper(
        Helper::TrapFrame,
        &[
            HelperArg::Ctx,
            imm(fid.as_u32()),
            imm(loc.file),
            imm(loc.line),
            imm(loc.col),
        ],
    );
}

/// The out-of-line paths of the function just emitted, then its shared
/// trap `exit`.
fn emit_cold<B: Backend>(
    b: &mut B,
    cx: &FnCx<'_>,
    mut cold: ColdPaths<B::Label>,
    exit: B::Label,
    overflow: B::Label,
) {
    let fid = cx.fid;
    b.bind(overflow);
    b.store_trap_code(TrapCode::StackOverflow);
    b.jump(exit);
    // Fuel paths may request propagation paths: walk by index.
    let mut i = 0;
    while i < cold.list.len() {
        match cold.list[i] {
            Cold::Trap { label, code, loc } => {
                b.bind(label);
                b.store_trap_code(code);
                trap_frame(b, fid, loc);
                b.jump(exit);
            }
            Cold::Propagate { label, loc } => {
                b.bind(label);
                trap_frame(b, fid, loc);
                b.jump(exit);
            }
            Cold::Fuel { label, resume, loc } => {
                b.bind(label);
                b.call_helper(Helper::Fuel, &[HelperArg::Ctx]);
                match loc {
                    Some(loc) => isel::check_trap_at(b, loc, &mut cold),
                    None => b.jump_if_trap(exit),
                }
                b.jump(resume);
            }
            Cold::Counter {
                label,
                resume,
                func,
                back_edge,
                cell,
            } => {
                b.bind(label);
                b.call_helper(
                    Helper::TierUp,
                    &[
                        HelperArg::Ctx,
                        HelperArg::Imm(i64::from(func)),
                        HelperArg::Imm(i64::from(back_edge)),
                        HelperArg::Imm(cell as i64),
                    ],
                );
                b.jump(resume);
            }
            Cold::LoopCounter {
                label,
                resume,
                func,
                header,
                cell,
            } => {
                b.bind(label);
                let n = cx.func.values().len() as i64;
                let count = if B::SLOT_STRIDE < 0 { -n } else { n };
                b.call_helper(
                    Helper::LoopTierUp,
                    &[
                        HelperArg::Ctx,
                        HelperArg::Imm(i64::from(func) << 32 | i64::from(header)),
                        HelperArg::Imm(cell as i64),
                        HelperArg::SlotBase,
                        HelperArg::Imm(count),
                        HelperArg::FrameEnd,
                    ],
                );
                b.jump_if_result_zero(resume);
                // The activation finished on another tier: leave with its
                // trap (its frames are reported), or return its result.
                b.jump_if_trap(exit);
                let ret = cx.func.sig().ret;
                if ret != Type::Unit {
                    b.load_slot0_result(ret == Type::Float);
                }
                if cx.recursive {
                    b.depth_leave();
                }
                b.epilogue();
            }
        }
        i += 1;
    }
    b.bind(exit);
    b.trap_return();
}

/// State of the pass over one function.
struct Driver<'a, 'c, B: Backend> {
    b: &'a mut B,
    cx: &'a FnCx<'c>,
    labels: SecondaryMap<Block, Option<B::Label>>,
    scratch: Vec<MoveOp>,
    pairs: Vec<(usize, usize)>,
}

impl<B: Backend> Driver<'_, '_, B> {
    /// The label of a reachable block.
    fn label(&self, bl: Block) -> B::Label {
        self.labels[bl].expect("edge to a block that is not reachable")
    }

    /// Frame zeroing, parameters into their slots, constants, the entry
    /// fuel tick.
    /// (After [`Backend::enter`].)
    fn prologue(&mut self, zero: &[u32], overflow: B::Label, cold: &mut ColdPaths<B::Label>) {
        let (b, cx) = (&mut *self.b, self.cx);
        b.zero_words(zero, true);
        if cx.recursive {
            b.depth_enter(overflow);
        }
        let params = &cx.func.blocks()[cx.func.entry()].params;
        let (locs, _) = B::arg_locs(&cx.func.sig().params);
        for (&p, &loc) in params.iter().zip(&locs) {
            b.spill_param(p, loc, cx.func.value_type(p) == Type::Bool);
        }
        for &(v, k) in &cx.plan.consts {
            b.const_word(cx, v, k);
        }
        if cx.env.fuel {
            fuel_tick(b, None, cold);
        }
        counter_tick(b, cx, false, cold);
    }

    /// Whether taking edge `bc` from `from` needs no code besides the jump.
    fn trivial(&self, from: Block, bc: &BlockCall) -> bool {
        let params = &self.cx.func.blocks()[bc.block].params;
        let back = (self.cx.env.fuel || self.cx.env.counters.is_some())
            && self.cx.plan.is_back_edge(from, bc.block);
        !back && bc.args.iter().zip(params).all(|(a, p)| a == p)
    }

    /// The code of edge `bc` from `from`: argument moves, back-edge fuel,
    /// jump (omitted when the target is `next`).
    fn edge(
        &mut self,
        from: Block,
        bc: &BlockCall,
        next: Option<Block>,
        cold: &mut ColdPaths<B::Label>,
    ) {
        let params = &self.cx.func.blocks()[bc.block].params;
        self.pairs.clear();
        self.pairs.extend(
            params
                .iter()
                .zip(&bc.args)
                .map(|(&p, &a)| (self.cx.plan.slot(p), self.cx.plan.slot(a))),
        );
        self.scratch.clear();
        sequentialize(&self.pairs, &mut self.scratch);
        if !self.scratch.is_empty() {
            self.b.moves(&self.scratch);
        }
        if self.cx.plan.is_back_edge(from, bc.block) {
            if self.cx.env.osr {
                // Counted before the fuel tick: an activation continued on
                // another tier charges this back edge there.
                loop_counter_tick(self.b, self.cx, bc.block, cold);
            }
            if self.cx.env.fuel {
                fuel_tick(self.b, Some(self.cx.func.loc()), cold);
            }
            if !self.cx.env.osr {
                counter_tick(self.b, self.cx, true, cold);
            }
        }
        if next != Some(bc.block) {
            self.b.jump(self.label(bc.block));
        }
    }

    /// The terminator of `bl`; `next` is the block emitted after it.
    fn terminator(&mut self, bl: Block, next: Option<Block>, cold: &mut ColdPaths<B::Label>) {
        let cx = self.cx;
        match &cx.func.blocks()[bl].term {
            Terminator::Return(v) => {
                self.b.set_flags(None);
                if let Some(v) = *v {
                    if cx.func.value_type(v) == Type::Float {
                        self.b.ldf(0, v);
                    } else {
                        self.b.ld(0, v);
                    }
                }
                if cx.recursive {
                    self.b.depth_leave();
                }
                self.b.epilogue();
            }
            Terminator::Switch {
                value,
                cases,
                default,
            } => {
                if let Some(v) = *value {
                    // A two-way branch whose taken case is the next block:
                    // invert it and fall through.
                    if let [(k, case)] = cases.as_slice() {
                        if next == Some(case.block)
                            && self.trivial(bl, case)
                            && self.trivial(bl, default)
                        {
                            self.b.branch(v, *k, false, self.label(default.block));
                            return;
                        }
                    }
                    for (k, case) in cases {
                        if self.trivial(bl, case) {
                            self.b.branch(v, *k, true, self.label(case.block));
                        } else {
                            let skip = self.b.new_label();
                            self.b.branch(v, *k, false, skip);
                            self.edge(bl, case, None, cold);
                            self.b.bind(skip);
                        }
                    }
                }
                self.edge(bl, default, next, cold);
            }
        }
    }
}
