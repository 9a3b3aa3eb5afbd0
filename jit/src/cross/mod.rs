//! Cross-execution: compiling a whole program for a foreign target
//! (AArch64) into a position-independent [`CodeImage`] and running it, for
//! real, under `qemu-aarch64` with a small static loader written in C
//! (`rt/*.{h,c}`, one translation unit built with `aarch64-linux-gnu-gcc`
//! on first use and cached, see [`toolchain`]).
//!
//! # The code convention (for every generator producing images)
//! Each function with a body is native AArch64 code under AAPCS64, exactly
//! the calling convention of [`crate::abi`]: `x0` = `*mut VmCtx`, the Waddle
//! arguments in order in `x1..` (`int`, `str`, arrays: 64-bit; `bool`: 0/1
//! in the low byte) and `d0..` (`float`), the result in `x0` (or `w0` for a
//! `bool`, low byte) or `d0`; callee-saved registers as AAPCS64. The code
//! must be position independent and carry no relocations:
//! - runtime helpers are called (`blr`) through `VmCtx::helpers[h]` (offset
//!   [`waddle_opt::abi::VMCTX_HELPERS_OFFSET`]), `h` the helper's index in
//!   the `Helper` enum order of `crate::helpers` (ArrayNew, ArrayRepeat,
//!   ArrayPush, StrConcat, ToStr, Print, Clock, Fuel, StrCmp, Sin, Cos, Tan,
//!   Exp, Log, Fmod, TrapFrame, HostCall, CallFunc (never called by an
//!   image), TierUp), with the signatures of
//!   `Helper::sig`;
//! - string constant `i` is the word `VmCtx::strings[i]` (offset
//!   [`waddle_opt::abi::VMCTX_STRINGS_OFFSET`]), `i` its index in the order
//!   passed to [`ImageBuilder::new`] (for Cranelift: first use over the
//!   program's functions and blocks in layout order);
//! - Waddle calls load the callee from `VmCtx::entries[callee]`;
//! - globals live at `VmCtx::globals[g]`; traps, the stack limit and fuel
//!   follow [`crate::abi`] (helpers record only the trap code; the caller
//!   checks `VmCtx::trap_code` after each helper that may fail).
//!
//! The loader calls only the program's `main` function (no parameters, no
//! result), as `void main(VmCtx *)`, on a thread whose stack is the stack
//! budget plus 8 MiB; no trampolines are needed. A generator builds an image
//! with [`ImageBuilder`]: `ImageBuilder::new(Arch::Aarch64, program,
//! strings, fuel)`, then `add_function(func, code_bytes, entry_offset,
//! alignment)` per function, then `finish()`.
//!
//! # Image file (little endian)
//! ```text
//!  0  magic "WADLIMG2"
//!  8  u32 arch (1 = AArch64)    12  u32 flags (bit 0: code counts fuel)
//! 16  u32 function count        20  u32 main function index
//! 24  u32 global count          28  u32 string count
//! 32  u32 helper count (19)     36  u32 reserved, 0
//! 40  u64 code length
//! 48  u32 counter start, calls  52  u32 counter start, back edges
//!     (both 0: the code has no tiering counters)
//! 56  u64 entry offset per function (u64::MAX: no body)
//!     u32 type code per global (crate::abi::encode_type)
//!     per string: u32 byte length, bytes
//!     zero padding to a multiple of 16
//!     code bytes
//! ```
//! The loader maps the code read-write, copies it, makes it read-execute
//! (W^X), and fills `VmCtx` (entries, helpers, strings, zeroed globals with
//! `""` and fresh empty arrays, stack limit = entry stack pointer minus the
//! budget, fuel batch).
//!
//! The loader reads the image from standard input preceded by its length
//! (a u64), so standard input stays open for the replies to host calls.
//!
//! # Host calls
//! A host function (`Helper::HostCall`) runs in the process that started
//! the loader, not under qemu: the loader writes `'H' u32 id u32 n` and
//! the `n` argument words, flushes, and blocks reading the reply `u32 trap
//! u64 word` from standard input; [`run_image_hosted`] answers each record
//! as it arrives. A non-zero trap becomes the call's trap (the code checks
//! `VmCtx::trap_code` after the helper, so it is located at the call).
//! Only words cross, so host functions of images take and return only
//! `int`, `float` and `bool` ([`host_fn_obstacle`]): a `str` or array lives
//! in the loader's heap, which the host cannot reach.
//!
//! # Output records
//! The loader writes to standard output `'P' u32 type-code value` for each
//! `print` (value: a u64 word for scalars, `u64 len, bytes` for a string,
//! `u64 len, values` for an array), `'F' u32 function u32 file u32 line
//! u32 col` for each frame a trap leaves (innermost first), `'T' u32
//! function u32 back-edge` each time a tiering counter runs out, and, at the
//! end, `'E' u32 trap-code u32 loc-set u32 file u32 line u32 col`, in 64 KiB
//! blocks or, with
//! [`RunLimits::flush_each_print`], after every print. The host decodes
//! them as they arrive ([`run_image_with`]) and formats the values itself,
//! so printed floats are Rust's formatting. `str(x)` runs inside the loader, which reproduces
//! Rust's `{:?}` of `f64` (shortest round-trip digits) in C.
//!
//! # Tiering counters
//! Baseline (T1) images compiled with `JitOptions::tier_counters` count
//! calls and loop back edges as on x86-64: the prologue and every back edge
//! decrement a cell of the table at `VmCtx::tier_counters` (two `i64` per
//! function, calls at `16 * index`, back edges 8 bytes later; the loader
//! allocates it, filled with the header's start values), and a counter that
//! reaches zero calls `TierUp(ctx, func, back_edge, cell offset)`. The
//! loader has no higher tier to move to: it re-arms the cell as the host's
//! helper does (`TIER_UP_CALLS_AGAIN`/`TIER_UP_EDGES_AGAIN`) and reports the
//! run-out, so the host sees the same run-outs, in the same order, as x86-64
//! T1 code's `Host::hot` calls ([`CrossRun::tier_ups`]). Cranelift's images
//! have no counters.
//!
//! # Memory
//! The loader has its own garbage collector, built like the host runtime's:
//! non-moving mark-and-sweep over malloc'd objects, with the globals, the
//! running helper's operands and a conservative scan of the native stack
//! from the collector's frame up to `VmCtx::stack_base` as roots (compiled
//! code keeps live references in its frame at every call). Each allocating
//! helper reserves all it needs first (collecting when a threshold, twice
//! the live bytes after the last collection, or the limit would be passed),
//! then allocates without collecting. The live total is bounded by
//! [`RunLimits::memory_limit`]; exceeding it is `out of memory`.

