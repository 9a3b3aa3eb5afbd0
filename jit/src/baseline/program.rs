//! A baseline-compiled program in executable memory and the entry from
//! Rust: the same protocol as [`crate::CompiledProgram`] (trampolines, trap
//! record, fuel batches, stack limit, conservative GC roots), over code
//! owned by an anonymous mapping that is read-write while it is filled and
//! read-execute (never both) before anything runs.

use std::panic::resume_unwind;

use cranelift_entity::EntityRef;
use memmap2::Mmap;
use waddle_opt::abi::{Trap, TrapCode, VmCtx, Word, DEFAULT_STACK_BUDGET, FUEL_BATCH};
use waddle_opt::interp::Host;
use waddle_opt::ir::{FuncId, SrcLoc};

use crate::cranelift::CompileStats;
use crate::helpers::{Helper, HostCell};
use crate::program::FuncInfo;

/// Every runtime helper in [`Helper`] order: the layout of
/// `VmCtx::helpers` that position-independent code indexes.
pub(crate) const HELPER_TABLE: [Helper; 15] = [
    Helper::ArrayNew,
    Helper::ArrayRepeat,
    Helper::ArrayPush,
    Helper::StrConcat,
    Helper::ToStr,
    Helper::Print,
    Helper::Clock,
    Helper::Fuel,
    Helper::StrCmp,
    Helper::Sin,
    Helper::Cos,
    Helper::Tan,
    Helper::Exp,
    Helper::Log,
    Helper::Fmod,
];

/// The signature of every entry trampoline (see [`crate::abi`]).
type Trampoline = unsafe extern "C" fn(*mut VmCtx, *const Word, *mut Word);

/// Baseline (T1) machine code for every function of a program, callable
/// from Rust. Owns its code memory, unmapped when dropped.
pub struct BaselineProgram {
    code: Mmap,
    funcs: Vec<FuncInfo>,
    /// The entry-slot table (`VmCtx::entries`); its address never changes.
    entries: Box<[usize]>,
    /// Interned string constants (`VmCtx::strings`); address fixed.
    strings: Box<[Word]>,
    texts: Vec<Box<str>>,
    /// Helper addresses (`VmCtx::helpers`).
    helpers: Box<[usize]>,
    bound: bool,
    globals_used: usize,
    stats: CompileStats,
    stack_budget: usize,
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
        let entries = funcs.iter().map(|f| f.code).collect();
        BaselineProgram {
            code,
            funcs,
            entries,
            strings: vec![0; texts.len().max(1)].into_boxed_slice(),
            texts,
            helpers: HELPER_TABLE.iter().map(|h| h.addr()).collect(),
            bound: false,
            globals_used,
            stats,
            stack_budget: DEFAULT_STACK_BUDGET,
        }
    }

    /// Bytes of machine code the program holds (functions, trampolines and
    /// out-of-line paths).
    pub fn code_bytes(&self) -> usize {
        self.code.len()
    }

    /// Compile-time statistics.
    pub fn stats(&self) -> &CompileStats {
        &self.stats
    }

    /// Sets the stack budget in bytes (default [`DEFAULT_STACK_BUDGET`]).
    /// The thread calling [`BaselineProgram::call`] needs that much native
    /// stack plus [`crate::abi::HELPER_STACK_RESERVE`].
    pub fn set_stack_budget(&mut self, bytes: usize) {
        self.stack_budget = bytes;
    }

    /// Interns the program's string constants through `host`. Done by the
    /// first [`BaselineProgram::call`]; call it again before running the
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
        let start = info.code - self.code.as_ptr() as usize;
        self.code.get(start..start + info.code_size)
    }

    /// Disassembly of `func`'s machine code (iced-x86, Intel syntax), when
    /// compiled with [`crate::JitOptions::disasm`].
    pub fn disasm(&self, func: FuncId) -> Option<&str> {
        self.funcs.get(func.index())?.disasm.as_deref()
    }

    /// Address of the entry-slot table, for code that calls into or swaps
    /// functions of this program.
    pub fn entry_slots(&self) -> *const usize {
        self.entries.as_ptr()
    }

    /// Points `func`'s entry slot at `code`, so every later call of `func`
    /// (from compiled code and from [`BaselineProgram::call`]) runs it.
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
        let globals = host.globals().as_mut_ptr();
        let mut cell = HostCell { host, panic: None };
        let mut ctx = Box::new(VmCtx {
            globals,
            entries: self.entries.as_ptr(),
            stack_limit: base.saturating_sub(self.stack_budget),
            stack_base: base,
            fuel: FUEL_BATCH,
            trap_code: 0,
            trap_loc_set: 0,
            trap_file: 0,
            trap_line: 0,
            trap_col: 0,
            reserved: 0,
            host: cell.as_ctx_ptr(),
            helpers: self.helpers.as_ptr(),
            strings: self.strings.as_ptr(),
        });
        let mut ret: Word = 0;
        // SAFETY: `tramp` is this program's trampoline for a function whose
        // arity matches `args`; the context and the entry, string and helper
        // tables outlive the call; compiled code only returns normally
        // (traps are recorded in the context).
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn helper_table_is_in_enum_order() {
        for (i, h) in HELPER_TABLE.iter().enumerate() {
            assert_eq!(*h as usize, i, "{h:?}");
        }
    }
}
