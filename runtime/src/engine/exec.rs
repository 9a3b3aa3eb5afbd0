//! The executor: runs the functions of one program on mixed tiers and
//! moves them between tiers (the tiering controller).
//!
//! It owns the interpreter (T0, always up to date for every function) and
//! the native code cache ([`NativeCode`]). A call from Rust enters the tier
//! that runs the function now. Inside a run every call between tiers goes
//! through [`TieredHost::call_func`], the [`Host`] the executor hands to
//! both the interpreter and compiled code:
//! - the interpreter calls a compiled function it marks external
//!   (`Interpreter::set_external`) through it;
//! - compiled code calls a function that is still interpreted through the
//!   function's interpreter-entry stub, whose helper calls it too.
//!
//! Across the boundary: traps carry their location back (the calling tier
//! fills in its call site when the callee's entry raised it); the stack
//! budget is shared (nested native entries keep the outer stack limit, the
//! interpreter charges nested activations against what is left); fuel is
//! charged once per entry by the tier entered; and the caller's frames are
//! GC roots while the callee runs ([`Runtime::push_roots`]: the
//! interpreter's value stack, or the native stack above the stub).
//!
//! Promotion (`auto`, see [`super::tiering`]) happens in [`Host::hot`],
//! between two instructions of the interpreter: the function is compiled
//! into a new unit, its entry slots are swapped and the interpreter marks it
//! external; the call that ran its counter out already goes to the new
//! code. Units replaced meanwhile are freed when the outermost call
//! returns, so no frame can still be running in them.

mod osr;
mod promote;

use std::cell::{Cell, RefCell};

use cranelift_entity::EntityRef;
use waddle_jit::EntryLoc;
use waddle_opt::abi::{Trap, TrapCode, Word};
use waddle_opt::interp::{Host, Interpreter, LoopFrame};
use waddle_opt::ir::{Block, FuncId, HostFnId, Program, SrcLoc, Type};

use super::compiler::{Compiler, Done};
use super::native::{InstallError, NativeCode, TierCounters};
use super::tiering::{self, TierOptions};
use crate::host::Runtime;
use crate::Tier;

/// Calls (and back edges) after which a function whose background compile
/// is pending comes back to [`Host::hot`], a safe point to install it.
const POLL_CALLS: i32 = 64;
const POLL_EDGES: i32 = 4096;

/// Activations of a function with a loop after which a loop counter that
/// runs out promotes the whole function (T1 now, T2 in the background)
/// instead of replacing the running activation: its loops are short, and
/// its next calls come soon.
const SHORT_LOOP_CALLS: i32 = 8;

/// A well-mixed, never-zero generator state from a chaos seed (splitmix64).
fn splitmix(seed: u64) -> u64 {
    let mut z = seed.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    (z ^ (z >> 31)) | 1
}

