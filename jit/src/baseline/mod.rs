//! The baseline code generator (tier T1): one linear pass over unoptimized
//! Waddle IR emitting x86-64 or AArch64 machine code with dynasmrt, no
//! optimizer, no Cranelift.
//!
//! One code-generator interface (`driver::Backend`) and two back ends:
//! `x64` (the host tier, run through [`BaselineProgram`]) and
//! `aarch64` (position-independent images, see `compile_aarch64_image`;
//! the crate's `cross` feature). The shared, arch-neutral parts (QBE's
//! isel/emit/abi split):
//! - `plan`: block order (reachable blocks in layout order, so most
//!   jumps fall through), back edges, and the frame: one 8-byte slot per
//!   SSA value of the emitted blocks (numbered densely, [`frame_slots`])
//!   plus scratch words for array-literal elements;
//! - `isel`: instruction selection, each instruction as mid-level back-end
//!   operations (slot and `VmCtx` table accesses, helper calls described
//!   once by [`crate::helpers`], trap checks, calls through entry slots);
//! - `conv`: argument locations and result widening of the calling
//!   convention over each back end's register lists;
//! - `moves`: block arguments as sequentialized parallel moves on edges;
//! - `cold`: out-of-line trap, trap-propagation and fuel-refill paths;
//! - `driver`: the pass itself (prologue, blocks, terminators as
//!   compare-and-branch chains, edges, out-of-line paths, trampolines).
//!
//! Division by a constant multiplies by its [`waddle_opt::magic`] number.
//!
//! A back end keeps only encodings, its frame layout and its argument
//! registers.
//!
//! Constants are written to their slots once, in the prologue; integer
//! comparisons feeding only the following branch stay in the flags; both
//! back ends give the plan's best-ranked loop values home registers that
//! mirror their slots for the whole function (`plan::FuncPlan::homes`,
//! ranked by uses weighted by natural-loop depth), and the x86-64 back end
//! adds a write-through register cache within blocks (see `x64`).
//! Recursive functions keep the depth counter they read at entry in the
//! frame and store it back on return (no load/add/store chain through the
//! `VmCtx` from call to call).
//!
//! The code follows the shared calling convention of [`crate::abi`]
//! exactly: native arguments with the `VmCtx` first, calls between Waddle
//! functions through the entry-slot table (`VmCtx::entries`), the trap
//! record protocol, the stack-limit check in every prologue, fuel at
//! function entries and back edges charged in batches, and GC roots found
//! by the conservative scan: every value, references included, lives in its
//! frame slot, which is inside the scanned region at every helper call.

mod cold;
mod conv;
mod driver;
#[cfg(feature = "cross")]
mod image;
mod isel;
mod moves;
mod plan;
mod program;
mod rt;
// dynasm!'s dynamic registers (`Rq(r)`) expand to `r.into()`.
#[cfg(feature = "cross")]
#[allow(clippy::useless_conversion)]
mod aarch64;
#[allow(clippy::useless_conversion)]
mod x64;

use std::time::Instant;

use cranelift_entity::EntityRef;
use memmap2::MmapMut;
use waddle_opt::ir::{verify_program, InstKind, Program};

#[cfg(feature = "cross")]
pub use image::{compile_aarch64_image, BaselineImage, ImageFunc};
pub use plan::{frame_slots, NO_SLOT};
pub use program::BaselineProgram;

#[cfg(feature = "disasm")]
use crate::disasm::{disassemble, Arch};
use crate::entry::FuncInfo;
use crate::options::{CompileError, CompileStats, JitOptions};
use crate::tables::{collect_strings, globals_used};
use driver::{emit_unit, Env};

/// Names of the runtime helpers in `VmCtx::helpers` order.
pub const HELPER_NAMES: [&str; 17] = [
    "array_new",
    "array_repeat",
    "array_push",
    "str_concat",
    "to_str",
    "print",
    "clock",
    "fuel",
    "str_cmp",
    "sin",
    "cos",
    "tan",
    "exp",
    "log",
    "fmod",
    "trap_frame",
    "host_call",
];

/// Largest table index (functions, globals, strings) or frame size in words
/// the generators accept, so every displacement fits an `i32`.
const MAX_INDEX: usize = 1 << 24;

