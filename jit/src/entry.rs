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
pub(crate) const HELPER_TABLE: [Helper; 17] = [
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
    Helper::HostCall,
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
    /// Address entry slots point to: `code`, or the shell of a T2 function
    /// whose traps unwind its self calls (`cranelift::unwind`).
    pub entry: usize,
    /// Size of the compiled code in bytes.
    pub code_size: usize,
    /// Address of the entry trampoline, 0 for declarations.
    pub trampoline: usize,
    /// Disassembly, when requested.
    pub disasm: Option<String>,
}

/// What an entry needs to know of its thread, in one thread-local so an
/// entry reaches it with one access (without LTO each access of a
/// thread-local is an indirect call).
struct ThreadEntry {
    /// The stack limit of the innermost entry running on this thread (0:
    /// none). An entry nested in another one never gets a lower limit; one
    /// called from another tier (compiled code → interpreter → compiled
    /// code) goes down to the thread's own reserve, since the recursion
    /// depth carried across tiers ([`waddle_opt::abi::carry`]) bounds the
    /// chain as on a single tier.
    limit: Cell<usize>,
    /// The lowest address compiled code may use on this thread's stack,
    /// leaving helpers and the host their reserve (`Some(None)`: not
    /// known; `None`: not asked yet).
    floor: Cell<Option<Option<usize>>>,
}

impl ThreadEntry {
    /// The floor ([`ThreadEntry::floor`]), asked of the thread once.
    #[inline]
    fn floor(&self) -> Option<usize> {
        match self.floor.get() {
            Some(floor) => floor,
            None => {
                // Helpers and the host get MIN_HELPER_STACK, or half of a
                // smaller thread's stack, so small threads still run code.
                let floor = crate::stack::thread_stack_bounds().map(|(low, size)| {
                    low.saturating_add(crate::abi::MIN_HELPER_STACK.min(size / 2))
                });
                self.floor.set(Some(floor));
                floor
            }
        }
    }
}

thread_local! {
    static THREAD_ENTRY: ThreadEntry = const {
        ThreadEntry {
            limit: Cell::new(0),
            floor: Cell::new(None),
        }
    };
}

/// This thread's [`ThreadEntry`].
#[inline]
fn thread_entry() -> &'static ThreadEntry {
    let t: *const ThreadEntry = THREAD_ENTRY.with(|t| t as *const ThreadEntry);
    // SAFETY: a thread-local without destructor lives as long as its
    // thread, and the reference is used only by the entry that asked for
    // it, which runs and returns on this thread (it is neither stored nor
    // sent elsewhere).
    unsafe { &*t }
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
            entries: funcs.iter().map(|f| AtomicUsize::new(f.entry)).collect(),
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

    /// `func`'s entry for calls from Rust ([`NativeEntry`]), `None` when
    /// the unit has no body for it.
    pub(crate) fn entry(&self, func: FuncId) -> Option<NativeEntry> {
        let info = self.funcs.get(func.index())?;
        (info.trampoline != 0).then(|| NativeEntry {
            tramp: info.trampoline,
            index: func.index(),
            params: info.params,
            loc: info.loc,
            entries: self.entry_slots(),
            helpers: self.helpers.as_ptr(),
            globals_used: self.globals_used,
            texts: self.texts.len(),
            stack_budget: self.stack_budget,
        })
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
        let loc = |info: &FuncInfo| match entry {
            EntryLoc::Callee => info.loc,
            EntryLoc::CallSite => SrcLoc::NONE,
        };
        let Some(native) = self.entry(func) else {
            let loc = self.funcs.get(func.index()).map_or(SrcLoc::NONE, loc);
            return Err(Trap {
                code: TrapCode::AssertionFailed,
                loc,
            });
        };
        let globals = host.globals();
        let env = HostEnv {
            globals: globals.as_mut_ptr(),
            globals_len: globals.len(),
            strings: strings.as_ptr(),
            strings_len: strings.len(),
            fuel_limited: host.fuel_limited(),
            stack_budget,
        };
        let loc = self.funcs.get(func.index()).map_or(SrcLoc::NONE, loc);
        if args.len() != native.params {
            return Err(Trap {
                code: TrapCode::AssertionFailed,
                loc,
            });
        }
        // SAFETY: `native` is this unit's, which `self` keeps alive and
        // executable for the call; `env` describes the host's globals and
        // the caller's string table, both live for the call; the arity
        // was checked for the trampoline.
        unsafe {
            enter::<true>(&native, loc, host, &env, |ctx| {
                trampoline(native.tramp, ctx, args)
            })
        }
    }
}

