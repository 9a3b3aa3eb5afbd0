//! The native code cache: compilation units of the native tiers, the
//! function → unit map, entry-slot linking between units, interpreter-entry
//! stubs for functions that are not native, the string table every unit
//! shares, and deferred freeing of replaced code.
//!
//! A *unit* is one call of a native code generator over a set of functions;
//! the other functions of the program appear in it as declarations whose
//! entry slots point at their current code: another unit's, or the
//! interpreter-entry stub of a function that is still interpreted
//! (`waddle_jit::cranelift::compile_stubs`). Installing a unit
//! 1. compiles it against the shared string table ([`StringPool`]) and
//!    interns the constants it adds,
//! 2. compiles stubs for its callees that have none yet,
//! 3. makes it the *owner* of its functions (the previous owners lose them),
//! 4. links: the new unit's slots get every other function's current code,
//!    and every older unit's slots for the new functions get the new code
//!    (so all callers see a promotion or redefinition at once),
//! 5. retires every unit that owns no function any more.
//!
//! Installation may happen while Waddle code runs (a promotion decided by
//! a counter), so a retired unit may still have frames on the stack: it is
//! only freed by [`NativeCode::free_retired`], which the executor calls
//! when no Waddle code runs. Every unit reads string constants through
//! `VmCtx::strings`, which is the pool's table for every entry, so code of
//! any unit reached through an entry slot of any other reads the right
//! constants.

use std::sync::Arc;

use cranelift_entity::EntityRef;
use rustc_hash::FxHashMap;
use waddle_jit::cranelift::InterpStubs;
use waddle_jit::{JitOptions, NativeProgram};
use waddle_opt::abi::Word;
use waddle_opt::interp::Host;
use waddle_opt::ir::{Block, FuncId, Function, InstKind, Program, Signature, Value};

use crate::Tier;

/// Why native code could not be made or installed.
#[derive(Debug)]
pub(crate) enum InstallError {
    /// The tier has no native code generator (the interpreter, `auto`).
    NoCodeGenerator(Tier),
    /// The tier cannot run in this build or on this host.
    Unavailable(Tier),
    /// Units with and without fuel checks cannot call each other.
    MixedFuel,
    /// The code generator rejected the program (or its stubs).
    Compile(waddle_jit::CompileError),
    /// The shared string table is full, or moved on since a background
    /// compile read it.
    Strings(&'static str),
    /// The program changed since the compile started.
    Outdated,
}

impl std::fmt::Display for InstallError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            InstallError::NoCodeGenerator(t) => {
                write!(f, "tier `{t}` has no native code generator")
            }
            InstallError::Unavailable(t) => write!(f, "tier `{t}` is not available in this build"),
            InstallError::MixedFuel => {
                f.write_str("native units with and without fuel cannot be mixed")
            }
            InstallError::Compile(e) => write!(f, "{e}"),
            InstallError::Strings(m) => f.write_str(m),
            InstallError::Outdated => f.write_str("the program changed during the compile"),
        }
    }
}

impl std::error::Error for InstallError {}

/// Most string constants the units of one executor can share (the table
/// is reserved up front, so its address never changes while code runs;
/// untouched pages cost nothing).
const POOL_CAPACITY: usize = 1 << 16;

/// The string table shared by every unit of a [`NativeCode`]: constant
/// texts in index order and their interned objects.
pub(crate) struct StringPool {
    texts: Vec<Box<str>>,
    index: FxHashMap<Box<str>, usize>,
    /// `POOL_CAPACITY` words, the first `texts.len()` interned objects.
    words: std::ptr::NonNull<Word>,
}

// SAFETY: the pool owns its word buffer (a leaked boxed slice freed in
// `Drop`); nothing else holds the pointer beyond a call that borrows the
// pool's executor, so moving the pool between threads is sound.
unsafe impl Send for StringPool {}

impl StringPool {
    fn new() -> StringPool {
        let words: Box<[Word]> = vec![0; POOL_CAPACITY].into_boxed_slice();
        let ptr = Box::into_raw(words).cast::<Word>();
        StringPool {
            texts: Vec::new(),
            index: FxHashMap::default(),
            // SAFETY: `Box::into_raw` never returns null.
            words: unsafe { std::ptr::NonNull::new_unchecked(ptr) },
        }
    }