/// Runs functions of a program on the interpreter and native tiers.
pub(crate) struct Executor {
    interp: Interpreter,
    native: RefCell<NativeCode>,
    /// The tier policy of the last [`Executor::prepare`].
    tier: Cell<Tier>,
    options: TierOptions,
    /// The background compiler, started by the first job.
    compiler: RefCell<Option<Compiler>>,
    /// Per function: bumped when its body changes (stale jobs are dropped).
    generation: RefCell<Vec<u64>>,
    /// Per function: a background job is queued or running.
    queued: RefCell<Vec<bool>>,
    /// Chaos mode's generator state (xorshift64*).
    chaos: Cell<u64>,
    /// Finished background compiles chaos mode holds back for a later
    /// safe point.
    deferred: RefCell<Vec<Done>>,
    /// Whether native code counts fuel.
    fuel: Cell<bool>,
    /// Whether the store has a fuel budget. Fuel counts the function
    /// entries and loop back edges of the `-O` pipeline's code on every
    /// tier; the VSDG round trip lays loops out anew (its code can take
    /// other back edges), so while a budget is set T3 compiles the `-O`
    /// code without it and `out of fuel` comes at the interpreter's unit
    /// whenever `auto` promotes.
    metered: Cell<bool>,
    /// Stack bytes a call may use (every tier).
    stack_budget: Cell<usize>,
    /// Per function: its counters are armed for `auto`.
    armed: RefCell<Vec<bool>>,
    /// Per function: a tier it is pinned to (`None`: the policy decides).
    pins: Vec<Option<Tier>>,
    /// Per function: its `-O` pipeline already ended with the VSDG round
    /// trip (it was compiled while the tier was `full`). Any other function
    /// goes through the round trip when it is compiled for T3, so T3 code
    /// is the same whichever tier the session had when it was compiled.
    vsdg_done: Vec<bool>,
    /// Auto's compile of the current program failed: interpret until a
    /// function changes.
    native_failed: Cell<bool>,
    /// Calls from Rust running now (0: no Waddle code runs).
    depth: Cell<usize>,
    /// Functions promoted by counters so far.
    promotions: Cell<u64>,
    /// Of those, promotions from T2 to T3.
    full_promotions: Cell<u64>,
    /// Per function: T3 failed for its current body (or cannot run): it
    /// stays on T2.
    no_full: RefCell<Vec<bool>>,
    /// Activations continued in compiled code at a loop header so far.
    osr_entries: Cell<u64>,
    /// Per function: its loops run long in few activations (its counter ran
    /// out within its first [`SHORT_LOOP_CALLS`] calls). Its promotion
    /// skips T1: until T2 is installed its activations enter the OSR entry
    /// at their first back edge, which T1 code could not leave.
    long_loops: RefCell<Vec<bool>>,
    /// OSR entries compiling in the background, by function and header.
    osr_queued: RefCell<Vec<(FuncId, Block)>>,
    /// OSR entries linked and not entered yet.
    osr_fresh: RefCell<Vec<osr::Fresh>>,
}

// SAFETY: the interpreter is not `Send` only because its pooled frame
// stacks hold raw pointers to its own boxed, prepared code (meaningful only
// during a call), and its tiering counters are `Cell`s used by the thread
// running a call. Nothing is thread-affine, and the boxes do not move when
// the executor does, so moving it to another thread between calls (as part
// of its session or store, used by one thread at a time) is sound.
unsafe impl Send for Executor {}

impl Executor {
    /// Prepares every bodied function of `program` for the interpreter.
    pub(crate) fn new(
        program: &Program,
        host: &mut dyn Host,
        stack_budget: usize,
        options: TierOptions,
    ) -> Executor {
        let mut interp = Interpreter::new(program, host);
        interp.set_stack_budget(stack_budget);
        Executor {
            interp,
            native: RefCell::new(NativeCode::new(stack_budget)),
            tier: Cell::new(Tier::Interp),
            chaos: Cell::new(options.chaos.map_or(0, splitmix)),
            deferred: RefCell::new(Vec::new()),
            options,
            compiler: RefCell::new(None),
            generation: RefCell::new(Vec::new()),
            queued: RefCell::new(Vec::new()),
            fuel: Cell::new(false),
            metered: Cell::new(false),
            stack_budget: Cell::new(stack_budget),
            armed: RefCell::new(Vec::new()),
            pins: Vec::new(),
            vsdg_done: Vec::new(),
            native_failed: Cell::new(false),
            depth: Cell::new(0),
            promotions: Cell::new(0),
            full_promotions: Cell::new(0),
            no_full: RefCell::new(Vec::new()),
            osr_entries: Cell::new(0),
            long_loops: RefCell::new(Vec::new()),
            osr_queued: RefCell::new(Vec::new()),
            osr_fresh: RefCell::new(Vec::new()),
        }
    }

