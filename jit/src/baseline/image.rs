//! Position-independent AArch64 images of whole programs, for running
//! under emulation or on an AArch64 machine by a loader.
//!
//! # Entry convention of a [`BaselineImage`]
//! The image is one block of AArch64 code, valid at any address (only
//! PC-relative branches inside it), little-endian, to be mapped
//! read+execute. Each function with a body has
//! - a **function** at `funcs[i].offset`: AAPCS64, `x0 = VmCtx*` (the
//!   [`waddle_opt::abi::VmCtx`] layout, offsets `VMCTX_*`), then one
//!   argument per Waddle parameter: `int`/`str`/arrays in `x1`..`x7`,
//!   `float` in `d0`..`d7`, `bool` as a byte (0/1) in an `x` register, the
//!   rest on the stack in 8-byte words in parameter order; result in `x0`
//!   (`bool` in the low byte) or `d0`. Callee-saved registers are
//!   preserved: of `x19`–`x29` and `d8`–`d15` the code only uses `x19`
//!   (the `VmCtx` pointer) and `x29` (frame pointer), both saved in its
//!   frame record; `x16`/`x17` are clobbered (calls go through them);
//! - an **entry trampoline** at `funcs[i].trampoline`:
//!   `void tramp(VmCtx *ctx, const uint64_t *args, uint64_t *ret)`, loading
//!   one word per parameter from `args` (floats as IEEE bits, bools 0/1) and
//!   storing the result word to `*ret` (nothing for `void`). A loader calls
//!   this one.
//!
//! Before calling, the loader fills the `VmCtx`:
//! - `entries`: a table of `funcs.len()` code addresses, `image base +
//!   funcs[i].offset` (0 for declarations); every call between functions
//!   goes through it;
//! - `helpers`: the runtime helpers' addresses in [`HELPER_NAMES`] order
//!   (AAPCS64 functions with the signatures of `waddle-jit`'s helpers:
//!   `array_new(ctx, elem_type: u32, elems: *const u64, n: u64) -> u64`,
//!   `array_repeat(ctx, elem_type, value: u64, count: i64) -> u64`,
//!   `array_push(ctx, array, value)`, `str_concat(ctx, a, b) -> u64`,
//!   `to_str(ctx, type, value) -> u64`, `print(ctx, type, value)`,
//!   `clock(ctx) -> f64`, `fuel(ctx)`, `str_cmp(a, b, cc: u32) -> u8`,
//!   `sin cos tan exp log (f64) -> f64`, `fmod(f64, f64) -> f64`,
//!   `trap_frame(ctx, func: u32, file: u32, line: u32, col: u32)`,
//!   `host_call(ctx, id: u32, args: *const u64, n: u64) -> u64`; type codes
//!   per `waddle_jit::abi::encode_type`);
//! - `strings`: one interned string object per entry of
//!   [`BaselineImage::strings`], in that order;
//! - `globals` (one word per global, at least [`BaselineImage::globals_used`]),
//!   `stack_limit` (lowest allowed `sp`; prologues trap `stack overflow`
//!   below it), `stack_base`, `fuel` (the batch counter, when compiled with
//!   fuel), `trap_code = 0`, `trap_loc_set = 0`, `host` (for the helpers).
//!
//! After the trampoline returns, a non-zero `trap_code` is a runtime error
//! ([`waddle_opt::abi::TrapCode`]) located at `trap_file/line/col` when
//! `trap_loc_set` is 1 (else at the called function), exactly as for the
//! host tiers. Helpers report failures the same way (write `trap_code`,
//! return 0); compiled code checks after every helper that can fail.

use std::time::Instant;

use cranelift_entity::EntityRef;
use waddle_opt::ir::{verify_program, FuncId, Program};

use super::aarch64::Aarch64;
use super::check_limits;
use super::driver::{emit_unit, Env};
use super::HELPER_NAMES;
#[cfg(feature = "disasm")]
use crate::disasm::{disassemble, Arch};
use crate::entry::HELPER_TABLE;
use crate::options::{CompileError, CompileStats, JitOptions};
use crate::tables::{collect_strings, globals_used};

