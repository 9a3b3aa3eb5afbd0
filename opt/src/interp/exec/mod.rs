//! The dispatch loop.
//!
//! All frames live in one value stack (`Vec<u64>`): a frame is the slot
//! range `base..base + nslots` of its function's [`Code`]. A call pushes the
//! caller's return state on an explicit frame stack and continues in the
//! same loop, so Waddle recursion never recurses natively. Every frame is
//! charged `nslots * 8 + FRAME_OVERHEAD` bytes against the stack budget,
//! and a frame of a recursive function counts against the recursion depth
//! exactly as compiled code counts it ([`crate::abi::VmCtx::depth_left`]).
//!
//! Host calls that may allocate receive the value stack up to the current
//! frame's top as GC roots: every operand and temporary lives in a slot, so
//! every live reference is in that slice ([`slow`]).
//!
//! Fuel is charged one unit per function entry and per loop back edge, in
//! batches of [`FUEL_BATCH`]; the remainder is flushed before returning.
//! A call of an external function charges nothing here: the other tier
//! charges its entry.
//!
//! Tiering counters (`Code::tier`): a call decrements the callee's call
//! counter and a back edge the running function's edge counter; at zero
//! the slow path ([`slow::call_slow`], [`slow::edge_slow`]) tells the host
//! or calls the function on another tier. A back edge to the header of a
//! loop ([`Op::JumpBackOsr`], nested loops too) offers the host the running
//! activation instead ([`slow::osr_slow`], on-stack replacement): when the
//! host ran the rest of it on another tier, the frame returns that result.
//!
//! For speed, the loop keeps only the op pointer, the pc and the frame
//! pointer in locals; everything else sits in [`State`] behind a pointer,
//! and everything that calls the host runs out of line, so the hot handlers
//! do not spill.

mod arith;
mod slow;

use arith::{f, fmax, fmin, unary};

use std::cell::Cell;

use super::code::{Code, Op};
use super::host::Host;
use crate::abi::{array_get, carry, str_bytes, ArrayObj, StrObj, Trap, TrapCode, Word};
use crate::ir::{FuncId, SrcLoc};

/// Bytes charged per frame on top of its slots (return state, bookkeeping).
pub(crate) const FRAME_OVERHEAD: usize = 64;

/// Fuel units accumulated before calling [`Host::consume_fuel`].
pub(crate) const FUEL_BATCH: u32 = 1024;

/// A suspended caller.
#[derive(Copy, Clone, Debug)]
pub(crate) struct Frame {
    /// The caller's code (owned by the interpreter's function table, which
    /// does not change while code runs).
    code: *const Code,
    /// Where the caller continues.
    pc: u32,
    /// The caller's first slot.
    base: u32,
    /// The caller's slot receiving the result.
    dst: u32,
}

/// Execution state outside the hot locals.
pub(crate) struct State<'a> {
    /// Prepared code by function index (`None`: declaration or unknown).
    funcs: &'a [Option<Box<Code>>],
    /// The value stack.
    stack: &'a mut Vec<u64>,
    /// The frame stack.
    frames: &'a mut Vec<Frame>,
    /// Stack budget in bytes.
    budget: usize,
    /// Frames of recursive functions that may still be entered
    /// ([`crate::abi::VmCtx::depth_left`]).
    depth_left: i64,
    /// The runtime.
    host: &'a mut dyn Host,
    /// The running function's code.
    cur: *const Code,
    /// The running frame's first slot.
    base: usize,
    /// One past its last slot (the GC roots end here).
    top: usize,
    /// `stack.as_mut_ptr()`, re-derived when the stack grows.
    sp0: *mut u64,
    /// The globals area (re-fetched after every host call).
    globals: *mut Word,
    /// Fuel units left in the current batch.
    fuel_left: u32,
    /// Stack-budget bytes of the activations below this one (raised while
    /// this one calls out, so nested activations see what is left).
    outer_used: &'a Cell<usize>,
}

