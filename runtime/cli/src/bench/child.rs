//! The measuring child: `waddle bench --child TIER --size N FILE`.
//!
//! It runs in a process of its own so its peak memory is this tier's alone,
//! and times each phase in-process, around the phase only:
//! 1. the engine: a [`Module`] on TIER compiles the program's declarations
//!    (everything but the final `main(N);`: frontend, passes and, on a
//!    native tier, code generation) and a [`Store`] instantiates it —
//!    `compile`;
//!    then `main(N)` is called — `exec` (wall and process CPU time), the
//!    figure the tiers are compared by;
//! 2. the phase breakdown, replayed on the same source with the same
//!    components: the frontend (`waddle_frontend::compile`), the `-O2` pass
//!    pipeline, and for the native tiers their code generator
//!    (`waddle_jit::baseline::compile` for `baseline`, `waddle_jit::compile`
//!    for `opt` and `full`), whose [`waddle_jit::CompileStats`] give
//!    per-function translation and code generation times and IR instruction
//!    counts, hence the code generation time per IR instruction.
//!
//! The result is one JSON line ([`ChildReport`]) on standard output; the
//! program's own output is captured and carried inside it.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use super::report::{FuncCodegen, Measurement, PhaseTime, Phases};
use super::{process, secs, suite, BenchArgs};
use waddle::tooling::{optimize, run_on_big_stack, OptOptions};
use waddle::{Config, Engine, Error, Module, OutputSink, PassTrace, Store, Tier, Val};
use waddle_opt::passes::thread_cpu_time;

/// Optimization level the benchmarks run at (the engine's default).
const OPT_LEVEL: u8 = 2;

/// What a child reports to the harness.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct ChildReport {
    /// Whether the program compiled and ran without error.
    pub ok: bool,
    /// The rendered error, if any.
    pub error: Option<String>,
    /// Everything the program printed.
    pub output: String,
    /// Phase times.
    pub phases: Phases,
    /// `VmHWM` after the engine run (before the replay), in KiB, when the
    /// system reports it.
    pub peak_rss_kib: Option<u64>,
    /// The engine run's figures only: the child prints this report before
    /// it replays the phases, so a child killed during the replay (which
    /// compiles the program a second time) still reports what the engine
    /// took; the complete report follows as the last line.
    #[serde(default)]
    pub partial: bool,
}

/// Entry point of `--child TIER`; prints the report and returns 0 (1 for a
/// bad invocation, 2 when the program failed).
pub fn main(tier: &str, args: &BenchArgs) -> i32 {
    let tier: Tier = match tier.parse() {
        Ok(t) => t,
        Err(e) => {
            eprintln!("error: {e}");
            return 1;
        }
    };
    let (Some(size), [file]) = (args.size, args.names.as_slice()) else {
        eprintln!("error: --child needs --size N and exactly one program file");
        return 1;
    };
    let report = match std::fs::read_to_string(file) {
        Ok(source) => {
            let name = file.clone();
            run_on_big_stack(move || measure_emitting(&name, &source, tier, size, true))
                .unwrap_or_else(|msg| ChildReport {
                    error: Some(format!("internal error: {msg}")),
                    ..ChildReport::default()
                })
        }
        Err(e) => ChildReport {
            error: Some(format!("cannot read `{file}`: {e}")),
            ..ChildReport::default()
        },
    };
    let report = ChildReport {
        peak_rss_kib: report.peak_rss_kib.or_else(process::own_peak_rss_kib),
        ..report
    };
    match serde_json::to_string(&report) {
        Ok(line) => println!("{line}"),
        Err(e) => {
            eprintln!("error: cannot encode the report: {e}");
            return 1;
        }
    }
    if report.ok {
        0
    } else {
        2
    }
}

/// Runs and times `source` on `tier` with problem size `size`.
#[cfg(test)]
pub fn measure(name: &str, source: &str, tier: Tier, size: i64) -> ChildReport {
    measure_emitting(name, source, tier, size, false)
}