/// Rejects programs whose tables or frames are too large for 32-bit
/// displacements.
fn check_limits(program: &Program, strings: usize, globals: usize) -> Result<(), CompileError> {
    let too_big = |func: &str, what: &str| CompileError::Codegen {
        func: func.to_string(),
        message: format!("{what} too large for the baseline tier"),
    };
    if program.funcs.len() >= MAX_INDEX || strings >= MAX_INDEX || globals >= MAX_INDEX {
        return Err(too_big("<program>", "program"));
    }
    for f in program.funcs.values() {
        let scratch: usize = f
            .insts()
            .values()
            .map(|i| match &i.kind {
                InstKind::ArrayLit(e) => e.len(),
                _ => 0,
            })
            .max()
            .unwrap_or(0);
        if f.values().len() + scratch >= MAX_INDEX {
            return Err(too_big(f.name(), "frame"));
        }
    }
    Ok(())
}

/// Compiles every function with a body of `program` to x86-64 baseline code.
///
/// The program must pass the IR verifier. Of `opts` only `fuel` and
/// `disasm` apply (the baseline tier never optimizes). String constants are
/// interned through the host of the first [`BaselineProgram::call`].
pub fn compile(program: &Program, opts: &JitOptions) -> Result<BaselineProgram, CompileError> {
    let start = Instant::now();
    verify_program(program).map_err(CompileError::Verify)?;
    let (texts, string_index) = collect_strings(program, opts.string_table.as_deref());
    let nglobals = globals_used(program);
    check_limits(program, texts.len(), nglobals)?;
    if !cfg!(target_arch = "x86_64") {
        return Err(CompileError::Isa(
            "the baseline tier runs on x86-64 hosts only".to_string(),
        ));
    }
    // Two counters per function (calls, back edges), at a fixed address
    // the code embeds.
    let counters = crate::tables::tier_counter_cells(opts, program.funcs.len());
    let env = Env {
        program,
        string_index: &string_index,
        fuel: opts.fuel,
        recursive: opts.recursive_functions(program),
        counters: (!counters.is_empty()).then_some(counters.as_ptr() as usize),
        osr: !counters.is_empty(),
    };
    let mut be = x64::X64::new();
    let mut stats = CompileStats::default();
    let layout = emit_unit(&mut be, &env, &mut stats);
    let bytes = be.ops.finalize().map_err(|e| CompileError::Codegen {
        func: "<program>".to_string(),
        message: e.to_string(),
    })?;
    let map_err = |e: std::io::Error| CompileError::Codegen {
        func: "<program>".to_string(),
        message: format!("executable memory: {e}"),
    };
    let mut mem = MmapMut::map_anon(bytes.len().max(1)).map_err(map_err)?;
    mem[..bytes.len()].copy_from_slice(&bytes);
    let mem = mem.make_exec().map_err(map_err)?;
    let base = mem.as_ptr() as usize;
    let funcs = program
        .funcs
        .iter()
        .map(|(fid, f)| {
            let span = layout.code[fid.index()];
            FuncInfo {
                name: f.name().to_string(),
                params: f.sig().params.len(),
                loc: f.loc(),
                code: span.map_or(0, |(at, _)| base + at),
                entry: span.map_or(0, |(at, _)| base + at),
                code_size: span.map_or(0, |(_, n)| n),
                trampoline: layout.trampolines[fid.index()].map_or(0, |at| base + at),
                disasm: disassembly(span.filter(|_| opts.disasm), &bytes),
            }
        })
        .collect();
    stats.total = start.elapsed();
    Ok(BaselineProgram::new(
        mem, funcs, texts, nglobals, stats, counters,
    ))
}

/// The listing of one function's code (`span`: offset and size in
/// `bytes`), addresses relative to the unit, when it was asked for.
#[cfg(feature = "disasm")]
fn disassembly(span: Option<(usize, usize)>, bytes: &[u8]) -> Option<String> {
    span.map(|(at, n)| disassemble(&bytes[at..at + n], at as u64, Arch::X86_64))
}

/// Without the `disasm` feature the baseline keeps no listing.
#[cfg(not(feature = "disasm"))]
fn disassembly(_span: Option<(usize, usize)>, _bytes: &[u8]) -> Option<String> {
    None
}