    /// The interned table, as compiled code reads it through
    /// `VmCtx::strings`.
    pub(crate) fn table(&self) -> &[Word] {
        // SAFETY: the first `texts.len()` words are initialized; later
        // installs only write past them.
        unsafe { std::slice::from_raw_parts(self.words.as_ptr(), self.texts.len()) }
    }

    /// Adds `texts` (a unit's table, which starts with this pool's) past
    /// the pool's end, interning them through `host`. `Err` when the unit
    /// was compiled against an older state of the pool that has grown
    /// differently since (a background compile), or the pool is full.
    fn extend(&mut self, texts: &[Box<str>], host: &mut dyn Host) -> Result<(), InstallError> {
        if texts.len() > POOL_CAPACITY {
            return Err(InstallError::Strings(
                "too many distinct string constants for one engine",
            ));
        }
        let common = texts.len().min(self.texts.len());
        if texts[..common] != self.texts[..common] {
            return Err(InstallError::Strings(
                "the unit's string table is out of date",
            ));
        }
        for t in texts.iter().skip(self.texts.len()) {
            let w = host.intern_str(t);
            // SAFETY: `texts.len() < POOL_CAPACITY` here, so the index is
            // inside the buffer; no reference covers words past `len`.
            unsafe { *self.words.as_ptr().add(self.texts.len()) = w };
            self.index.insert(t.clone(), self.texts.len());
            self.texts.push(t.clone());
        }
        Ok(())
    }
}

impl Drop for StringPool {
    fn drop(&mut self) {
        let slice = std::ptr::slice_from_raw_parts_mut(self.words.as_ptr(), POOL_CAPACITY);
        // SAFETY: the buffer came from `Box::into_raw` of a slice of this
        // length and is freed once.
        drop(unsafe { Box::from_raw(slice) });
    }
}

/// A compiled on-stack-replacement entry ([`waddle_opt::osr`]): `func`
/// entered at loop header `header`, as function `entry` of its own unit.
pub(crate) struct OsrCode {
    /// The function whose loop it continues.
    pub func: FuncId,
    /// The loop header it starts at.
    pub header: Block,
    /// The values of `func` whose words are its arguments, in order.
    pub state: Vec<Value>,
    /// Its id in `unit` (one past the program's functions when compiled;
    /// slots from there on are not the program's).
    pub entry: FuncId,
    /// The unit.
    pub unit: Arc<dyn NativeProgram>,
    /// The tier that compiled it.
    pub tier: Tier,
}

/// One compilation unit.
struct Unit {
    program: Arc<dyn NativeProgram>,
    tier: Tier,
    /// How many functions it still owns.
    live: usize,
}

/// The native code of an executor's functions.
pub(crate) struct NativeCode {
    units: Vec<Option<Unit>>,
    /// The unit running each function, by `FuncId` index.
    owner: Vec<Option<usize>>,
    /// Each function's interpreter-entry stub and the signature it was
    /// built for.
    stubs: Vec<Option<(Signature, usize)>>,
    /// The memory of the stubs (kept while the executor lives).
    stub_sets: Vec<InterpStubs>,
    pool: StringPool,
    /// Units replaced while code may have run in them, freed by
    /// [`NativeCode::free_retired`].
    retired: Vec<Arc<dyn NativeProgram>>,
    stack_budget: usize,
    /// Whether the code counts fuel (compiled for a host with a budget).
    fuel: bool,
    /// Compiled OSR entries (linked like units; they own no function).
    osr: Vec<Arc<OsrCode>>,
    /// T1 and T2 units count calls and back edges from these
    /// (`JitOptions::tier_counters`; `auto` only).
    tier_counters: TierCounters,
}

/// The tiering counters of new units, per tier (`(calls, back edges)`;
/// `None`: no counters).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct TierCounters {
    /// T1 units (towards T2).
    pub baseline: Option<(u32, u32)>,
    /// T2 units (towards T3).
    pub opt: Option<(u32, u32)>,
}