/// Runs `entry` with `args` (the caller checked the arity, the globals area
/// and the budget for the first frame).
pub(crate) fn run(
    funcs: &[Option<Box<Code>>],
    (stack, frames): &mut (Vec<u64>, Vec<Frame>),
    (budget, depth_left): (usize, i64),
    outer_used: &Cell<usize>,
    host: &mut dyn Host,
    (entry, carried): (&Code, Option<u32>),
    args: &[Word],
) -> Result<Word, Trap> {
    frames.clear();
    let top = entry.nslots as usize;
    if stack.len() < top {
        stack.resize(top.max(1 << 12), 0);
    }
    let sp0 = stack.as_mut_ptr();
    let globals = host.globals().as_mut_ptr();
    let mut st = State {
        funcs,
        stack,
        frames,
        budget,
        depth_left,
        host,
        cur: entry,
        base: 0,
        top,
        sp0,
        globals,
        // The entry's unit of fuel (charged to a carried batch already).
        fuel_left: carried.unwrap_or(FUEL_BATCH - 1),
        outer_used,
    };
    // SAFETY: the frame `0..top` is allocated; see `dispatch`.
    unsafe {
        for (i, &a) in args.iter().enumerate() {
            *sp0.add(i) = a;
        }
        enter_consts(entry, sp0);
    }
    let result = dispatch(&mut st);
    if carried.is_some() {
        // The caller's batch: it charges the rest.
        carry::fuel_back(st.fuel_left);
        return result;
    }
    let pending = FUEL_BATCH - st.fuel_left;
    if pending > 0 {
        if let Err(c) = st.host.consume_fuel(u64::from(pending)) {
            // The function has finished: like a native entry, the error
            // points at its declaration and no frame is left to trace.
            return result.and(Err(Trap {
                code: c,
                loc: entry.decl,
            }));
        }
    }
    result
}

/// Charges a function entry's unit of fuel to the batch `batch` (units
/// left, `1..=FUEL_BATCH`) a caller on another tier handed over
/// ([`carry`]); when that completes the batch, the batch is paid to the
/// host, as the interpreter's own call op does. The units left after it.
pub(crate) fn take_entry_unit(host: &mut dyn Host, batch: u32) -> Result<u32, TrapCode> {
    let left = batch.clamp(1, FUEL_BATCH) - 1;
    if left > 0 {
        return Ok(left);
    }
    host.consume_fuel(u64::from(FUEL_BATCH))?;
    Ok(FUEL_BATCH)
}

/// Copies `code`'s constants into the frame at `fp` and, when the function
/// has a safepoint ([`Code::collects`]), zeroes the slots after them, so no
/// word a finished frame left there is taken for a GC root (the frame holds
/// only references it wrote since; dead ones are cleared before each
/// safepoint, [`crate::analysis::gc_slots`]). A frame without safepoints is
/// never among the roots of a collection: the collector runs only inside
/// an op of the running frame or of a callee.
///
/// # Safety
/// `fp` must point to a frame of at least `code.nslots` slots.
#[inline(always)]
unsafe fn enter_consts(code: &Code, fp: *mut u64) {
    let n = code.consts.len();
    if n != 0 {
        // SAFETY: `Code::validate` puts the constants at `const_base ..
        // const_base + n`, inside the frame of `nslots` the caller promises.
        let dst = unsafe { fp.add(code.const_base as usize) };
        // SAFETY: as above; the frame and the constant table do not overlap.
        unsafe { std::ptr::copy_nonoverlapping(code.consts.as_ptr(), dst, n) };
    }
    if !code.collects {
        return;
    }
    let first = code.const_base as usize + n;
    let rest = (code.nslots as usize).saturating_sub(first);
    if rest != 0 {
        // SAFETY: `first + rest == nslots` (validated `first <= nslots`),
        // inside the frame.
        unsafe { std::ptr::write_bytes(fp.add(first), 0, rest) };
    }
}

/// The trap `c` raised by the op at `pc` of the running function.
#[cold]
#[inline(never)]
fn trap_at(st: &mut State<'_>, pc: usize, c: TrapCode) -> Trap {
    // SAFETY: `cur` always points to live code (see `dispatch`).
    let code = unsafe { &*st.cur };
    let loc = code.locs.get(pc).copied().unwrap_or(SrcLoc::NONE);
    trace_frames(st, Some(pc));
    Trap { code: c, loc }
}

