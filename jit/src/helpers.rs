//! Runtime helpers: the `extern "C"` functions compiled code calls for
//! everything that needs the host (allocation, printing, clock, fuel) or is
//! easier in Rust (string comparison, libm functions).
//!
//! Helpers that reach the host take the `VmCtx` first. They record failures
//! in the context's trap record (see [`crate::abi`]) and return a zero
//! result; compiled code checks the record after the call. A panic in the
//! host is caught here and parked in the [`HostCell`], never unwinding into
//! compiled code.

use std::any::Any;
use std::ffi::c_void;
use std::panic::{catch_unwind, AssertUnwindSafe};

use cranelift_codegen::ir::types;
use waddle_opt::abi::{carry, str_bytes, TrapCode, VmCtx, Word, FUEL_BATCH};
use waddle_opt::interp::Host;
use waddle_opt::ir::{Cmp, FuncId, SrcLoc, Type};

use crate::abi::{decode_type, TRAP_HOST_PANIC};

/// What `VmCtx::host` points at while compiled code runs.
pub(crate) struct HostCell<'h> {
    /// The host of the running call.
    pub host: &'h mut dyn Host,
    /// A panic payload caught in a helper, resumed after compiled code returns.
    pub panic: Option<Box<dyn Any + Send + 'static>>,
}