impl NativeCode {
    /// An empty cache whose units get `stack_budget`.
    pub(crate) fn new(stack_budget: usize) -> NativeCode {
        NativeCode {
            units: Vec::new(),
            owner: Vec::new(),
            stubs: Vec::new(),
            stub_sets: Vec::new(),
            pool: StringPool::new(),
            retired: Vec::new(),
            stack_budget,
            fuel: false,
            osr: Vec::new(),
            tier_counters: TierCounters::default(),
        }
    }

    /// Makes later T1 and T2 units count calls and back edges from
    /// `counters`.
    pub(crate) fn set_tier_counters(&mut self, counters: TierCounters) {
        self.tier_counters = counters;
    }

    /// Points slot `f` of every unit and OSR entry at `code`.
    ///
    /// # Safety
    /// `code` is `f`'s current native code or stub (or null, which traps).
    unsafe fn set_everywhere(&self, f: FuncId, code: usize) {
        for unit in self.units.iter().flatten() {
            // SAFETY: the caller's promise.
            unsafe { unit.program.set_entry(f, code as *const u8) };
        }
        for o in &self.osr {
            if f.index() < o.entry.index() {
                // SAFETY: as above.
                unsafe { o.unit.set_entry(f, code as *const u8) };
            }
        }
    }

    /// Whether `func` has native code.
    pub(crate) fn has(&self, func: FuncId) -> bool {
        self.owner.get(func.index()).is_some_and(Option::is_some)
    }

    /// The tier of `func`'s native code.
    pub(crate) fn tier_of(&self, func: FuncId) -> Option<Tier> {
        let u = (*self.owner.get(func.index())?)?;
        self.units[u].as_ref().map(|u| u.tier)
    }

    /// Whether no function has native code.
    pub(crate) fn is_empty(&self) -> bool {
        self.units.iter().all(Option::is_none)
    }

    /// Whether the installed code counts fuel.
    pub(crate) fn counts_fuel(&self) -> bool {
        self.fuel
    }

    /// Forgets `func`'s native code (its body changed, it was removed or
    /// demoted): callers in other units reach its stub again.
    pub(crate) fn invalidate(&mut self, func: FuncId) {
        if let Some(Some(u)) = self.owner.get(func.index()).copied() {
            self.owner[func.index()] = None;
            let stub = self.stub(func).unwrap_or(0);
            // SAFETY: `stub` is `func`'s interpreter-entry stub (kept
            // while the executor lives) or null, which traps.
            unsafe { self.set_everywhere(func, stub) };
            self.release(u);
        }
        // Its OSR entries continue an old body.
        let (gone, keep): (Vec<_>, Vec<_>) = self.osr.drain(..).partition(|o| o.func == func);
        self.osr = keep;
        self.retired
            .extend(gone.into_iter().map(|o| o.unit.clone()));
    }

    /// Drops all native code (freed once no Waddle code runs).
    pub(crate) fn clear(&mut self) {
        for u in self.units.drain(..).flatten() {
            self.retired.push(u.program);
        }
        for o in self.osr.drain(..) {
            self.retired.push(o.unit.clone());
        }
        self.owner.clear();
    }

    /// Frees the units retired since the last call. Only when no Waddle
    /// code runs.
    pub(crate) fn free_retired(&mut self) {
        self.retired.clear();
    }

    fn release(&mut self, u: usize) {
        if let Some(unit) = self.units[u].as_mut() {
            unit.live -= 1;
            if unit.live == 0 {
                if let Some(unit) = self.units[u].take() {
                    self.retired.push(unit.program);
                }
            }
        }
    }

    fn stub(&self, func: FuncId) -> Option<usize> {
        self.stubs
            .get(func.index())
            .and_then(|s| s.as_ref())
            .map(|s| s.1)
    }

