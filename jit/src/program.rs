//! A compiled program in executable memory and the entry from Rust.
//!
//! Code memory is W^X: cranelift-jit writes code into read-write pages and
//! switches them to read-execute (never both at once) when the unit is
//! finalized, before any of it runs; nothing writes code afterwards (code
//! swapping only stores into the entry-slot table, which is ordinary data).
//! [`code_memory`] counts the code every live unit holds, process-wide.

use std::sync::atomic::{AtomicUsize, Ordering};

use cranelift_jit::JITModule;
use waddle_opt::abi::Word;
use waddle_opt::ir::FuncId;

use crate::entry::{native_unit_api, FuncInfo, UnitTables};
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
    /// The tiering counters the code decrements (two per function: calls,
    /// back edges), when compiled with `JitOptions::tier_counters`; their
    /// address is in the code, so they live as long as the module.
    _counters: Box<[std::sync::atomic::AtomicI64]>,
    /// The unwinding tables of the self-recursive functions
    /// (`cranelift::unwind`); their addresses are in the code.
    _unwind: Box<[Box<crate::cranelift::unwind::UnwindTable>]>,
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
        counters: Box<[std::sync::atomic::AtomicI64]>,
    ) -> CompiledProgram {
        LIVE_UNITS.fetch_add(1, Ordering::Relaxed);
        CompiledProgram {
            module: Some(module),
            tables: UnitTables::new(funcs, strings, texts, globals_used, stats),
            code_bytes: 0,
            _counters: counters,
            _unwind: Box::default(),
        }
    }

    /// Keeps the unwinding tables whose addresses the code embeds for as
    /// long as the code lives.
    pub(crate) fn keep_unwind_tables(
        &mut self,
        tables: Box<[Box<crate::cranelift::unwind::UnwindTable>]>,
    ) {
        self._unwind = tables;
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
}

native_unit_api!(CompiledProgram);

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