    /// Re-prepares `funcs` after they were added or redefined; their
    /// native code (if any) is dropped and they start over on the
    /// interpreter.
    pub(crate) fn update(&mut self, program: &Program, funcs: &[FuncId], host: &mut dyn Host) {
        self.interp.update_many(program, funcs, host);
        for &func in funcs {
            self.reset(func);
        }
    }

    /// Starts `func` over after its body changed: a new generation, no
    /// queued or armed promotion, no native code.
    fn reset(&mut self, func: FuncId) {
        let g = self.generation.get_mut();
        if g.len() <= func.index() {
            g.resize(func.index() + 1, 0);
        }
        g[func.index()] += 1;
        if let Some(q) = self.queued.get_mut().get_mut(func.index()) {
            *q = false;
        }
        if let Some(n) = self.no_full.get_mut().get_mut(func.index()) {
            *n = false;
        }
        if let Some(l) = self.long_loops.get_mut().get_mut(func.index()) {
            *l = false;
        }
        self.drop_native(func);
        if let Some(a) = self.armed.get_mut().get_mut(func.index()) {
            *a = false;
        }
        self.native_failed.set(false);
    }

    /// Sets the stack budget of later calls (every tier).
    pub(crate) fn set_stack_budget(&mut self, bytes: usize) {
        self.interp.set_stack_budget(bytes);
        self.stack_budget.set(bytes);
    }

    /// Forgets `func`'s native code (an entry's top-level code after it ran).
    pub(crate) fn forget(&mut self, func: FuncId) {
        self.drop_native(func);
    }

    fn drop_native(&self, func: FuncId) {
        self.native.borrow_mut().invalidate(func);
        self.interp.set_external(func, false);
    }

    /// Pins `func` to `tier` (`None`: the policy decides again); applied
    /// by the next [`Executor::prepare`].
    pub(crate) fn pin(&mut self, func: FuncId, tier: Option<Tier>) {
        if self.pins.len() <= func.index() {
            self.pins.resize(func.index() + 1, None);
        }
        self.pins[func.index()] = tier;
        self.drop_native(func);
        if let Some(a) = self.armed.get_mut().get_mut(func.index()) {
            *a = false;
        }
    }

    /// Whether compiling `func` for `tier` runs the VSDG round trip first:
    /// for T3, unless its `-O` pipeline already did, or the store has a
    /// fuel budget (see `metered`).
    pub(super) fn needs_vsdg(&self, func: FuncId, tier: Tier) -> bool {
        tier == Tier::Full
            && !self.metered.get()
            && !self.vsdg_done.get(func.index()).copied().unwrap_or(false)
    }

    /// Whether a finished background compile is stale because it went
    /// through the VSDG round trip and a fuel budget was set meanwhile.
    pub(super) fn unmetered_code(&self, d: &Done) -> bool {
        d.vsdg && self.metered.get()
    }

    fn pin_of(&self, func: FuncId) -> Option<Tier> {
        self.pins.get(func.index()).copied().flatten()
    }