    /// Compiles interpreter-entry stubs for every function of `funcs` that
    /// has none for its current signature.
    fn ensure_stubs(&mut self, program: &Program, funcs: &[FuncId]) -> Result<(), InstallError> {
        if self.stubs.len() < program.funcs.len() {
            self.stubs.resize(program.funcs.len(), None);
        }
        let missing: Vec<FuncId> = (funcs.iter().copied())
            .filter(|&f| {
                let sig = program.funcs[f].sig();
                !matches!(&self.stubs[f.index()], Some((s, _)) if s == sig)
            })
            .collect();
        if missing.is_empty() {
            return Ok(());
        }
        let set = waddle_jit::cranelift::compile_stubs(program, &missing)
            .map_err(InstallError::Compile)?;
        for &f in &missing {
            if let Some(code) = set.get(f) {
                self.stubs[f.index()] = Some((program.funcs[f].sig().clone(), code as usize));
                if !self.has(f) {
                    // SAFETY: the stub has `f`'s signature and lives as
                    // long as the executor.
                    unsafe { self.set_everywhere(f, code as usize) };
                }
            }
        }
        self.stub_sets.push(set);
        Ok(())
    }

    /// Compiles `funcs` of `program` with `tier` into a new unit and links
    /// it (see the module docs). `fuel` must be the same for every unit.
    /// With `vsdg` the unit's functions first go through the VSDG round
    /// trip ([`super::compiler::compile_job`]; T3 over functions whose `-O`
    /// pipeline did not include it).
    pub(crate) fn install(
        &mut self,
        program: &Program,
        funcs: &[FuncId],
        tier: Tier,
        vsdg: bool,
        fuel: bool,
        host: &mut dyn Host,
    ) -> Result<(), InstallError> {
        if funcs.is_empty() {
            return Ok(());
        }
        let (mut unit_program, native, opts) = self.job(program, funcs, tier, fuel)?;
        let compiled = if vsdg {
            super::compiler::compile_job(&mut unit_program, true, native, &opts).map_err(
                |message| {
                    InstallError::Compile(waddle_jit::CompileError::Codegen {
                        func: "<unit>".to_string(),
                        message,
                    })
                },
            )?
        } else {
            waddle_jit::compile(native, &unit_program, &opts).map_err(InstallError::Compile)?
        };
        self.link(program, funcs, compiled, tier, fuel, host)
    }

    /// What compiling `funcs` with `tier` takes: the unit's program, the
    /// code generator and its options (against the string table as it is
    /// now), so the compile can run elsewhere.
    pub(crate) fn job(
        &self,
        program: &Program,
        funcs: &[FuncId],
        tier: Tier,
        fuel: bool,
    ) -> Result<(Program, waddle_jit::Tier, JitOptions), InstallError> {
        if !self.is_empty() && fuel != self.fuel {
            return Err(InstallError::MixedFuel);
        }
        let native = tier.native().ok_or(InstallError::NoCodeGenerator(tier))?;
        // A cycle of calls may pass through functions of other units.
        let cycles = waddle_opt::analysis::callgraph::recursive_functions(program);
        let opts = JitOptions {
            fuel,
            strings_from_ctx: true,
            string_table: Some(self.pool.texts.clone()),
            recursive: Some(program.funcs.keys().map(|f| cycles[f]).collect()),
            tier_counters: match tier {
                Tier::Baseline => self.tier_counters.baseline,
                Tier::Opt => self.tier_counters.opt,
                _ => None,
            },
            ..JitOptions::default()
        };
        Ok((unit_program(program, funcs), native, opts))
    }

