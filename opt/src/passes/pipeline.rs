//! The pass context: runs a list of passes over a program, one function at
//! a time, on one [`Editor`] per function.
//!
//! For each function with a body the driver
//! 1. establishes canonical form once ([`crate::canon::canonicalize`]); a
//!    function that cannot be made canonical (an irreducible CFG, which
//!    only hand-written IR has) is left alone by every pass;
//! 2. opens one [`Editor`] and runs every [`PassKind::Edit`] pass on it in
//!    turn: the dominator tree, loop forest and use lists are computed once
//!    and then repaired locally by the mutation primitives (Fritz ch. 6–9),
//!    instead of being rebuilt for every pass;
//! 3. closes the editor only around a [`PassKind::Rewrite`] pass, which
//!    returns a canonical function;
//! 4. does not run an editing pass again that found nothing to change
//!    while no pass has changed the function since (it would find nothing
//!    again; in verifying mode it runs and must report no change).
//!
//! Canonical form and the maintained analyses are checked from scratch only
//! when [`PipelineOptions::verify`] is set (by default in debug builds, as
//! Cranelift's `verify_if`): then after every pass the editor compares its
//! analyses with a fresh computation, canonical form is checked and the IR
//! verifier runs, and the first failure is a [`PassError::Broken`] naming
//! the pass and the function.
//!
//! [`Instrumentation`] sees every function before and after every pass
//! (for `--print-after`, and for translation validation); with
//! [`PipelineOptions::time`] the [`PassReport`] holds the time of each pass
//! (for `--time-passes`).

use std::fmt;
use std::time::{Duration, Instant};

use cranelift_entity::EntityRef;
use rustc_hash::FxHashMap;

use super::inline::{within_budget, InlineCandidates};
use super::{find_pass, level_pipeline, FuncEnv, Pass, PassKind};
use crate::analysis::callgraph;
use crate::canon;
use crate::editor::Editor;
use crate::ir::{print_function_as, verify_function_as, FuncId, Function, Program};

/// How a pipeline runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PipelineOptions {
    /// Check canonical form, the maintained analyses and the IR after every
    /// pass of every function (default: in debug builds only).
    pub verify: bool,
    /// Measure the time of every pass (see [`PassReport`]).
    pub time: bool,
}

impl Default for PipelineOptions {
    fn default() -> Self {
        PipelineOptions {
            verify: cfg!(debug_assertions),
            time: false,
        }
    }
}

/// Why a pipeline did not run or stopped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PassError {
    /// No registered pass has this name.
    UnknownPass {
        /// The name asked for.
        name: String,
    },
    /// Verification after a pass failed (a bug in the pass).
    Broken {
        /// The pass that ran last.
        pass: &'static str,
        /// The function it broke.
        func: String,
        /// What is wrong.
        message: String,
    },
}

impl fmt::Display for PassError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PassError::UnknownPass { name } => {
                let known: Vec<&str> = super::pass_names().collect();
                write!(
                    f,
                    "unknown pass `{name}` (known passes: {})",
                    known.join(", ")
                )
            }
            PassError::Broken {
                pass,
                func,
                message,
            } => write!(f, "pass `{pass}` broke function `{func}`: {message}"),
        }
    }
}

impl std::error::Error for PassError {}

/// Sees each function before and after each pass. Both methods do nothing
/// by default; `()` is the instrumentation that observes nothing.
pub trait Instrumentation {
    /// Called when function `id` is in canonical form and its passes are
    /// about to start, before the analyses of its first editing run are
    /// built (a clock started here charges them to the passes).
    fn begin_function(&mut self, program: &Program, id: FuncId) {
        let _ = (program, id);
    }

    /// Called before `pass` runs on `func` (function `id` of `program`,
    /// which holds a declaration in its place while it is being optimized).
    fn before_pass(&mut self, pass: &'static str, program: &Program, id: FuncId, func: &Function) {
        let _ = (pass, program, id, func);
    }

