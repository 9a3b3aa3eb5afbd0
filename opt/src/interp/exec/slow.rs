//! Out-of-line paths of the dispatch loop: host calls (allocation,
//! printing, clock), fuel refills, stack growth, and the tiering paths
//! (counters that ran out, calls of functions on another tier).

use cranelift_entity::EntityRef;

use super::{State, FRAME_OVERHEAD, FUEL_BATCH};
use crate::abi::{carry, Trap, TrapCode, Word};
use crate::interp::code::{Code, Op};
use crate::interp::host::LoopFrame;
use crate::ir::{Block, FuncId, SrcLoc};

/// Where a call that took the slow path runs.
pub(super) enum Called {
    /// On the interpreter, as usual.
    Here,
    /// On another tier, which returned this result word.
    Elsewhere(Word),
}

/// A call whose callee's call counter ran out (the op at `call_pc` of the
/// running function): tells the host the callee is hot, then runs an
/// external callee through [`crate::interp::Host::call_func`] with the value
/// stack up to this frame as GC roots.
///
/// # Safety
/// `fp` is the running frame and the op at `call_pc` a validated `Call`.
#[cold]
#[inline(never)]
pub(super) unsafe fn call_slow(
    st: &mut State<'_>,
    callee: &Code,
    call_pc: usize,
    fp: *mut u64,
) -> Result<Called, Trap> {
    let func = FuncId::new(callee.func as usize);
    if !callee.tier.external.get() {
        st.host.hot(func, false);
        st.globals = st.host.globals().as_mut_ptr();
        if !callee.tier.external.get() {
            if callee.tier.calls.get() <= 0 {
                // Not re-armed: the host is not interested.
                callee.tier.calls.set(i32::MAX);
            }
            return Ok(Called::Here);
        }
    }
    callee.tier.calls.set(0);
    // SAFETY: `cur` is live code and `call_pc` one of its validated ops.
    let code = unsafe { &*st.cur };
    let loc = code.locs.get(call_pc).copied().unwrap_or(SrcLoc::NONE);
    let Some(&Op::Call { aux, .. }) = code.ops.get(call_pc) else {
        return Err(Trap {
            code: TrapCode::AssertionFailed,
            loc,
        });
    };
    // SAFETY: validated: `aux` starts a count followed by that many slots
    // of the frame at `fp`.
    let args: Vec<Word> = unsafe {
        let aux = code.aux.as_ptr().add(aux as usize);
        let n = *aux as usize;
        (0..n).map(|k| *fp.add(*aux.add(1 + k) as usize)).collect()
    };
    if args.len() != callee.nparams as usize {
        return Err(Trap {
            code: TrapCode::AssertionFailed,
            loc,
        });
    }
    // SAFETY: slots `0..top` of the value stack are initialized.
    let roots = unsafe { std::slice::from_raw_parts(st.sp0 as *const u64, st.top) };
    let before = st.outer_used.get();
    let used = st.top * 8 + (st.frames.len() + 1) * FRAME_OVERHEAD;
    st.outer_used.set(before + used);
    // The callee's tier goes on counting recursion depth and charging
    // this fuel batch (its entry's unit first) from here.
    carry::carry_out(st.depth_left, Some(st.fuel_left));
    let r = st.host.call_func(func, &args, roots);
    if let Some(left) = carry::carry_back() {
        st.fuel_left = left.clamp(1, FUEL_BATCH);
    }
    st.outer_used.set(before);
    st.globals = st.host.globals().as_mut_ptr();
    match r {
        Ok(w) => Ok(Called::Elsewhere(w)),
        Err(mut t) => {
            if t.loc == SrcLoc::NONE {
                t.loc = loc;
            }
            Err(t)
        }
    }
}

