//! Code placement: where each compiled function lands in its unit's
//! executable memory.
//!
//! cranelift-jit packs a module's functions one after the other, each at
//! the smallest alignment its code needs (one byte on x86-64), so where a
//! hot loop falls relative to the 64-byte fetch blocks of the front end
//! depended on the sizes of the functions compiled before it in the same
//! unit. The same loop therefore ran at different speeds in the eager
//! unit of `--tier opt`, in the tier-up unit of `auto` and in an OSR entry:
//! collatz's inner loop, with the same instructions in both, ran 1.13x
//! slower in `auto`'s OSR entry than in `--tier opt` (see the tier report
//! of session 9).
//!
//! So each function is placed such that its innermost loop's header, or
//! its entry if it has no loop, starts a [`CODE_ALIGN`]-byte block.
//! Cranelift 0.135 cannot align a block inside a function (x86-64's
//! `align_basic_block` is the identity), so the function start moves
//! instead: a filler of `int3` bytes, aligned to [`CODE_ALIGN`], is
//! allocated right before the function, which is allocated at its own
//! alignment after it. The filler is never executed. This is the loop
//! alignment of ahead-of-time compilers (GCC's `-falign-loops`, LLVM's
//! `-align-loops`), applied to the one loop that matters most per
//! function, without padding executed on the way into it.
//!
//! The filler and its function must land in one memory region: a function
//! that does not fit what is left of the current region gets a fresh,
//! page-aligned one, which would leave the filler behind at the end of the
//! old region and the hot offset wherever it falls. A placed unit
//! therefore allocates its code through [`PlacedMemory`], where a filler's
//! allocation also takes the room of the function after it
//! ([`Reservation`]).

use std::io;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use cranelift_codegen::ir;
use cranelift_jit::{
    BranchProtection, JITMemoryKind, JITMemoryProvider, JITModule, SystemMemoryProvider,
};
use cranelift_module::{FuncId, Module, ModuleError, ModuleResult};

/// The block size, in bytes, at which the hot offset of each function
/// ([`hot_offsets`]) is placed: a cache line, and the fetch block of the
/// x86-64 and AArch64 front ends the JIT targets.
pub const CODE_ALIGN: u32 = 64;

/// The source location that marks the terminator of a function's first
/// hot loop header ([`mark_hot_loops`]); the `i`-th header gets
/// `HOT_TAG + i`. Unwinding tags (`super::unwind`) count up from 0 and `!0`
/// is no location, so these are never confused with them. They count up
/// because Cranelift stores a location relative to the function's first
/// one, and a relative `!0` (what `HOT_TAG - 1` would be after `HOT_TAG`)
/// reads as no location.
const HOT_TAG: u32 = u32::MAX - 1 - MAX_HOT;

/// Hot loop headers marked per function at most.
const MAX_HOT: u32 = 16;

/// Marks the terminators of the headers of `ctx.func`'s innermost loops
/// (the deepest ones in Cranelift's loop analysis, at most [`MAX_HOT`], in
/// layout order) with [`HOT_TAG`], `HOT_TAG + 1`, ..., so that
/// [`hot_offsets`] finds where they land in the machine code. Several
/// loops are often equally deep: the -O2 pipeline versions a loop into a
/// copy with bounds checks and one without (matmul's inner loop), and only
/// the run decides which is hot. A terminator that already carries a
/// source location (an unwinding tag) keeps it, and that loop is left out.
///
/// Cranelift's own block edges (`machine_code_cfg_info`) cannot be used
/// for this: in 0.135 they pair each block's successors with the start of
/// the block at the same position of the *emission* order, which differs
/// from the block order once cold blocks move to the end.
pub fn mark_hot_loops(ctx: &mut cranelift_codegen::Context) {
    ctx.compute_cfg();
    ctx.compute_domtree();
    ctx.compute_loop_analysis();
    let la = &ctx.loop_analysis;
    let headers: Vec<(usize, ir::Block)> = (ctx.func.layout.blocks())
        .filter(|&b| la.is_loop_header(b).is_some())
        .map(|b| (la.loop_level(b).level(), b))
        .collect();
    let Some(deepest) = headers.iter().map(|&(l, _)| l).max() else {
        return;
    };
    let innermost = (headers.into_iter())
        .filter(|&(l, _)| l == deepest)
        .map(|(_, b)| b);
    for (i, header) in (0..MAX_HOT).zip(innermost) {
        if let Some(term) = ctx.func.layout.last_inst(header) {
            if ctx.func.srcloc(term).is_default() {
                ctx.func.set_srcloc(term, ir::SourceLoc::new(HOT_TAG + i));
            }
        }
    }
}

