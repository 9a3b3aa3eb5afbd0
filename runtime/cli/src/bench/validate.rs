//! `waddle bench --validate`: translation validation time against compile
//! time, per suite program (issue 14's metric "validation time as a
//! multiple of compile time", digest §5.7 T3).
//!
//! In this process, for each program: the frontend lowers it, the `-O2`
//! pass pipeline optimizes it, Cranelift compiles the optimized program to
//! machine code as tier `opt` does ([`codegen`]), and
//! `waddle_opt::validate::validate_pipeline` checks every optimized function
//! against its canonical original, pass by pass when the single comparison
//! fails (as `waddle run --validate` does; the `chain` column counts the
//! functions only the per-pass chain validated). Each
//! phase is timed `--runs` times and the median counts. Two ratios are
//! printed: validation time over the whole compile (frontend + passes +
//! machine code, what `waddle run -O2 --tier opt` spends before running)
//! and over the optimizer pipeline alone (the strict comparison). With
//! `--cpu` each phase is timed in CPU time of this thread (every phase runs
//! on it), which a shared, loaded machine disturbs far less than wall time.

use std::fmt::Write as _;
use std::time::{Duration, Instant};

use waddle_frontend::{compile, CompileOptions, SourceFile, SourceMap};
use waddle_opt::canon::canonicalize;
use waddle_opt::ir::Program;
use waddle_opt::passes::{thread_cpu_time, Pipeline, PipelineOptions};
use waddle_opt::validate::{validate_pipeline, Options};

use waddle_jit::{JitOptions, Tier};

use super::suite::BenchProgram;
use super::table::fmt_time;
use super::BenchArgs;

/// The measurement of one program.
struct Row {
    name: String,
    funcs: u32,
    validated: u32,
    /// Of `validated`, the functions validated by their per-pass chain.
    chained: u32,
    frontend: Duration,
    passes: Duration,
    codegen: Duration,
    validate: Duration,
}

impl Row {
    /// The whole compile: frontend, passes and machine code.
    fn compile(&self) -> Duration {
        self.frontend + self.passes + self.codegen
    }
}

/// Times one phase: CPU time of this thread when `cpu` (and the platform
/// has the clock), wall-clock time otherwise.
pub struct Stopwatch {
    wall: Instant,
    cpu: Option<Duration>,
}

impl Stopwatch {
    /// Starts timing.
    pub fn start(cpu: bool) -> Stopwatch {
        Stopwatch {
            wall: Instant::now(),
            cpu: if cpu { thread_cpu_time() } else { None },
        }
    }

    /// The time since [`Stopwatch::start`].
    pub fn elapsed(&self) -> Duration {
        match (self.cpu, self.cpu.and_then(|_| thread_cpu_time())) {
            (Some(a), Some(b)) => b.saturating_sub(a),
            _ => self.wall.elapsed(),
        }
    }
}

/// The time Cranelift takes to compile every function of the optimized
/// `program` to machine code with tier `opt`'s settings (`-O2`: Cranelift's
/// optimizer on, no fuel checks, as `waddle run --tier opt` without
/// `--fuel`); zero when this host has no Cranelift back end.
pub fn codegen(program: &Program, cpu: bool) -> Result<Duration, String> {
    if !Tier::Opt.on_host() {
        return Ok(Duration::ZERO);
    }
    let opts = JitOptions {
        fuel: false,
        ..JitOptions::default()
    };
    let t = Stopwatch::start(cpu);
    let unit = waddle_jit::compile(Tier::Opt, program, &opts).map_err(|e| e.to_string())?;
    let spent = t.elapsed();
    drop(unit);
    Ok(spent)
}

/// The median of some durations.
fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v.get(v.len() / 2).copied().unwrap_or_default()
}

