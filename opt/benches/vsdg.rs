//! Compile time of tier T3's VSDG round trip against tier T2's passes,
//! per function (issue 11's target: the round trip costs at most 3x T2's
//! pass time per function).
//!
//! Every function of every lang-test program and of every `waddle bench`
//! suite program goes through [`passes::vsdg_pipeline`]`(2)`: the `-O2`
//! passes (what T2 runs), then [`passes::VSDG_TAIL`] (the round trip: lift,
//! the canonicalizing constructor, sequentialization, re-canonicalization,
//! and the `-O1` cleanup of the sequentialized code). An instrumentation
//! clocks, per function, the span from canonical form (before the editor of
//! its first passes builds the analyses) to the start of `vsdg` (T2's pass
//! time) and from there to the end of its last pass (the round trip, with
//! the analyses the cleanup's editor builds), the fastest of several runs
//! of each. Both spans include the instrumentation's own per-pass cost
//! (compacting the layout for the observer). Establishing canonical form
//! before the first pass is in neither.
//!
//! Printed: each suite program's sums and ratio, then over all functions
//! the ratio of the sums, the median, 90th percentile and largest ratio,
//! how many functions exceed 3x, and the functions with the largest ratio.
//!
//! Run with `cargo bench -p waddle-opt --bench vsdg`; set
//! `WADDLE_BENCH_QUICK=1` for one run per program, and
//! `WADDLE_BENCH_FILTER=TEXT` to measure only the programs whose name
//! contains `TEXT` (for profiling one function's round trip).

use std::fs;
use std::path::Path;
use std::time::{Duration, Instant};

use rustc_hash::FxHashMap;
use waddle_frontend::{compile, CompileOptions, SourceFile, SourceMap};
use waddle_opt::ir::{FuncId, Function, Program};
use waddle_opt::passes::{self, Instrumentation, Pipeline, PipelineOptions};

#[allow(dead_code)]
mod corpus;

/// How many functions with the largest ratio are listed one by one.
const WORST: usize = 8;

/// The per-function clock.
#[derive(Default)]
struct Clock {
    /// The function being optimized and when its passes started.
    current: Option<(FuncId, Instant)>,
    /// When `vsdg` started on the current function.
    vsdg: Option<Instant>,
    /// T2's pass time of each function.
    t2: FxHashMap<FuncId, Duration>,
    /// The round trip's time of each function.
    rt: FxHashMap<FuncId, Duration>,
}

impl Instrumentation for Clock {
    fn begin_function(&mut self, _: &Program, id: FuncId) {
        self.current = Some((id, Instant::now()));
        self.vsdg = None;
    }

    fn before_pass(&mut self, pass: &'static str, _: &Program, id: FuncId, _: &Function) {
        let now = Instant::now();
        if pass == "vsdg" {
            let (_, start) = self.current.expect("begin_function comes first");
            self.t2.insert(id, now - start);
            self.vsdg = Some(now);
        }
    }

    fn after_pass(&mut self, _: &'static str, _: &Program, id: FuncId, _: &Function, _: bool) {
        if let Some(v) = self.vsdg {
            self.rt.insert(id, v.elapsed());
        }
    }
}

/// One function's figures: program, name, IR instructions after T2, T2's
/// pass time, round-trip time (fastest runs).
struct Row {
    program: String,
    func: String,
    insts: usize,
    t2: Duration,
    rt: Duration,
}

impl Row {
    fn ratio(&self) -> f64 {
        self.rt.as_secs_f64() / self.t2.as_secs_f64().max(1e-9)
    }
}

/// The rows of `lowered`'s functions, fastest of `reps` runs each.
fn measure(name: &str, lowered: &Program, reps: usize) -> Vec<Row> {
    let pipeline = Pipeline::from_names(&passes::vsdg_pipeline(2)).expect("registered passes");
    let options = PipelineOptions {
        verify: false,
        time: false,
    };
    let mut best: FxHashMap<FuncId, (Duration, Duration)> = FxHashMap::default();
    for _ in 0..reps {
        let mut p = lowered.clone();
        let mut clock = Clock::default();
        if pipeline.run(&mut p, &options, &mut clock).is_err() {
            return Vec::new();
        }
        for (id, &t2) in &clock.t2 {
            let rt = clock.rt.get(id).copied().unwrap_or_default();
            let e = best.entry(*id).or_insert((t2, rt));
            e.0 = e.0.min(t2);
            e.1 = e.1.min(rt);
        }
    }
    let mut t2_only = lowered.clone();
    passes::run_pipeline(&mut t2_only, 2);
    let mut rows: Vec<Row> = best
        .into_iter()
        .map(|(id, (t2, rt))| Row {
            program: name.to_string(),
            func: lowered.funcs[id].name().to_string(),
            insts: t2_only.funcs[id].inst_count(),
            t2,
            rt,
        })
        .collect();
    rows.sort_by(|a, b| a.func.cmp(&b.func));
    rows
}