    /// Called after `pass` ran on `func`; `changed` is what the pass
    /// reported.
    fn after_pass(
        &mut self,
        pass: &'static str,
        program: &Program,
        id: FuncId,
        func: &Function,
        changed: bool,
    ) {
        let _ = (pass, program, id, func, changed);
    }

    /// Called when the inliner's body for calls of function `id` becomes
    /// `body` (`id` as its own inlining left it, which callers optimized
    /// later inline; see `passes::inline`).
    fn inline_body(&mut self, id: FuncId, body: &Function) {
        let _ = (id, body);
    }

    /// Whether the pipeline must call [`Instrumentation::before_pass`] and
    /// [`Instrumentation::after_pass`] at all (false skips preparing the
    /// function for them).
    fn observes(&self) -> bool {
        true
    }
}

impl Instrumentation for () {
    fn observes(&self) -> bool {
        false
    }
}

/// Instrumentation that prints every function after each of the named
/// passes (`--print-after PASS`), into [`PrintAfter::out`].
#[derive(Clone, Debug, Default)]
pub struct PrintAfter {
    /// The passes after which functions are printed.
    pub passes: Vec<String>,
    /// The printed functions, each under a `; after PASS` line.
    pub out: String,
}

impl Instrumentation for PrintAfter {
    fn after_pass(
        &mut self,
        pass: &'static str,
        program: &Program,
        id: FuncId,
        func: &Function,
        changed: bool,
    ) {
        if self.passes.iter().any(|p| p == pass) {
            let note = if changed { "" } else { " (unchanged)" };
            self.out.push_str(&format!("; after {pass}{note}\n"));
            self.out.push_str(&print_function_as(program, id, func));
        }
    }

    fn observes(&self) -> bool {
        !self.passes.is_empty()
    }
}

/// Time spent in one pass, summed over the functions (and over every
/// place it appears in the pipeline).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PassTime {
    /// The pass, `canonicalize` for establishing canonical form before the
    /// first pass, or `verify` for the checks of [`PipelineOptions::verify`].
    pub name: &'static str,
    /// Total time.
    pub time: Duration,
    /// Total CPU time of the thread that ran it, where the platform reports
    /// it ([`thread_cpu_time`]; zero elsewhere): unlike `time`, it does not
    /// grow when other processes take the CPU.
    pub cpu: Duration,
    /// How many times it ran (once per function and pipeline position).
    pub runs: u32,
    /// How many of those runs changed the function.
    pub changed: u32,
    /// Positions where it did not run because it had found nothing to
    /// change and no pass had changed the function since (not in `runs`).
    pub skipped: u32,
}

/// What a pipeline run measured (times only with [`PipelineOptions::time`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PassReport {
    /// One row per pass, in the order of first appearance.
    pub passes: Vec<PassTime>,
    /// Wall time of the whole run.
    pub total: Duration,
    /// Functions optimized (with a body, canonical).
    pub functions: u32,
}

impl PassReport {
    fn row(&mut self, name: &'static str) -> &mut PassTime {
        let i = match self.passes.iter().position(|p| p.name == name) {
            Some(i) => i,
            None => {
                self.passes.push(PassTime {
                    name,
                    time: Duration::ZERO,
                    cpu: Duration::ZERO,
                    runs: 0,
                    changed: 0,
                    skipped: 0,
                });
                self.passes.len() - 1
            }
        };
        &mut self.passes[i]
    }

    /// Adds `other`'s figures to this report.
    pub fn merge(&mut self, other: &PassReport) {
        for p in &other.passes {
            let row = self.row(p.name);
            row.time += p.time;
            row.cpu += p.cpu;
            row.runs += p.runs;
            row.changed += p.changed;
            row.skipped += p.skipped;
        }
        self.total += other.total;
        self.functions += other.functions;
    }
}

