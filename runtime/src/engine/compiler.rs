//! The background compiler: a thread that runs the native code generator
//! for the tiering controller, fed by a queue.
//!
//! The executor builds each job on its own thread (the unit's program,
//! with every other function a declaration, and the options including the
//! shared string table as it is now) and [`Compiler::submit`]s it; the
//! compiler thread compiles it and parks the result in the done list. The
//! executor installs finished units at its next safe point
//! ([`Compiler::take_done`]: between interpreter instructions or at a
//! call between tiers), checking that the function has not changed since
//! the job was built (its generation) and that the string table still
//! agrees. The queue is a mutex and a condition variable (`std::sync`: the
//! build is offline and `parking_lot` is not vendored).
//!
//! A T3 job (`target` [`Tier::Full`]) runs the VSDG round trip over the
//! function before Cranelift (unless its `-O` pipeline already did) ([`compile_job`]), so the whole T3 compile is
//! off the running thread.

use std::collections::VecDeque;
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use waddle_jit::{JitOptions, NativeProgram};
use waddle_opt::ir::{FuncId, Function, Program};
use waddle_opt::passes::{Pipeline, PipelineOptions, VSDG_TAIL};

use super::native::{build_osr_entry, OsrMeta};
use crate::Tier;

/// One compile request.
pub(crate) struct Job {
    /// The function promoted.
    pub func: FuncId,
    /// Its generation when the job was built (a redefinition bumps it).
    pub generation: u64,
    /// The unit's program.
    pub program: Program,
    /// The code generator.
    pub tier: waddle_jit::Tier,
    /// Its options.
    pub options: JitOptions,
    /// The tier the function is promoted to ([`Tier::Opt`] or
    /// [`Tier::Full`]).
    pub target: Tier,
    /// Whether the unit goes through the VSDG round trip first (see
    /// [`compile_job`]).
    pub vsdg: bool,
    /// Why (a [`super::TierEvent`] reason).
    pub reason: &'static str,
    /// For an on-stack-replacement entry: what linking it needs (the
    /// entry is the unit's last function, see `NativeCode::osr_job`).
    pub osr: Option<OsrMeta>,
    /// For an OSR entry not built yet: the function it is built from
    /// here, before the compile (`NativeCode::osr_job_deferred`).
    pub osr_source: Option<Function>,
}

/// A finished job.
pub(crate) struct Done {
    /// The function.
    pub func: FuncId,
    /// Its generation when the job was built.
    pub generation: u64,
    /// The tier the function is promoted to.
    pub target: Tier,
    /// Why.
    pub reason: &'static str,
    /// For an OSR entry: what linking it needs.
    pub osr: Option<OsrMeta>,
    /// The compiled unit, or why there is none.
    pub unit: Result<Box<dyn NativeProgram>, String>,
    /// Time spent compiling.
    pub took: Duration,
    /// Whether the unit went through the VSDG round trip (such code is
    /// not installed once the store has a fuel budget, see
    /// `Executor::needs_vsdg`).
    pub vsdg: bool,
}

#[derive(Default)]
struct Queue {
    jobs: VecDeque<Job>,
    done: Vec<Done>,
    /// Jobs taken by the thread and not finished yet.
    busy: usize,
    shutdown: bool,
}

struct Shared {
    queue: Mutex<Queue>,
    /// Signalled when a job is queued or shutdown is requested.
    work: Condvar,
    /// Signalled when a job finishes.
    finished: Condvar,
}

/// A compiler thread and its queue.
pub(crate) struct Compiler {
    shared: Arc<Shared>,
    thread: Option<JoinHandle<()>>,
}

/// Stack of the compiler thread (Cranelift recurses on big functions).
const COMPILER_STACK: usize = 64 << 20;

impl Compiler {
    /// Starts the thread; `None` if the system refuses one.
    pub(crate) fn start() -> Option<Compiler> {
        let shared = Arc::new(Shared {
            queue: Mutex::new(Queue::default()),
            work: Condvar::new(),
            finished: Condvar::new(),
        });
        let s = shared.clone();
        let thread = std::thread::Builder::new()
            .name("waddle-jit".to_string())
            .stack_size(COMPILER_STACK)
            .spawn(move || worker(&s))
            .ok()?;
        Some(Compiler {
            shared,
            thread: Some(thread),
        })
    }

    /// Queues `job`.
    pub(crate) fn submit(&self, job: Job) {
        let mut q = lock(&self.shared.queue);
        q.jobs.push_back(job);
        self.shared.work.notify_one();
    }

    /// The jobs finished since the last call.
    pub(crate) fn take_done(&self) -> Vec<Done> {
        std::mem::take(&mut lock(&self.shared.queue).done)
    }

    /// Whether jobs are queued or running.
    pub(crate) fn pending(&self) -> bool {
        let q = lock(&self.shared.queue);
        !q.jobs.is_empty() || q.busy > 0
    }

    /// Blocks until every queued job has finished.
    pub(crate) fn wait_idle(&self) {
        let mut q = lock(&self.shared.queue);
        while !q.jobs.is_empty() || q.busy > 0 {
            q = self
                .shared
                .finished
                .wait(q)
                .unwrap_or_else(|p| p.into_inner());
        }
    }
}

impl Drop for Compiler {
    fn drop(&mut self) {
        lock(&self.shared.queue).shutdown = true;
        self.shared.work.notify_all();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn lock(m: &Mutex<Queue>) -> std::sync::MutexGuard<'_, Queue> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// The compiler thread: takes jobs until shutdown.
fn worker(shared: &Shared) {
    loop {
        let job = {
            let mut q = lock(&shared.queue);
            loop {
                if q.shutdown {
                    return;
                }
                if let Some(job) = q.jobs.pop_front() {
                    q.busy += 1;
                    break job;
                }
                q = shared.work.wait(q).unwrap_or_else(|p| p.into_inner());
            }
        };
        let start = Instant::now();
        let mut program = job.program;
        let mut osr = job.osr;
        let built = match (&job.osr_source, &mut osr) {
            (Some(source), Some(meta)) => build_osr_entry(&mut program, source, meta),
            _ => Ok(()),
        };
        let unit = built.and_then(|()| compile_job(&mut program, job.vsdg, job.tier, &job.options));
        let done = Done {
            func: job.func,
            generation: job.generation,
            target: job.target,
            reason: job.reason,
            osr,
            unit,
            took: start.elapsed(),
            vsdg: job.vsdg,
        };
        let mut q = lock(&shared.queue);
        q.busy -= 1;
        q.done.push(done);
        shared.finished.notify_all();
    }
}

/// Compiles a job's unit `program` with code generator `tier`, with `vsdg`
/// (T3 over a function whose `-O` pipeline did not include it) after the
/// VSDG round trip and its cleanup ([`VSDG_TAIL`], through the pass
/// pipeline): the program already ran its `-O` pipeline, so the unit's
/// functions then have what `--tier full` gives them. A panic in a pass or
/// the code generator is an `Err`, like a rejected function: the function
/// stays where it runs.
pub(crate) fn compile_job(
    program: &mut Program,
    vsdg: bool,
    tier: waddle_jit::Tier,
    options: &JitOptions,
) -> Result<Box<dyn NativeProgram>, String> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        if vsdg {
            Pipeline::from_names(VSDG_TAIL)
                .and_then(|p| p.run(program, &PipelineOptions::default(), &mut ()))
                .map_err(|e| e.to_string())?;
        }
        waddle_jit::compile(tier, program, options).map_err(|e| e.to_string())
    }))
    .unwrap_or_else(|_| Err("the optimizer or code generator panicked".to_string()))
}