/// [`measure`]; with `emit`, prints the engine run's report (marked
/// [`ChildReport::partial`]) on standard output before the replay.
fn measure_emitting(name: &str, source: &str, tier: Tier, size: i64, emit: bool) -> ChildReport {
    let Some((decls, _)) = suite::split_main_call(source) else {
        return ChildReport {
            error: Some(format!("`{name}` must end with a line `main(N);`")),
            ..ChildReport::default()
        };
    };
    let mut report = ChildReport::default();
    let engine_run = run_engine(name, decls, tier, size, &mut report.phases);
    // The peak is taken before the replay, so it is the engine's alone.
    report.peak_rss_kib = process::own_peak_rss_kib();
    match engine_run {
        Ok(output) => {
            report.ok = true;
            report.output = String::from_utf8_lossy(&output).into_owned();
        }
        Err((output, e)) => {
            report.output = String::from_utf8_lossy(&output).into_owned();
            report.error = Some(e.render().trim_end().to_string());
            return report;
        }
    }
    if emit {
        let partial = ChildReport {
            partial: true,
            ..report.clone()
        };
        if let Ok(line) = serde_json::to_string(&partial) {
            use std::io::Write as _;
            let mut out = std::io::stdout().lock();
            let _ = writeln!(out, "{line}");
            let _ = out.flush();
        }
    }
    if let Err(e) = replay_phases(name, source, tier, &mut report.phases) {
        report.ok = false;
        report.error = Some(e);
    }
    report
}

/// The engine run: compile the declarations, then call `main(size)`.
fn run_engine(
    name: &str,
    decls: &str,
    tier: Tier,
    size: i64,
    phases: &mut Phases,
) -> Result<Vec<u8>, (Vec<u8>, Error)> {
    let config = Config::new()
        .tier(tier)
        .opt_level(OPT_LEVEL)
        // No budget to enforce: native loops run without fuel ticks.
        .interruptible(false);
    let engine = Engine::new(&config).map_err(|e| (Vec::new(), e))?;
    let memory_start = process::own_memory_usage();
    let cpu_start = process::process_cpu_time();
    let start = Instant::now();
    let mut store = Store::with_output(&engine, OutputSink::Capture);
    let compiled = Module::new(&engine, name, decls).and_then(|m| store.instantiate(&m));
    phases.engine_compile_s = secs(start.elapsed());
    if let (Some(a), Some(b)) = (cpu_start, process::process_cpu_time()) {
        phases.engine_compile_cpu_s = Some(secs(b.saturating_sub(a)));
    }
    if let (Some(a), Some(b)) = (memory_start, process::own_memory_usage()) {
        phases.engine_compile_sys_s = Some(secs(b.sys.saturating_sub(a.sys)));
        phases.engine_compile_faulted_bytes = Some(b.faulted_bytes.saturating_sub(a.faulted_bytes));
    }
    let instance = match compiled {
        Ok(i) => i,
        Err(e) => return Err((store.take_output(), e)),
    };
    let cpu_start = process::process_cpu_time();
    let start = Instant::now();
    let ran = instance.call(&mut store, "main", &[Val::Int(size)]);
    phases.exec_s = secs(start.elapsed());
    if let (Some(a), Some(b)) = (cpu_start, process::process_cpu_time()) {
        phases.exec_cpu_s = Some(secs(b.saturating_sub(a)));
    }
    if tier == Tier::Auto {
        phases.tier_ups = Some(store.tier_ups());
        phases.full_promotions = Some(store.full_promotions());
    }
    let output = store.take_output();
    match ran {
        Ok(_) => Ok(output),
        Err(e) => Err((output, e)),
    }
}

