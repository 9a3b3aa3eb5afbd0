//! Native code generation for Waddle IR.
//!
//! - [`abi`]: the calling convention every compiled tier shares (native
//!   arguments plus a `VmCtx`, entry slots, trap protocol, stack limit,
//!   fuel, GC roots).
//! - [`baseline`]: the one-pass generator (tier T1), Waddle IR → x86-64
//!   (host) or AArch64 (position-independent images, feature `cross`) with
//!   dynasmrt.
//! - `cross` (feature `cross`): compiling whole programs to AArch64 images
//!   and running them under `qemu-aarch64`.
//! - [`cranelift`]: the optimizing generator (tier T2), Waddle IR →
//!   Cranelift → machine code, and [`CompiledProgram`], which runs it.
//! - [`disasm`]: machine code → text for any supported target (x86-64 with
//!   iced-x86, AArch64 with yaxpeax-arm; feature `disasm`), shared by every
//!   tier.
//!
//! # Features
//! Both off by default, so an embedder's build carries neither:
//! - `disasm`: the disassemblers (`disasm::decode`, `disasm::disassemble`,
//!   and the baseline's text for [`JitOptions::disasm`]);
//! - `cross`: the AArch64 targets (the `cross` module, the baseline's
//!   AArch64 back end, Cranelift's arm64 back end).
//! - [`NativeProgram`]: what the runtime needs of a compiled unit of any
//!   native tier, so it can route to each tier through one trait object.
//!
//! [`Tier`] names the native tiers and [`compile`] is the one factory the
//! runtime routes through.

#![warn(missing_docs)]

pub mod abi;
pub mod baseline;
pub mod cranelift;
#[cfg(feature = "cross")]
pub mod cross;
pub mod disasm;
mod entry;
mod helpers;
mod options;
mod program;
mod stack;
mod tables;
mod tier;

pub use entry::{
    call_entry, call_entry_direct, direct_call_supported, EntryLoc, HostEnv, NativeEntry,
    DIRECT_ARGS,
};
pub use options::{CompileError, CompileStats, FuncStats, JitOptions};
pub use program::{code_memory, CodeMemory, CompiledProgram};
pub use tier::{compile, Tier};

use waddle_opt::abi::{Trap, Word};
use waddle_opt::interp::Host;
use waddle_opt::ir::FuncId;

/// A compilation unit of some native tier, loaded in executable memory: what
/// the runtime's code cache needs to run, link, swap and inspect it.
///
/// Every unit has its own entry-slot table ([`NativeProgram::entry_slots`])
/// indexed by the `FuncId`s of the program it was compiled from; functions
/// the unit does not define (declarations) start with a null slot that the
/// runtime fills with [`NativeProgram::set_entry`] before running anything.
pub trait NativeProgram: Send + Sync {
    /// Compile-time statistics of the unit.
    fn stats(&self) -> &CompileStats;

    /// Runs `func` with `args` (one word per parameter) on the calling
    /// thread; traps come back as `Err`, host panics are resumed.
    fn call(&mut self, host: &mut dyn Host, func: FuncId, args: &[Word]) -> Result<Word, Trap>;

    /// Sets the stack budget in bytes for calls entering this unit.
    fn set_stack_budget(&mut self, bytes: usize);

    /// Interns the unit's string constants through `host` (before any of its
    /// code runs, also when it is reached from another unit).
    fn bind_strings(&mut self, host: &mut dyn Host);

    /// The machine code of `func`, `None` if this unit does not define it.
    fn code(&self, func: FuncId) -> Option<&[u8]>;

    /// The address entry slots point to for `func`, `None` if this unit
    /// does not define it: the start of [`NativeProgram::code`], or a
    /// wrapper that calls it (a T2 function whose traps unwind its self
    /// calls is entered through its shell, see `cranelift::unwind`).
    fn entry_address(&self, func: FuncId) -> Option<usize>;

    /// The source name of `func`.
    fn func_name(&self, func: FuncId) -> Option<&str>;

    /// `func`'s entry for calls from Rust through [`call_entry`] (no
    /// lookup, no dynamic call into the unit), `None` when the unit has no
    /// body for it. Valid while the unit is alive.
    fn entry(&self, func: FuncId) -> Option<NativeEntry>;

    /// Address of the unit's entry-slot table.
    fn entry_slots(&self) -> *const usize;

    /// Points `func`'s entry slot at `code`.
    ///
    /// # Safety
    /// `code` must have `func`'s native signature under [`abi`] and stay
    /// executable while this unit may run.
    unsafe fn set_entry(&self, func: FuncId, code: *const u8);

    /// Bytes of machine code the unit holds (functions and trampolines).
    fn code_bytes(&self) -> usize;

    /// The texts of the unit's string constants, in string-table order.
    fn string_texts(&self) -> &[Box<str>];

    /// Runs `func` with `strings` (the host's interned
    /// [`NativeProgram::string_texts`]) as the string table, through a
    /// shared reference, so one unit serves many hosts and threads. Needs
    /// code that loads constants through `VmCtx::strings` (see
    /// [`JitOptions::strings_from_ctx`]); a table shorter than the texts
    /// traps `assertion failed`. `stack_budget` overrides the unit's stack
    /// budget for this call (a per-store limit); `entry` says where a trap
    /// without a recorded location is reported.
    fn call_shared(
        &self,
        host: &mut dyn Host,
        func: FuncId,
        args: &[Word],
        strings: &[Word],
        stack_budget: Option<usize>,
        entry: EntryLoc,
    ) -> Result<Word, Trap>;
}
