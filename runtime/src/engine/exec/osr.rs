//! On-stack replacement in the executor ([`waddle_opt::osr`]): when an
//! interpreted activation's loop is hot, it continues in compiled code at
//! the loop header ([`TieredHost::enter_osr`], the executor's
//! [`waddle_opt::interp::Host::osr`]).
//!
//! The entry is compiled once per function and header and kept for later
//! activations. It compiles on the spot, so the entry happens at the back
//! edge that asked: while a background compile waits the interpreter
//! makes almost no progress and takes CPU the compile needs. Only for a
//! function of more than [`OSR_SYNC_MAX_INSTS`] instructions (a long
//! pause) does the compile run on the compiler thread: the loop goes on
//! in the interpreter, whose back-edge counter comes back every
//! [`POLL_EDGES`] back edges; the finished entry is linked at the next safe
//! point ([`Executor::poll`]) and entered at the next back-edge check after
//! that.

use std::sync::Arc;
use std::time::{Duration, Instant};

use waddle_jit::EntryLoc;
use waddle_opt::abi::{Trap, Word};
use waddle_opt::interp::LoopFrame;
use waddle_opt::ir::{Block, FuncId, Program, SrcLoc};

use super::{Executor, TieredHost, POLL_EDGES};
use crate::engine::compiler::{Done, Job};
use crate::engine::native::OsrCode;
use crate::engine::tiering::TierEvent;
use crate::host::Runtime;
use crate::Tier;

/// Instructions above which a function's OSR entry compiles on the
/// compiler thread while its loop goes on in T0 (below: on the spot).
pub(crate) const OSR_SYNC_MAX_INSTS: usize = 1500;

/// An OSR entry linked but not entered yet: how long it took to compile
/// and whether on the compiler thread (its first entry reports these).
pub(super) struct Fresh {
    func: FuncId,
    header: Block,
    took: Duration,
    background: bool,
}

impl Executor {
    /// Compiles and links the OSR entry of `func` at `header` on this
    /// thread; `false` when `header` is no OSR point or the compile failed.
    fn compile_osr(
        &self,
        program: &Program,
        func: FuncId,
        header: Block,
        host: &mut Runtime,
        tier: Tier,
    ) -> bool {
        let fuel = self.fuel.get();
        let job = (self.native.borrow()).osr_job(program, func, header, tier, fuel);
        let Ok(Some(job)) = job else {
            return false;
        };
        let meta = job.meta(program);
        let start = Instant::now();
        let Ok(compiled) = waddle_jit::compile(job.tier, &job.program, &job.options) else {
            return false;
        };
        let took = start.elapsed();
        let linked = (self.native.borrow_mut()).link_osr(program, meta, compiled, tier, fuel, host);
        if linked.is_err() {
            return false;
        }
        self.osr_fresh.borrow_mut().push(Fresh {
            func,
            header,
            took,
            background: false,
        });
        true
    }

    /// Queues the OSR entry of `func` at `header` on the compiler thread;
    /// `false` when `header` is no OSR point or no thread can run it.
    /// The entry is built on the compiler thread too: for a function this
    /// large that takes as long as interpreting a few thousand of its
    /// instructions, which a program that ends soon should not pay.
    fn submit_osr(&self, program: &Program, func: FuncId, header: Block, tier: Tier) -> bool {
        let fuel = self.fuel.get();
        let job = (self.native.borrow()).osr_job_deferred(program, func, header, tier, fuel);
        let Ok(job) = job else {
            return false;
        };
        self.submit(Job {
            func,
            generation: self.generation_of(func),
            program: job.program,
            tier: job.tier,
            options: job.options,
            target: tier,
            vsdg: self.needs_vsdg(func, tier),
            reason: "osr",
            osr: Some(job.meta),
            osr_source: Some(job.source),
        })
    }

    /// Whether an OSR entry of `func` (at any header) is compiling in the
    /// background. One at a time per function: the back edges of a loop
    /// nest reach its headers in turn, and one entry runs the rest of the
    /// activation from any of them.
    fn osr_pending(&self, func: FuncId) -> bool {
        self.osr_queued.borrow().iter().any(|&(f, _)| f == func)
    }