impl<'h> HostCell<'h> {
    /// The opaque pointer stored in `VmCtx::host`.
    pub fn as_ctx_ptr(&mut self) -> *mut c_void {
        (self as *mut HostCell<'h>).cast()
    }
}

/// The lowest address of the conservative GC scan for a helper whose own
/// frame holds `marker`: the compiled caller's stack pointer when the
/// helper's entry recorded it (see [`rooted_entry`]), else `marker`'s
/// address. Resets `VmCtx::caller_sp`, so a helper entered without a
/// recording entry never sees a stale value.
///
/// # Safety
/// `vmctx` must be the live context of the running call.
unsafe fn scan_low(vmctx: *mut VmCtx, marker: &Word) -> usize {
    let own = std::hint::black_box(marker) as *const Word as usize;
    // SAFETY: the caller guarantees `vmctx` is live.
    let ctx = unsafe { &mut *vmctx };
    let sp = std::mem::replace(&mut ctx.caller_sp, 0);
    // The caller's frame lies above this one and at or below the base.
    if sp > own && sp <= ctx.stack_base && sp.is_multiple_of(8) {
        sp
    } else {
        own
    }
}

/// Defines `$entry`, the address compiled code calls for helper `$imp`: on
/// x86-64 and AArch64 a naked function that stores the stack pointer (the
/// compiled caller's, at the call) into `VmCtx::caller_sp` and jumps to
/// `$imp` with every argument register untouched; elsewhere `$imp` itself.
/// The scan then covers the compiled frames and the return address, not
/// words the helper's Rust frames left there in earlier calls.
macro_rules! rooted_entry {
    ($entry:ident => $imp:ident ($($p:ident: $t:ty),*) $(-> $r:ty)?) => {
        #[cfg(target_arch = "x86_64")]
        #[unsafe(naked)]
        unsafe extern "C" fn $entry($($p: $t),*) $(-> $r)? {
            // The context pointer is the first argument (rdi).
            core::arch::naked_asm!(
                "mov qword ptr [rdi + {off}], rsp",
                "jmp {imp}",
                off = const waddle_opt::abi::VMCTX_CALLER_SP_OFFSET,
                imp = sym $imp,
            )
        }
        #[cfg(target_arch = "aarch64")]
        #[unsafe(naked)]
        unsafe extern "C" fn $entry($($p: $t),*) $(-> $r)? {
            // The context pointer is the first argument (x0); x16 is the
            // intra-procedure-call scratch register.
            core::arch::naked_asm!(
                "mov x16, sp",
                "str x16, [x0, #{off}]",
                "b {imp}",
                off = const waddle_opt::abi::VMCTX_CALLER_SP_OFFSET,
                imp = sym $imp,
            )
        }
        #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
        use $imp as $entry;
    };
}

rooted_entry!(array_new_entry => array_new(vmctx: *mut VmCtx, elem: u32, elems: *const Word, n: u64) -> Word);
rooted_entry!(array_repeat_entry => array_repeat(vmctx: *mut VmCtx, elem: u32, value: Word, count: i64) -> Word);
rooted_entry!(array_push_entry => array_push(vmctx: *mut VmCtx, array: Word, value: Word));
rooted_entry!(str_concat_entry => str_concat(vmctx: *mut VmCtx, a: Word, b: Word) -> Word);
rooted_entry!(to_str_entry => to_str(vmctx: *mut VmCtx, t: u32, value: Word) -> Word);
rooted_entry!(host_call_entry => host_call(vmctx: *mut VmCtx, id: u32, args: *const Word, n: u64) -> Word);
rooted_entry!(call_func_entry => call_func(vmctx: *mut VmCtx, func: u32, args: *const Word, n: u64) -> Word);

/// Runs `f` with the host and the conservative root set (the native stack
/// from the compiled caller's frame up to `VmCtx::stack_base`, see
/// [`scan_low`]), turning an error into
/// a trap record and a panic into a parked payload; returns `default` then.
///
/// # Safety
/// `vmctx` must be the live context of the running call, whose `host` points
/// at a [`HostCell`] and whose `stack_base` is above this frame.
#[inline(never)]
unsafe fn with_host<R>(
    vmctx: *mut VmCtx,
    default: R,
    f: impl FnOnce(&mut dyn Host, &[Word]) -> Result<R, TrapCode>,
) -> R {
    let marker: Word = 0;
    // SAFETY: the caller guarantees `vmctx` is live.
    let lo = unsafe { scan_low(vmctx, &marker) };
    // SAFETY: the caller guarantees `vmctx` and its host cell are live.
    let (hi, cell) = unsafe {
        (
            (*vmctx).stack_base,
            &mut *((*vmctx).host as *mut HostCell<'_>),
        )
    };
    let roots: &[Word] = if hi > lo {
        // SAFETY: [lo, hi) is this thread's stack between this frame (or
        // the compiled caller's, `scan_low`) and the Rust frame that
        // entered compiled code: mapped, 8-aligned (checked, or the address
        // of a `u64` local; `hi` is one too) and not written while the host
        // reads it (compiled code is suspended in this call).
        unsafe { std::slice::from_raw_parts(lo as *const Word, (hi - lo) / 8) }
    } else {
        &[]
    };
    let host = &mut *cell.host;
    let r = catch_unwind(AssertUnwindSafe(|| {
        let r = f(&mut *host, roots);
        (r, host.globals().as_mut_ptr())
    }));
    std::hint::black_box(&marker);
    match r {
        Ok((r, globals)) => {
            // SAFETY: as above.
            unsafe { (*vmctx).globals = globals };
            match r {
                Ok(v) => v,
                Err(code) => {
                    // SAFETY: as above.
                    unsafe { (*vmctx).trap_code = code as u32 };
                    default
                }
            }
        }
        Err(payload) => {
            cell.panic = Some(payload);
            // SAFETY: as above.
            unsafe { (*vmctx).trap_code = TRAP_HOST_PANIC };
            default
        }
    }
}

/// The type a helper was given, or `AssertionFailed` for a bad code (compiled
/// code never passes one).
fn ty(code: u32) -> Result<Type, TrapCode> {
    decode_type(code).ok_or(TrapCode::AssertionFailed)
}

/// `[e0, e1, ...]` with element type `elem`: `n` words at `elems`.
unsafe extern "C" fn array_new(vmctx: *mut VmCtx, elem: u32, elems: *const Word, n: u64) -> Word {
    let elems: &[Word] = if n == 0 {
        &[]
    } else {
        // SAFETY: compiled code passes a stack slot holding `n` words.
        unsafe { std::slice::from_raw_parts(elems, n as usize) }
    };
    // SAFETY: called by compiled code with its live context.
    unsafe { with_host(vmctx, 0, |h, roots| h.array_new(ty(elem)?, elems, roots)) }
}

/// `[value; count]` with element type `elem`.
unsafe extern "C" fn array_repeat(vmctx: *mut VmCtx, elem: u32, value: Word, count: i64) -> Word {
    // SAFETY: called by compiled code with its live context.
    unsafe {
        with_host(vmctx, 0, |h, roots| {
            h.array_repeat(ty(elem)?, value, count, roots)
        })
    }
}

/// `push(array, value)`.
unsafe extern "C" fn array_push(vmctx: *mut VmCtx, array: Word, value: Word) {
    // SAFETY: called by compiled code with its live context.
    unsafe { with_host(vmctx, (), |h, roots| h.array_push(array, value, roots)) }
}

/// `a + b` on strings.
unsafe extern "C" fn str_concat(vmctx: *mut VmCtx, a: Word, b: Word) -> Word {
    // SAFETY: called by compiled code with its live context.
    unsafe { with_host(vmctx, 0, |h, roots| h.str_concat(a, b, roots)) }
}

/// `str(value)` for a value of type code `t`.
unsafe extern "C" fn to_str(vmctx: *mut VmCtx, t: u32, value: Word) -> Word {
    // SAFETY: called by compiled code with its live context.
    unsafe { with_host(vmctx, 0, |h, roots| h.to_str(ty(t)?, value, roots)) }
}

/// `print(value)` for a value of type code `t`.
unsafe extern "C" fn print(vmctx: *mut VmCtx, t: u32, value: Word) {
    // SAFETY: called by compiled code with its live context.
    unsafe {
        with_host(vmctx, (), |h, _| {
            h.print(ty(t)?, value);
            Ok(())
        })
    }
}

/// Host function `id` with `n` argument words at `args`; the result word.
unsafe extern "C" fn host_call(vmctx: *mut VmCtx, id: u32, args: *const Word, n: u64) -> Word {
    let args: &[Word] = if n == 0 {
        &[]
    } else {
        // SAFETY: compiled code passes a stack area holding `n` words.
        unsafe { std::slice::from_raw_parts(args, n as usize) }
    };
    let id = waddle_opt::ir::HostFnId::from_u32(id);
    // SAFETY: called by compiled code with its live context.
    unsafe { with_host(vmctx, 0, |h, roots| h.host_call(id, args, roots)) }
}

/// Runs Waddle function `func` with `n` argument words at `args` on the
/// tier the host runs it on (the interpreter, for an interpreter-entry
/// stub); the result word. The native stack from here up to
/// `VmCtx::stack_base` is passed as GC roots (it holds every frame of the
/// calling compiled code). A trap is recorded with its location when the
/// callee knows one; otherwise the caller records its call site.
unsafe extern "C" fn call_func(vmctx: *mut VmCtx, func: u32, args: *const Word, n: u64) -> Word {
    let marker: Word = 0;
    // SAFETY: called by compiled code with its live context.
    let lo = unsafe { scan_low(vmctx, &marker) };
    // SAFETY: as above.
    let ctx = unsafe { &mut *vmctx };
    if (std::hint::black_box(&marker) as *const Word as usize) < ctx.stack_limit {
        ctx.trap_code = TrapCode::StackOverflow as u32;
        return 0;
    }
    let args: &[Word] = if n == 0 {
        &[]
    } else {
        // SAFETY: the stub passes a stack slot holding `n` words.
        unsafe { std::slice::from_raw_parts(args, n as usize) }
    };
    // SAFETY: the context's host is the live `HostCell` of this entry.
    let cell = unsafe { &mut *(ctx.host as *mut HostCell<'_>) };
    let hi = ctx.stack_base;
    let roots: &[Word] = if hi > lo {
        // SAFETY: as in `with_host`: this thread's stack between this frame
        // and the Rust frame that entered compiled code, suspended.
        unsafe { std::slice::from_raw_parts(lo as *const Word, (hi - lo) / 8) }
    } else {
        &[]
    };
    let host = &mut *cell.host;
    let func = FuncId::from_u32(func);
    // The callee's tier goes on counting recursion depth and charging
    // this fuel batch (its entry's unit first) from here, so batches end
    // at the same unit as on a single tier.
    let batch = u32::try_from(ctx.fuel.clamp(1, FUEL_BATCH)).unwrap_or(1);
    carry::carry_out(ctx.depth_left, Some(batch));
    let r = catch_unwind(AssertUnwindSafe(|| {
        let r = host.call_func(func, args, roots);
        (r, host.globals().as_mut_ptr())
    }));
    if let Some(left) = carry::carry_back() {
        ctx.fuel = i64::from(left).clamp(1, FUEL_BATCH);
    }
    std::hint::black_box(&marker);
    match r {
        Ok((r, globals)) => {
            ctx.globals = globals;
            match r {
                Ok(w) => w,
                Err(trap) => {
                    record_trap(ctx, &trap);
                    0
                }
            }
        }
        Err(payload) => {
            cell.panic = Some(payload);
            ctx.trap_code = TRAP_HOST_PANIC;
            0
        }
    }
}

/// Records `trap`, which a call from compiled code into the host returned,
/// in the context: its code, and its location unless one is set already.
fn record_trap(ctx: &mut VmCtx, trap: &waddle_opt::abi::Trap) {
    ctx.trap_code = trap.code as u32;
    if trap.loc != SrcLoc::NONE && ctx.trap_loc_set == 0 {
        ctx.trap_loc_set = 1;
        ctx.trap_file = trap.loc.file;
        ctx.trap_line = trap.loc.line;
        ctx.trap_col = trap.loc.col;
    }
}

/// [`trap_frame`] `count` times (no frame when `count <= 0`): the frames
/// of a tail loop's iterations (`cranelift::translate::tail`), which the
/// in-process T2 code's trap paths call by address.
pub(crate) unsafe extern "C" fn trap_frames(
    vmctx: *mut VmCtx,
    func: u32,
    file: u32,
    line: u32,
    col: u32,
    count: i64,
) {
    for _ in 0..count {
        // SAFETY: the caller's promise is `trap_frame`'s.
        unsafe { trap_frame(vmctx, func, file, line, col) };
    }
}

/// A trap is leaving the running frame of `func`, which stopped at
/// `file:line:col` (the failing operation, or the call the trap came out
/// of): records that location as the trap's when none is set yet, and
/// reports the frame to the host for the stack trace
/// ([`Host::trace_frame`]). Only the trap paths of compiled code call it.
pub(crate) unsafe extern "C" fn trap_frame(
    vmctx: *mut VmCtx,
    func: u32,
    file: u32,
    line: u32,
    col: u32,
) {
    // SAFETY: called by compiled code with its live context.
    let ctx = unsafe { &mut *vmctx };
    let loc = SrcLoc { file, line, col };
    if ctx.trap_loc_set == 0 && loc.is_known() {
        ctx.trap_loc_set = 1;
        ctx.trap_file = file;
        ctx.trap_line = line;
        ctx.trap_col = col;
    }
    // SAFETY: the context's host is the live `HostCell` of this entry.
    let cell = unsafe { &mut *(ctx.host as *mut HostCell<'_>) };
    let host = &mut *cell.host;
    let r = catch_unwind(AssertUnwindSafe(|| {
        host.trace_frame(FuncId::from_u32(func), loc);
    }));
    if let Err(payload) = r {
        cell.panic = Some(payload);
        ctx.trap_code = TRAP_HOST_PANIC;
    }
}

/// `clock()`.
unsafe extern "C" fn clock(vmctx: *mut VmCtx) -> f64 {
    // SAFETY: called by compiled code with its live context.
    unsafe { with_host(vmctx, 0.0, |h, _| Ok(h.clock())) }
}

/// Pays the next batch of fuel when a tick emptied `VmCtx::fuel`.
unsafe extern "C" fn fuel(vmctx: *mut VmCtx) {
    // SAFETY: called by compiled code with its live context.
    unsafe {
        (*vmctx).fuel = FUEL_BATCH;
        with_host(vmctx, (), |h, _| h.consume_fuel(FUEL_BATCH as u64));
    }
}

/// Byte-wise comparison of two strings under condition code `cc`
/// ([`cmp_code`]); 1 when it holds.
unsafe extern "C" fn str_cmp(a: Word, b: Word, cc: u32) -> u8 {
    // SAFETY: compiled code passes two live string objects.
    let (a, b) = unsafe { (str_bytes(a), str_bytes(b)) };
    let o = a.cmp(b);
    u8::from(match cc {
        0 => o.is_eq(),
        1 => o.is_ne(),
        2 => o.is_lt(),
        3 => o.is_le(),
        4 => o.is_gt(),
        _ => o.is_ge(),
    })
}

/// The number [`str_cmp`] takes for a condition.
pub(crate) fn cmp_code(c: Cmp) -> u32 {
    match c {
        Cmp::Eq => 0,
        Cmp::Ne => 1,
        Cmp::Lt => 2,
        Cmp::Le => 3,
        Cmp::Gt => 4,
        Cmp::Ge => 5,
    }
}

extern "C" fn sin(x: f64) -> f64 {
    x.sin()
}
extern "C" fn cos(x: f64) -> f64 {
    x.cos()
}
extern "C" fn tan(x: f64) -> f64 {
    x.tan()
}
extern "C" fn exp(x: f64) -> f64 {
    x.exp()
}
extern "C" fn ln(x: f64) -> f64 {
    x.ln()
}
extern "C" fn fmod(x: f64, y: f64) -> f64 {
    x % y
}

/// Calls after which a T1 or T2 counter that ran out reports again (the
/// AArch64 loader's `h_tier_up` has the same).
pub(crate) const TIER_UP_CALLS_AGAIN: i64 = 256;
/// Back edges after which a T1 or T2 counter that ran out reports again.
pub(crate) const TIER_UP_EDGES_AGAIN: i64 = 16 * 1024;

/// A tiering counter of function `func` in T1 or T2 code ran out (its calls, or
/// its loop back edges when `back_edge`): tells the host, which may
/// promote the function (the running frame stays in T1 code), and re-arms
/// the counter at `cell` so the host hears again later (a safe point to
/// install a background compile).
unsafe extern "C" fn tier_up(vmctx: *mut VmCtx, func: u32, back_edge: u32, cell: *mut i64) {
    // SAFETY: `cell` is the counter the code decremented, in its unit.
    unsafe {
        *cell = if back_edge != 0 {
            TIER_UP_EDGES_AGAIN
        } else {
            TIER_UP_CALLS_AGAIN
        };
    }
    let func = FuncId::from_u32(func);
    // SAFETY: called by compiled code with its live context.
    unsafe {
        with_host(vmctx, (), |h, _| {
            h.hot(func, back_edge != 0);
            Ok(())
        })
    };
}

/// A back-edge counter of T1 code ran out at the back edge to loop header
/// `header` of function `func` (packed `func << 32 | header`); `cell` is the
/// counter, `slots` the frame's slot 0 and `count` its number of slots
/// (negative when the slots go down from `slots`: value `v`'s word is at
/// `slots + 8 * v * sign`), `frame_end` the lowest address of the callers'
/// frames. Re-arms the counter and asks the host to continue the
/// activation elsewhere ([`Host::osr_native`], with the callers' frames
/// as roots, and this frame's fuel batch and recursion depth carried, as
/// the interpreter does). Returns 0 when the activation stays; 1 when it
/// finished: its result word is then in slot 0, or the trap record holds
/// its trap (with its frames reported).
unsafe extern "C" fn loop_tier_up(
    vmctx: *mut VmCtx,
    func_header: u64,
    cell: *mut i64,
    slots: *const Word,
    count: i64,
    frame_end: usize,
) -> u64 {
    // SAFETY: `cell` is the counter the code decremented, in its unit.
    unsafe { *cell = TIER_UP_EDGES_AGAIN };
    let marker: Word = 0;
    // SAFETY: called by compiled code with its live context.
    let ctx = unsafe { &mut *vmctx };
    if (std::hint::black_box(&marker) as *const Word as usize) < ctx.stack_limit {
        return 0;
    }
    let func = FuncId::from_u32((func_header >> 32) as u32);
    let header = waddle_opt::ir::Block::from_u32(func_header as u32);
    let down = count < 0;
    let n = count.unsigned_abs() as usize;
    let frame: Vec<Word> = (0..n)
        .map(|v| {
            // SAFETY: the frame has `n` slots from `slots` in that direction;
            // reading a slot never written yields a meaningless word, and
            // only the values live at the header are used.
            unsafe {
                if down {
                    *slots.sub(v)
                } else {
                    *slots.add(v)
                }
            }
        })
        .collect();
    let ids: Vec<u32> = (0..n as u32).collect();
    let view = waddle_opt::interp::LoopFrame::new(&frame, &ids);
    // SAFETY: the context's host is the live `HostCell` of this entry.
    let cell = unsafe { &mut *(ctx.host as *mut HostCell<'_>) };
    let hi = ctx.stack_base;
    let roots: &[Word] = if hi > frame_end && frame_end.is_multiple_of(8) {
        // SAFETY: as in `with_host`: this thread's stack between this
        // function's frame and the Rust frame that entered compiled code,
        // suspended. This frame is left out: its live values are the
        // entry's arguments (rooted by the entry's frame), the rest dead.
        unsafe { std::slice::from_raw_parts(frame_end as *const Word, (hi - frame_end) / 8) }
    } else {
        &[]
    };
    let host = &mut *cell.host;
    let batch = u32::try_from(ctx.fuel.clamp(1, FUEL_BATCH)).unwrap_or(1);
    carry::carry_out(ctx.depth_left, Some(batch));
    let r = catch_unwind(AssertUnwindSafe(|| {
        let r = host.osr_native(func, header, &view, roots);
        (r, host.globals().as_mut_ptr())
    }));
    if let Some(left) = carry::carry_back() {
        ctx.fuel = i64::from(left).clamp(1, FUEL_BATCH);
    }
    std::hint::black_box(&marker);
    match r {
        Ok((r, globals)) => {
            ctx.globals = globals;
            match r {
                None => 0,
                Some(Ok(w)) => {
                    // SAFETY: slot 0 is a word of this finished frame.
                    unsafe { *slots.cast_mut() = w };
                    1
                }
                Some(Err(trap)) => {
                    record_trap(ctx, &trap);
                    1
                }
            }
        }
        Err(payload) => {
            cell.panic = Some(payload);
            ctx.trap_code = TRAP_HOST_PANIC;
            1
        }
    }
}

/// The runtime helpers compiled code calls.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub(crate) enum Helper {
    ArrayNew,
    ArrayRepeat,
    ArrayPush,
    StrConcat,
    ToStr,
    Print,
    Clock,
    Fuel,
    StrCmp,
    Sin,
    Cos,
    Tan,
    Exp,
    Log,
    Fmod,
    /// Reports a frame a trap leaves (the trap paths only).
    TrapFrame,
    /// Host functions (in AArch64 images too: the loader forwards the call
    /// to the process that runs it, `cross::exec`).
    HostCall,
    /// Interpreter-entry stubs: run a function on the host's tier for it;
    /// not in AArch64 images.
    CallFunc,
    /// A T1 or T2 tiering counter ran out (`JitOptions::tier_counters`).
    /// In AArch64 images (T1 only) its last argument is the cell's offset
    /// in `VmCtx::tier_counters`, and the loader reports the run-out to
    /// the process that runs it (`cross::exec`).
    TierUp,
    /// The back-edge counter of a loop header in T1 code ran out: the host
    /// may continue the activation at the header in T2 code (on-stack
    /// replacement from T1, [`Host::osr_native`]). Not in AArch64 images.
    LoopTierUp,
}

/// Native parameter and result types of a helper.
pub(crate) struct HelperSig {
    /// Parameter types.
    pub params: &'static [types::Type],
    /// Result type, if any.
    pub ret: Option<types::Type>,
}

impl Helper {
    /// The helper's code address.
    pub fn addr(self) -> usize {
        type F1 = extern "C" fn(f64) -> f64;
        match self {
            Helper::ArrayNew => array_new_entry as *const () as usize,
            Helper::ArrayRepeat => array_repeat_entry as *const () as usize,
            Helper::ArrayPush => array_push_entry as *const () as usize,
            Helper::StrConcat => str_concat_entry as *const () as usize,
            Helper::ToStr => to_str_entry as *const () as usize,
            Helper::Print => print as *const () as usize,
            Helper::Clock => clock as *const () as usize,
            Helper::HostCall => host_call_entry as *const () as usize,
            Helper::CallFunc => call_func_entry as *const () as usize,
            Helper::TierUp => tier_up as *const () as usize,
            Helper::LoopTierUp => loop_tier_up as *const () as usize,
            Helper::Fuel => fuel as *const () as usize,
            Helper::StrCmp => str_cmp as *const () as usize,
            Helper::Sin => sin as F1 as usize,
            Helper::Cos => cos as F1 as usize,
            Helper::Tan => tan as F1 as usize,
            Helper::Exp => exp as F1 as usize,
            Helper::Log => ln as F1 as usize,
            Helper::Fmod => fmod as *const () as usize,
            Helper::TrapFrame => trap_frame as *const () as usize,
        }
    }

    /// The helper's native signature (after the calling convention's
    /// mapping: pointers and words as `i64`, type codes as `i32`).
    pub fn sig(self) -> HelperSig {
        use types::{F64, I32, I64, I8};
        let (params, ret): (&'static [types::Type], _) = match self {
            Helper::ArrayNew => (&[I64, I32, I64, I64], Some(I64)),
            Helper::ArrayRepeat => (&[I64, I32, I64, I64], Some(I64)),
            Helper::ArrayPush => (&[I64, I64, I64], None),
            Helper::StrConcat => (&[I64, I64, I64], Some(I64)),
            Helper::ToStr => (&[I64, I32, I64], Some(I64)),
            Helper::Print => (&[I64, I32, I64], None),
            Helper::Clock => (&[I64], Some(F64)),
            Helper::HostCall | Helper::CallFunc => (&[I64, I32, I64, I64], Some(I64)),
            Helper::Fuel => (&[I64], None),
            Helper::TierUp => (&[I64, I32, I32, I64], None),
            Helper::LoopTierUp => (&[I64, I64, I64, I64, I64, I64], Some(I64)),
            Helper::StrCmp => (&[I64, I64, I32], Some(I8)),
            Helper::Sin | Helper::Cos | Helper::Tan | Helper::Exp | Helper::Log => {
                (&[F64], Some(F64))
            }
            Helper::Fmod => (&[F64, F64], Some(F64)),
            Helper::TrapFrame => (&[I64, I32, I32, I32, I32], None),
        };
        HelperSig { params, ret }
    }

    /// Whether compiled code must check the trap record after calling it.
    pub fn may_trap(self) -> bool {
        matches!(
            self,
            Helper::ArrayNew
                | Helper::ArrayRepeat
                | Helper::ArrayPush
                | Helper::StrConcat
                | Helper::ToStr
                | Helper::Print
                | Helper::Clock
                | Helper::HostCall
                | Helper::CallFunc
                | Helper::Fuel
        )
    }
}