/// The phase breakdown: frontend, passes and (native tiers) codegen,
/// each timed around the call that does it, and finely in
/// [`Phases::detail`].
fn replay_phases(name: &str, source: &str, tier: Tier, phases: &mut Phases) -> Result<(), String> {
    let mut sources = waddle_frontend::SourceMap::default();
    sources.add(waddle_frontend::SourceFile::new(name, source));
    let options = waddle_frontend::CompileOptions::default();
    let rejected = |_| "the frontend rejected the program on replay".to_string();
    let mut detail = Detail::default();
    let start = Instant::now();
    let module = detail.time("parse", || waddle_frontend::parser::parse(&sources, false));
    let module = module.map_err(rejected)?;
    let typed = detail.time("check", || {
        waddle_frontend::check::check(&module, &options.prelude, false)
    });
    let typed = typed.map_err(rejected)?;
    let mut program = detail.time("lower", || {
        waddle_frontend::lower::lower(&module, &typed, &sources, &options)
    });
    phases.frontend_s = secs(start.elapsed());
    let opt = OptOptions {
        opt_level: OPT_LEVEL,
        passes: None,
        vsdg: tier == Tier::Full,
        trace: PassTrace {
            time: true,
            ..PassTrace::default()
        },
    };
    let start = Instant::now();
    let (log, passes) = detail.measure(|| optimize(&mut program, &opt));
    let log = log.map_err(|e| e.render())?;
    phases.passes_s = secs(start.elapsed());
    let mut in_passes = Duration::ZERO;
    for p in waddle::tooling::pass_report(&log)
        .iter()
        .flat_map(|r| &r.passes)
    {
        let t = if detail.cpu { p.cpu } else { p.time };
        detail.push(format!("pass {}", p.name), t);
        in_passes += t;
    }
    detail.push("passes other".into(), passes.saturating_sub(in_passes));
    let opts = waddle_jit::JitOptions {
        fuel: false,
        ..waddle_jit::JitOptions::default()
    };
    if let Some(native) = waddle::tooling::native_tier(tier) {
        let start = Instant::now();
        let (unit, spent) = detail.measure(|| waddle_jit::compile(native, &program, &opts));
        let stats = unit.map_err(|e| e.to_string())?.stats().clone();
        let total = start.elapsed();
        record_codegen(phases, total, &stats);
        // The per-function figures are wall times: split the unit's time
        // in their proportions.
        let translate: Duration = stats.funcs.iter().map(|f| f.translate).sum();
        let emit: Duration = stats.funcs.iter().map(|f| f.codegen).sum();
        let share = |d: Duration| spent.mul_f64(d.as_secs_f64() / total.as_secs_f64().max(1e-12));
        detail.push("codegen translate".into(), share(translate));
        detail.push("codegen emit".into(), share(emit));
        detail.push(
            "codegen other".into(),
            spent.saturating_sub(share(translate) + share(emit)),
        );
    }
    phases.detail = detail.rows;
    Ok(())
}

/// [`Phases::detail`] under construction: times are the thread's CPU time
/// where the platform reports it (steady on a loaded machine), else wall.
struct Detail {
    rows: Vec<PhaseTime>,
    cpu: bool,
}

impl Default for Detail {
    fn default() -> Self {
        Detail {
            rows: Vec::new(),
            cpu: thread_cpu_time().is_some(),
        }
    }
}

impl Detail {
    fn push(&mut self, name: String, d: Duration) {
        self.rows.push(PhaseTime { name, s: secs(d) });
    }

    /// Runs `f`; returns its result and the time it took.
    fn measure<T>(&self, f: impl FnOnce() -> T) -> (T, Duration) {
        let (wall, cpu) = (Instant::now(), thread_cpu_time());
        let out = f();
        let spent = match (cpu, thread_cpu_time()) {
            (Some(a), Some(b)) if self.cpu => b.saturating_sub(a),
            _ => wall.elapsed(),
        };
        (out, spent)
    }

    /// Runs `f`, recording its time as `name`.
    fn time<T>(&mut self, name: &str, f: impl FnOnce() -> T) -> T {
        let (out, spent) = self.measure(f);
        self.push(name.to_string(), spent);
        out
    }
}

/// Stores a native tier's code generation statistics in `phases`: the whole
/// compile call (`total`), the per-function sum, and that sum per IR
/// instruction.
fn record_codegen(phases: &mut Phases, total: Duration, stats: &waddle_jit::CompileStats) {
    let per_func: Duration = stats.funcs.iter().map(|f| f.translate + f.codegen).sum();
    let ir_insts: usize = stats.funcs.iter().map(|f| f.ir_insts).sum();
    phases.codegen_s = Some(secs(total));
    phases.codegen_funcs_s = Some(secs(per_func));
    phases.ir_insts = Some(ir_insts);
    phases.codegen_ns_per_inst =
        (ir_insts > 0).then(|| per_func.as_secs_f64() * 1e9 / ir_insts as f64);
    phases.funcs = stats
        .funcs
        .iter()
        .map(|f| FuncCodegen {
            name: f.name.clone(),
            ir_insts: f.ir_insts,
            translate_s: secs(f.translate),
            codegen_s: secs(f.codegen),
            code_size: f.code_size,
        })
        .collect();
}

/// Runs one child for `(file, tier, size)` and turns its report into a
/// [`Measurement`] (compared by execution CPU time when `cpu_time`).
pub fn spawn(exe: &Path, tier: Tier, file: &Path, size: i64, cpu_time: bool) -> Measurement {
    spawn_limited(exe, tier, file, size, cpu_time, None)
}