impl fmt::Display for PassReport {
    /// The `--time-passes` table.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let total = self.total.as_secs_f64().max(1e-12);
        writeln!(
            f,
            "{:<12} {:>10} {:>6} {:>10} {:>7} {:>8}",
            "pass", "time ms", "%", "cpu ms", "runs", "changed"
        )?;
        for p in &self.passes {
            writeln!(
                f,
                "{:<12} {:>10.3} {:>5.1}% {:>10.3} {:>7} {:>8}",
                p.name,
                p.time.as_secs_f64() * 1e3,
                p.time.as_secs_f64() / total * 100.0,
                p.cpu.as_secs_f64() * 1e3,
                p.runs,
                p.changed
            )?;
        }
        writeln!(
            f,
            "{:<12} {:>10.3} {:>6} {:>10} {:>7}  ({} functions)",
            "total",
            self.total.as_secs_f64() * 1e3,
            "",
            "",
            "",
            self.functions
        )
    }
}

/// CPU time consumed so far by the calling thread
/// (`CLOCK_THREAD_CPUTIME_ID`), on 64-bit Linux; `None` elsewhere.
#[cfg(all(target_os = "linux", target_pointer_width = "64"))]
pub fn thread_cpu_time() -> Option<Duration> {
    #[repr(C)]
    struct Timespec {
        tv_sec: i64,
        tv_nsec: i64,
    }
    extern "C" {
        fn clock_gettime(clock: i32, tp: *mut Timespec) -> i32;
    }
    const CLOCK_THREAD_CPUTIME_ID: i32 = 3;
    let mut ts = Timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `clock_gettime` is the C library's (Linux, 64-bit: `time_t`
    // and `long` are 64 bits wide, so `Timespec` has `struct timespec`'s
    // layout) and only writes the `timespec` that `ts` points to.
    let r = unsafe { clock_gettime(CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    (r == 0).then(|| {
        Duration::new(
            ts.tv_sec.max(0) as u64,
            ts.tv_nsec.clamp(0, 999_999_999) as u32,
        )
    })
}

/// CPU time consumed so far by the calling thread: not reported on this
/// platform.
#[cfg(not(all(target_os = "linux", target_pointer_width = "64")))]
pub fn thread_cpu_time() -> Option<Duration> {
    None
}

/// A list of registered passes to run in order.
#[derive(Clone)]
pub struct Pipeline {
    passes: Vec<&'static Pass>,
}

impl fmt::Debug for Pipeline {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries(self.passes.iter().map(|p| p.name))
            .finish()
    }
}

impl Pipeline {
    /// The passes called `names`, in order; the first unknown name is an
    /// error.
    pub fn from_names<S: AsRef<str>>(names: &[S]) -> Result<Pipeline, PassError> {
        let passes = names
            .iter()
            .map(|n| {
                find_pass(n.as_ref()).ok_or_else(|| PassError::UnknownPass {
                    name: n.as_ref().to_string(),
                })
            })
            .collect::<Result<_, _>>()?;
        Ok(Pipeline { passes })
    }

    /// The pipeline of optimization level `opt_level`.
    pub fn for_level(opt_level: u8) -> Pipeline {
        Pipeline {
            passes: level_pipeline(opt_level)
                .iter()
                .map(|n| find_pass(n).expect("level pipelines name registered passes"))
                .collect(),
        }
    }

    /// The names of the passes, in order.
    pub fn names(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.passes.iter().map(|p| p.name)
    }

    /// Runs the passes over every function of `program` with a body.
    pub fn run(
        &self,
        program: &mut Program,
        options: &PipelineOptions,
        instr: &mut dyn Instrumentation,
    ) -> Result<PassReport, PassError> {
        let start = Instant::now();
        // With an inliner in the pipeline, functions run bottom up, and a
        // callee is inlined as it was right after its own inlining (its
        // callees inlined, nothing else changed: the same body under every
        // pipeline that starts with `canon, inline`), not as lowered.
        let inlines = self.passes.iter().any(|p| p.reads_callees);
        let graph = inlines.then(|| callgraph::bottom_up(program));
        let mut callees = match &graph {
            Some(g) => InlineCandidates::bottom_up(g.recursive.clone()),
            None => InlineCandidates::default(),
        };
        // With one inlining pass, a body is read only while a caller of
        // its function is still to be optimized (calls that inlining brings
        // into a caller are not inlined by the same run): the callers left
        // per function, so that each body is dropped after its last caller
        // and the candidates do not hold a second copy of every small
        // function of the program until the end.
        let mut callers_left: Option<Vec<u32>> = graph
            .as_ref()
            .filter(|_| self.passes.iter().filter(|p| p.reads_callees).count() == 1)
            .map(|g| {
                let mut left = vec![0u32; program.funcs.len()];
                for (f, cs) in g.callees.iter().enumerate() {
                    for c in cs.iter().filter(|c| c.index() != f) {
                        left[c.index()] += 1;
                    }
                }
                left
            });
        let mut run = Run {
            passes: &self.passes,
            options,
            observe: instr.observes() || options.verify,
            report: PassReport::default(),
            inlined: None,
        };
        let ids: Vec<FuncId> = match &graph {
            Some(g) => g.order.clone(),
            None => program.funcs.keys().collect(),
        };
        for id in ids {
            if program.funcs[id].is_declaration() {
                continue;
            }
            if let Some(g) = &graph {
                // Callers optimized later inline this function as its own
                // inlining left it.
                let result = run.one(program, instr, id, callees.bodies());
                // Copied again now that the function's scratch is freed:
                // see `settle`.
                let mut inlined = run.inlined.take();
                if let Some(body) = inlined.as_mut() {
                    settle(body);
                }
                if let Some(body) = callees.refresh(id, inlined) {
                    instr.inline_body(id, body);
                }
                if let Some(left) = callers_left.as_mut() {
                    if left[id.index()] == 0 {
                        callees.withdraw(id);
                    }
                    for &c in g.callees[id.index()].iter().filter(|&&c| c != id) {
                        left[c.index()] -= 1;
                        if left[c.index()] == 0 {
                            callees.withdraw(c);
                        }
                    }
                }
                result?;
            } else {
                run.one(program, instr, id, callees.bodies())?;
            }
        }
        run.report.total = start.elapsed();
        Ok(run.report)
    }
}

impl Run<'_> {
    /// Runs the passes on function `id` of `program`, then [`settle`]s it.
    fn one(
        &mut self,
        program: &mut Program,
        instr: &mut dyn Instrumentation,
        id: FuncId,
        callees: &FxHashMap<FuncId, Function>,
    ) -> Result<(), PassError> {
        let result = self.edit(program, instr, id, callees);
        settle(&mut program.funcs[id]);
        result
    }

    /// Runs the passes on function `id` of `program`.
    fn edit(
        &mut self,
        program: &mut Program,
        instr: &mut dyn Instrumentation,
        id: FuncId,
        callees: &FxHashMap<FuncId, Function>,
    ) -> Result<(), PassError> {
        if self.observe {
            // Take the function out so the rest of the program can be
            // read while it is edited; a declaration with the same name
            // and signature stands in for it.
            let f = &program.funcs[id];
            let stand_in = Function::new(f.name.clone(), f.sig.clone());
            let mut func = std::mem::replace(&mut program.funcs[id], stand_in);
            let result = self.function(Some((&*program, instr)), id, &mut func, callees);
            program.funcs[id] = func;
            result
        } else {
            self.function(None, id, &mut program.funcs[id], callees)
        }
    }
}

