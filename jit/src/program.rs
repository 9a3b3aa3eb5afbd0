//! A compiled program in executable memory and the entry from Rust.
//!
//! Code memory is W^X: cranelift-jit writes code into read-write pages and
//! switches them to read-execute (never both at once) when the unit is
//! finalized, before any of it runs; nothing writes code afterwards (code
//! swapping only stores into the entry-slot table, which is ordinary data).
//! [`code_memory`] counts the code every live unit holds, process-wide.

use std::panic::resume_unwind;
use std::sync::atomic::{AtomicUsize, Ordering};

use cranelift_entity::EntityRef;
use cranelift_jit::JITModule;
use waddle_opt::abi::{Trap, TrapCode, VmCtx, Word, DEFAULT_STACK_BUDGET, FUEL_BATCH};
use waddle_opt::interp::Host;
use waddle_opt::ir::{FuncId, SrcLoc};

use crate::cranelift::CompileStats;
use crate::helpers::HostCell;

/// What the program keeps of each function.
#[derive(Clone, Debug)]
pub(crate) struct FuncInfo {
    /// Source name.
    pub name: String,
    /// Number of parameters.
    pub params: usize,
    /// Declaration location (for traps raised before any code runs).
    pub loc: SrcLoc,
    /// Address of the compiled code, 0 for declarations.
    pub code: usize,
    /// Size of the compiled code in bytes.
    pub code_size: usize,
    /// Address of the entry trampoline, 0 for declarations.
    pub trampoline: usize,
    /// Cranelift's disassembly, when requested.
    pub disasm: Option<String>,
}

/// Process-wide code-memory counters: live units and their code bytes.
static LIVE_UNITS: AtomicUsize = AtomicUsize::new(0);
static LIVE_CODE_BYTES: AtomicUsize = AtomicUsize::new(0);

/// Machine code held by every [`CompiledProgram`] alive in the process.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct CodeMemory {
    /// Live compilation units (each one `JITModule`).
    pub units: usize,
    /// Bytes of machine code (functions and trampolines) they hold.
    pub bytes: usize,
}

/// The current [`CodeMemory`] counters.
pub fn code_memory() -> CodeMemory {
    CodeMemory {
        units: LIVE_UNITS.load(Ordering::Relaxed),
        bytes: LIVE_CODE_BYTES.load(Ordering::Relaxed),
    }
}

/// The signature of every entry trampoline (see [`crate::abi`]).
type Trampoline = unsafe extern "C" fn(*mut VmCtx, *const Word, *mut Word);

/// Machine code for every function of a program, callable from Rust.
///
/// Owns its code memory (one `JITModule`), freed when dropped.
pub struct CompiledProgram {
    module: Option<JITModule>,
    funcs: Vec<FuncInfo>,
    /// The entry-slot table (`VmCtx::entries`); its address never changes.
    entries: Box<[usize]>,
    /// Interned string constants, read by compiled code; address fixed.
    strings: Box<[Word]>,
    /// Their texts.
    texts: Vec<Box<str>>,
    /// Whether `strings` holds interned objects.
    bound: bool,
    /// Number of globals the code uses.
    globals_used: usize,
    stats: CompileStats,
    stack_budget: usize,
    /// Bytes of machine code in `module` (functions and trampolines).
    code_bytes: usize,
}

impl CompiledProgram {
    /// Assembles a compiled program (called by the code generator).
    pub(crate) fn new(
        module: JITModule,
        funcs: Vec<FuncInfo>,
        entries: Box<[usize]>,
        strings: Box<[Word]>,
        texts: Vec<Box<str>>,
        globals_used: usize,
        stats: CompileStats,
    ) -> CompiledProgram {
        LIVE_UNITS.fetch_add(1, Ordering::Relaxed);
        CompiledProgram {
            module: Some(module),
            funcs,
            entries,
            strings,
            texts,
            bound: false,
            globals_used,
            stats,
            stack_budget: DEFAULT_STACK_BUDGET,
            code_bytes: 0,
        }
    }

    /// Records `bytes` more machine code held by this unit (for
    /// [`CompiledProgram::code_bytes`] and [`code_memory`]).
    pub(crate) fn account_code_bytes(&mut self, bytes: usize) {
        self.code_bytes += bytes;
        LIVE_CODE_BYTES.fetch_add(bytes, Ordering::Relaxed);
    }

    /// Bytes of machine code this unit holds (functions and trampolines).
    pub fn code_bytes(&self) -> usize {
        self.code_bytes
    }

    /// Compile-time statistics.
    pub fn stats(&self) -> &CompileStats {
        &self.stats
    }

    /// Sets the stack budget in bytes (default [`DEFAULT_STACK_BUDGET`]).
    /// Where the calling thread's stack is smaller than the budget plus
    /// [`crate::abi::HELPER_STACK_RESERVE`] (known on Linux), the limit is
    /// raised to leave [`crate::abi::MIN_HELPER_STACK`] above the end of the
    /// thread's stack, so compiled code reports `stack overflow` instead of
    /// crashing.
    pub fn set_stack_budget(&mut self, bytes: usize) {
        self.stack_budget = bytes;
    }

    /// Interns the program's string constants through `host`. Done by the
    /// first [`CompiledProgram::call`]; call it again before running the
    /// program with a different host.
    pub fn bind_strings(&mut self, host: &mut dyn Host) {
        for (slot, text) in self.strings.iter_mut().zip(&self.texts) {
            *slot = host.intern_str(text);
        }
        self.bound = true;
    }