/// [`spawn`], killing the child after `limit` (a failed measurement).
pub fn spawn_limited(
    exe: &Path,
    tier: Tier,
    file: &Path,
    size: i64,
    cpu_time: bool,
    limit: Option<Duration>,
) -> Measurement {
    let mut cmd = Command::new(exe);
    cmd.arg("bench")
        .arg("--child")
        .arg(tier.name())
        .arg("--size")
        .arg(size.to_string())
        .arg(file);
    let run = match process::run_limited(cmd, limit) {
        Ok(r) => r,
        Err(e) => return Measurement::failed(e),
    };
    let text = String::from_utf8_lossy(&run.stdout);
    let parsed = text
        .lines()
        .rev()
        .find(|l| l.starts_with('{'))
        .and_then(|l| serde_json::from_str::<ChildReport>(l).ok());
    let past = |l: Duration| run.wall >= l || run.cpu.is_some_and(|c| c >= l);
    if let Some(limit) = limit.filter(|&l| run.signal == Some(9) && past(l)) {
        let timed_out = format!("timed out after {} s", limit.as_secs());
        return match parsed.filter(|r| r.partial && r.ok) {
            // The engine run finished, the replay did not: its figures
            // stand, the phase columns are missing.
            Some(report) => partial_measurement(report, cpu_time, &timed_out),
            None => Measurement::failed(timed_out),
        };
    }
    let Some(report) = parsed else {
        return Measurement::failed(format!("the child failed ({})", run.failure()));
    };
    let (time_s, compile_s) = run_and_compile_s(&report.phases, cpu_time);
    Measurement {
        ok: report.ok && run.success(),
        error: report
            .error
            .or_else(|| (!run.success()).then(|| run.failure())),
        output: report.output,
        time_s,
        whole_s: Some(compile_s + time_s),
        wall_s: secs(run.wall),
        cpu_s: run.cpu.map(secs),
        // The child's own VmHWM excludes the harness's footprint that
        // `wait4`'s figure inherits through exec.
        peak_rss_kib: report.peak_rss_kib.or(run.peak_rss_kib),
        phases: Some(report.phases),
    }
}

/// The child's run and compile times from its phases: CPU time where it
/// was measured and `cpu_time` asks for it, else wall time.
fn run_and_compile_s(p: &Phases, cpu_time: bool) -> (f64, f64) {
    if cpu_time {
        (
            p.exec_cpu_s.unwrap_or(p.exec_s),
            p.engine_compile_cpu_s.unwrap_or(p.engine_compile_s),
        )
    } else {
        (p.exec_s, p.engine_compile_s)
    }
}

