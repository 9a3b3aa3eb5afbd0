//! What every native tier's compiled unit keeps besides its code memory,
//! and the entry from Rust into that code: per-function records, the
//! entry-slot, string-constant and helper tables a `VmCtx` points at, and
//! [`UnitTables::call`], which sets up the context, runs a trampoline and
//! turns the trap record, pending fuel and carried host panics into the
//! interpreter's results. T2 ([`crate::CompiledProgram`]) and T1
//! ([`crate::baseline::BaselineProgram`]) differ only in who owns the code.

use std::cell::Cell;
use std::panic::resume_unwind;
use std::sync::atomic::{AtomicUsize, Ordering};

use cranelift_entity::EntityRef;
use waddle_opt::abi::{Trap, TrapCode, VmCtx, Word, DEFAULT_STACK_BUDGET, FUEL_BATCH};
use waddle_opt::interp::Host;
use waddle_opt::ir::{FuncId, SrcLoc};

use crate::helpers::{Helper, HostCell};
use crate::options::CompileStats;

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

/// What a unit keeps of each function.
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
    /// Disassembly, when requested.
    pub disasm: Option<String>,
}

thread_local! {
    /// The stack limit of the innermost entry running on this thread (0:
    /// none). An entry nested in another one (compiled code → interpreter
    /// → compiled code) keeps the outer limit, so the stack budget bounds
    /// the whole chain, not each entry.
    static ACTIVE_LIMIT: Cell<usize> = const { Cell::new(0) };
}

/// The signature of every entry trampoline (see [`crate::abi`]).
type Trampoline = unsafe extern "C" fn(*mut VmCtx, *const Word, *mut Word);

/// The tables and records of one compiled unit (see the module docs).
pub(crate) struct UnitTables {
    funcs: Vec<FuncInfo>,
    /// The entry-slot table (`VmCtx::entries`); its address never changes.
    /// Atomic so slots can be swapped through a shared reference while
    /// other code of the unit is suspended on the stack (compiled code
    /// reads them as plain words: same size and layout).
    entries: Box<[AtomicUsize]>,
    /// Interned string constants (`VmCtx::strings`); address fixed, since
    /// T2 code embeds it.
    strings: Box<[Word]>,
    /// Their texts.
    texts: Vec<Box<str>>,
    /// Helper addresses (`VmCtx::helpers`), in [`HELPER_TABLE`] order.
    helpers: Box<[usize]>,
    /// Whether `strings` holds interned objects.
    bound: bool,
    /// Number of globals the code uses.
    globals_used: usize,
    stats: CompileStats,
    stack_budget: usize,
}

impl UnitTables {
    /// Tables for `funcs`; every entry slot starts at the function's own
    /// code (0 for declarations). `strings` has one slot per text (at least
    /// one), allocated before code generation when the code embeds its address.
    pub(crate) fn new(
        funcs: Vec<FuncInfo>,
        strings: Box<[Word]>,
        texts: Vec<Box<str>>,
        globals_used: usize,
        stats: CompileStats,
    ) -> UnitTables {
        UnitTables {
            entries: funcs.iter().map(|f| AtomicUsize::new(f.code)).collect(),
            funcs,
            strings,
            texts,
            helpers: HELPER_TABLE.iter().map(|h| h.addr()).collect(),
            bound: false,
            globals_used,
            stats,
            stack_budget: DEFAULT_STACK_BUDGET,
        }
    }

    /// Compile-time statistics.
    pub(crate) fn stats(&self) -> &CompileStats {
        &self.stats
    }

    /// Sets the stack budget in bytes.
    pub(crate) fn set_stack_budget(&mut self, bytes: usize) {
        self.stack_budget = bytes;
    }

    /// Interns the string constants through `host`.
    pub(crate) fn bind_strings(&mut self, host: &mut dyn Host) {
        for (slot, text) in self.strings.iter_mut().zip(&self.texts) {
            *slot = host.intern_str(text);
        }
        self.bound = true;
    }

    /// The record of `func`.
    pub(crate) fn func(&self, func: FuncId) -> Option<&FuncInfo> {
        self.funcs.get(func.index())
    }

    /// Address of the entry-slot table.
    pub(crate) fn entry_slots(&self) -> *const usize {
        self.entries.as_ptr().cast()
    }

    /// Points `func`'s entry slot at `code` (see the owners' `set_entry`).
    pub(crate) fn set_entry(&self, func: FuncId, code: *const u8) {
        if let Some(slot) = self.entries.get(func.index()) {
            slot.store(code as usize, Ordering::Release);
        }
    }

    /// The texts of the unit's string constants, in `VmCtx::strings` order.
    pub(crate) fn texts(&self) -> &[Box<str>] {
        &self.texts
    }