    /// The machine code of `func`, `None` for declarations.
    pub fn code(&self, func: FuncId) -> Option<&[u8]> {
        let info = self.funcs.get(func.index())?;
        if info.code == 0 {
            return None;
        }
        // SAFETY: the code is mapped readable (and executable) for as long as
        // `self` lives, and never written after finalization.
        Some(unsafe { std::slice::from_raw_parts(info.code as *const u8, info.code_size) })
    }

    /// Cranelift's disassembly of `func`'s machine code, when compiled with
    /// [`crate::JitOptions::disasm`].
    pub fn disasm(&self, func: FuncId) -> Option<&str> {
        self.funcs.get(func.index())?.disasm.as_deref()
    }

    /// Address of the entry-slot table, for code that calls into or swaps
    /// functions of this program.
    pub fn entry_slots(&self) -> *const usize {
        self.entries.as_ptr()
    }

    /// Points `func`'s entry slot at `code`, so every later call of `func`
    /// (from compiled code and from [`CompiledProgram::call`]) runs it.
    ///
    /// # Safety
    /// `code` must be a function with `func`'s native signature under the
    /// calling convention of [`crate::abi`], and stay executable for as long
    /// as this program may run.
    pub unsafe fn set_entry(&mut self, func: FuncId, code: *const u8) {
        if let Some(slot) = self.entries.get_mut(func.index()) {
            *slot = code as usize;
        }
    }

    /// The name of `func`, if it is part of the program.
    pub fn func_name(&self, func: FuncId) -> Option<&str> {
        self.funcs.get(func.index()).map(|f| f.name.as_str())
    }

    /// Runs `func` with `args` (one word per parameter); returns the result
    /// word (0 for `void`). Mirrors `Interpreter::call`: a function without a
    /// body, a wrong number of arguments or a host with too few globals
    /// traps `assertion failed` at the function's location.
    pub fn call(&mut self, host: &mut dyn Host, func: FuncId, args: &[Word]) -> Result<Word, Trap> {
        let Some(info) = self.funcs.get(func.index()) else {
            return Err(Trap {
                code: TrapCode::AssertionFailed,
                loc: SrcLoc::NONE,
            });
        };
        let loc = info.loc;
        if info.trampoline == 0
            || args.len() != info.params
            || self.globals_used > host.globals().len()
        {
            return Err(Trap {
                code: TrapCode::AssertionFailed,
                loc,
            });
        }
        let tramp = info.trampoline;
        if !self.bound {
            self.bind_strings(host);
        }
        self.enter(host, tramp, args, loc)
    }

    /// Sets up the context and runs the trampoline at `tramp`.
    #[inline(never)]
    fn enter(
        &mut self,
        host: &mut dyn Host,
        tramp: usize,
        args: &[Word],
        loc: SrcLoc,
    ) -> Result<Word, Trap> {
        // The top of the conservatively scanned region: every compiled frame
        // is below this local.
        let base_marker: Word = 0;
        let base = std::hint::black_box(&base_marker) as *const Word as usize;
        let mut stack_limit = base.saturating_sub(self.stack_budget);
        if let Some(low) = crate::stack::thread_stack_low() {
            stack_limit = stack_limit.max(low.saturating_add(crate::abi::MIN_HELPER_STACK));
        }
        let globals = host.globals().as_mut_ptr();
        let mut cell = HostCell { host, panic: None };
        let mut ctx = Box::new(VmCtx {
            globals,
            entries: self.entries.as_ptr(),
            stack_limit,
            stack_base: base,
            fuel: FUEL_BATCH,
            trap_code: 0,
            trap_loc_set: 0,
            trap_file: 0,
            trap_line: 0,
            trap_col: 0,
            reserved: 0,
            host: cell.as_ctx_ptr(),
            helpers: std::ptr::null(),
            strings: self.strings.as_ptr(),
        });
        let mut ret: Word = 0;
        // SAFETY: `tramp` is this program's finalized trampoline for a
        // function whose arity matches `args`; the context, the entry table
        // and the string table outlive the call; compiled code only returns
        // normally (traps are recorded in the context).
        unsafe {
            let f: Trampoline = std::mem::transmute::<usize, Trampoline>(tramp);
            f(&mut *ctx, args.as_ptr(), &mut ret);
        }
        std::hint::black_box(&base_marker);
        if let Some(payload) = cell.panic.take() {
            resume_unwind(payload);
        }
        let result = match ctx.trap_code {
            0 => Ok(ret),
            code => Err(Trap {
                code: TrapCode::from_u32(code).unwrap_or(TrapCode::AssertionFailed),
                loc: if ctx.trap_loc_set != 0 {
                    SrcLoc {
                        file: ctx.trap_file,
                        line: ctx.trap_line,
                        col: ctx.trap_col,
                    }
                } else {
                    loc
                },
            }),
        };
        let pending = FUEL_BATCH - ctx.fuel;
        if pending > 0 {
            if let Err(code) = cell.host.consume_fuel(pending as u64) {
                return result.and(Err(Trap { code, loc }));
            }
        }
        result
    }
}

impl Drop for CompiledProgram {
    fn drop(&mut self) {
        LIVE_UNITS.fetch_sub(1, Ordering::Relaxed);
        LIVE_CODE_BYTES.fetch_sub(self.code_bytes, Ordering::Relaxed);
        if let Some(m) = self.module.take() {
            // SAFETY: no code of this module can run any more: calls borrow
            // `self`, and entry slots pointing here are owned by `self`.
            unsafe { m.free_memory() };
        }
    }
}