/// The `waddle bench` suite programs, lowered.
fn suite() -> Vec<(String, Program)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../runtime/cli/bench");
    let mut names: Vec<String> = fs::read_dir(&dir)
        .map(|d| {
            d.filter_map(|e| e.ok())
                .filter(|e| e.path().is_dir())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
        .into_iter()
        .filter_map(|n| {
            let text = fs::read_to_string(dir.join(&n).join(format!("{n}.wdl"))).ok()?;
            let mut sources = SourceMap::default();
            sources.add(SourceFile::new(n.clone(), text));
            let program = compile(&sources, &CompileOptions::default()).ok()?.program;
            Some((n, program))
        })
        .collect()
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn main() {
    let quick = std::env::var("WADDLE_BENCH_QUICK").is_ok_and(|v| !v.is_empty());
    let reps = if quick { 1 } else { 30 };
    let filter = std::env::var("WADDLE_BENCH_FILTER").unwrap_or_default();
    let wanted = |name: &str| name.contains(filter.as_str());
    let mut all: Vec<Row> = Vec::new();
    println!("round trip (vsdg + -O1 cleanup) vs -O2 passes, per function, fastest of {reps} runs");
    println!(
        "{:<14} {:>6} {:>6} {:>10} {:>10} {:>7}",
        "suite program", "funcs", "insts", "T2 ms", "trip ms", "ratio"
    );
    for (name, program) in suite().into_iter().filter(|(n, _)| wanted(n)) {
        let rows = measure(&name, &program, reps);
        let (t2, rt): (Duration, Duration) = (
            rows.iter().map(|r| r.t2).sum(),
            rows.iter().map(|r| r.rt).sum(),
        );
        println!(
            "{:<14} {:>6} {:>6} {:>10.3} {:>10.3} {:>7.2}",
            name,
            rows.len(),
            rows.iter().map(|r| r.insts).sum::<usize>(),
            ms(t2),
            ms(rt),
            rt.as_secs_f64() / t2.as_secs_f64().max(1e-9)
        );
        all.extend(rows);
    }
    match corpus::load() {
        Ok((programs, _)) => {
            for cp in programs.iter().filter(|cp| wanted(&cp.name)) {
                all.extend(measure(&cp.name, &cp.lowered, reps));
            }
        }
        Err(e) => eprintln!("lang-test corpus not readable: {e}"),
    }
    if all.is_empty() {
        return;
    }
    let (t2, rt): (Duration, Duration) = (
        all.iter().map(|r| r.t2).sum(),
        all.iter().map(|r| r.rt).sum(),
    );
    let mut ratios: Vec<f64> = all.iter().map(Row::ratio).collect();
    ratios.sort_by(f64::total_cmp);
    let pct = |q: f64| ratios[((ratios.len() - 1) as f64 * q).round() as usize];
    println!(
        "all {} functions (suite + lang-test corpus): T2 {:.3} ms, trip {:.3} ms, ratio of sums {:.2}",
        all.len(),
        ms(t2),
        ms(rt),
        rt.as_secs_f64() / t2.as_secs_f64().max(1e-9)
    );
    println!(
        "per-function ratio: median {:.2}, p90 {:.2}, max {:.2}; above 3x: {}",
        pct(0.5),
        pct(0.9),
        pct(1.0),
        ratios.iter().filter(|&&r| r > 3.0).count()
    );
    all.sort_by(|a, b| b.ratio().total_cmp(&a.ratio()));
    println!("largest ratios:");
    for r in all.iter().take(WORST) {
        println!(
            "  {:<40} {:<16} {:>5} insts  T2 {:>8.1} µs  trip {:>8.1} µs  {:>5.2}x",
            r.program,
            r.func,
            r.insts,
            r.t2.as_secs_f64() * 1e6,
            r.rt.as_secs_f64() * 1e6,
            r.ratio()
        );
    }
}