/// The measurement of a child killed by the limit during its replay, from
/// its [`ChildReport::partial`] report: `ok`, with the engine's times, no
/// phase breakdown, and the replay's fate as its `error`.
fn partial_measurement(report: ChildReport, cpu_time: bool, timed_out: &str) -> Measurement {
    let (time_s, compile_s) = run_and_compile_s(&report.phases, cpu_time);
    Measurement {
        ok: true,
        error: Some(format!("phase replay {timed_out}")),
        output: report.output,
        time_s,
        whole_s: Some(compile_s + time_s),
        peak_rss_kib: report.peak_rss_kib,
        phases: Some(report.phases),
        ..Measurement::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FIB: &str = "// bench: quick=10\nfn fib(n: int) -> int {\n    if n < 2 { return n; }\n    return fib(n - 1) + fib(n - 2);\n}\nfn main(n: int) { print(fib(n)); }\nmain(20);\n";

    #[test]
    fn a_child_killed_during_the_replay_keeps_its_engine_figures() {
        let engine = ChildReport {
            ok: true,
            output: "42\n".into(),
            phases: Phases {
                engine_compile_s: 3.0,
                engine_compile_cpu_s: Some(2.5),
                ..Phases::default()
            },
            partial: true,
            ..ChildReport::default()
        };
        let m = partial_measurement(engine, true, "timed out after 120 s");
        assert!(m.ok);
        assert_eq!(
            m.error.as_deref(),
            Some("phase replay timed out after 120 s")
        );
        assert_eq!(m.whole_s, Some(2.5));
        assert_eq!(m.phases.map(|p| p.engine_compile_s), Some(3.0));
    }

    #[test]
    fn the_interpreter_child_measures_and_captures() {
        let report = run_on_big_stack(|| measure("fib.wdl", FIB, Tier::Interp, 10)).unwrap();
        assert!(report.ok, "{report:?}");
        assert_eq!(report.output, "55\n");
        assert!(report.phases.exec_s > 0.0 && report.phases.frontend_s > 0.0);
        assert_eq!(report.phases.codegen_s, None);
        assert_eq!(report.phases.codegen_ns_per_inst, None);
    }

    #[test]
    fn the_auto_child_reports_promotions_and_osr_entries() {
        if !Tier::Opt.is_available() {
            return;
        }
        let report = run_on_big_stack(|| measure("fib.wdl", FIB, Tier::Auto, 20)).unwrap();
        assert!(report.ok, "{report:?}");
        assert_eq!(report.output, "6765\n");
        // fib(20) makes ~22 000 calls: promoted at the 1000th.
        assert!(
            matches!(report.phases.tier_ups, Some((p, 0)) if p >= 1),
            "{report:?}"
        );
        let hot = "// bench: quick=10\nfn main(n: int) {\n    var i = 0;\n    var t = 0;\n    while i < n { t += i % 3; i += 1; }\n    print(t);\n}\nmain(10);\n";
        let report = run_on_big_stack(move || measure("hot.wdl", hot, Tier::Auto, 5000)).unwrap();
        assert!(report.ok, "{report:?}");
        // The OSR entry compiles in the background while the loop goes on
        // in the interpreter: it is entered only if it is ready before the
        // loop ends (`waddle::Store::tier_ups` is tested deterministically
        // with `--jit-sync` in runtime/tests).
        assert!(
            matches!(report.phases.tier_ups, Some((0, o)) if o <= 1),
            "{report:?}"
        );
        assert_eq!(report.phases.full_promotions, Some(0), "{report:?}");
        let report = run_on_big_stack(move || measure("hot.wdl", hot, Tier::Opt, 5000)).unwrap();
        assert_eq!(report.phases.tier_ups, None);
    }

    #[test]
    fn cranelift_codegen_is_timed_per_function() {
        let mut phases = Phases::default();
        replay_phases("fib.wdl", FIB, Tier::Opt, &mut phases).unwrap();
        assert!(phases.codegen_s.unwrap() > 0.0);
        assert!(phases.codegen_funcs_s.unwrap() <= phases.codegen_s.unwrap());
        let names: Vec<&str> = phases.funcs.iter().map(|f| f.name.as_str()).collect();
        assert!(
            names.contains(&"fib") && names.contains(&"main"),
            "{names:?}"
        );
        assert!(phases.funcs.iter().all(|f| f.code_size > 0));
        let insts: usize = phases.funcs.iter().map(|f| f.ir_insts).sum();
        assert_eq!(phases.ir_insts, Some(insts));
        assert!(phases.codegen_ns_per_inst.unwrap() > 0.0);
    }

    #[test]
    fn baseline_codegen_is_timed_per_instruction() {
        if waddle::tooling::check_tier(Tier::Baseline).is_err() {
            return; // no baseline back end for this host
        }
        let mut phases = Phases::default();
        replay_phases("fib.wdl", FIB, Tier::Baseline, &mut phases).unwrap();
        let names: Vec<&str> = phases.funcs.iter().map(|f| f.name.as_str()).collect();
        assert!(
            names.contains(&"fib") && names.contains(&"main"),
            "{names:?}"
        );
        assert!(phases
            .funcs
            .iter()
            .all(|f| f.code_size > 0 && f.ir_insts > 0));
        assert!(phases.ir_insts.unwrap() > 0);
        assert!(phases.codegen_ns_per_inst.unwrap() > 0.0);
        assert!(phases.codegen_funcs_s.unwrap() <= phases.codegen_s.unwrap());
    }

    #[test]
    fn errors_are_reported_not_panicked() {
        let report = measure("x.wdl", "print(1);\n", Tier::Interp, 1);
        assert!(!report.ok && report.error.unwrap().contains("main(N);"));
        let src = "// bench: quick=1\nfn main(n: int) { print(n / 0); }\nmain(1);\n";
        let report = run_on_big_stack(|| measure("z.wdl", src, Tier::Interp, 1)).unwrap();
        assert!(!report.ok);
        assert!(report.error.unwrap().contains("division by zero"));
    }
}