/// Replaces `f`, whose passes have just run, by a copy of itself.
///
/// The passes grow `f`'s arenas by doubling, next to their own scratch
/// (editor tables, work lists, maps), and free that scratch when they are
/// done. Kept in place, the function's arenas stay behind as islands in
/// the freed region: every function leaves such islands, and the free
/// lists of the allocator fill with fragments spread over the whole heap.
/// On a program of 100 000 small functions, taking a fragment from those
/// lists missed the cache on almost every allocation, and the allocator's
/// share of `-O2` grew with the program (glibc's `_int_malloc` took 3.1 µs
/// per function at 10 000 functions and 9.3 µs at 100 000, `unlink_chunk`
/// 1.7 and 4.5). A copy made after the scratch is gone is allocated all
/// together, at its exact size (no spare capacity either, which
/// `shrink_to_fit` gave back before), and the freed region coalesces. The
/// body offered to the inliner is copied again for the same reason. A
/// large function is shrunk in place instead ([`Function::settle`]).
fn settle(f: &mut Function) {
    f.settle();
}

/// The state of one pipeline run.
struct Run<'a> {
    passes: &'a [&'static Pass],
    options: &'a PipelineOptions,
    /// Whether functions are taken out of the program for instrumentation
    /// and verification.
    observe: bool,
    report: PassReport,
    /// The function being optimized right after the inlining pass, when
    /// it is small enough to be inlined itself.
    inlined: Option<Function>,
}

