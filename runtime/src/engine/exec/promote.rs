//! Promotion: compiling a hot function for a higher tier, at once or on
//! the background compiler thread ([`super::super::compiler`]), and
//! installing finished background compiles at safe points
//! ([`Executor::poll`]). The policy is in [`super::super::tiering`].

use std::time::{Duration, Instant};

use cranelift_entity::EntityRef;
use waddle_opt::ir::{FuncId, Program};

use super::{Executor, POLL_CALLS, POLL_EDGES, SHORT_LOOP_CALLS};
use crate::engine::compiler::{compile_job, Compiler, Done, Job};
use crate::engine::tiering::TierEvent;
use crate::host::Runtime;
use crate::Tier;

impl Executor {
    /// Promotes `func` (a counter ran out, for `reason`): compiles it with
    /// T2 now (`sync`), or with T1 now and T2 on the compiler thread, and
    /// makes every caller reach the new code. Chaos mode may pick T1 or T3
    /// instead of T2. On failure it stays on the
    /// tier it is on and is not counted again.
    pub(super) fn promote(
        &self,
        program: &Program,
        func: FuncId,
        host: &mut Runtime,
        reason: &'static str,
        sync: bool,
    ) {
        let fuel = self.fuel.get();
        // A function whose loops run long waits for T2 on T0, entering its
        // OSR entry at the first back edge of each activation.
        let long = self.has_long_loops(func);
        let poll_edges = if long { 1 } else { POLL_EDGES };
        if self.queued.borrow().get(func.index()) == Some(&true) {
            // Already compiling in the background: look again later.
            self.interp.set_counters(func, POLL_CALLS, poll_edges);
            return;
        }
        // Chaos: at once or in the background at random.
        let sync = sync || (self.options.chaos.is_some() && self.random(2) == 0);
        let from = self.tier_of(func);
        let mut target = Tier::Opt;
        if self.options.chaos.is_some() && from == Tier::Interp {
            // Chaos: T1, T2 or straight to T3.
            target = match self.random(3) {
                0 if Tier::Baseline.is_available() => Tier::Baseline,
                1 if Tier::Full.is_available() => Tier::Full,
                _ => Tier::Opt,
            };
        }
        if !sync {
            if Tier::Baseline.is_available() && from == Tier::Interp && !long {
                // T1 compiles in microseconds: run it while T2 compiles.
                self.install_now(program, func, host, Tier::Baseline, reason);
            }
            // T2 (or, drawn by chaos, T3) on the compiler thread.
            let queued = if target == Tier::Full {
                Tier::Full
            } else {
                Tier::Opt
            };
            if let Ok((unit_program, native, options)) =
                (self.native.borrow()).job(program, &[func], queued, fuel)
            {
                let job = Job {
                    func,
                    generation: self.generation_of(func),
                    program: unit_program,
                    tier: native,
                    options,
                    target: queued,
                    vsdg: self.needs_vsdg(func, queued),
                    reason,
                    osr: None,
                    osr_source: None,
                };
                if self.submit(job) {
                    self.interp.set_counters(func, POLL_CALLS, poll_edges);
                    return;
                }
            }
        }
        if !self.install_now(program, func, host, target, reason) {
            self.interp.set_counters(func, i32::MAX, i32::MAX);
        }
    }

    /// Whether `func`'s loops run long in few activations (see
    /// `Executor::long_loops`).
    pub(super) fn has_long_loops(&self, func: FuncId) -> bool {
        self.long_loops.borrow().get(func.index()) == Some(&true)
    }

    /// A loop counter of interpreted `func` ran out. When many activations
    /// ran before (short loops; not in chaos mode), promotes the whole
    /// function now and returns `true`: no OSR entry, the running
    /// activation finishes on T0 and the next call runs compiled code.
    /// Otherwise records that its loops run long and returns `false`
    /// (on-stack replacement follows).
    pub(super) fn short_loops(&self, program: &Program, func: FuncId, host: &mut Runtime) -> bool {
        let Some((calls, _)) = self.interp.counters(func) else {
            return false;
        };
        if self.options.chaos.is_some() || calls <= 1 {
            return false;
        }
        if i32::MAX - calls >= SHORT_LOOP_CALLS {
            self.promote(program, func, host, "loop", self.options.sync);
            if !self.interp.is_external(func) && !self.is_queued(func) {
                self.interp.set_counters(func, i32::MAX, i32::MAX);
            }
            return true;
        }
        let mut l = self.long_loops.borrow_mut();
        if l.len() <= func.index() {
            l.resize(func.index() + 1, false);
        }
        l[func.index()] = true;
        false
    }