/// The offsets in a compiled function's machine code that should start a
/// [`CODE_ALIGN`]-byte block: the start of each machine block holding the
/// code of a terminator [`mark_hot_loops`] marked (the hot loops'
/// headers), in marking order; none when nothing was marked or the marked
/// terminators left no code (a jump to the block laid out next), and the
/// entry then counts ([`padding`]).
pub fn hot_offsets(code: &cranelift_codegen::CompiledCode) -> Vec<u32> {
    let ranges = code.buffer.get_srclocs_sorted();
    (0..MAX_HOT)
        .filter_map(|i| {
            (ranges.iter())
                .filter(|r| r.loc.bits() == HOT_TAG + i && r.start < r.end)
                .map(|r| r.start)
                .min()
        })
        .map(|at| block_start(&code.bb_starts, at))
        .collect()
}

/// The start of the block holding offset `at`, given the start offsets of
/// the blocks in layout order (`bb_starts`, from `machine_code_cfg_info`);
/// 0 before the first block (the prologue).
fn block_start(bb_starts: &[u32], at: u32) -> u32 {
    match bb_starts.partition_point(|&s| s <= at) {
        0 => 0,
        i => bb_starts[i - 1],
    }
}

/// The bytes to leave before a function with hot offsets `hots` (the entry,
/// 0, when empty) when its start must stay aligned to `align` (a power of
/// two: its constant pool's alignment): the multiple of `align` below
/// [`CODE_ALIGN`] that brings the hot offset farthest from its block start
/// closest to it (so one hot offset starts a block exactly when `align` is
/// 1; the smallest such padding on ties).
pub fn padding(hots: &[u32], align: u32) -> u32 {
    let align = align.clamp(1, CODE_ALIGN);
    debug_assert!(align.is_power_of_two());
    let hots = if hots.is_empty() { &[0][..] } else { hots };
    (0..CODE_ALIGN)
        .step_by(align as usize)
        .min_by_key(|&pad| {
            let worst = hots.iter().map(|&h| (h + pad) % CODE_ALIGN).max();
            (worst, pad)
        })
        .unwrap_or(0)
}

/// A filler of `len` bytes. It is never executed; its bytes are `int3`
/// (x86-64) so that a stray jump into it traps.
fn filler(len: u32) -> Vec<u8> {
    vec![0xcc; len as usize]
}

/// Allocates the filler that must precede a function of hot offsets
/// `hots`, start alignment `align` and `size` bytes of memory in `module`
/// (whose memory is a [`PlacedMemory`] sharing `reservation`), and returns
/// the alignment to define the function with right after it (at which it
/// lands at the filler's end): [`CODE_ALIGN`] when no filler is needed.
pub fn place(
    (module, reservation): (&mut JITModule, &Reservation),
    sig: &ir::Signature,
    hots: &[u32],
    (align, size): (u64, usize),
) -> Result<u64, Box<ModuleError>> {
    let align = align.clamp(1, u64::from(CODE_ALIGN)) as u32;
    let pad = padding(hots, align);
    if pad == 0 {
        return Ok(u64::from(CODE_ALIGN));
    }
    let id: FuncId = module.declare_anonymous_function(sig).map_err(Box::new)?;
    reservation.0.store(size, Ordering::Relaxed);
    let defined = module.define_function_bytes(id, u64::from(CODE_ALIGN), &filler(pad), &[]);
    reservation.0.store(0, Ordering::Relaxed);
    defined.map_err(Box::new)?;
    Ok(u64::from(align))
}