/// The editing passes that ran on a function without changing it since
/// the function last changed. Running one of them again would find
/// nothing again: a pass is a deterministic function of the IR it sees
/// (the inliner, which also reads its callees' bodies, is never counted
/// here), and the IR is the one it left unchanged. Such a run is skipped
/// (in verifying mode it runs, and must report no change): the `-O2`
/// pipeline's second `sccp`, for one, finds nothing on most functions.
#[derive(Default)]
struct Idle {
    passes: Vec<&'static str>,
}

impl Idle {
    /// Whether `pass` found nothing to change since the function last
    /// changed.
    fn would_find_nothing(&self, pass: &Pass) -> bool {
        matches!(pass.kind, PassKind::Edit(_))
            && !pass.reads_callees
            && self.passes.contains(&pass.name)
    }

    /// Records that `pass` ran and whether it `changed` the function.
    fn ran(&mut self, pass: &Pass, changed: bool) {
        if changed {
            self.passes.clear();
        } else if !self.passes.contains(&pass.name) {
            self.passes.push(pass.name);
        }
    }
}

/// The program (holding a stand-in for the function being optimized) and
/// the instrumentation, when the run observes functions.
type Observer<'p, 'i> = Option<(&'p Program, &'i mut dyn Instrumentation)>;

impl Run<'_> {
    /// A timer (wall clock, thread CPU time) when timing is on.
    fn clock(&self) -> Option<(Instant, Option<Duration>)> {
        self.options
            .time
            .then(|| (Instant::now(), thread_cpu_time()))
    }

    /// Adds a run of `pass` to the report.
    fn account(
        &mut self,
        name: &'static str,
        t: Option<(Instant, Option<Duration>)>,
        changed: bool,
    ) {
        let row = self.report.row(name);
        if let Some((wall, cpu)) = t {
            row.time += wall.elapsed();
            if let (Some(a), Some(b)) = (cpu, thread_cpu_time()) {
                row.cpu += b.saturating_sub(a);
            }
        }
        row.runs += 1;
        row.changed += changed as u32;
    }

    /// Runs every pass on `func` (function `id`).
    fn function(
        &mut self,
        mut obs: Observer<'_, '_>,
        id: FuncId,
        func: &mut Function,
        callees: &FxHashMap<FuncId, Function>,
    ) -> Result<(), PassError> {
        let t = self.clock();
        // The first editor starts from canonicalization's analyses; a
        // rewriting pass before it would make them stale.
        let (canonical, mut analyses) = canon::canonicalize_keeping(func);
        self.account("canonicalize", t, false);
        if !canonical {
            return Ok(());
        }
        self.report.functions += 1;
        if let Some((program, instr)) = obs.as_mut() {
            instr.begin_function(program, id);
        }
        let env = FuncEnv { id, callees };
        let mut idle = Idle::default();
        let mut i = 0;
        while i < self.passes.len() {
            // A run of editing passes on one editor.
            if matches!(self.passes[i].kind, PassKind::Edit(_)) {
                let mut ed = match analyses.take() {
                    Some(a) => Editor::with_analyses(func, &a),
                    None => Editor::new(func),
                };
                while let Some(pass) = self.passes.get(i) {
                    let PassKind::Edit(edit) = pass.kind else {
                        break;
                    };
                    if let Some((program, instr)) = obs.as_mut() {
                        instr.before_pass(pass.name, program, id, ed.settled());
                    }
                    let again = idle.would_find_nothing(pass);
                    if again && !self.options.verify {
                        self.report.row(pass.name).skipped += 1;
                        if let Some((program, instr)) = obs.as_mut() {
                            instr.after_pass(pass.name, program, id, ed.settled(), false);
                        }
                        i += 1;
                        continue;
                    }
                    let t = self.clock();
                    let changed = edit(&mut ed, &env);
                    self.account(pass.name, t, changed);
                    if again && changed {
                        return Err(PassError::Broken {
                            pass: pass.name,
                            func: ed.func().name.clone(),
                            message: "changed the function although no pass had changed it \
                                      since this pass last found nothing to change"
                                .into(),
                        });
                    }
                    idle.ran(pass, changed);
                    if pass.reads_callees && within_budget(ed.func()) {
                        // Only a body small enough to be inlined is kept.
                        self.inlined = Some(ed.settled().clone());
                    }
                    if let Some((program, instr)) = obs.as_mut() {
                        self.after(pass.name, program, id, &mut ed)?;
                        instr.after_pass(pass.name, program, id, ed.settled(), changed);
                    }
                    i += 1;
                }
            }
            // Then at most one rewriting pass on the bare function.
            let Some(pass) = self.passes.get(i) else {
                break;
            };
            let PassKind::Rewrite(rewrite) = pass.kind else {
                unreachable!("the editing run stops only at a rewrite");
            };
            if let Some((program, instr)) = obs.as_mut() {
                instr.before_pass(pass.name, program, id, func);
            }
            analyses = None;
            let t = self.clock();
            // A rewrite returns a canonical function (checked below when
            // verifying), so it is not canonicalized again.
            let changed = rewrite(func, &env);
            self.account(pass.name, t, changed);
            idle.ran(pass, changed);
            if let Some((program, instr)) = obs.as_mut() {
                // The checks need the analyses; an observer alone does not.
                if self.options.verify {
                    let mut ed = Editor::new(func);
                    self.after(pass.name, program, id, &mut ed)?;
                }
                instr.after_pass(pass.name, program, id, func, changed);
            }
            i += 1;
        }
        Ok(())
    }

    /// The checks after `pass` in verifying mode.
    fn after(
        &mut self,
        pass: &'static str,
        program: &Program,
        id: FuncId,
        ed: &mut Editor,
    ) -> Result<(), PassError> {
        if !self.options.verify {
            return Ok(());
        }
        let t = self.clock();
        let broken = |message: String, f: &Function| PassError::Broken {
            pass,
            func: f.name.clone(),
            message,
        };
        if let Err(e) = ed.check() {
            return Err(broken(e, ed.func()));
        }
        let f = ed.settled();
        if let Err(errors) = verify_function_as(program, id, f) {
            let text: Vec<String> = errors.iter().map(|e| e.to_string()).collect();
            return Err(broken(text.join("; "), f));
        }
        self.account("verify", t, false);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{parse_program, print_program};

    const LOOP: &str = "\
fn fn0 \"f\"(int) -> int {
block0(v0: int):
    v1: int = iconst 0
    v2: int = iconst 1
    jump block1(v1)
block1(v3: int):
    v4: bool = icmp lt v3, v0
    br v4, block2, block3
block2:
    v5: int = iadd v3, v2
    v6: int = iadd v2, v2
    jump block1(v5)
block3:
    return v3
}
";

    #[test]
    fn report_counts_runs_and_changes() {
        let mut p = parse_program(LOOP).expect("parses");
        let options = PipelineOptions {
            verify: true,
            time: true,
        };
        let report = Pipeline::from_names(&["dce", "dce", "licm"])
            .unwrap()
            .run(&mut p, &options, &mut ())
            .unwrap();
        let dce = report.passes.iter().find(|r| r.name == "dce").unwrap();
        assert_eq!((dce.runs, dce.changed), (2, 1));
        assert_eq!(report.functions, 1);
        assert!(report.passes.iter().any(|r| r.name == "verify"));
        let table = report.to_string();
        assert!(table.contains("dce") && table.contains("total"), "{table}");
    }

    #[test]
    fn a_pass_that_found_nothing_is_not_run_again_on_an_unchanged_function() {
        // No constants for `sccp`, no copies for `copyprop`; `dce` removes
        // `v2`.
        const DEAD: &str = "\
fn fn0 \"f\"(int) -> int {
block0(v0: int):
    v1: int = iadd v0, v0
    v2: int = imul v0, v0
    return v1
}
";
        let names = ["sccp", "copyprop", "sccp", "dce", "sccp", "copyprop"];
        let run = |verify: bool| {
            let mut p = parse_program(DEAD).expect("parses");
            let options = PipelineOptions {
                verify,
                time: false,
            };
            let report = Pipeline::from_names(&names)
                .unwrap()
                .run(&mut p, &options, &mut ())
                .unwrap();
            let counts = |name: &str| {
                let r = report.passes.iter().find(|r| r.name == name).unwrap();
                (r.runs, r.changed, r.skipped)
            };
            let counts = [counts("sccp"), counts("copyprop"), counts("dce")];
            (counts, print_program(&p))
        };
        // The second `sccp` is skipped (only `copyprop`, which found
        // nothing either, ran since the first); after `dce` changed the
        // function, both run again.
        let (counts, skipping) = run(false);
        assert_eq!(counts, [(2, 0, 1), (2, 0, 0), (1, 1, 0)]);
        // In verifying mode every pass runs, with the same result.
        let (counts, verified) = run(true);
        assert_eq!(counts, [(3, 0, 0), (2, 0, 0), (1, 1, 0)]);
        assert_eq!(skipping, verified);
        assert!(!skipping.contains("imul"), "{skipping}");
    }

    #[test]
    fn thread_cpu_time_advances_with_work() {
        if !cfg!(all(target_os = "linux", target_pointer_width = "64")) {
            assert_eq!(thread_cpu_time(), None);
            return;
        }
        let start = thread_cpu_time().expect("reported on Linux");
        let mut x = 1u64;
        let mut spins = 0u64;
        while thread_cpu_time().unwrap() <= start {
            for _ in 0..10_000 {
                x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
            }
            spins += 1;
            assert!(spins < 100_000_000, "the thread's CPU time never advanced");
        }
    }

    #[test]
    fn optimized_functions_are_settled_at_their_exact_size() {
        // `f2` inlines `f1`, which inlined `f0`: splicing grows the block's
        // instruction list and the arenas by doubling.
        let mut text =
            String::from("fn fn0 \"f0\"(int) -> int {\nblock0(v0: int):\n    return v0\n}\n");
        for k in 1..4 {
            text += &format!(
                "fn fn{k} \"f{k}\"(int) -> int {{\nblock0(v0: int):\n    \
                 v1: int = call fn{} \"f{}\"(v0)\n    v2: int = iconst 1\n    \
                 v3: int = iadd v1, v2\n    return v3\n}}\n",
                k - 1,
                k - 1
            );
        }
        let mut p = parse_program(&text).expect("parses");
        Pipeline::for_level(2)
            .run(&mut p, &PipelineOptions::default(), &mut ())
            .unwrap();
        for f in p.funcs.values() {
            for &b in &f.layout {
                let data = &f.blocks[b];
                assert_eq!(data.insts.capacity(), data.insts.len(), "{}", f.name);
                assert_eq!(data.params.capacity(), data.params.len(), "{}", f.name);
            }
            assert_eq!(f.layout.capacity(), f.layout.len(), "{}", f.name);
        }
    }

    #[test]
    fn print_after_sees_each_function_after_the_pass() {
        let mut p = parse_program(LOOP).expect("parses");
        let mut print = PrintAfter {
            passes: vec!["dce".into()],
            out: String::new(),
        };
        Pipeline::from_names(&["dce", "copyprop"])
            .unwrap()
            .run(&mut p, &PipelineOptions::default(), &mut print)
            .unwrap();
        assert!(
            print.out.starts_with("; after dce\nfn fn0 \"f\"(int)"),
            "{}",
            print.out
        );
        assert!(!print.out.contains("v6"), "{}", print.out);
        assert_eq!(print.out.matches("; after").count(), 1);
        // The function went back into the program.
        assert!(!p.funcs[FuncId::from_u32(0)].is_declaration());
    }
}