    /// Brings the native code in line with `tier` before `run` (if any)
    /// executes: an eager tier compiles every function that is not native
    /// yet; `auto` arms the counters of new functions (and compiles `run`
    /// at once when the policy says so). `Err` when `tier` is an explicit
    /// native tier that cannot compile. `vsdg_done` says, per function
    /// index, whether its `-O` pipeline included the VSDG round trip
    /// (missing: it did not).
    pub(crate) fn prepare(
        &mut self,
        program: &Program,
        host: &mut Runtime,
        tier: Tier,
        fuel: bool,
        vsdg_done: &[bool],
    ) -> Result<(), InstallError> {
        self.vsdg_done.clear();
        self.vsdg_done.extend_from_slice(vsdg_done);
        let native = tiering::native_tier(tier);
        if native.is_none() && tier != Tier::Interp {
            return Err(InstallError::Unavailable(tier));
        }
        if tier != self.tier.get() {
            // `set_tier`: code of the old policy goes (item 7 of the
            // tiering issue); pinned functions keep theirs.
            self.native.get_mut().clear();
            for id in program.funcs.keys() {
                if self.pin_of(id).is_none() {
                    self.interp.set_external(id, false);
                }
            }
            self.armed.get_mut().clear();
            self.native_failed.set(false);
            self.tier.set(tier);
        }
        let code = self.native.get_mut();
        if fuel && !code.is_empty() && !code.counts_fuel() {
            // Code compiled without fuel checks cannot enforce a budget.
            // (Only when there is such code: clearing also re-arms every
            // counter, which must not happen at each entry of a session.)
            self.native.get_mut().clear();
            for id in program.funcs.keys() {
                self.interp.set_external(id, false);
            }
            self.armed.get_mut().clear();
        }
        self.fuel.set(fuel);
        let metered = host.fuel().is_some();
        if metered && !self.metered.get() {
            // A budget from now on: T3 code made by the round trip goes
            // (the functions count again from T0 and promote without it).
            let vsdg_code = (program.funcs.keys())
                .any(|id| self.tier_of(id) == Tier::Full && self.needs_vsdg(id, Tier::Full));
            if vsdg_code {
                self.native.get_mut().clear();
                for id in program.funcs.keys() {
                    self.interp.set_external(id, false);
                }
                self.armed.get_mut().clear();
            }
        }
        self.metered.set(metered);
        // Pinned functions first; their code does not count.
        self.native
            .get_mut()
            .set_tier_counters(TierCounters::default());
        // Units by tier and by whether T3 runs the VSDG round trip first.
        let mut by_tier: Vec<((Tier, bool), Vec<FuncId>)> = Vec::new();
        for (id, f) in program.funcs.iter() {
            if f.is_declaration() {
                continue;
            }
            let want = match self.pin_of(id) {
                Some(Tier::Interp) => None,
                Some(t) => Some(t),
                None => match tier {
                    Tier::Auto | Tier::Interp => None,
                    t => Some(t),
                },
            };
            let have = self.native.get_mut().tier_of(id);
            if want.is_some() && want == have {
                continue;
            }
            match want {
                None => {
                    if have.is_some() && self.pin_of(id) == Some(Tier::Interp) {
                        self.drop_native(id);
                    }
                }
                Some(t) => {
                    let key = (t, self.needs_vsdg(id, t));
                    match by_tier.iter_mut().find(|(k, _)| *k == key) {
                        Some((_, v)) => v.push(id),
                        None => by_tier.push((key, vec![id])),
                    }
                }
            }
        }
        for ((t, vsdg), funcs) in by_tier {
            if !t.is_available() {
                return Err(InstallError::Unavailable(t));
            }
            let r = self
                .native
                .get_mut()
                .install(program, &funcs, t, vsdg, fuel, host);
            match r {
                Ok(()) => {
                    for &f in &funcs {
                        let native = self.native.get_mut().has(f);
                        self.interp.set_external(f, native);
                    }
                }
                Err(e) => return Err(e),
            }
        }
        if tier == Tier::Auto {
            let counters = self.tier_counters();
            self.native.get_mut().set_tier_counters(counters);
        }
        if tier == Tier::Auto && !self.native_failed.get() && native.is_some() {
            self.arm(program);
        }
        Ok(())
    }

    /// The counters of `auto`'s T1 code (calls and back edges towards T2)
    /// and T2 code (towards T3; none when the `full` threshold is 0 or T3
    /// cannot run here). Chaos mode draws small ones.
    fn tier_counters(&self) -> TierCounters {
        let t = self.options.thresholds;
        let full = t.full > 0 && Tier::Full.is_available();
        if self.options.chaos.is_some() {
            let baseline = Some((1 + self.random(20) as u32, 1 + self.random(200) as u32));
            let opt = (full && self.random(4) != 0)
                .then(|| (1 + self.random(30) as u32, 1 + self.random(300) as u32));
            return TierCounters { baseline, opt };
        }
        TierCounters {
            baseline: Some((t.calls, t.loops.max(t.calls))),
            opt: full.then_some((t.full, t.full)),
        }
    }