/// A loop back edge of the running function ran its edge counter out:
/// tells the host. The back edge goes to a block that heads no loop (an
/// odd layout), where no on-stack replacement is possible, so the next
/// back edge to a loop header asks for it ([`osr_slow`]).
#[cold]
#[inline(never)]
pub(super) fn edge_slow(st: &mut State<'_>) {
    // SAFETY: `cur` is live code.
    let code = unsafe { &*st.cur };
    if !code.osr_heads.is_empty() {
        code.tier.osr.set(true);
    }
    st.host.hot(FuncId::new(code.func as usize), true);
    st.globals = st.host.globals().as_mut_ptr();
    if code.tier.edges.get() <= 0 {
        code.tier.edges.set(i32::MAX);
    }
}

/// Charges a full fuel batch and starts the next one.
#[cold]
#[inline(never)]
pub(super) fn refuel(st: &mut State<'_>) -> Result<(), TrapCode> {
    let r = st.host.consume_fuel(u64::from(FUEL_BATCH));
    st.globals = st.host.globals().as_mut_ptr();
    st.fuel_left = FUEL_BATCH;
    r
}

/// Grows the value stack to at least `need` slots and re-derives `sp0`;
/// `false` when the memory is not available (or frame offsets would no
/// longer fit their `u32` fields), which the caller reports as a stack
/// overflow instead of aborting.
#[cold]
#[inline(never)]
pub(super) fn grow_stack(st: &mut State<'_>, need: usize) -> bool {
    if need > u32::MAX as usize {
        return false;
    }
    let len = need.max(st.stack.len() * 2).min(u32::MAX as usize);
    if st.stack.try_reserve_exact(len - st.stack.len()).is_err() {
        return false;
    }
    st.stack.resize(len, 0);
    st.sp0 = st.stack.as_mut_ptr();
    true
}

/// Makes room for at least one more frame record; `false` when the memory
/// is not available.
#[cold]
#[inline(never)]
pub(super) fn grow_frames(st: &mut State<'_>) -> bool {
    let more = st.frames.len().max(64);
    st.frames.try_reserve(more).is_ok()
}

/// Executes an op that calls the host. The GC roots are the value stack up
/// to the running frame's top, which holds every operand.
///
/// # Safety
/// `fp` is the running frame and `op` one of its validated ops.
#[inline(never)]
pub(super) unsafe fn host_op(st: &mut State<'_>, op: &Op, fp: *mut u64) -> Result<(), TrapCode> {
    // SAFETY: see `dispatch`; `roots` covers initialized slots only.
    unsafe {
        let s = |i: u32| *fp.add(i as usize);
        let code = &*st.cur;
        let roots = std::slice::from_raw_parts(st.sp0 as *const u64, st.top);
        let (dst, r) = match *op {
            Op::StrConcat { dst, a, b } => (dst, st.host.str_concat(s(a), s(b), roots)),
            Op::ToStr { dst, a, ty } => {
                let ty = *code.types.get_unchecked(ty as usize);
                (dst, st.host.to_str(ty, s(a), roots))
            }
            Op::Print { a, ty } => {
                st.host.print(*code.types.get_unchecked(ty as usize), s(a));
                st.globals = st.host.globals().as_mut_ptr();
                return Ok(());
            }
            Op::ArrayPush { arr, val } => {
                let r = st.host.array_push(s(arr), s(val), roots);
                st.globals = st.host.globals().as_mut_ptr();
                return r;
            }
            Op::ArrayLit { dst, aux } => {
                let aux = code.aux.as_ptr().add(aux as usize);
                let ty = *code.types.get_unchecked(*aux as usize);
                let n = *aux.add(1) as usize;
                let elems: Vec<Word> = (0..n).map(|k| s(*aux.add(2 + k))).collect();
                (dst, st.host.array_new(ty, &elems, roots))
            }
            Op::ArrayRepeat { dst, aux } => {
                let aux = code.aux.as_ptr().add(aux as usize);
                let ty = *code.types.get_unchecked(*aux as usize);
                let value = s(*aux.add(1));
                let count = s(*aux.add(2)) as i64;
                (dst, st.host.array_repeat(ty, value, count, roots))
            }
            Op::Clock { dst } => (dst, Ok(st.host.clock().to_bits())),
            Op::HostCall { dst, func, aux } => {
                let aux = code.aux.as_ptr().add(aux as usize);
                let n = *aux as usize;
                let mut args = [0 as Word; 8];
                let heap_args: Vec<Word>;
                let args: &[Word] = if n <= args.len() {
                    for (k, a) in args.iter_mut().enumerate().take(n) {
                        *a = s(*aux.add(1 + k));
                    }
                    &args[..n]
                } else {
                    heap_args = (0..n).map(|k| s(*aux.add(1 + k))).collect();
                    &heap_args
                };
                let id = crate::ir::HostFnId::from_u32(func);
                (dst, st.host.host_call(id, args, roots))
            }
            _ => return Ok(()),
        };
        st.globals = st.host.globals().as_mut_ptr();
        *fp.add(dst as usize) = r?;
        Ok(())
    }
}