    /// Links `compiled` (a unit of `funcs` built as [`NativeCode::job`]
    /// says) into the cache (see the module docs).
    pub(crate) fn link(
        &mut self,
        program: &Program,
        funcs: &[FuncId],
        compiled: Box<dyn NativeProgram>,
        tier: Tier,
        fuel: bool,
        host: &mut dyn Host,
    ) -> Result<(), InstallError> {
        if !self.is_empty() && fuel != self.fuel {
            return Err(InstallError::MixedFuel);
        }
        let mut compiled: Arc<dyn NativeProgram> = Arc::from(compiled);
        if let Some(c) = Arc::get_mut(&mut compiled) {
            c.set_stack_budget(self.stack_budget);
        }
        self.pool.extend(compiled.string_texts(), host)?;
        let callees = callees(program, funcs);
        self.ensure_stubs(program, &callees)?;
        self.fuel = fuel;
        if self.owner.len() < program.funcs.len() {
            self.owner.resize(program.funcs.len(), None);
        }
        // Slots of the new unit: every other function's current code.
        self.fill_slots(program, &*compiled, funcs);
        // Slots of the older units: the new code.
        let new_code: Vec<(FuncId, usize)> = funcs
            .iter()
            .filter_map(|&f| Some((f, compiled.entry_address(f)?)))
            .collect();
        for &(f, code) in &new_code {
            // SAFETY: `code` is `f`'s code in the unit being installed.
            unsafe { self.set_everywhere(f, code) };
        }
        for &(f, _) in &new_code {
            if let Some(Some(old)) = self.owner.get(f.index()).copied() {
                self.owner[f.index()] = None;
                self.release(old);
            }
        }
        if new_code.is_empty() {
            self.retired.push(compiled);
            return Ok(());
        }
        let u = match self.units.iter().position(Option::is_none) {
            Some(free) => free,
            None => {
                self.units.push(None);
                self.units.len() - 1
            }
        };
        for &(f, _) in &new_code {
            self.owner[f.index()] = Some(u);
        }
        self.units[u] = Some(Unit {
            program: compiled,
            tier,
            live: new_code.len(),
        });
        Ok(())
    }

    /// Points the slots of `compiled` for every function of `program` but
    /// `skip` at that function's current code (a unit's or its stub).
    fn fill_slots(&self, program: &Program, compiled: &dyn NativeProgram, skip: &[FuncId]) {
        for i in 0..program.funcs.len() {
            let f = FuncId::new(i);
            if skip.contains(&f) {
                continue;
            }
            let code = match self.owner.get(i).copied().flatten() {
                Some(o) => self.units[o]
                    .as_ref()
                    .and_then(|u| u.program.entry_address(f)),
                None => self.stub(f),
            };
            if let Some(code) = code {
                // SAFETY: `code` is `f`'s native code in a live unit or its
                // stub; units are freed only when retired and no Waddle
                // code runs, and then no slot of a live unit points into
                // them (owners' code and stubs are what slots hold).
                unsafe { compiled.set_entry(f, code as *const u8) };
            }
        }
    }

    /// The compiled OSR entry of `func` at `header`, if any.
    pub(crate) fn osr_code(&self, func: FuncId, header: Block) -> Option<Arc<OsrCode>> {
        (self.osr.iter())
            .find(|o| o.func == func && o.header == header)
            .cloned()
    }

    /// [`NativeCode::osr_job`] for the compiler thread, which builds the
    /// entry itself ([`build_osr_entry`]): building it costs about as
    /// much as interpreting a few thousand instructions, which a running
    /// program should not wait for when the compile is in the background
    /// anyway. The meta's `state` is filled in there; its `callees` are
    /// those of the whole function (a superset of the entry's).
    pub(crate) fn osr_job_deferred(
        &self,
        program: &Program,
        func: FuncId,
        header: Block,
        tier: Tier,
        fuel: bool,
    ) -> Result<DeferredOsr, InstallError> {
        let (unit, native, mut options) = self.job(program, &[], tier, fuel)?;
        options.tier_counters = None;
        let source = program.funcs[func].clone();
        let mut callees = Vec::new();
        for inst in source.insts().values() {
            if let InstKind::Call(c, _) = &inst.kind {
                let bodied = program.funcs.get(*c).is_some_and(|g| !g.is_declaration());
                if bodied && !callees.contains(c) {
                    callees.push(*c);
                }
            }
        }
        let meta = OsrMeta {
            func,
            header,
            state: Vec::new(),
            entry: FuncId::new(unit.funcs.len()),
            callees,
        };
        Ok(DeferredOsr {
            source,
            meta,
            program: unit,
            tier: native,
            options,
        })
    }