    /// Arms the interpreter's counters of every function `auto` may promote
    /// and has not armed yet.
    fn arm(&self, program: &Program) {
        let mut armed = self.armed.borrow_mut();
        if armed.len() < program.funcs.len() {
            armed.resize(program.funcs.len(), false);
        }
        let t = self.options.thresholds;
        for (id, f) in program.funcs.iter() {
            if armed[id.index()] || f.is_declaration() || self.pin_of(id).is_some() {
                continue;
            }
            armed[id.index()] = true;
            if self.native.borrow().has(id) {
                continue;
            }
            if self.options.chaos.is_some() {
                // Chaos: promotion after a few calls or back edges, picked
                // at random per function (or never). The name is stirred
                // in, so one seed draws differently for each program; a
                // function with a loop often stays for OSR.
                self.stir(f.name());
                let never = if tiering::has_loop(f) { 2 } else { 4 };
                let calls = match self.random(never) {
                    0 => i32::MAX,
                    _ => 1 + self.random(6) as i32,
                };
                let edges = match self.random(3) {
                    0 => i32::MAX,
                    _ => 1 + self.random(50) as i32,
                };
                self.interp.set_counters(id, calls, edges);
                continue;
            }
            let (calls, edges) = if tiering::has_loop(f) {
                if t.loops == 0 {
                    (1, i32::MAX)
                } else {
                    (i32::MAX, t.loops as i32)
                }
            } else {
                (t.calls as i32, i32::MAX)
            };
            self.interp.set_counters(id, calls, edges);
        }
    }

    /// Calls `func` with `args` on the tier that runs it; traps come back
    /// as `Err` at the function's location when raised on entry.
    pub(crate) fn call(
        &self,
        host: &mut Runtime,
        program: &Program,
        func: FuncId,
        args: &[Word],
    ) -> Result<Word, Trap> {
        let mut th = TieredHost {
            rt: host,
            exec: self,
            program,
        };
        self.poll(program, th.rt);
        // A call from Rust counts like a call from the interpreter.
        th.count_call(func);
        self.depth.set(self.depth.get() + 1);
        let unit = self.native.borrow().unit_of(func);
        let r = match unit {
            Some(unit) => {
                let strings = self.native.borrow().strings().as_ptr();
                let n = self.native.borrow().strings().len();
                // SAFETY: the pool's first `n` words stay initialized and in
                // place while the executor lives (installs only append).
                let strings = unsafe { std::slice::from_raw_parts(strings, n) };
                unit.call_shared(
                    &mut th,
                    func,
                    args,
                    strings,
                    Some(self.stack_budget.get()),
                    EntryLoc::Callee,
                )
            }
            None => self.interp.call(&mut th, func, args),
        };
        self.depth.set(self.depth.get() - 1);
        if self.depth.get() == 0 {
            self.native.borrow_mut().free_retired();
        }
        r
    }

