//! The native calling convention shared by every compiled tier.
//!
//! # Functions
//! Every Waddle function with a body compiles to a native function with the
//! platform's default C calling convention (System V on x86-64 Linux, AAPCS64
//! on AArch64), whose parameters are
//!
//! 1. `vmctx: *mut VmCtx` ([`waddle_opt::abi::VmCtx`]), then
//! 2. one native argument per Waddle parameter: `int` as `i64`, `float` as
//!    `f64`, `bool` as `i8` (0 or 1), `str` and arrays as the object's
//!    address (`i64`),
//!
//! and whose result is the same mapping of the Waddle result type (no result
//! for `void`). [`native_type`] is the mapping.
//!
//! # Calls and code swapping
//! A call from one Waddle function to another loads the callee's current code
//! address from the entry-slot table (`VmCtx::entries[callee]`) and calls it
//! indirectly. Replacing a function is storing a new address into its slot;
//! the old code must stay mapped while a frame of it may still run.
//! A unit may be compiled with some functions only declared (their code
//! lives in other units): their slots start null, the runtime fills them
//! when it links the units, and a call through a still-null slot traps
//! `assertion failed` (the interpreter's error for calling a function
//! without a body).
//!
//! Rust reaches compiled code through one *entry trampoline* per function,
//! `extern "C" fn(vmctx, args: *const Word, ret: *mut Word)`: it loads the
//! arguments from the word array (converting to native types), calls the
//! function through its entry slot, and stores the result as a word.
//!
//! # Runtime errors (traps)
//! Apart from one case (below), there is no unwinding through compiled
//! frames and no setjmp/longjmp. A trap writes its [`waddle_opt::abi::TrapCode`] into `VmCtx::trap_code` and,
//! when the location is known at that point, the location into
//! `VmCtx::trap_{file,line,col}` with `trap_loc_set = 1`; then the function
//! returns at once with a zero result through its normal epilogue.
//! - Inline checks (bounds, division by zero, pop on empty, assertion) jump
//!   to a cold block that records the code, calls the `TrapFrame` helper
//!   with the function and the location, and returns.
//! - Runtime helpers (allocation, printing, ...) record only the code; after
//!   every helper call that can fail and after every Waddle→Waddle call the
//!   caller loads `trap_code` and, when non-zero, calls `TrapFrame` with
//!   its own function and location, and returns. So a `stack overflow` or
//!   `out of fuel` raised in a callee's prologue points at the call, as the
//!   interpreter's does (docs/language.md "Errors").
//! - `TrapFrame` records the location unless one is set, and reports the
//!   frame to the host (`Host::trace_frame`): each frame the trap leaves,
//!   innermost first, is one entry of the runtime error's stack trace. Only
//!   trap paths call it, so the normal path pays nothing for traces.
//! - The exception: in-process T2 code on x86-64 does not test the record
//!   after a recursive function's direct calls of itself. Such a function
//!   is entered through a catch frame, and a trap in it walks the frame
//!   pointers back to that frame, reporting each skipped frame, and returns
//!   from there with a zero result (`crate::cranelift::unwind`), so its
//!   callers see the protocol above.
//! - The trampoline's caller (Rust) reads the record after the return and
//!   turns it into `Err(Trap)`.
//! - Helpers never let a panic cross the `extern "C"` boundary: they catch
//!   it, park the payload, and record the private code [`TRAP_HOST_PANIC`];
//!   the Rust side resumes the panic after compiled code has returned.
//!
//! # Stack limit
//! Every prologue compares the stack pointer (after the frame is allocated)
//! with `VmCtx::stack_limit` and traps `stack overflow` below it. The entry
//! sets the limit to the entry's stack pointer minus the stack budget
//! ([`waddle_opt::abi::DEFAULT_STACK_BUDGET`] by default), so the thread
//! running compiled code needs a native stack of the budget plus
//! [`HELPER_STACK_RESERVE`] for the helpers and the host they call.
//! Frames larger than a page are probed (Cranelift's inline stack probes).
//!
//! # Fuel
//! One unit per function entry (in the callee's prologue) and per loop back
//! edge (an edge to a block at the same or an earlier layout position, the
//! interpreter's rule), counted down in `VmCtx::fuel` and paid to the host in
//! batches of [`waddle_opt::abi::FUEL_BATCH`], the remainder when the
//! outermost call returns: the same charges as the interpreter's. A call
//! across tiers hands the running batch to the callee and takes back what
//! is left ([`waddle_opt::abi::carry`]), so under any mix of tiers the
//! batches end, and fuel runs out, at the same unit as on one tier.
//!
//! # Garbage collection
//! Every helper that may allocate passes the host, as `roots`, the native
//! stack from the helper's own frame up to `VmCtx::stack_base` (the stack
//! pointer of the Rust frame that entered compiled code), read as words: a
//! conservative scan of every compiled frame. Compiled code makes sure each
//! live reference is in that region at every call that may collect: every
//! reference-typed value live across such a call (a Waddle call, a host
//! call, or an allocating helper; see `cranelift::translate::gc_live`) is
//! declared to Cranelift as needing a stack map
//! (`declare_value_needs_stack_map`), so Cranelift spills it to a stack slot
//! of its frame across every call (a safepoint) instead of leaving it only
//! in a callee-saved register. References live only across calls that
//! cannot collect (fuel, print, clock, math) stay in registers; those
//! helpers take no roots. Array-literal elements are passed to the
//! helper in a stack slot of the caller's frame, also inside the region.
//! The collector is non-moving, so the spilled copies need no reloading.