/// Reports every frame of this activation to the host, innermost first
/// ([`Host::trace_frame`]): the running function stopped at its op `pc`
/// (`None`: its frame was reported by the code that replaced it, an OSR
/// entry), each suspended caller at the call before its return pc.
#[cold]
#[inline(never)]
fn trace_frames(st: &mut State<'_>, pc: Option<usize>) {
    let loc_of = |code: &Code, pc: usize| code.locs.get(pc).copied().unwrap_or(SrcLoc::NONE);
    if let Some(pc) = pc {
        // SAFETY: `cur` and every suspended frame's code point to live
        // code (see `dispatch`).
        let (func, loc) = unsafe { ((*st.cur).func, loc_of(&*st.cur, pc)) };
        st.host.trace_frame(FuncId::from_u32(func), loc);
    }
    for k in (0..st.frames.len()).rev() {
        let fr = st.frames[k];
        // SAFETY: as above; a suspended caller resumes after its call op,
        // so `pc - 1` is the call.
        let (func, loc) = unsafe {
            (
                (*fr.code).func,
                loc_of(&*fr.code, (fr.pc as usize).saturating_sub(1)),
            )
        };
        st.host.trace_frame(FuncId::from_u32(func), loc);
    }
}

/// The dispatch loop; returns the entry function's result.
///
/// SAFETY (for the whole loop): `Code::validate` guarantees every slot index
/// is below the frame's `nslots`, every target and side-table index is in
/// range and the last op never falls through; frames are always backed by
/// `stack` (grown before entering a frame, `fp` and `sp0` re-derived after
/// growth); `cur` points into the function table or at the entry code, which
/// outlive the run; global indices were checked against the globals area;
/// heap words are live objects of the `abi` layouts, as the verified IR's
/// types promise.
#[inline(never)]
// `!(x < y)` is meant literally: true when either operand is NaN.
#[allow(clippy::too_many_lines, clippy::neg_cmp_op_on_partial_ord)]
fn dispatch(st: &mut State<'_>) -> Result<Word, Trap> {
    // SAFETY: see the function's comment (`cur` points to live code).
    let mut ops: *const Op = unsafe { (*st.cur).ops.as_ptr() };
    let mut pc: usize = 0;
    let mut fp: *mut u64 = st.sp0;
    // SAFETY: see the function's comment.
    unsafe {
        macro_rules! s {
            ($i:expr) => {
                *fp.add($i as usize)
            };
        }
        macro_rules! trap {
            ($c:expr) => {
                break Err(trap_at(st, pc - 1, $c))
            };
        }
        macro_rules! tick {
            () => {
                st.fuel_left -= 1;
                if st.fuel_left == 0 {
                    if let Err(c) = slow::refuel(st) {
                        trap!(c);
                    }
                }
            };
        }
        macro_rules! bin_i {
            ($dst:expr, $a:expr, $b:expr, |$x:ident, $y:ident| $e:expr) => {{
                let $x = s!($a) as i64;
                let $y = s!($b) as i64;
                s!($dst) = ($e) as u64;
            }};
        }
        macro_rules! bin_f {
            ($dst:expr, $a:expr, $b:expr, |$x:ident, $y:ident| $e:expr) => {{
                let $x = f(s!($a));
                let $y = f(s!($b));
                s!($dst) = ($e).to_bits();
            }};
        }
        macro_rules! cmp_f {
            ($dst:expr, $a:expr, $b:expr, |$x:ident, $y:ident| $e:expr) => {{
                let $x = f(s!($a));
                let $y = f(s!($b));
                s!($dst) = u64::from($e);
            }};
        }
        macro_rules! br {
            ($cond:expr, $t:expr) => {
                if $cond {
                    pc = $t as usize;
                }
            };
        }
        macro_rules! ret {
            ($v:expr) => {{
                let v = $v;
                if (*st.cur).recursive {
                    st.depth_left += 1;
                }
                let Some(fr) = st.frames.pop() else {
                    break Ok(v);
                };
                st.cur = fr.code;
                ops = (*fr.code).ops.as_ptr();
                pc = fr.pc as usize;
                st.base = fr.base as usize;
                st.top = st.base + (*fr.code).nslots as usize;
                fp = st.sp0.add(st.base);
                s!(fr.dst) = v;
            }};
        }
        loop {
            let op = *ops.add(pc);
            pc += 1;
            match op {
                Op::Mov { dst, src } => s!(dst) = s!(src),
                Op::IAdd { dst, a, b } => bin_i!(dst, a, b, |x, y| x.wrapping_add(y)),
                Op::IAddImm { dst, a, imm } => {
                    s!(dst) = (s!(a) as i64).wrapping_add(i64::from(imm)) as u64
                }
                Op::ISub { dst, a, b } => bin_i!(dst, a, b, |x, y| x.wrapping_sub(y)),
                Op::IMul { dst, a, b } => bin_i!(dst, a, b, |x, y| x.wrapping_mul(y)),
                Op::IMulImm { dst, a, imm } => {
                    s!(dst) = (s!(a) as i64).wrapping_mul(i64::from(imm)) as u64
                }
                Op::IDivPow2 { dst, a, k } => s!(dst) = arith::div_pow2(s!(a) as i64, k) as u64,
                Op::IRemPow2 { dst, a, k } => s!(dst) = arith::rem_pow2(s!(a) as i64, k) as u64,
                Op::IDivMagic { dst, a, m } => {
                    // `Code::validate` checked `m` against `magics`.
                    let magics = &(*st.cur).magics;
                    let magic = magics.get_unchecked(m as usize);
                    s!(dst) = magic.div(s!(a) as i64) as u64
                }
                Op::IRemMagic { dst, a, m } => {
                    // `Code::validate` checked `m` against `magics`.
                    let magics = &(*st.cur).magics;
                    let magic = magics.get_unchecked(m as usize);
                    s!(dst) = magic.rem(s!(a) as i64) as u64
                }
                Op::IDiv { dst, a, b } => {
                    let y = s!(b) as i64;
                    if y == 0 {
                        trap!(TrapCode::DivisionByZero);
                    }
                    s!(dst) = (s!(a) as i64).wrapping_div(y) as u64;
                }
                Op::IRem { dst, a, b } => {
                    let y = s!(b) as i64;
                    if y == 0 {
                        trap!(TrapCode::DivisionByZero);
                    }
                    s!(dst) = (s!(a) as i64).wrapping_rem(y) as u64;
                }
                Op::IAnd { dst, a, b } => s!(dst) = s!(a) & s!(b),
                Op::IOr { dst, a, b } => s!(dst) = s!(a) | s!(b),
                Op::IXor { dst, a, b } => s!(dst) = s!(a) ^ s!(b),
                Op::IShl { dst, a, b } => s!(dst) = s!(a).wrapping_shl(s!(b) as u32),
                Op::IShr { dst, a, b } => bin_i!(dst, a, b, |x, y| x.wrapping_shr(y as u32)),
                Op::IMin { dst, a, b } => bin_i!(dst, a, b, |x, y| x.min(y)),
                Op::IMax { dst, a, b } => bin_i!(dst, a, b, |x, y| x.max(y)),
                Op::IEq { dst, a, b } => s!(dst) = u64::from(s!(a) == s!(b)),
                Op::INe { dst, a, b } => s!(dst) = u64::from(s!(a) != s!(b)),
                Op::ILt { dst, a, b } => s!(dst) = u64::from((s!(a) as i64) < s!(b) as i64),
                Op::ILe { dst, a, b } => s!(dst) = u64::from(s!(a) as i64 <= s!(b) as i64),
                Op::FEq { dst, a, b } => cmp_f!(dst, a, b, |x, y| x == y),
                Op::FNe { dst, a, b } => cmp_f!(dst, a, b, |x, y| x != y),
                Op::FLt { dst, a, b } => cmp_f!(dst, a, b, |x, y| x < y),
                Op::FLe { dst, a, b } => cmp_f!(dst, a, b, |x, y| x <= y),
                Op::FAdd { dst, a, b } => bin_f!(dst, a, b, |x, y| x + y),
                Op::FSub { dst, a, b } => bin_f!(dst, a, b, |x, y| x - y),
                Op::FMul { dst, a, b } => bin_f!(dst, a, b, |x, y| x * y),
                Op::FDiv { dst, a, b } => bin_f!(dst, a, b, |x, y| x / y),
                Op::FRem { dst, a, b } => bin_f!(dst, a, b, |x, y| x % y),
                Op::FMin { dst, a, b } => bin_f!(dst, a, b, |x, y| fmin(x, y)),
                Op::FMax { dst, a, b } => bin_f!(dst, a, b, |x, y| fmax(x, y)),
                Op::Unary { dst, a, kind } => s!(dst) = unary(kind, s!(a)),
                Op::StrLen { dst, a } => s!(dst) = (*(s!(a) as *const StrObj)).len,
                Op::StrCmp { dst, a, b, cc } => {
                    let o = str_bytes(s!(a)).cmp(str_bytes(s!(b)));
                    s!(dst) = u64::from(cc.holds(o));
                }
                Op::StrConcat { .. }
                | Op::ToStr { .. }
                | Op::Print { .. }
                | Op::ArrayPush { .. }
                | Op::ArrayLit { .. }
                | Op::ArrayRepeat { .. }
                | Op::Clock { .. }
                | Op::HostCall { .. } => {
                    // Passed by reference into the code, so `op` itself
                    // never needs a stack copy.
                    if let Err(c) = slow::host_op(st, &*ops.add(pc - 1), fp) {
                        trap!(c);
                    }
                }
                Op::ArrayLen { dst, a } => s!(dst) = (*(s!(a) as *const ArrayObj)).len,
                Op::BoundsCheck { arr, idx } => {
                    if s!(idx) >= (*(s!(arr) as *const ArrayObj)).len {
                        trap!(TrapCode::IndexOutOfBounds);
                    }
                }
                Op::ArrayGet { dst, arr, idx } => {
                    let obj = s!(arr) as *const ArrayObj;
                    let i = s!(idx);
                    if i >= (*obj).len {
                        trap!(TrapCode::IndexOutOfBounds);
                    }
                    s!(dst) = *((*obj).data as *const Word).add(i as usize);
                }
                Op::ArraySet { arr, idx, val } => {
                    let obj = s!(arr) as *const ArrayObj;
                    let i = s!(idx);
                    if i >= (*obj).len {
                        trap!(TrapCode::IndexOutOfBounds);
                    }
                    *((*obj).data as *mut Word).add(i as usize) = s!(val);
                }
                Op::ArrayGetB { dst, arr, idx } => {
                    let obj = s!(arr) as *const ArrayObj;
                    let i = s!(idx);
                    if i >= (*obj).len {
                        trap!(TrapCode::IndexOutOfBounds);
                    }
                    s!(dst) = Word::from(*(*obj).data.add(i as usize));
                }
                Op::ArraySetB { arr, idx, val } => {
                    let obj = s!(arr) as *const ArrayObj;
                    let i = s!(idx);
                    if i >= (*obj).len {
                        trap!(TrapCode::IndexOutOfBounds);
                    }
                    *(*obj).data.add(i as usize) = s!(val) as u8;
                }
                Op::ArrayPop { dst, arr } => {
                    let obj = s!(arr) as *mut ArrayObj;
                    let len = (*obj).len;
                    if len == 0 {
                        trap!(TrapCode::PopEmpty);
                    }
                    s!(dst) = array_get(obj as Word, len as usize - 1);
                    (*obj).len = len - 1;
                }
                Op::GlobalGet { dst, g } => s!(dst) = *st.globals.add(g as usize),
                Op::GlobalSet { g, src } => *st.globals.add(g as usize) = s!(src),
                Op::Assert { a } => {
                    if s!(a) == 0 {
                        trap!(TrapCode::AssertionFailed);
                    }
                }
                Op::Call { dst, func, aux } => {
                    let Some(Some(callee)) = st.funcs.get(func as usize) else {
                        trap!(TrapCode::AssertionFailed);
                    };
                    let callee: &Code = callee;
                    let left = callee.tier.calls.get() - 1;
                    callee.tier.calls.set(left);
                    if left <= 0 {
                        match slow::call_slow(st, callee, pc - 1, fp) {
                            Ok(slow::Called::Here) => {}
                            Ok(slow::Called::Elsewhere(w)) => {
                                // The callee may have grown nothing of ours,
                                // but the globals may have moved.
                                fp = st.sp0.add(st.base);
                                s!(dst) = w;
                                continue;
                            }
                            Err(t) => {
                                trace_frames(st, Some(pc - 1));
                                break Err(t);
                            }
                        }
                    }
                    tick!();
                    let aux = (*st.cur).aux.as_ptr().add(aux as usize);
                    let n = *aux as usize;
                    if n != callee.nparams as usize {
                        trap!(TrapCode::AssertionFailed);
                    }
                    let new_base = st.top;
                    let new_top = new_base + callee.nslots as usize;
                    if new_top * 8 + (st.frames.len() + 2) * FRAME_OVERHEAD > st.budget {
                        trap!(TrapCode::StackOverflow);
                    }
                    if callee.recursive {
                        if st.depth_left == 0 {
                            trap!(TrapCode::StackOverflow);
                        }
                        st.depth_left -= 1;
                    }
                    if new_top > st.stack.len() {
                        if !slow::grow_stack(st, new_top) {
                            trap!(TrapCode::StackOverflow);
                        }
                        fp = st.sp0.add(st.base);
                    }
                    if st.frames.len() == st.frames.capacity() && !slow::grow_frames(st) {
                        trap!(TrapCode::StackOverflow);
                    }
                    let nfp = st.sp0.add(new_base);
                    for k in 0..n {
                        *nfp.add(k) = s!(*aux.add(1 + k));
                    }
                    enter_consts(callee, nfp);
                    st.frames.push(Frame {
                        code: st.cur,
                        pc: pc as u32,
                        base: st.base as u32,
                        dst,
                    });
                    st.cur = callee;
                    ops = callee.ops.as_ptr();
                    pc = 0;
                    st.base = new_base;
                    st.top = new_top;
                    fp = nfp;
                }
                Op::Clear { aux } => {
                    let aux = (*st.cur).aux.as_ptr().add(aux as usize);
                    for k in 0..*aux as usize {
                        s!(*aux.add(1 + k)) = 0;
                    }
                }
                Op::Ret { src } => ret!(s!(src)),
                Op::RetVoid => ret!(0),
                Op::Jump { t } => pc = t as usize,
                Op::JumpBack { t } => {
                    tick!();
                    let code = &*st.cur;
                    let left = code.tier.edges.get() - 1;
                    code.tier.edges.set(left);
                    if left <= 0 {
                        slow::edge_slow(st);
                    }
                    pc = t as usize;
                }
                Op::JumpBackOsr { t } => {
                    let code = &*st.cur;
                    let left = code.tier.edges.get() - 1;
                    code.tier.edges.set(left);
                    if left <= 0 || code.tier.osr.get() {
                        match slow::osr_slow(st, t, pc - 1, fp) {
                            Ok(None) => {}
                            Ok(Some(w)) => {
                                // The rest of the activation ran elsewhere.
                                ret!(w);
                                continue;
                            }
                            Err(trap) => {
                                // The entry reported this frame already.
                                trace_frames(st, None);
                                break Err(trap);
                            }
                        }
                    }
                    tick!();
                    pc = t as usize;
                }
                Op::BrTrue { c, t } => br!(s!(c) != 0, t),
                Op::BrFalse { c, t } => br!(s!(c) == 0, t),
                Op::BrIEq { a, b, t } => br!(s!(a) == s!(b), t),
                Op::BrINe { a, b, t } => br!(s!(a) != s!(b), t),
                Op::BrILt { a, b, t } => br!((s!(a) as i64) < s!(b) as i64, t),
                Op::BrILe { a, b, t } => br!(s!(a) as i64 <= s!(b) as i64, t),
                Op::BrIEqImm { a, imm, t } => br!(s!(a) as i64 == i64::from(imm), t),
                Op::BrINeImm { a, imm, t } => br!(s!(a) as i64 != i64::from(imm), t),
                Op::BrILtImm { a, imm, t } => br!((s!(a) as i64) < i64::from(imm), t),
                Op::BrILeImm { a, imm, t } => br!(s!(a) as i64 <= i64::from(imm), t),
                Op::BrIGtImm { a, imm, t } => br!(s!(a) as i64 > i64::from(imm), t),
                Op::BrIGeImm { a, imm, t } => br!(s!(a) as i64 >= i64::from(imm), t),
                Op::BrMaskZero { a, mask, t } => br!(s!(a) as i64 & i64::from(mask) == 0, t),
                Op::BrMaskNonZero { a, mask, t } => br!(s!(a) as i64 & i64::from(mask) != 0, t),
                Op::BrFEq { a, b, t } => br!(f(s!(a)) == f(s!(b)), t),
                Op::BrFNe { a, b, t } => br!(f(s!(a)) != f(s!(b)), t),
                Op::BrFLt { a, b, t } => br!(f(s!(a)) < f(s!(b)), t),
                Op::BrFLe { a, b, t } => br!(f(s!(a)) <= f(s!(b)), t),
                Op::BrFNLt { a, b, t } => br!(!(f(s!(a)) < f(s!(b))), t),
                Op::BrFNLe { a, b, t } => br!(!(f(s!(a)) <= f(s!(b))), t),
                Op::Switch { v, start, n } => {
                    let key = s!(v) as i64;
                    let cases = &(*st.cur).cases;
                    let table = cases.get_unchecked(start as usize..(start + n) as usize);
                    if let Some(&(_, t)) = table.iter().find(|&&(k, _)| k == key) {
                        pc = t as usize;
                    }
                }
                Op::Malformed => trap!(TrapCode::AssertionFailed),
            }
        }
    }
}