/// One compiled function as a call from Rust needs it: its trampoline and
/// the unit's tables, read once ([`crate::NativeProgram::entry`]) and kept
/// by the caller (a typed function handle), so a call goes to the
/// trampoline without a lookup or a dynamic call into the unit. Valid
/// while the unit it came from is alive (see [`call_entry`]).
#[derive(Copy, Clone, Debug)]
pub struct NativeEntry {
    tramp: usize,
    /// The function's entry slot in `entries`.
    index: usize,
    params: usize,
    loc: SrcLoc,
    entries: *const usize,
    helpers: *const usize,
    globals_used: usize,
    texts: usize,
    stack_budget: usize,
}

// SAFETY: the pointers are addresses of the unit's immutable helper table
// and of its entry-slot table (atomics), read only by `call_entry`, whose
// caller keeps the unit alive; sharing them between threads is what
// `NativeProgram: Send + Sync` already allows.
unsafe impl Send for NativeEntry {}
// SAFETY: as for `Send`: nothing is written through the pointers.
unsafe impl Sync for NativeEntry {}

impl NativeEntry {
    /// The number of parameters of the function.
    pub fn params(&self) -> usize {
        self.params
    }
}

/// The host's side of one entry into compiled code: its globals area, its
/// interned copies of the unit's string constants, whether it has a fuel
/// budget, and the stack budget of the call (`None`: the unit's).
#[derive(Copy, Clone, Debug)]
pub struct HostEnv {
    /// The host's globals area (`Host::globals`).
    pub globals: *mut Word,
    /// Its length in words.
    pub globals_len: usize,
    /// The host's string table for the unit (`VmCtx::strings`).
    pub strings: *const Word,
    /// Its length in words.
    pub strings_len: usize,
    /// `Host::fuel_limited`: whether fuel left in the batch is paid after
    /// the call.
    pub fuel_limited: bool,
    /// The stack budget in bytes; `None` for the unit's.
    pub stack_budget: Option<usize>,
}

/// Runs the function of `entry` with `args` for `host`, like
/// [`crate::NativeProgram::call_shared`] with [`EntryLoc::Callee`] but
/// without finding the function in its unit: a wrong number of arguments,
/// too few globals or too short a string table traps `assertion failed` at
/// the function's declaration. For calls from Rust only (not from another
/// tier's code, whose recursion depth would have to carry over).
///
/// # Safety
/// The unit `entry` came from must stay alive (code mapped executable,
/// tables in place) for the call; `env.globals` must be `host`'s globals
/// area and `env.strings` the host's interned copies of the unit's string
/// constants, with the lengths given, valid for the call.
#[inline]
pub unsafe fn call_entry(
    entry: &NativeEntry,
    host: &mut dyn Host,
    env: &HostEnv,
    args: &[Word],
) -> Result<Word, Trap> {
    if args.len() != entry.params {
        return Err(Trap {
            code: TrapCode::AssertionFailed,
            loc: entry.loc,
        });
    }
    // SAFETY: forwarded from the caller; the arity was checked for the
    // trampoline.
    unsafe {
        enter::<false>(entry, entry.loc, host, env, |ctx| {
            trampoline(entry.tramp, ctx, args)
        })
    }
}

/// Most parameters [`call_entry_direct`] passes: the integer argument
/// registers left after the context pointer on x86-64 System V (AArch64
/// has seven).
pub const DIRECT_ARGS: usize = 5;

/// Whether [`call_entry_direct`] can call a function with parameters
/// `params`: none is a `float` (they travel in other registers) and there
/// are at most [`DIRECT_ARGS`], on a target whose C calling convention
/// assigns integer and floating-point argument registers independently in
/// order (x86-64 System V, AArch64), as the code's convention does.
pub fn direct_call_supported(params: &[waddle_opt::ir::Type]) -> bool {
    cfg!(any(
        all(target_arch = "x86_64", not(windows)),
        target_arch = "aarch64"
    )) && params.len() <= DIRECT_ARGS
        && !params.contains(&waddle_opt::ir::Type::Float)
}