use cranelift_codegen::ir::types;
use waddle_opt::ir::{ScalarType, Type};

/// Private trap code: a host method panicked inside a helper; the panic is
/// resumed on the Rust side once compiled code has returned.
pub const TRAP_HOST_PANIC: u32 = 0x1_0000;

/// Native stack bytes the thread running compiled code needs beyond the
/// stack budget, for runtime helpers and the host methods they call.
pub const HELPER_STACK_RESERVE: usize = 4 << 20;

/// Native stack bytes always kept free below the stack limit for the
/// helpers and the host (which neither recurse deeply nor allocate large
/// frames: the collector marks with a work list). When the calling thread's
/// stack is too small for the budget plus [`HELPER_STACK_RESERVE`], the
/// entry raises the limit to the thread's lowest usable address plus this
/// (or plus half of the thread's stack, when that is smaller than this),
/// so deep recursion stops with `stack overflow` instead of running off the
/// thread's stack.
pub const MIN_HELPER_STACK: usize = 256 << 10;

/// The Cranelift type a Waddle value of type `ty` travels in, `None` for
/// `void`.
pub fn native_type(ty: Type) -> Option<types::Type> {
    match ty {
        Type::Unit => None,
        Type::Bool => Some(types::I8),
        Type::Int | Type::Str | Type::Array { .. } => Some(types::I64),
        Type::Float => Some(types::F64),
    }
}

/// Encodes a type as a `u32` for passing to a runtime helper:
/// bits 0..8 the kind, 8..16 the scalar element, 16..24 the array depth.
pub fn encode_type(ty: Type) -> u32 {
    fn scalar(s: ScalarType) -> u32 {
        match s {
            ScalarType::Bool => 1,
            ScalarType::Int => 2,
            ScalarType::Float => 3,
            ScalarType::Str => 4,
        }
    }
    match ty {
        Type::Unit => 0,
        Type::Bool => 1,
        Type::Int => 2,
        Type::Float => 3,
        Type::Str => 4,
        Type::Array { elem, depth } => 5 | (scalar(elem) << 8) | (u32::from(depth) << 16),
    }
}

/// Decodes [`encode_type`]; `None` for a code no type encodes to.
pub fn decode_type(code: u32) -> Option<Type> {
    let scalar = |s: u32| {
        Some(match s {
            1 => ScalarType::Bool,
            2 => ScalarType::Int,
            3 => ScalarType::Float,
            4 => ScalarType::Str,
            _ => return None,
        })
    };
    Some(match code & 0xff {
        0 => Type::Unit,
        1 => Type::Bool,
        2 => Type::Int,
        3 => Type::Float,
        4 => Type::Str,
        5 => {
            let depth = ((code >> 16) & 0xff) as u8;
            if depth == 0 || depth > Type::MAX_ARRAY_DEPTH {
                return None;
            }
            Type::Array {
                elem: scalar((code >> 8) & 0xff)?,
                depth,
            }
        }
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn type_codes_roundtrip() {
        let tys = [
            Type::Unit,
            Type::Bool,
            Type::Int,
            Type::Float,
            Type::Str,
            Type::Array {
                elem: ScalarType::Str,
                depth: 3,
            },
            Type::Array {
                elem: ScalarType::Float,
                depth: 64,
            },
        ];
        for t in tys {
            assert_eq!(decode_type(encode_type(t)), Some(t));
        }
        assert_eq!(decode_type(5), None);
        assert_eq!(decode_type(99), None);
    }
}