    /// Runs `func` with `args` (one word per parameter); returns the result
    /// word (0 for `void`). Mirrors `Interpreter::call`: a function without a
    /// body, a wrong number of arguments or a host with too few globals
    /// traps `assertion failed` at the function's location.
    ///
    /// The caller must keep the unit's code mapped executable for the call.
    pub(crate) fn call(
        &mut self,
        host: &mut dyn Host,
        func: FuncId,
        args: &[Word],
    ) -> Result<Word, Trap> {
        if !self.bound {
            self.bind_strings(host);
        }
        let strings = self.strings.as_ptr();
        let budget = self.stack_budget;
        self.checked_enter(
            host,
            func,
            args,
            (strings, self.strings.len()),
            None,
            budget,
        )
    }

    /// [`UnitTables::call`] with `strings` (the host's interned constants, in
    /// [`UnitTables::texts`] order) as the string table instead of the
    /// unit's own: how one unit runs for many hosts. Only for code that
    /// loads its constants through `VmCtx::strings` (baseline, or T2 with
    /// `JitOptions::strings_from_ctx`); too short a table traps `assertion
    /// failed`. `stack_budget` replaces the unit's budget for this call.
    #[inline]
    pub(crate) fn call_shared(
        &self,
        host: &mut dyn Host,
        func: FuncId,
        args: &[Word],
        strings: &[Word],
        stack_budget: Option<usize>,
    ) -> Result<Word, Trap> {
        let budget = stack_budget.unwrap_or(self.stack_budget);
        let n = strings.len();
        self.checked_enter(host, func, args, (strings.as_ptr(), n), None, budget)
    }

    /// [`UnitTables::call_shared`] for a call from another tier: traps
    /// compiled code raised without recording a location (stack overflow
    /// or fuel in the callee's prologue) come back at `SrcLoc::NONE`, so
    /// the calling tier reports its call site.
    pub(crate) fn call_nested(
        &self,
        host: &mut dyn Host,
        func: FuncId,
        args: &[Word],
        strings: &[Word],
        stack_budget: Option<usize>,
    ) -> Result<Word, Trap> {
        let budget = stack_budget.unwrap_or(self.stack_budget);
        let n = strings.len();
        self.checked_enter(
            host,
            func,
            args,
            (strings.as_ptr(), n),
            Some(SrcLoc::NONE),
            budget,
        )
    }

    #[inline]
    fn checked_enter(
        &self,
        host: &mut dyn Host,
        func: FuncId,
        args: &[Word],
        (strings, n_strings): (*const Word, usize),
        entry_loc: Option<SrcLoc>,
        budget: usize,
    ) -> Result<Word, Trap> {
        let Some(info) = self.funcs.get(func.index()) else {
            return Err(Trap {
                code: TrapCode::AssertionFailed,
                loc: SrcLoc::NONE,
            });
        };
        let loc = entry_loc.unwrap_or(info.loc);
        if info.trampoline == 0
            || args.len() != info.params
            || self.globals_used > host.globals().len()
            || n_strings < self.texts.len()
        {
            return Err(Trap {
                code: TrapCode::AssertionFailed,
                loc,
            });
        }
        self.enter(host, info.trampoline, args, loc, strings, budget)
    }

    /// Sets up the context and runs the trampoline at `tramp`.
    #[inline(never)]
    fn enter(
        &self,
        host: &mut dyn Host,
        tramp: usize,
        args: &[Word],
        loc: SrcLoc,
        strings: *const Word,
        budget: usize,
    ) -> Result<Word, Trap> {
        // The top of the conservatively scanned region: every compiled frame
        // is below this local.
        let base_marker: Word = 0;
        let base = std::hint::black_box(&base_marker) as *const Word as usize;
        let mut stack_limit = base.saturating_sub(budget);
        if let Some((low, size)) = crate::stack::thread_stack_bounds() {
            // Helpers and the host get MIN_HELPER_STACK, or half of a
            // smaller thread's stack, so small threads still run code.
            let reserve = crate::abi::MIN_HELPER_STACK.min(size / 2);
            stack_limit = stack_limit.max(low.saturating_add(reserve));
        }
        let outer_limit = ACTIVE_LIMIT.get();
        stack_limit = stack_limit.max(outer_limit);
        ACTIVE_LIMIT.set(stack_limit);
        let globals = host.globals().as_mut_ptr();
        let mut cell = HostCell { host, panic: None };
        // On the stack, not boxed: no allocation per call. It may lie inside
        // the conservatively scanned region; its words are not heap objects.
        let mut ctx = VmCtx {
            globals,
            entries: self.entry_slots(),
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
            helpers: self.helpers.as_ptr(),
            strings,
            depth_left: waddle_opt::abi::max_call_depth(budget),
            caller_sp: 0,
        };
        let mut ret: Word = 0;
        // SAFETY: `tramp` is this unit's trampoline for a function whose
        // arity matches `args`, in code the owner keeps executable; the
        // context and the entry, string and helper tables outlive the call;
        // compiled code only returns normally (traps are recorded in the
        // context).
        unsafe {
            let f: Trampoline = std::mem::transmute::<usize, Trampoline>(tramp);
            f(&mut ctx, args.as_ptr(), &mut ret);
        }
        std::hint::black_box(&base_marker);
        ACTIVE_LIMIT.set(outer_limit);
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