/// A back edge to the header of a loop (label `t`, the op at
/// `pc`) with the edge counter run out or on-stack replacement requested:
/// offers the activation to [`crate::interp::Host::osr`]. `Some(word)` when the rest of the
/// activation ran on another tier and returned `word`; `None` to go on
/// here (the back edge has not been charged yet).
///
/// # Safety
/// `fp` is the running frame.
#[cold]
#[inline(never)]
pub(super) unsafe fn osr_slow(
    st: &mut State<'_>,
    t: u32,
    pc: usize,
    fp: *mut u64,
) -> Result<Option<Word>, Trap> {
    // SAFETY: `cur` is live code.
    let code = unsafe { &*st.cur };
    code.tier.osr.set(false);
    let loc = code.locs.get(pc).copied().unwrap_or(SrcLoc::NONE);
    let Some(&(_, block)) = code.osr_heads.iter().find(|h| h.0 == t) else {
        return Ok(None);
    };
    // Only the callers' frames are roots while the entry runs: this frame
    // is finished once the entry takes over, and the live values it passes
    // on are the entry's arguments, rooted by the entry's own frame. Its
    // dead slots (a value of the iteration that just ended, not yet
    // cleared because no safepoint came since) would otherwise stay roots
    // for the rest of the loop, which no other tier keeps.
    // SAFETY: the running frame is `nslots` initialized slots at `fp`, and
    // slots `0..top` of the value stack are initialized; `base <= top`.
    let (frame, roots) = unsafe {
        (
            std::slice::from_raw_parts(fp as *const u64, code.nslots as usize),
            std::slice::from_raw_parts(st.sp0 as *const u64, st.base),
        )
    };
    let view = LoopFrame {
        frame,
        slots: &code.value_slots,
    };
    let before = st.outer_used.get();
    let used = st.top * 8 + (st.frames.len() + 1) * FRAME_OVERHEAD;
    st.outer_used.set(before + used);
    let func = FuncId::new(code.func as usize);
    // The code entered goes on with this fuel batch (its entry charges
    // this back edge) and recursion depth, and gives back what is left of
    // the batch, so fuel runs out at the same unit as here.
    carry::carry_out(st.depth_left, Some(st.fuel_left));
    let r = st.host.osr(func, Block::new(block as usize), &view, roots);
    if let Some(left) = carry::carry_back() {
        st.fuel_left = left.clamp(1, FUEL_BATCH);
    }
    st.outer_used.set(before);
    st.globals = st.host.globals().as_mut_ptr();
    if code.tier.edges.get() <= 0 {
        // Not re-armed: the host is not interested.
        code.tier.edges.set(i32::MAX);
    }
    match r {
        None => Ok(None),
        Some(Ok(w)) => Ok(Some(w)),
        Some(Err(mut t)) => {
            if t.loc == SrcLoc::NONE {
                t.loc = loc;
            }
            Err(t)
        }
    }
}