    /// Queues `job` on the compiler thread (started by the first job) and
    /// marks its function (or, for an OSR entry, its function and header)
    /// queued; `false` when no thread can be started.
    pub(super) fn submit(&self, job: Job) -> bool {
        let mut compiler = self.compiler.borrow_mut();
        if compiler.is_none() {
            *compiler = Compiler::start();
        }
        let Some(c) = compiler.as_ref() else {
            return false;
        };
        let func = job.func;
        if let Some(meta) = &job.osr {
            self.osr_queued.borrow_mut().push((func, meta.header));
            c.submit(job);
            return true;
        }
        c.submit(job);
        let mut q = self.queued.borrow_mut();
        if q.len() <= func.index() {
            q.resize(func.index() + 1, false);
        }
        q[func.index()] = true;
        true
    }

    /// Whether a background compile of `func` is queued or running.
    pub(super) fn is_queued(&self, func: FuncId) -> bool {
        self.queued.borrow().get(func.index()) == Some(&true)
    }

    /// Whether `func` stays on T2 (its T3 compile failed).
    pub(super) fn stays_on_opt(&self, func: FuncId) -> bool {
        self.no_full.borrow().get(func.index()) == Some(&true)
    }

    /// Records that T3 failed for `func`'s current body.
    pub(super) fn set_stays_on_opt(&self, func: FuncId) {
        let mut n = self.no_full.borrow_mut();
        if n.len() <= func.index() {
            n.resize(func.index() + 1, false);
        }
        n[func.index()] = true;
    }

    /// Promotes `func` from T2 to T3 (a counter of its T2 code ran out, for
    /// `reason`): the VSDG round trip and Cranelift ([`compile_job`]) on
    /// the compiler thread, installed at a later safe point, or at once
    /// (`sync`). The frames running its T2 code finish there. When T3
    /// fails, the function stays on T2 for good.
    pub(super) fn promote_full(
        &self,
        program: &Program,
        func: FuncId,
        host: &mut Runtime,
        reason: &'static str,
        sync: bool,
    ) {
        if self.is_queued(func) || self.stays_on_opt(func) {
            return;
        }
        // Chaos: T3 compiles at once or in the background at random.
        let sync = sync || (self.options.chaos.is_some() && self.random(2) == 0);
        if !sync {
            let fuel = self.fuel.get();
            let job = (self.native.borrow()).job(program, &[func], Tier::Full, fuel);
            let Ok((unit_program, native, options)) = job else {
                self.set_stays_on_opt(func);
                return;
            };
            let job = Job {
                func,
                generation: self.generation_of(func),
                program: unit_program,
                tier: native,
                options,
                target: Tier::Full,
                vsdg: self.needs_vsdg(func, Tier::Full),
                reason,
                osr: None,
                osr_source: None,
            };
            // Without a compiler thread, T3 is not worth a pause.
            if !self.submit(job) {
                self.set_stays_on_opt(func);
            }
            return;
        }
        if !self.install_now(program, func, host, Tier::Full, reason) {
            self.set_stays_on_opt(func);
        }
    }

    pub(super) fn generation_of(&self, func: FuncId) -> u64 {
        self.generation
            .borrow()
            .get(func.index())
            .copied()
            .unwrap_or(0)
    }