/// Measures one program `runs` times.
fn measure(p: &BenchProgram, runs: u32, cpu: bool) -> Result<Row, String> {
    let source = std::fs::read_to_string(&p.wdl)
        .map_err(|e| format!("cannot read `{}`: {e}", p.wdl.display()))?;
    let pipeline = Pipeline::for_level(2);
    let opts = PipelineOptions {
        verify: false,
        time: false,
    };
    let (mut fe, mut ps, mut cg, mut va) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let (mut funcs, mut validated, mut chained) = (0, 0, 0);
    for _ in 0..runs {
        let mut sources = SourceMap::default();
        sources.add(SourceFile::new(p.name.clone(), source.clone()));
        let t = Stopwatch::start(cpu);
        let compiled = compile(&sources, &CompileOptions::default()).map_err(|d| {
            format!(
                "`{}` does not compile:\n{}",
                p.name,
                waddle_frontend::diag::render(&d, &sources)
            )
        })?;
        fe.push(t.elapsed());
        let lowered: Program = compiled.program;
        let mut optimized = lowered.clone();
        let t = Stopwatch::start(cpu);
        pipeline
            .run(&mut optimized, &opts, &mut ())
            .map_err(|e| format!("`{}`: {e}", p.name))?;
        ps.push(t.elapsed());
        cg.push(codegen(&optimized, cpu).map_err(|e| format!("`{}`: {e}", p.name))?);
        let t = Stopwatch::start(cpu);
        let mut original = lowered;
        for f in original.funcs.values_mut() {
            if !f.is_declaration() {
                canonicalize(f);
            }
        }
        let result = validate_pipeline(&original, &optimized, &pipeline, &Options::default());
        va.push(t.elapsed());
        funcs = result.total;
        validated = result.equal;
        chained = result.chained;
    }
    Ok(Row {
        name: p.name.clone(),
        funcs,
        validated,
        chained,
        frontend: median(fe),
        passes: median(ps),
        codegen: median(cg),
        validate: median(va),
    })
}

/// `a / b` as a ratio string.
pub fn ratio(a: Duration, b: Duration) -> String {
    if b.is_zero() {
        return "-".into();
    }
    format!("{:.2}", a.as_secs_f64() / b.as_secs_f64())
}

/// Runs `--validate` over `programs` and prints the table; `Err` when a
/// program does not compile.
pub fn run(programs: &[BenchProgram], args: &BenchArgs) -> Result<(), String> {
    let mut rows = Vec::new();
    for p in programs {
        rows.push(measure(p, args.runs, args.cpu)?);
    }
    print!("{}", render(&rows));
    Ok(())
}

fn render(rows: &[Row]) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "translation validation vs compile time (-O2, median of runs)"
    );
    let _ = writeln!(
        out,
        "{:<14} {:>9} {:>5} {:>10} {:>10} {:>10} {:>10} {:>10} {:>12} {:>10}",
        "program",
        "validated",
        "chain",
        "frontend",
        "passes",
        "codegen",
        "compile",
        "validate",
        "val/compile",
        "val/passes"
    );
    let mut total = Row {
        name: "total".into(),
        funcs: 0,
        validated: 0,
        chained: 0,
        frontend: Duration::ZERO,
        passes: Duration::ZERO,
        codegen: Duration::ZERO,
        validate: Duration::ZERO,
    };
    for r in rows {
        total.funcs += r.funcs;
        total.validated += r.validated;
        total.chained += r.chained;
        total.frontend += r.frontend;
        total.passes += r.passes;
        total.codegen += r.codegen;
        total.validate += r.validate;
    }
    for r in rows.iter().chain(std::iter::once(&total)) {
        let _ = writeln!(
            out,
            "{:<14} {:>9} {:>5} {:>10} {:>10} {:>10} {:>10} {:>10} {:>12} {:>10}",
            r.name,
            format!("{}/{}", r.validated, r.funcs),
            r.chained,
            fmt_time(r.frontend.as_secs_f64()),
            fmt_time(r.passes.as_secs_f64()),
            fmt_time(r.codegen.as_secs_f64()),
            fmt_time(r.compile().as_secs_f64()),
            fmt_time(r.validate.as_secs_f64()),
            ratio(r.validate, r.compile()),
            ratio(r.validate, r.passes),
        );
    }
    out
}