    /// Links a finished background OSR compile (from [`Executor::poll`]).
    /// When it cannot be used, the function is promoted at its next call
    /// instead.
    pub(super) fn link_osr_done(&self, program: &Program, d: Done, host: &mut Runtime) {
        let stale = self.unmetered_code(&d);
        let Some(meta) = d.osr else {
            return;
        };
        let (func, header) = (meta.func, meta.header);
        self.osr_queued
            .borrow_mut()
            .retain(|&k| k != (func, header));
        if stale {
            return;
        }
        if d.generation != self.generation_of(func)
            || program.funcs.get(func).is_none_or(|f| f.is_declaration())
            || self.tier.get() != Tier::Auto
            || self.pin_of(func).is_some()
        {
            return;
        }
        let fuel = self.fuel.get();
        let linked = d.unit.map_err(drop).and_then(|unit| {
            (self.native.borrow_mut())
                .link_osr(program, meta, unit, d.target, fuel, host)
                .map_err(drop)
        });
        match linked {
            Ok(_) => self.osr_fresh.borrow_mut().push(Fresh {
                func,
                header,
                took: d.took,
                background: true,
            }),
            Err(()) if !self.interp.is_external(func) => {
                let edges = self.interp.counters(func).map_or(i32::MAX, |c| c.1);
                self.interp.set_counters(func, 1, edges);
            }
            Err(()) => {}
        }
    }

    /// The compile time and place of the entry of `func` at `header` if it
    /// was never entered (and forgets it: later entries reuse it).
    fn take_fresh(&self, func: FuncId, header: Block) -> Option<(Duration, bool)> {
        let mut fresh = self.osr_fresh.borrow_mut();
        let i = fresh
            .iter()
            .position(|f| f.func == func && f.header == header)?;
        let f = fresh.swap_remove(i);
        Some((f.took, f.background))
    }
}

