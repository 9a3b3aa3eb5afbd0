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

use std::cell::{Cell, RefCell};

use cranelift_entity::EntityRef;
use waddle_opt::abi::{Trap, TrapCode, Word};
use waddle_opt::interp::{Host, Interpreter};
use waddle_opt::ir::{FuncId, HostFnId, Program, SrcLoc, Type};

use super::native::NativeCode;
use super::tiering::{self, TierThresholds};
use crate::driver::Tier;
use crate::host::Runtime;

/// Runs functions of a program on the interpreter and native tiers.
pub(crate) struct Executor {
    interp: Interpreter,
    native: RefCell<NativeCode>,
    /// The tier policy of the last [`Executor::prepare`].
    tier: Cell<Tier>,
    thresholds: TierThresholds,
    /// Whether native code counts fuel.
    fuel: Cell<bool>,
    /// Per function: its counters are armed for `auto`.
    armed: RefCell<Vec<bool>>,
    /// Per function: a tier it is pinned to (`None`: the policy decides).
    pins: Vec<Option<Tier>>,
    /// Auto's compile of the current program failed: interpret until a
    /// function changes.
    native_failed: Cell<bool>,
    /// Calls from Rust running now (0: no Waddle code runs).
    depth: Cell<usize>,
    /// Functions promoted by counters so far.
    promotions: Cell<u64>,
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
        thresholds: TierThresholds,
    ) -> Executor {
        let mut interp = Interpreter::new(program, host);
        interp.set_stack_budget(stack_budget);
        Executor {
            interp,
            native: RefCell::new(NativeCode::new(stack_budget)),
            tier: Cell::new(Tier::Interp),
            thresholds,
            fuel: Cell::new(false),
            armed: RefCell::new(Vec::new()),
            pins: Vec::new(),
            native_failed: Cell::new(false),
            depth: Cell::new(0),
            promotions: Cell::new(0),
        }
    }

    /// Re-prepares `func` after it was added or redefined; its native code
    /// (if any) is dropped and it starts over on the interpreter.
    pub(crate) fn update(&mut self, program: &Program, func: FuncId, host: &mut dyn Host) {
        self.interp.update(program, func, host);
        self.drop_native(func);
        if let Some(a) = self.armed.get_mut().get_mut(func.index()) {
            *a = false;
        }
        self.native_failed.set(false);
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

    fn pin_of(&self, func: FuncId) -> Option<Tier> {
        self.pins.get(func.index()).copied().flatten()
    }

    /// Brings the native code in line with `tier` before `run` (if any)
    /// executes: an eager tier compiles every function that is not native
    /// yet; `auto` arms the counters of new functions (and compiles `run`
    /// at once when the policy says so). `Err` when `tier` is an explicit
    /// native tier that cannot compile.
    pub(crate) fn prepare(
        &mut self,
        program: &Program,
        host: &mut Runtime,
        tier: Tier,
        fuel: bool,
    ) -> Result<(), String> {
        let native = tiering::native_tier(tier);
        if native.is_none() && tier != Tier::Interp {
            return Err(format!("tier `{tier}` is not available in this build"));
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
        if fuel && !self.native.get_mut().counts_fuel() {
            // Code compiled without fuel checks cannot enforce a budget.
            self.native.get_mut().clear();
            for id in program.funcs.keys() {
                self.interp.set_external(id, false);
            }
            self.armed.get_mut().clear();
        }
        self.fuel.set(fuel);
        // Pinned functions first.
        let mut by_tier: Vec<(Tier, Vec<FuncId>)> = Vec::new();
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
                Some(t) => match by_tier.iter_mut().find(|(bt, _)| *bt == t) {
                    Some((_, v)) => v.push(id),
                    None => by_tier.push((t, vec![id])),
                },
            }
        }
        for (t, funcs) in by_tier {
            if !t.is_available() {
                return Err(format!("tier `{t}` is not available in this build"));
            }
            let r = self
                .native
                .get_mut()
                .install(program, &funcs, t, fuel, host);
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
        if tier == Tier::Auto && !self.native_failed.get() && native.is_some() {
            self.arm(program);
        }
        Ok(())
    }

    /// Arms the interpreter's counters of every function `auto` may promote
    /// and has not armed yet.
    fn arm(&self, program: &Program) {
        let mut armed = self.armed.borrow_mut();
        if armed.len() < program.funcs.len() {
            armed.resize(program.funcs.len(), false);
        }
        let t = self.thresholds;
        for (id, f) in program.funcs.iter() {
            if armed[id.index()] || f.is_declaration() || self.pin_of(id).is_some() {
                continue;
            }
            armed[id.index()] = true;
            if self.native.borrow().has(id) {
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
                unit.call_shared(&mut th, func, args, strings)
            }
            None => self.interp.call(&mut th, func, args),
        };
        self.depth.set(self.depth.get() - 1);
        if self.depth.get() == 0 {
            self.native.borrow_mut().free_retired();
        }
        r
    }

    /// Promotes `func` (a counter ran out): compiles it with T2 and makes
    /// every caller reach the new code. On failure it stays interpreted
    /// and is not counted again.
    fn promote(&self, program: &Program, func: FuncId, host: &mut Runtime) {
        let fuel = self.fuel.get();
        let r = self
            .native
            .borrow_mut()
            .install(program, &[func], Tier::Opt, fuel, host);
        if r.is_ok() && self.native.borrow().has(func) {
            self.interp.set_external(func, true);
            self.promotions.set(self.promotions.get() + 1);
        } else {
            self.interp.set_counters(func, i32::MAX, i32::MAX);
        }
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
            if calls <= 1 {
                self.hot(func, false);
            } else if calls != i32::MAX {
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

    fn call_func(&mut self, func: FuncId, args: &[Word], roots: &[Word]) -> Result<Word, Trap> {
        let exec = self.exec;
        // SAFETY: `roots` are the caller's frames (the interpreter's value
        // stack of a suspended activation, or the native stack above a
        // stub's helper); neither moves nor is freed before the callee
        // returns, when the range is popped.
        unsafe { self.rt.push_roots(roots) };
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
                unit.call_nested(self, func, args, strings)
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

    fn hot(&mut self, func: FuncId, _back_edge: bool) {
        let exec = self.exec;
        if exec.tier.get() != Tier::Auto || exec.pin_of(func).is_some() {
            exec.interp.set_counters(func, i32::MAX, i32::MAX);
            return;
        }
        exec.promote(self.program, func, self.rt);
    }
}