    /// What compiling the OSR entry of `func` at `header` with `tier`
    /// takes (as [`NativeCode::job`]): `None` when `header` is no OSR
    /// point. The entry is function `entry` of the unit's program.
    pub(crate) fn osr_job(
        &self,
        program: &Program,
        func: FuncId,
        header: Block,
        tier: Tier,
        fuel: bool,
    ) -> Result<Option<OsrJob>, InstallError> {
        let Some(entry) = waddle_opt::osr::osr_entry(&program.funcs[func], header) else {
            return Ok(None);
        };
        let (mut unit, native, mut options) = self.job(program, &[], tier, fuel)?;
        // The entry runs once per activation: nothing to count.
        options.tier_counters = None;
        let id = unit.funcs.push(entry.func);
        Ok(Some(OsrJob {
            func,
            header,
            state: entry.state,
            entry: id,
            program: unit,
            tier: native,
            options,
        }))
    }

    /// Links the compiled unit of `job` as an OSR entry (see
    /// [`NativeCode::link`]).
    pub(crate) fn link_osr(
        &mut self,
        program: &Program,
        job: OsrMeta,
        compiled: Box<dyn NativeProgram>,
        tier: Tier,
        fuel: bool,
        host: &mut dyn Host,
    ) -> Result<Arc<OsrCode>, InstallError> {
        if !self.is_empty() && fuel != self.fuel {
            return Err(InstallError::MixedFuel);
        }
        if job.entry.index() != program.funcs.len() {
            return Err(InstallError::Outdated);
        }
        let mut compiled: Arc<dyn NativeProgram> = Arc::from(compiled);
        if let Some(c) = Arc::get_mut(&mut compiled) {
            c.set_stack_budget(self.stack_budget);
        }
        self.pool.extend(compiled.string_texts(), host)?;
        self.ensure_stubs(program, &job.callees)?;
        self.fuel = fuel;
        self.fill_slots(program, &*compiled, &[]);
        let code = Arc::new(OsrCode {
            func: job.func,
            header: job.header,
            state: job.state,
            entry: job.entry,
            unit: compiled,
            tier,
        });
        self.osr.push(code.clone());
        Ok(code)
    }

    /// The unit running `func` natively, if any (a clone, so the caller
    /// may run it while the cache changes).
    pub(crate) fn unit_of(&self, func: FuncId) -> Option<Arc<dyn NativeProgram>> {
        let u = (*self.owner.get(func.index())?)?;
        Some(self.units[u].as_ref()?.program.clone())
    }

    /// The shared string table (what every entry passes as
    /// `VmCtx::strings`).
    pub(crate) fn strings(&self) -> &[Word] {
        self.pool.table()
    }

    /// The machine code of `func`, if native.
    pub(crate) fn code(&self, func: FuncId) -> Option<&[u8]> {
        let u = (*self.owner.get(func.index())?)?;
        self.units[u].as_ref()?.program.code(func)
    }

    /// Live units and the machine-code bytes they hold.
    pub(crate) fn memory(&self) -> (usize, usize) {
        let live = self.units.iter().flatten();
        let bytes: usize = live.clone().map(|u| u.program.code_bytes()).sum();
        let osr: usize = self.osr.iter().map(|o| o.unit.code_bytes()).sum();
        (live.count() + self.osr.len(), bytes + osr)
    }
}

/// An OSR entry to compile ([`NativeCode::osr_job`]).
pub(crate) struct OsrJob {
    /// The function whose loop it continues.
    pub func: FuncId,
    /// The loop header.
    pub header: Block,
    /// The values of `func` it takes, in order.
    pub state: Vec<Value>,
    /// Its id in `program`.
    pub entry: FuncId,
    /// The unit's program: the program's functions as declarations, then
    /// the entry.
    pub program: Program,
    /// The code generator.
    pub tier: waddle_jit::Tier,
    /// Its options.
    pub options: JitOptions,
}

impl OsrJob {
    /// What linking the compiled entry needs besides the code: the job
    /// without its program.
    pub(crate) fn meta(&self, program: &Program) -> OsrMeta {
        let mut callees = Vec::new();
        for inst in self.program.funcs[self.entry].insts().values() {
            if let InstKind::Call(c, _) = &inst.kind {
                let bodied = program.funcs.get(*c).is_some_and(|g| !g.is_declaration());
                if bodied && !callees.contains(c) {
                    callees.push(*c);
                }
            }
        }
        OsrMeta {
            func: self.func,
            header: self.header,
            state: self.state.clone(),
            entry: self.entry,
            callees,
        }
    }
}