    /// Compiles `func` with `tier` on this thread (T3: with the VSDG round
    /// trip, [`compile_job`]) and installs it; whether it runs natively now.
    pub(super) fn install_now(
        &self,
        program: &Program,
        func: FuncId,
        host: &mut Runtime,
        tier: Tier,
        reason: &'static str,
    ) -> bool {
        let from = self.tier_of(func);
        let fuel = self.fuel.get();
        let start = Instant::now();
        let job = self.native.borrow().job(program, &[func], tier, fuel);
        let unit = job
            .map_err(|e| e.to_string())
            .and_then(|(mut p, native, options)| {
                compile_job(&mut p, self.needs_vsdg(func, tier), native, &options)
            });
        let took = start.elapsed();
        let linked = unit.is_ok_and(|unit| {
            (self.native.borrow_mut())
                .link(program, &[func], unit, tier, fuel, host)
                .is_ok()
        });
        if linked && self.native.borrow().has(func) {
            self.installed(program, func, from, tier, reason, took, false);
            true
        } else {
            false
        }
    }

    /// Records that `func` moved from `from` to `to`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn installed(
        &self,
        program: &Program,
        func: FuncId,
        from: Tier,
        to: Tier,
        reason: &'static str,
        took: Duration,
        background: bool,
    ) {
        self.interp.set_external(func, true);
        self.promotions.set(self.promotions.get() + 1);
        if to == Tier::Full {
            self.full_promotions.set(self.full_promotions.get() + 1);
        }
        if let Some(hook) = &self.options.hook {
            let code_bytes = self.native.borrow().code(func).map_or(0, <[u8]>::len);
            (hook.0)(&TierEvent {
                function: program.funcs[func].name().to_string(),
                from,
                to,
                reason,
                compile: took,
                code_bytes,
                background,
            });
        }
    }

    /// Installs the background compiles that finished (a safe point: no
    /// frame is between two instructions of a function being replaced).
    pub(super) fn poll(&self, program: &Program, host: &mut Runtime) {
        let mut done = match self.compiler.borrow().as_ref() {
            Some(c) => c.take_done(),
            None => return,
        };
        if self.options.chaos.is_some() {
            // Chaos: each finished compile waits a random number of safe
            // points before it is installed.
            done.append(&mut self.deferred.borrow_mut());
            let (now, later): (Vec<Done>, Vec<Done>) =
                done.into_iter().partition(|_| self.random(3) == 0);
            *self.deferred.borrow_mut() = later;
            done = now;
        }
        for d in done {
            if d.osr.is_some() {
                self.link_osr_done(program, d, host);
                continue;
            }
            if let Some(q) = self.queued.borrow_mut().get_mut(d.func.index()) {
                *q = false;
            }
            if d.generation != self.generation_of(d.func)
                || self.unmetered_code(&d)
                || program.funcs.get(d.func).is_none_or(|f| f.is_declaration())
                || self.tier.get() != Tier::Auto
                || self.pin_of(d.func).is_some()
            {
                continue;
            }
            let from = self.tier_of(d.func);
            let ok = d.unit.map_err(drop).and_then(|unit| {
                self.native
                    .borrow_mut()
                    .link(program, &[d.func], unit, d.target, self.fuel.get(), host)
                    .map_err(drop)
            });
            if ok.is_ok() && self.native.borrow().has(d.func) {
                self.installed(program, d.func, from, d.target, d.reason, d.took, true);
            } else if d.target == Tier::Full {
                self.set_stays_on_opt(d.func);
            } else if from == Tier::Interp {
                // Out of date (the string table moved on) or failed: count
                // again from the start.
                let t = self.options.thresholds;
                self.interp
                    .set_counters(d.func, t.calls as i32, t.loops.max(1) as i32);
            }
        }
    }

    /// Waits for the background compiler and installs everything it
    /// finished (tests and measurements).
    pub(crate) fn finish_compiles(&self, program: &Program, host: &mut Runtime) {
        if let Some(c) = self.compiler.borrow().as_ref() {
            c.wait_idle();
        }
        while !self.deferred.borrow().is_empty() || self.compiling() {
            self.poll(program, host);
        }
        self.poll(program, host);
    }

    /// Whether background compiles are queued or running.
    pub(crate) fn compiling(&self) -> bool {
        self.compiler
            .borrow()
            .as_ref()
            .is_some_and(Compiler::pending)
    }
}
