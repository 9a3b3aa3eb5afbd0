//! A baseline-compiled program in executable memory and the entry from
//! Rust: the same protocol as [`crate::CompiledProgram`] (trampolines, trap
//! record, fuel batches, stack limit, conservative GC roots), over code
//! owned by an anonymous mapping that is read-write while it is filled and
//! read-execute (never both) before anything runs.

use memmap2::Mmap;
use waddle_opt::ir::FuncId;

use crate::entry::{native_unit_api, FuncInfo, UnitTables};
use crate::options::CompileStats;

/// Baseline (T1) machine code for every function of a program, callable
/// from Rust. Owns its code memory, unmapped when dropped.
pub struct BaselineProgram {
    code: Mmap,
    tables: UnitTables,
}

impl BaselineProgram {
    /// Assembles a program from finished code (called by the generator);
    /// `funcs[i].code` / `.trampoline` are addresses inside `code`.
    pub(crate) fn new(
        code: Mmap,
        funcs: Vec<FuncInfo>,
        texts: Vec<Box<str>>,
        globals_used: usize,
        stats: CompileStats,
    ) -> BaselineProgram {
        let strings = vec![0; texts.len().max(1)].into_boxed_slice();
        BaselineProgram {
            code,
            tables: UnitTables::new(funcs, strings, texts, globals_used, stats),
        }
    }

    /// Bytes of machine code the program holds (functions, trampolines and
    /// out-of-line paths).
    pub fn code_bytes(&self) -> usize {
        self.code.len()
    }

    /// The machine code of `func`, `None` for declarations.
    pub fn code(&self, func: FuncId) -> Option<&[u8]> {
        let info = self.tables.func(func)?;
        if info.code == 0 {
            return None;
        }
        let start = info.code - self.code.as_ptr() as usize;
        self.code.get(start..start + info.code_size)
    }
}

native_unit_api!(BaselineProgram);
