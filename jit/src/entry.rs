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
use waddle_opt::abi::{carry, Trap, TrapCode, VmCtx, Word, DEFAULT_STACK_BUDGET, FUEL_BATCH};
use waddle_opt::interp::Host;
use waddle_opt::ir::{FuncId, SrcLoc};

use crate::helpers::{Helper, HostCell};
use crate::options::CompileStats;

/// Every runtime helper in [`Helper`] order: the layout of
/// `VmCtx::helpers` that position-independent code indexes.
pub(crate) const HELPER_TABLE: [Helper; 16] = [
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
    Helper::TrapFrame,
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
    /// none). An entry nested in another one never gets a lower limit; one
    /// called from another tier (compiled code → interpreter → compiled
    /// code) goes down to the thread's own reserve, since the recursion
    /// depth carried across tiers ([`waddle_opt::abi::carry`]) bounds the
    /// chain as on a single tier.
    static ACTIVE_LIMIT: Cell<usize> = const { Cell::new(0) };
}

/// Where a call into a native unit reports a trap that compiled code raised
/// without recording a location (stack overflow or fuel in the callee's
/// prologue, a bad call from Rust).
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum EntryLoc {
    /// At the callee's declaration: a call from the embedder.
    Callee,
    /// At [`SrcLoc::NONE`], so the calling tier (the interpreter) reports
    /// its own call site: a call from another tier.
    CallSite,
}

/// The host's globals area and string table for one entry (read once per
/// call from Rust).
struct Tables {
    globals: *mut Word,
    strings: *const Word,
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
        self.call_shared(host, func, args, &self.strings, None, EntryLoc::Callee)
    }

    /// [`UnitTables::call`] with `strings` (the host's interned constants, in
    /// [`UnitTables::texts`] order) as the string table instead of the
    /// unit's own: how one unit runs for many hosts. Only for code that
    /// loads its constants through `VmCtx::strings` (baseline, or T2 with
    /// `JitOptions::strings_from_ctx`); too short a table traps `assertion
    /// failed`. `stack_budget` replaces the unit's budget for this call;
    /// `entry` says where traps without a recorded location are reported.
    #[inline]
    pub(crate) fn call_shared(
        &self,
        host: &mut dyn Host,
        func: FuncId,
        args: &[Word],
        strings: &[Word],
        stack_budget: Option<usize>,
        entry: EntryLoc,
    ) -> Result<Word, Trap> {
        let Some(info) = self.funcs.get(func.index()) else {
            return Err(Trap {
                code: TrapCode::AssertionFailed,
                loc: SrcLoc::NONE,
            });
        };
        let loc = match entry {
            EntryLoc::Callee => info.loc,
            EntryLoc::CallSite => SrcLoc::NONE,
        };
        let globals = host.globals();
        if info.trampoline == 0
            || args.len() != info.params
            || self.globals_used > globals.len()
            || strings.len() < self.texts.len()
        {
            return Err(Trap {
                code: TrapCode::AssertionFailed,
                loc,
            });
        }
        let globals = globals.as_mut_ptr();
        let budget = stack_budget.unwrap_or(self.stack_budget);
        let tables = Tables {
            globals,
            strings: strings.as_ptr(),
        };
        self.enter(host, info.trampoline, args, loc, tables, budget)
    }

    /// Sets up the context and runs the trampoline at `tramp`.
    #[inline(never)]
    fn enter(
        &self,
        host: &mut dyn Host,
        tramp: usize,
        args: &[Word],
        loc: SrcLoc,
        tables: Tables,
        budget: usize,
    ) -> Result<Word, Trap> {
        let Tables { globals, strings } = tables;
        // The top of the conservatively scanned region: every compiled frame
        // is below this local.
        let base_marker: Word = 0;
        let base = std::hint::black_box(&base_marker) as *const Word as usize;
        // An entry from another tier goes on with its recursion depth and,
        // for an on-stack replacement, its fuel batch.
        let (carried_depth, carried_fuel) = carry::carry_in();
        // Helpers and the host get MIN_HELPER_STACK, or half of a smaller
        // thread's stack, so small threads still run code.
        let floor = crate::stack::thread_stack_bounds()
            .map(|(low, size)| low.saturating_add(crate::abi::MIN_HELPER_STACK.min(size / 2)));
        let outer_limit = ACTIVE_LIMIT.get();
        let stack_limit = if outer_limit != 0 && carried_depth.is_some() {
            // Nested in another entry and called from another tier: the
            // carried depth counter bounds recursion as on a single tier,
            // and the thread's stack bounds the bytes (tier transitions
            // cost native stack a single tier does not, so the outer
            // entry's byte budget would cut a mixed chain short).
            floor.unwrap_or(outer_limit)
        } else {
            (base.saturating_sub(waddle_opt::abi::stack_byte_limit(budget)))
                .max(floor.unwrap_or(0))
                .max(outer_limit)
        };
        ACTIVE_LIMIT.set(stack_limit);
        let mut cell = HostCell { host, panic: None };
        // On the stack, not boxed: no allocation per call. It may lie inside
        // the conservatively scanned region; its words are not heap objects.
        let mut ctx = VmCtx {
            globals,
            entries: self.entry_slots(),
            stack_limit,
            stack_base: base,
            fuel: carried_fuel.map_or(FUEL_BATCH, |f| i64::from(f).clamp(1, FUEL_BATCH)),
            trap_code: 0,
            trap_loc_set: 0,
            trap_file: 0,
            trap_line: 0,
            trap_col: 0,
            reserved: 0,
            host: cell.as_ctx_ptr(),
            helpers: self.helpers.as_ptr(),
            strings,
            depth_left: carried_depth.unwrap_or_else(|| waddle_opt::abi::max_call_depth(budget)),
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
        if carried_fuel.is_some() {
            // The caller's batch: it charges the rest.
            carry::fuel_back(u32::try_from(ctx.fuel.clamp(1, FUEL_BATCH)).unwrap_or(1));
            return result;
        }
        let pending = FUEL_BATCH - ctx.fuel;
        if pending > 0 && cell.host.fuel_limited() {
            if let Err(code) = cell.host.consume_fuel(pending as u64) {
                return result.and(Err(Trap { code, loc }));
            }
        }
        result
    }
}