/// Largest number of parameters a function of an AArch64 image may have
/// (keeps every argument offset an immediate).
const MAX_PARAMS: usize = 1024;

/// Where one function lives in a [`BaselineImage`].
#[derive(Clone, Debug)]
pub struct ImageFunc {
    /// Source name.
    pub name: String,
    /// Byte offset of the function's code, `None` for declarations.
    pub offset: Option<usize>,
    /// Size of its code in bytes.
    pub size: usize,
    /// Byte offset of its entry trampoline, `None` for declarations.
    pub trampoline: Option<usize>,
}

/// A whole program compiled to position-independent AArch64 baseline code
/// (see the module documentation for how to run it).
#[derive(Clone, Debug)]
pub struct BaselineImage {
    /// The code, little-endian instruction words.
    pub code: Vec<u8>,
    /// One entry per function of the program, indexed by [`FuncId`].
    pub funcs: Vec<ImageFunc>,
    /// String constants, in `VmCtx::strings` order.
    pub strings: Vec<Box<str>>,
    /// Number of globals the code uses.
    pub globals_used: usize,
    /// Compile statistics.
    pub stats: CompileStats,
}

impl BaselineImage {
    /// The code of `func`, `None` for declarations.
    pub fn func_code(&self, func: FuncId) -> Option<&[u8]> {
        let f = self.funcs.get(func.index())?;
        self.code.get(f.offset?..f.offset? + f.size)
    }

    /// Disassembly of `func` (yaxpeax-arm), one instruction per line with
    /// its offset in the image; `None` for declarations.
    #[cfg(feature = "disasm")]
    pub fn disasm(&self, func: FuncId) -> Option<String> {
        let f = self.funcs.get(func.index())?;
        let code = self.func_code(func)?;
        Some(disassemble(code, f.offset? as u64, Arch::Aarch64))
    }
}

/// Compiles every function with a body of `program` to a position-independent
/// AArch64 image. Of `opts` only `fuel` and `tier_counters` apply (the
/// counters are cells of the table at `VmCtx::tier_counters`).
pub fn compile_aarch64_image(
    program: &Program,
    opts: &JitOptions,
) -> Result<BaselineImage, CompileError> {
    let start = Instant::now();
    verify_program(program).map_err(CompileError::Verify)?;
    let (texts, string_index) = collect_strings(program, opts.string_table.as_deref());
    let nglobals = globals_used(program);
    check_limits(program, texts.len(), nglobals)?;
    if let Some(f) = program
        .funcs
        .values()
        .find(|f| f.sig().params.len() > MAX_PARAMS)
    {
        return Err(CompileError::Codegen {
            func: f.name().to_string(),
            message: "too many parameters for the AArch64 baseline tier".to_string(),
        });
    }
    let env = Env {
        program,
        string_index: &string_index,
        fuel: opts.fuel,
        recursive: waddle_opt::analysis::callgraph::recursive_functions(program),
        // Position-independent: counter cells are offsets in the table at
        // `VmCtx::tier_counters`, which the loader allocates.
        counters: opts.tier_counters.is_some().then_some(0),
        // No host to continue an activation on another tier.
        osr: false,
    };
    let mut be = Aarch64::new();
    let mut stats = CompileStats::default();
    let layout = emit_unit(&mut be, &env, &mut stats);
    let funcs = program
        .funcs
        .iter()
        .map(|(fid, f)| {
            let span = layout.code[fid.index()];
            ImageFunc {
                name: f.name().to_string(),
                offset: span.map(|(at, _)| at),
                size: span.map_or(0, |(_, n)| n),
                trampoline: layout.trampolines[fid.index()],
            }
        })
        .collect();
    let code = be.ops.finalize().map_err(|e| CompileError::Codegen {
        func: "<program>".to_string(),
        message: e.to_string(),
    })?;
    stats.total = start.elapsed();
    debug_assert_eq!(HELPER_TABLE.len(), HELPER_NAMES.len());
    Ok(BaselineImage {
        code,
        funcs,
        strings: texts,
        globals_used: nglobals,
        stats,
    })
}