/// An OSR job whose entry is still to be built ([`NativeCode::osr_job_deferred`]).
pub(crate) struct DeferredOsr {
    /// The function whose loop the entry continues, as it is now.
    pub source: Function,
    /// What linking needs; `state` empty until the entry is built.
    pub meta: OsrMeta,
    /// The unit's program: the program's functions as declarations (the
    /// entry is pushed after them).
    pub program: Program,
    /// The code generator.
    pub tier: waddle_jit::Tier,
    /// Its options.
    pub options: JitOptions,
}

/// Builds the OSR entry of `source` at `meta.header` into the unit
/// `program` of a [`DeferredOsr`] and fills in `meta.state`; `Err` when
/// the header is no OSR point (or the unit is not the one the meta was
/// made for).
pub(crate) fn build_osr_entry(
    program: &mut Program,
    source: &Function,
    meta: &mut OsrMeta,
) -> Result<(), String> {
    let entry = waddle_opt::osr::osr_entry(source, meta.header)
        .ok_or_else(|| "no OSR entry at this loop header".to_string())?;
    if program.funcs.len() != meta.entry.index() {
        return Err("the OSR unit changed".to_string());
    }
    program.funcs.push(entry.func);
    meta.state = entry.state;
    Ok(())
}

/// [`OsrJob`] without its program: what [`NativeCode::link_osr`] needs.
#[derive(Clone, Debug)]
pub(crate) struct OsrMeta {
    /// The function whose loop it continues.
    pub func: FuncId,
    /// The loop header.
    pub header: Block,
    /// The values of `func` it takes, in order.
    pub state: Vec<Value>,
    /// Its id in the unit.
    pub entry: FuncId,
    /// The program's functions with a body it calls.
    pub callees: Vec<FuncId>,
}

/// The functions with a body that `funcs` call directly, other than
/// `funcs` themselves.
fn callees(program: &Program, funcs: &[FuncId]) -> Vec<FuncId> {
    let mut out: Vec<FuncId> = Vec::new();
    for &f in funcs {
        for inst in program.funcs[f].insts().values() {
            if let InstKind::Call(c, _) = &inst.kind {
                let c = *c;
                let bodied = program.funcs.get(c).is_some_and(|g| !g.is_declaration());
                if bodied && !funcs.contains(&c) && !out.contains(&c) {
                    out.push(c);
                }
            }
        }
    }
    out
}

/// `program` with only `funcs` keeping their bodies: the rest become
/// declarations (same ids, names and signatures) the unit links against.
pub(crate) fn unit_program(program: &Program, funcs: &[FuncId]) -> Program {
    let mut keep = vec![false; program.funcs.len()];
    for f in funcs {
        if let Some(k) = keep.get_mut(f.index()) {
            *k = true;
        }
    }
    let mut p = Program {
        globals: program.globals.clone(),
        host_fns: program.host_fns.clone(),
        ..Program::default()
    };
    for (id, f) in program.funcs.iter() {
        if keep[id.index()] {
            p.funcs.push(f.clone());
        } else {
            p.funcs.push(f.declaration());
        }
    }
    p
}

/// Runs the native code generator of `tier` on all of `program` (the
/// eager tiers' one unit). With `shared`, the code loads its string
/// constants through the context, so the unit can run for many stores
/// ([`waddle_jit::NativeProgram::call_shared`]).
pub(crate) fn compile_unit(
    program: &Program,
    tier: Tier,
    fuel: bool,
    shared: bool,
) -> Result<Box<dyn NativeProgram>, InstallError> {
    let opts = JitOptions {
        fuel,
        strings_from_ctx: shared,
        ..JitOptions::default()
    };
    let native = tier.native().ok_or(InstallError::NoCodeGenerator(tier))?;
    waddle_jit::compile(native, program, &opts).map_err(InstallError::Compile)
}