mod baseline_a64;
mod cranelift_a64;
pub mod exec;
pub mod image;
pub mod toolchain;

pub use baseline_a64::compile_baseline_aarch64;
pub use cranelift_a64::{compile_aarch64, compile_functions, FuncCode};
pub use exec::{
    run_image, run_image_events, run_image_hosted, run_image_with, CrossRun, Ending, HostReply,
    PrintValue, RunLimits, DEFAULT_CROSS_MEMORY_LIMIT,
};
pub use image::{crosses_to_host, host_fn_obstacle, Arch, CodeImage, ImageBuilder, ImageError};
pub use toolchain::{
    check_tools, skip_test_without_tools, tool_decision, CrossError, ToolDecision,
    REQUIRE_CROSS_ENV,
};

#[cfg(test)]
mod tests {
    /// The loader's copies of the constants every tier must share.
    #[test]
    fn loader_constants_match_the_host() {
        let common = include_str!("rt/common.h");
        let want = format!(
            "#define STACK_BYTES_PER_CALL {}",
            waddle_opt::abi::STACK_BYTES_PER_CALL
        );
        assert!(common.contains(&want), "common.h lacks `{want}`");
        let want = format!(
            "#define STACK_BYTES_FACTOR {}",
            waddle_opt::abi::STACK_BYTES_FACTOR
        );
        assert!(common.contains(&want), "common.h lacks `{want}`");
    }
}
