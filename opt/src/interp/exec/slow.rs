//! Out-of-line paths of the dispatch loop: host calls (allocation,
//! printing, clock), fuel refills and stack growth.

use super::{State, FUEL_BATCH};
use crate::abi::{TrapCode, Word};
use crate::interp::code::Op;

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