/// [`call_entry`] without the trampoline: calls the function's current
/// code (its entry slot) directly under the calling convention of
/// [`crate::abi`], with `args` (one word per parameter, zeros after the
/// last) in the integer argument registers; a `float` result is read from
/// the floating-point result register (`float_result`), anything else from
/// the integer one (a `bool` in its low byte: mask it).
///
/// # Safety
/// As for [`call_entry`]; besides, the function's parameters must pass
/// [`direct_call_supported`] and `n_args` be their number.
#[inline]
pub unsafe fn call_entry_direct(
    entry: &NativeEntry,
    host: &mut dyn Host,
    env: &HostEnv,
    args: &[Word; DIRECT_ARGS],
    n_args: usize,
    float_result: bool,
) -> Result<Word, Trap> {
    if n_args != entry.params {
        return Err(Trap {
            code: TrapCode::AssertionFailed,
            loc: entry.loc,
        });
    }
    // SAFETY: the entry slot table has one slot per function of the unit,
    // alive while the unit is (the caller's promise).
    let code =
        unsafe { &*(entry.entries as *const AtomicUsize).add(entry.index) }.load(Ordering::Acquire);
    let [a, b, c, d, e] = *args;
    // SAFETY: forwarded from the caller. `code` is the function's current
    // code, with the convention of `crate::abi`: the context, then the
    // integer-class parameters in order in the integer argument registers
    // (the extra words land in registers the function does not read; no
    // argument goes on the stack), the result in the integer or the
    // floating-point result register.
    unsafe {
        enter::<false>(entry, entry.loc, host, env, |ctx| {
            let code = through_shim(ctx, code);
            if float_result {
                let f: DirectFloat = std::mem::transmute::<usize, DirectFloat>(code);
                f(ctx, a, b, c, d, e).to_bits()
            } else {
                let f: DirectWord = std::mem::transmute::<usize, DirectWord>(code);
                f(ctx, a, b, c, d, e)
            }
        })
    }
}

/// A function of up to [`DIRECT_ARGS`] integer-class parameters with an
/// integer-class result, called directly.
type DirectWord = unsafe extern "C" fn(*mut VmCtx, Word, Word, Word, Word, Word) -> Word;

/// The same with a `float` result.
type DirectFloat = unsafe extern "C" fn(*mut VmCtx, Word, Word, Word, Word, Word) -> f64;

/// Runs the trampoline at `tramp` with `args`, returning the result word.
///
/// # Safety
/// `tramp` must be a unit's trampoline for a function of `args.len()`
/// parameters, whose code stays executable, and `ctx` a context set up for
/// that unit.
#[inline]
unsafe fn trampoline(tramp: usize, ctx: *mut VmCtx, args: &[Word]) -> Word {
    let mut ret: Word = 0;
    // SAFETY: the caller's promise; the trampoline reads `args.len()`
    // words and writes one.
    unsafe {
        let f: Trampoline = std::mem::transmute::<usize, Trampoline>(through_shim(ctx, tramp));
        f(ctx, args.as_ptr(), &mut ret);
    }
    ret
}

/// Records the stack pointer in [`VmCtx::stack_base`] and jumps to
/// [`VmCtx::entry_code`] with every register untouched. Rust calls it in
/// place of compiled code (any signature whose first argument is the
/// context, see [`through_shim`]), so the conservatively scanned region
/// ends at the return address into Rust: the entering Rust frames' words
/// (stale values of whatever ran at that depth before, e.g. addresses of
/// freed objects the allocator hands out again) are never roots, and where
/// a run stops under a memory limit does not depend on how rustc laid out
/// those frames.
#[cfg(target_arch = "x86_64")]
#[unsafe(naked)]
unsafe extern "C" fn entry_shim() {
    // The context pointer is the first argument (rdi).
    core::arch::naked_asm!(
        "mov qword ptr [rdi + {base}], rsp",
        "jmp qword ptr [rdi + {code}]",
        base = const waddle_opt::abi::VMCTX_STACK_BASE_OFFSET,
        code = const waddle_opt::abi::VMCTX_ENTRY_CODE_OFFSET,
    )
}

/// The AArch64 form of the shim (the return address is in `x30`, so the
/// region starts at the caller's stack pointer).
#[cfg(target_arch = "aarch64")]
#[unsafe(naked)]
unsafe extern "C" fn entry_shim() {
    // The context pointer is the first argument (x0); x16 is the
    // intra-procedure-call scratch register.
    core::arch::naked_asm!(
        "mov x16, sp",
        "str x16, [x0, #{base}]",
        "ldr x16, [x0, #{code}]",
        "br x16",
        base = const waddle_opt::abi::VMCTX_STACK_BASE_OFFSET,
        code = const waddle_opt::abi::VMCTX_ENTRY_CODE_OFFSET,
    )
}