/// Gives a native unit type (a struct with a `tables: UnitTables` field
/// and inherent `code` and `code_bytes`, the parts that depend on who owns
/// the code memory) the public methods every native unit shares, and
/// implements [`crate::NativeProgram`] with them: one definition for T1
/// ([`crate::baseline::BaselineProgram`]) and T2 ([`crate::CompiledProgram`]).
macro_rules! native_unit_api {
    ($unit:ident) => {
        impl $unit {
            /// Compile-time statistics.
            pub fn stats(&self) -> &$crate::CompileStats {
                self.tables.stats()
            }

            /// Sets the stack budget in bytes (default
            /// [`waddle_opt::abi::DEFAULT_STACK_BUDGET`]). Where the calling
            /// thread's stack is smaller than the budget plus
            /// [`crate::abi::HELPER_STACK_RESERVE`] (known on Linux), the limit
            /// is raised to leave [`crate::abi::MIN_HELPER_STACK`] (or half of a
            /// smaller thread's stack) above the end of the thread's stack, so
            /// compiled code reports `stack overflow` instead of crashing.
            pub fn set_stack_budget(&mut self, bytes: usize) {
                self.tables.set_stack_budget(bytes);
            }

            #[doc = concat!(
                "Interns the program's string constants through `host`. Done by the\n",
                "first [`", stringify!($unit), "::call`]; call it again before running the\n",
                "program with a different host."
            )]
            pub fn bind_strings(&mut self, host: &mut dyn ::waddle_opt::interp::Host) {
                self.tables.bind_strings(host);
            }

            #[doc = concat!(
                "The texts of the program's string constants, in string-table order\n",
                "(what a host interns for [`crate::NativeProgram::call_shared`])."
            )]
            pub fn string_texts(&self) -> &[Box<str>] {
                self.tables.texts()
            }

            /// Disassembly of `func`'s machine code, when compiled with
            /// [`crate::JitOptions::disasm`].
            pub fn disasm(&self, func: ::waddle_opt::ir::FuncId) -> Option<&str> {
                self.tables.func(func)?.disasm.as_deref()
            }

            /// Address of the entry-slot table, for code that calls into or
            /// swaps functions of this program.
            pub fn entry_slots(&self) -> *const usize {
                self.tables.entry_slots()
            }

            #[doc = concat!(
                "Points `func`'s entry slot at `code`, so every later call of `func`\n",
                "(from compiled code and from [`", stringify!($unit), "::call`]) runs it.\n",
                "\n",
                "# Safety\n",
                "`code` must be a function with `func`'s native signature under the\n",
                "calling convention of [`crate::abi`], and stay executable for as long\n",
                "as this program may run."
            )]
            pub unsafe fn set_entry(&self, func: ::waddle_opt::ir::FuncId, code: *const u8) {
                self.tables.set_entry(func, code);
            }

            /// The name of `func`, if it is part of the program.
            pub fn func_name(&self, func: ::waddle_opt::ir::FuncId) -> Option<&str> {
                self.tables.func(func).map(|f| f.name.as_str())
            }

            /// Runs `func` with `args` (one word per parameter); returns the
            /// result word (0 for `void`). Mirrors `Interpreter::call`: a
            /// function without a body, a wrong number of arguments or a host
            /// with too few globals traps `assertion failed` at the function's
            /// location.
            pub fn call(
                &mut self,
                host: &mut dyn ::waddle_opt::interp::Host,
                func: ::waddle_opt::ir::FuncId,
                args: &[::waddle_opt::abi::Word],
            ) -> Result<::waddle_opt::abi::Word, ::waddle_opt::abi::Trap> {
                // The unit's code stays mapped executable while `self` lives.
                self.tables.call(host, func, args)
            }
        }

        impl $crate::NativeProgram for $unit {
            fn stats(&self) -> &$crate::CompileStats {
                $unit::stats(self)
            }
            fn call(
                &mut self,
                host: &mut dyn ::waddle_opt::interp::Host,
                func: ::waddle_opt::ir::FuncId,
                args: &[::waddle_opt::abi::Word],
            ) -> Result<::waddle_opt::abi::Word, ::waddle_opt::abi::Trap> {
                $unit::call(self, host, func, args)
            }
            fn set_stack_budget(&mut self, bytes: usize) {
                $unit::set_stack_budget(self, bytes)
            }
            fn bind_strings(&mut self, host: &mut dyn ::waddle_opt::interp::Host) {
                $unit::bind_strings(self, host)
            }
            fn code(&self, func: ::waddle_opt::ir::FuncId) -> Option<&[u8]> {
                $unit::code(self, func)
            }
            fn func_name(&self, func: ::waddle_opt::ir::FuncId) -> Option<&str> {
                $unit::func_name(self, func)
            }
            fn entry_slots(&self) -> *const usize {
                $unit::entry_slots(self)
            }
            unsafe fn set_entry(&self, func: ::waddle_opt::ir::FuncId, code: *const u8) {
                // SAFETY: the caller upholds the same contract.
                unsafe { $unit::set_entry(self, func, code) }
            }
            fn code_bytes(&self) -> usize {
                $unit::code_bytes(self)
            }
            fn string_texts(&self) -> &[Box<str>] {
                $unit::string_texts(self)
            }
            fn call_shared(
                &self,
                host: &mut dyn ::waddle_opt::interp::Host,
                func: ::waddle_opt::ir::FuncId,
                args: &[::waddle_opt::abi::Word],
                strings: &[::waddle_opt::abi::Word],
                stack_budget: Option<usize>,
                entry: $crate::EntryLoc,
            ) -> Result<::waddle_opt::abi::Word, ::waddle_opt::abi::Trap> {
                self.tables
                    .call_shared(host, func, args, strings, stack_budget, entry)
            }
        }
    };
}
pub(crate) use native_unit_api;

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