impl TieredHost<'_> {
    /// [`waddle_opt::interp::Host::osr_native`]: a back-edge counter of T1
    /// code ran out at `header`. The function is promoted for its later
    /// calls (T1 -> T2, as at any T1 counter), and the running activation
    /// continues in the OSR entry at `header` like an interpreted one
    /// ([`TieredHost::enter_osr`]). A trap the entry raised before it
    /// started is located at the back edge (where T1 code reports one),
    /// with this activation's frame, since T1 code then leaves at once.
    pub(super) fn enter_osr_native(
        &mut self,
        func: FuncId,
        header: Block,
        frame: &LoopFrame<'_>,
        roots: &[Word],
    ) -> Option<Result<Word, Trap>> {
        use waddle_opt::interp::Host as _;
        // An OSR entry's own counters (its function is not the program's).
        // T1's frame arrives by slot number; its values sit in the slots
        // of the baseline frame layout of the function it compiled.
        let slots = waddle_jit::baseline::frame_slots(self.program.funcs.get(func)?);
        let frame = frame.with_slots(&slots);
        self.hot(func, true);
        let r = self.enter_osr_from(func, header, &frame, roots, Tier::Baseline)?;
        Some(r.map_err(|mut t| {
            if t.loc == SrcLoc::NONE {
                t.loc = self.program.funcs[func].loc();
                self.trace_frame(func, t.loc);
            }
            t
        }))
    }

    /// [`waddle_opt::interp::Host::osr`]: enters the OSR entry of `func` at
    /// `header` with the live values of `frame` once it is compiled (see
    /// the module docs); `None` keeps the activation in the interpreter.
    pub(super) fn enter_osr(
        &mut self,
        func: FuncId,
        header: Block,
        frame: &LoopFrame<'_>,
        roots: &[Word],
    ) -> Option<Result<Word, Trap>> {
        self.enter_osr_from(func, header, frame, roots, Tier::Interp)
    }

    /// [`TieredHost::enter_osr`] for an activation running on `from` (the
    /// interpreter, whose counters it re-arms, or T1 code, whose helper
    /// re-armed its counter and whose function `hot` promoted already).
    fn enter_osr_from(
        &mut self,
        func: FuncId,
        header: Block,
        frame: &LoopFrame<'_>,
        roots: &[Word],
        from: Tier,
    ) -> Option<Result<Word, Trap>> {
        let exec = self.exec;
        let interp = from == Tier::Interp;
        // The interpreter's counters matter only to an interpreted activation.
        let set_counters = |calls: i32, edges: i32| {
            if interp {
                exec.interp.set_counters(func, calls, edges);
            }
        };
        if exec.tier.get() != Tier::Auto || exec.pin_of(func).is_some() || exec.native_failed.get()
        {
            set_counters(i32::MAX, i32::MAX);
            return None;
        }
        exec.poll(self.program, self.rt);
        let chaos = exec.options.chaos.is_some();
        let calls = exec.interp.counters(func).map_or(i32::MAX, |c| c.0);
        if chaos && exec.random(3) == 0 {
            // Chaos: not at this back edge; maybe a later one.
            set_counters(calls, 1 + exec.random(50) as i32);
            return None;
        }
        if exec.native.borrow().osr_code(func, header).is_none() {
            if exec.osr_pending(func) {
                // Compiling: look again a few back edges later.
                set_counters(calls, POLL_EDGES);
                return None;
            }
            if interp && exec.short_loops(self.program, func, self.rt) {
                return None;
            }
            let tier = if chaos && Tier::Baseline.is_available() && exec.random(2) == 0 {
                Tier::Baseline
            } else {
                Tier::Opt
            };
            // On the spot: the interpreter gains almost nothing while a
            // background compile waits (about 5 % of T2's progress) and
            // burns the CPU the compile needs. Functions large enough for
            // a long pause compile in the background; chaos draws.
            let large = self.program.funcs[func].inst_count() > OSR_SYNC_MAX_INSTS;
            let sync = exec.options.sync || if chaos { exec.random(2) == 0 } else { !large };
            if !sync && exec.submit_osr(self.program, func, header, tier) {
                set_counters(calls, POLL_EDGES);
                return None;
            }
            if !exec.compile_osr(self.program, func, header, self.rt, tier) {
                // No entry here (or the compile failed): stay, and promote
                // at the next call.
                set_counters(calls.min(1), i32::MAX);
                return None;
            }
        }
        let code: Arc<OsrCode> = exec.native.borrow().osr_code(func, header)?;
        let Some(args) = (code.state.iter())
            .map(|&v| {
                let w = frame.value(v)?;
                // T1 code keeps a `bool` in its slot's low byte.
                let bool_ = self.program.funcs[func].value_type(v) == waddle_opt::ir::Type::Bool;
                Some(if bool_ && !interp { w & 0xff } else { w })
            })
            .collect::<Option<Vec<Word>>>()
        else {
            set_counters(calls, i32::MAX);
            return None;
        };
        if !chaos {
            // Later calls start in compiled code.
            set_counters(1, i32::MAX);
        }
        exec.osr_entries.set(exec.osr_entries.get() + 1);
        let fresh = exec.take_fresh(func, header);
        if let Some(hook) = &exec.options.hook {
            let (took, background) = fresh.unwrap_or_default();
            (hook.0)(&TierEvent {
                function: self.program.funcs[func].name().to_string(),
                from,
                to: code.tier,
                reason: if fresh.is_some() {
                    "osr"
                } else {
                    "osr, compiled before"
                },
                compile: took,
                code_bytes: code.unit.code_bytes(),
                background,
            });
        }
        // SAFETY: `roots` are the interpreter's frames below the one the
        // entry takes over (whose live values are `args`, rooted by the
        // entry's own frame), which stay in place until the entry returns
        // and the range is popped.
        unsafe { self.rt.push_roots(roots) };
        let (ptr, n) = {
            let native = exec.native.borrow();
            (native.strings().as_ptr(), native.strings().len())
        };
        // SAFETY: as in `Executor::call`.
        let strings = unsafe { std::slice::from_raw_parts(ptr, n) };
        let budget = Some(exec.stack_budget.get());
        let mark = self.rt.trace_mark();
        let r =
            (code.unit).call_shared(self, code.entry, &args, strings, budget, EntryLoc::CallSite);
        self.rt.pop_roots();
        if r.is_err() {
            // The entry is a function of its own unit: its frames are
            // `func`'s in the stack trace.
            self.rt.retarget_trace(mark, code.entry, func);
        }
        Some(r)
    }
}