    /// Mixes `name` into chaos mode's generator state.
    fn stir(&self, name: &str) {
        let h = name.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
        });
        self.chaos.set(splitmix(self.chaos.get() ^ h));
    }

    /// A pseudo-random number below `n` (chaos mode).
    fn random(&self, n: u64) -> u64 {
        let mut x = self.chaos.get();
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.chaos.set(x);
        x.wrapping_mul(0x2545_f491_4f6c_dd1d) % n.max(1)
    }

    /// The tier running `func` now.
    pub(crate) fn tier_of(&self, func: FuncId) -> Tier {
        self.native.borrow().tier_of(func).unwrap_or(Tier::Interp)
    }

    /// `func`'s interpreter counters: calls and loop back edges left
    /// before `auto` promotes it (`None` without a body).
    pub(crate) fn counters(&self, func: FuncId) -> Option<(i32, i32)> {
        self.interp.counters(func)
    }

    /// Functions promoted by counters so far.
    pub(crate) fn promotions(&self) -> u64 {
        self.promotions.get()
    }

    /// Of the promotions so far, those from T2 to T3.
    pub(crate) fn full_promotions(&self) -> u64 {
        self.full_promotions.get()
    }

    /// Activations continued in compiled code at a loop header so far
    /// (on-stack replacement).
    pub(crate) fn osr_entries(&self) -> u64 {
        self.osr_entries.get()
    }

    /// `func`'s machine code, if it runs natively (a copy).
    pub(crate) fn code(&self, func: FuncId) -> Option<Vec<u8>> {
        self.native.borrow().code(func).map(<[u8]>::to_vec)
    }

    /// Live native units and the machine-code bytes they hold.
    pub(crate) fn native_memory(&self) -> (usize, usize) {
        self.native.borrow().memory()
    }
}

/// The host every tier sees during a call of the executor: the runtime,
/// plus calls between tiers and promotion.
pub(crate) struct TieredHost<'a> {
    rt: &'a mut Runtime,
    exec: &'a Executor,
    program: &'a Program,
}

impl TieredHost<'_> {
    /// Counts a call of `func` that did not come from the interpreter's
    /// call instruction (from Rust, or from compiled code through a stub),
    /// promoting it when its counter runs out.
    fn count_call(&mut self, func: FuncId) {
        let exec = self.exec;
        if exec.tier.get() != Tier::Auto || exec.interp.is_external(func) {
            return;
        }
        if let Some((calls, edges)) = exec.interp.counters(func) {
            // Counted down from `i32::MAX` too (a function with a loop):
            // how many activations ran tells long loops from short ones.
            if calls <= 1 {
                self.hot(func, false);
            } else {
                exec.interp.set_counters(func, calls - 1, edges);
            }
        }
    }
}

