//! A baseline-compiled program in executable memory and the entry from
//! Rust: the same protocol as [`crate::CompiledProgram`] (trampolines, trap
//! record, fuel batches, stack limit, conservative GC roots), over code
//! owned by an anonymous mapping that is read-write while it is filled and
//! read-execute (never both) before anything runs.

use memmap2::Mmap;
use waddle_opt::abi::{Trap, Word};
use waddle_opt::interp::Host;
use waddle_opt::ir::FuncId;

use crate::entry::{FuncInfo, UnitTables};
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

    /// The unit's tables (entry slots, strings, the entry from Rust).
    pub(crate) fn tables(&self) -> &UnitTables {
        &self.tables
    }

    /// Compile-time statistics.
    pub fn stats(&self) -> &CompileStats {
        self.tables.stats()
    }

    /// Sets the stack budget in bytes (default
    /// [`waddle_opt::abi::DEFAULT_STACK_BUDGET`]), clamped to the calling
    /// thread's stack as for [`crate::CompiledProgram::set_stack_budget`].
    pub fn set_stack_budget(&mut self, bytes: usize) {
        self.tables.set_stack_budget(bytes);
    }

    /// Interns the program's string constants through `host`. Done by the
    /// first [`BaselineProgram::call`]; call it again before running the
    /// program with a different host.
    pub fn bind_strings(&mut self, host: &mut dyn Host) {
        self.tables.bind_strings(host);
    }

    /// The texts of the program's string constants, in string-table order
    /// (what a host interns for [`BaselineProgram::call_shared`]).
    pub fn string_texts(&self) -> &[Box<str>] {
        self.tables.texts()
    }

    /// Runs `func` like [`BaselineProgram::call`], but with `strings` (the host's
    /// interned [`BaselineProgram::string_texts`]) as the string table, through a
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
        let start = info.code - self.code.as_ptr() as usize;
        self.code.get(start..start + info.code_size)
    }

    /// Disassembly of `func`'s machine code (iced-x86, Intel syntax), when
    /// compiled with [`crate::JitOptions::disasm`].
    pub fn disasm(&self, func: FuncId) -> Option<&str> {
        self.tables.func(func)?.disasm.as_deref()
    }

    /// Address of the entry-slot table, for code that calls into or swaps
    /// functions of this program.
    pub fn entry_slots(&self) -> *const usize {
        self.tables.entry_slots()
    }

    /// Points `func`'s entry slot at `code`, so every later call of `func`
    /// (from compiled code and from [`BaselineProgram::call`]) runs it.
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
    /// word (0 for `void`), as [`crate::CompiledProgram::call`] does.
    pub fn call(&mut self, host: &mut dyn Host, func: FuncId, args: &[Word]) -> Result<Word, Trap> {
        // `self.code` stays mapped read-execute while `self` lives.
        self.tables.call(host, func, args)
    }
}
