//! A compiled program in executable memory and the entry from Rust.
//!
//! Code memory is W^X: cranelift-jit writes code into read-write pages and
//! switches them to read-execute (never both at once) when the unit is
//! finalized, before any of it runs; nothing writes code afterwards (code
//! swapping only stores into the entry-slot table, which is ordinary data).
//! [`code_memory`] counts the code every live unit holds, process-wide.

use std::sync::atomic::{AtomicUsize, Ordering};

use cranelift_jit::JITModule;
use waddle_opt::abi::{Trap, Word};
use waddle_opt::interp::Host;
use waddle_opt::ir::FuncId;

use crate::entry::{FuncInfo, UnitTables};
use crate::options::CompileStats;

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

/// Machine code for every function of a program, callable from Rust.
///
/// Owns its code memory (one `JITModule`), freed when dropped.
pub struct CompiledProgram {
    module: Option<JITModule>,
    tables: UnitTables,
    /// Bytes of machine code in `module` (functions and trampolines).
    code_bytes: usize,
}

impl CompiledProgram {
    /// Assembles a compiled program (called by the code generator);
    /// `strings` is the string table whose address the code embeds.
    pub(crate) fn new(
        module: JITModule,
        funcs: Vec<FuncInfo>,
        strings: Box<[Word]>,
        texts: Vec<Box<str>>,
        globals_used: usize,
        stats: CompileStats,
    ) -> CompiledProgram {
        LIVE_UNITS.fetch_add(1, Ordering::Relaxed);
        CompiledProgram {
            module: Some(module),
            tables: UnitTables::new(funcs, strings, texts, globals_used, stats),
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

    /// The unit's tables (entry slots, strings, the entry from Rust).
    pub(crate) fn tables(&self) -> &UnitTables {
        &self.tables
    }

    /// Compile-time statistics.
    pub fn stats(&self) -> &CompileStats {
        self.tables.stats()
    }

    /// Sets the stack budget in bytes (default
    /// [`waddle_opt::abi::DEFAULT_STACK_BUDGET`]). Where the calling thread's
    /// stack is smaller than the budget plus
    /// [`crate::abi::HELPER_STACK_RESERVE`] (known on Linux), the limit is
    /// raised to leave [`crate::abi::MIN_HELPER_STACK`] (or half of a
    /// smaller thread's stack) above the end of the thread's stack, so
    /// compiled code reports `stack overflow` instead of crashing.
    pub fn set_stack_budget(&mut self, bytes: usize) {
        self.tables.set_stack_budget(bytes);
    }

    /// Interns the program's string constants through `host`. Done by the
    /// first [`CompiledProgram::call`]; call it again before running the
    /// program with a different host.
    pub fn bind_strings(&mut self, host: &mut dyn Host) {
        self.tables.bind_strings(host);
    }

    /// The texts of the program's string constants, in string-table order
    /// (what a host interns for [`CompiledProgram::call_shared`]).
    pub fn string_texts(&self) -> &[Box<str>] {
        self.tables.texts()
    }

    /// Runs `func` like [`CompiledProgram::call`], but with `strings` (the host's
    /// interned [`CompiledProgram::string_texts`]) as the string table, through a
    /// shared reference: one program serves any number of hosts and
    /// threads at once. Needs code that loads constants through
    /// `VmCtx::strings` (see [`crate::JitOptions::strings_from_ctx`]);
    /// a table shorter than the texts traps `assertion failed`.
    /// `stack_budget` overrides the program's stack budget for this call
    /// (a per-store limit).
    pub fn call_shared(
        &self,
        host: &mut dyn Host,
        func: FuncId,
        args: &[Word],
        strings: &[Word],
        stack_budget: Option<usize>,
    ) -> Result<Word, Trap> {
        self.tables
            .call_shared(host, func, args, strings, stack_budget)
    }

    /// The machine code of `func`, `None` for declarations.
    pub fn code(&self, func: FuncId) -> Option<&[u8]> {
        let info = self.tables.func(func)?;
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
        self.tables.func(func)?.disasm.as_deref()
    }

    /// Address of the entry-slot table, for code that calls into or swaps
    /// functions of this program.
    pub fn entry_slots(&self) -> *const usize {
        self.tables.entry_slots()
    }

    /// Points `func`'s entry slot at `code`, so every later call of `func`
    /// (from compiled code and from [`CompiledProgram::call`]) runs it.
    ///
    /// # Safety
    /// `code` must be a function with `func`'s native signature under the
    /// calling convention of [`crate::abi`], and stay executable for as long
    /// as this program may run.
    pub unsafe fn set_entry(&self, func: FuncId, code: *const u8) {
        self.tables.set_entry(func, code);
    }

    /// The name of `func`, if it is part of the program.
    pub fn func_name(&self, func: FuncId) -> Option<&str> {
        self.tables.func(func).map(|f| f.name.as_str())
    }

    /// Runs `func` with `args` (one word per parameter); returns the result
    /// word (0 for `void`). Mirrors `Interpreter::call`: a function without a
    /// body, a wrong number of arguments or a host with too few globals
    /// traps `assertion failed` at the function's location.
    pub fn call(&mut self, host: &mut dyn Host, func: FuncId, args: &[Word]) -> Result<Word, Trap> {
        // The module stays finalized (executable) while `self` lives.
        self.tables.call(host, func, args)
    }
}

// SAFETY: `JITModule` is `Send` but not `Sync` (it holds `RefCell`s and raw
// pointers for definitions in progress). A `CompiledProgram` never touches
// its module through `&self`: the module is finalized before the program is
// built and only freed in `Drop` (`&mut self`). Everything `&self` methods
// reach is immutable data (the tables, read-only; code pages mapped
// read-execute), and running the code through `call_shared` writes only
// the caller's own context. So sharing `&CompiledProgram` between threads
// is sound.
unsafe impl Sync for CompiledProgram {}

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