impl Host for TieredHost<'_> {
    fn intern_str(&mut self, s: &str) -> Word {
        self.rt.intern_str(s)
    }
    fn globals(&mut self) -> &mut [Word] {
        self.rt.globals()
    }
    fn array_new(&mut self, elem: Type, elems: &[Word], roots: &[Word]) -> Result<Word, TrapCode> {
        self.rt.array_new(elem, elems, roots)
    }
    fn array_repeat(
        &mut self,
        elem: Type,
        value: Word,
        count: i64,
        roots: &[Word],
    ) -> Result<Word, TrapCode> {
        self.rt.array_repeat(elem, value, count, roots)
    }
    fn array_push(&mut self, array: Word, value: Word, roots: &[Word]) -> Result<(), TrapCode> {
        self.rt.array_push(array, value, roots)
    }
    fn str_concat(&mut self, a: Word, b: Word, roots: &[Word]) -> Result<Word, TrapCode> {
        self.rt.str_concat(a, b, roots)
    }
    fn to_str(&mut self, ty: Type, value: Word, roots: &[Word]) -> Result<Word, TrapCode> {
        self.rt.to_str(ty, value, roots)
    }
    fn print(&mut self, ty: Type, value: Word) {
        self.rt.print(ty, value)
    }
    fn host_call(&mut self, id: HostFnId, args: &[Word], roots: &[Word]) -> Result<Word, TrapCode> {
        self.rt.host_call(id, args, roots)
    }
    fn clock(&mut self) -> f64 {
        self.rt.clock()
    }
    fn consume_fuel(&mut self, units: u64) -> Result<(), TrapCode> {
        self.rt.consume_fuel(units)
    }
    fn fuel_limited(&self) -> bool {
        self.rt.fuel_limited()
    }
    fn trace_frame(&mut self, func: FuncId, loc: SrcLoc) {
        self.rt.trace_frame(func, loc)
    }

    fn call_func(&mut self, func: FuncId, args: &[Word], roots: &[Word]) -> Result<Word, Trap> {
        let exec = self.exec;
        // SAFETY: `roots` are the caller's frames (the interpreter's value
        // stack of a suspended activation, or the native stack above a
        // stub's helper); neither moves nor is freed before the callee
        // returns, when the range is popped.
        unsafe { self.rt.push_roots(roots) };
        exec.poll(self.program, self.rt);
        self.count_call(func);
        let unit = exec.native.borrow().unit_of(func);
        let r = match unit {
            Some(unit) => {
                let (ptr, n) = {
                    let native = exec.native.borrow();
                    (native.strings().as_ptr(), native.strings().len())
                };
                // SAFETY: as in `Executor::call`.
                let strings = unsafe { std::slice::from_raw_parts(ptr, n) };
                unit.call_shared(
                    self,
                    func,
                    args,
                    strings,
                    Some(exec.stack_budget.get()),
                    EntryLoc::CallSite,
                )
            }
            None => {
                if !exec.interp.is_external(func) {
                    exec.interp.call_at(self, func, args, SrcLoc::NONE)
                } else {
                    // Marked external but without code: an internal error.
                    Err(Trap {
                        code: TrapCode::AssertionFailed,
                        loc: SrcLoc::NONE,
                    })
                }
            }
        };
        self.rt.pop_roots();
        r
    }

    fn hot(&mut self, func: FuncId, back_edge: bool) {
        let exec = self.exec;
        if self.program.funcs.get(func).is_none() {
            return;
        }
        if exec.tier.get() != Tier::Auto || exec.pin_of(func).is_some() {
            exec.interp.set_counters(func, i32::MAX, i32::MAX);
            return;
        }
        exec.poll(self.program, self.rt);
        if exec.interp.is_external(func) {
            // A counter in T1 code ran out (T1 -> T2), or one in T2 code
            // (T2 -> T3), or a compile is pending (`poll` above installed
            // it if it is done).
            let reason = if back_edge { "loop" } else { "calls" };
            let sync = exec.options.sync;
            match exec.tier_of(func) {
                Tier::Baseline => exec.promote(self.program, func, self.rt, reason, sync),
                Tier::Opt => exec.promote_full(self.program, func, self.rt, reason, sync),
                _ => {}
            }
            return;
        }
        if back_edge && exec.short_loops(self.program, func, self.rt) {
            return;
        }
        if back_edge {
            // A back edge to a block that heads no loop ran the counter
            // out: the interpreter asks for on-stack replacement at the
            // next back edge to a loop header ([`Host::osr`]); the next
            // call promotes.
            let calls = if exec.options.chaos.is_some() {
                1 + exec.random(6) as i32
            } else {
                1
            };
            exec.interp.set_counters(func, calls, i32::MAX);
            return;
        }
        // A loop function promoted before its first run (`loops = 0`)
        // compiles at once.
        let first_run = !back_edge
            && exec.options.thresholds.loops == 0
            && exec.options.chaos.is_none()
            && tiering::has_loop(&self.program.funcs[func]);
        let reason = match (back_edge, first_run) {
            (true, _) => "loop",
            (false, true) => "first run",
            (false, false) => "calls",
        };
        let sync = exec.options.sync || first_run;
        exec.promote(self.program, func, self.rt, reason, sync);
    }

    fn osr(
        &mut self,
        func: FuncId,
        header: Block,
        frame: &LoopFrame<'_>,
        roots: &[Word],
    ) -> Option<Result<Word, Trap>> {
        self.enter_osr(func, header, frame, roots)
    }

    fn osr_native(
        &mut self,
        func: FuncId,
        header: Block,
        frame: &LoopFrame<'_>,
        roots: &[Word],
    ) -> Option<Result<Word, Trap>> {
        self.enter_osr_native(func, header, frame, roots)
    }
}