/// The bytes of memory a function defined from `code` takes in a
/// cranelift-jit module: its code, and on AArch64 a veneer per call
/// relocation (cranelift-jit's `CompiledBlob`, 24 bytes each; 32 counted).
pub fn memory_size(code: &cranelift_codegen::CompiledCode) -> usize {
    let calls = (code.buffer.relocs().iter())
        .filter(|r| r.kind == cranelift_codegen::binemit::Reloc::Arm64Call)
        .count();
    code.code_buffer().len() + 32 * calls
}

/// How many bytes the next filler's allocation reserves after itself:
/// set by [`place`] for the function it places, taken by the
/// [`PlacedMemory`] it shares.
#[derive(Clone, Default)]
pub struct Reservation(Arc<AtomicUsize>);

/// Executable memory of a unit whose functions are placed: cranelift-jit's
/// [`SystemMemoryProvider`], except that a filler's allocation (while a
/// [`Reservation`] is set) also takes the room of the function after it,
/// and that function's allocation gets the room, so both land in one
/// region.
pub struct PlacedMemory {
    inner: SystemMemoryProvider,
    reservation: Reservation,
    /// The room reserved after the last filler, as (address, bytes).
    reserved: Option<(usize, usize)>,
}

impl PlacedMemory {
    /// Memory sharing `reservation` with the [`place`] calls of its unit.
    pub fn new(reservation: Reservation) -> Self {
        Self {
            inner: SystemMemoryProvider::new(),
            reservation,
            reserved: None,
        }
    }
}

impl JITMemoryProvider for PlacedMemory {
    fn allocate(&mut self, size: usize, align: u64, kind: JITMemoryKind) -> io::Result<*mut u8> {
        if !matches!(kind, JITMemoryKind::Executable) {
            return self.inner.allocate(size, align, kind);
        }
        if let Some((at, room)) = self.reserved.take() {
            let fits = size <= room && (at as u64).is_multiple_of(align.max(1));
            // Only the function placed after its filler may take the room:
            // anything else allocated in between would misplace it.
            debug_assert!(fits, "a placed function did not fit its reserved room");
            if fits {
                return Ok(at as *mut u8);
            }
        }
        let after = self.reservation.0.swap(0, Ordering::Relaxed);
        let ptr = self.inner.allocate(size + after, align, kind)?;
        if after > 0 {
            self.reserved = Some((ptr as usize + size, after));
        }
        Ok(ptr)
    }

    unsafe fn free_memory(&mut self) {
        // SAFETY: the caller's contract (no code of this memory runs or is
        // referenced any more) is the inner provider's, which owns every
        // region handed out, the reserved rooms included.
        unsafe { self.inner.free_memory() }
    }

    fn finalize(&mut self, branch_protection: BranchProtection) -> ModuleResult<()> {
        self.inner.finalize(branch_protection)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_offset_belongs_to_the_last_block_starting_at_or_before_it() {
        let starts = [17, 36, 63, 88];
        assert_eq!(block_start(&starts, 5), 0);
        assert_eq!(block_start(&starts, 17), 17);
        assert_eq!(block_start(&starts, 62), 36);
        assert_eq!(block_start(&starts, 63), 63);
        assert_eq!(block_start(&starts, 500), 88);
        assert_eq!(block_start(&[], 5), 0);
    }

    #[test]
    fn padding_moves_the_hot_offsets_to_block_starts() {
        assert_eq!(padding(&[], 1), 0);
        assert_eq!(padding(&[0], 1), 0);
        assert_eq!(padding(&[64], 1), 0);
        assert_eq!(padding(&[70], 1), 58);
        for hot in 0..300 {
            assert_eq!((hot + padding(&[hot], 1)) % CODE_ALIGN, 0);
            // A start aligned to 8 keeps that alignment and puts the hot
            // offset less than 8 bytes after a block start.
            let p = padding(&[hot], 8);
            assert_eq!(p % 8, 0);
            assert!(p < CODE_ALIGN);
            assert!((hot + p) % CODE_ALIGN < 8);
        }
        // matmul's two innermost loops (with and without bounds checks),
        // 126 bytes apart, with an 8-byte pool: both within 9 bytes of a
        // block start, rather than one at 1 and the other at 63.
        let p = padding(&[1073, 1199], 8);
        assert_eq!(((1073 + p) % 64, (1199 + p) % 64), (9, 7));
    }
}