/// The address Rust calls to run compiled code at `code` with context
/// `ctx`: [`entry_shim`], told to go on at `code`; on other targets `code`
/// itself (the region then ends at the entry's marker, see [`enter`]).
///
/// # Safety
/// `ctx` must be the context the returned address is then called with.
#[inline]
unsafe fn through_shim(ctx: *mut VmCtx, code: usize) -> usize {
    #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
    {
        // SAFETY: the caller's promise: `ctx` is live.
        unsafe { (*ctx).entry_code = code };
        entry_shim as *const () as usize
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    {
        let _ = ctx;
        code
    }
}

/// Sets up the context, runs `invoke` with it (the call of the code), and
/// turns the trap record, a host panic and pending fuel into the result;
/// traps without a recorded location are reported at `loc`. `CARRY`: the
/// caller is another tier's code, whose recursion depth and fuel batch
/// the entry takes over ([`carry`]); an entry from Rust has none.
///
/// # Safety
/// As for [`call_entry`]; `invoke` must call code of the unit of `e` with
/// the context it is given (and the right arguments).
#[inline]
unsafe fn enter<const CARRY: bool>(
    e: &NativeEntry,
    loc: SrcLoc,
    host: &mut dyn Host,
    env: &HostEnv,
    invoke: impl FnOnce(*mut VmCtx) -> Word,
) -> Result<Word, Trap> {
    if e.globals_used > env.globals_len || env.strings_len < e.texts {
        return Err(Trap {
            code: TrapCode::AssertionFailed,
            loc,
        });
    }
    let budget = env.stack_budget.unwrap_or(e.stack_budget);
    // Every compiled frame is below this local: the stack budget counts
    // from here, and it is the top of the conservatively scanned region
    // on targets without the entry shim (`through_shim`).
    let base_marker: Word = 0;
    let base = std::hint::black_box(&base_marker) as *const Word as usize;
    // An entry from another tier (a call or an on-stack replacement) goes
    // on with its recursion depth and fuel batch. A call from Rust never
    // finds a carry: each is taken by the entry right after the tier
    // crossing that set it, before any host code can run.
    let (carried_depth, carried_fuel) = if CARRY {
        carry::carry_in()
    } else {
        (None, None)
    };
    let thread = thread_entry();
    let floor = thread.floor();
    let outer_limit = thread.limit.get();
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
    thread.limit.set(stack_limit);
    let mut cell = HostCell { host, panic: None };
    // On the stack, not boxed: no allocation per call. It may lie inside
    // the conservatively scanned region; its words are not heap objects.
    let mut ctx = VmCtx {
        globals: env.globals,
        entries: e.entries,
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
        helpers: e.helpers,
        strings: env.strings,
        depth_left: carried_depth.unwrap_or_else(|| waddle_opt::abi::max_call_depth(budget)),
        caller_sp: 0,
        entry_code: 0,
        tier_counters: std::ptr::null_mut(),
    };
    // The context and the entry, string and helper tables outlive the
    // call; compiled code only returns normally (traps are recorded in the
    // context).
    let ret = invoke(&mut ctx);
    std::hint::black_box(&base_marker);
    thread.limit.set(outer_limit);
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
    if pending > 0 && env.fuel_limited {
        if let Err(code) = cell.host.consume_fuel(pending as u64) {
            return result.and(Err(Trap { code, loc }));
        }
    }
    result
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

            /// `func`'s entry for calls from Rust (see
            /// [`crate::NativeProgram::entry`]).
            pub fn entry(&self, func: ::waddle_opt::ir::FuncId) -> Option<$crate::NativeEntry> {
                self.tables.entry(func)
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
            fn entry_address(&self, func: ::waddle_opt::ir::FuncId) -> Option<usize> {
                self.tables.func(func).map(|f| f.entry).filter(|&e| e != 0)
            }
            fn func_name(&self, func: ::waddle_opt::ir::FuncId) -> Option<&str> {
                $unit::func_name(self, func)
            }
            fn entry(&self, func: ::waddle_opt::ir::FuncId) -> Option<$crate::NativeEntry> {
                $unit::entry(self, func)
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
