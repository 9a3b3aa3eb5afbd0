//! `waddle bench --validate --corpus`: the metrics of issue 14 on the
//! lang-test corpus (digest §5.7 T3): functions validated over the whole
//! `-O2` pipeline (or, with `--tiers full`, of tier T3's: `-O2`, the VSDG
//! round trip and its cleanup), validated changed runs per pass, validation time as a
//! multiple of compile time (the whole compile to machine code: frontend,
//! passes and Cranelift, as in [`super::validate`]; and of the passes
//! alone), and every function that does not validate with the reason.
//!
//! Each `.wdl` file under the corpus directory (default
//! `lang-tests/tests/programs`; the `compile-errors` group and any program
//! the frontend rejects are skipped) is lowered, optimized and validated
//! as in [`super::validate`] (median of `--runs`), then optimized once more
//! with the per-pass [`Validator`] attached (untimed) to find the passes
//! whose own validation fails on each function. A function that does not
//! validate is classified by running its program on the interpreter at
//! `-O0` and after the measured pipeline: when the output and exit status agree the alarm is a
//! *missing rule* (named after the pass that alarms, see
//! [`waddle_opt::validate::missing_rule`]); when they differ it is an
//! *optimizer bug*.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

use waddle::tooling::{run_source, RunOptions};
use waddle::Tier;
use waddle_frontend::{compile, CompileOptions, SourceFile, SourceMap};
use waddle_opt::canon::canonicalize;
use waddle_opt::ir::Program;
use waddle_opt::passes::{level_pipeline, vsdg_pipeline, Pipeline, PipelineOptions};
use waddle_opt::validate::{missing_rule, validate_pipeline, Options, PassStats, Validator};

use super::table::fmt_time;
use super::validate::{codegen, ratio, Stopwatch};
use super::BenchArgs;

/// The corpus directory: `explicit`, else the workspace's
/// `lang-tests/tests/programs` (when the build tree is still there), else
/// `./lang-tests/tests/programs`.
pub fn find_dir(explicit: Option<&Path>) -> Result<PathBuf, String> {
    if let Some(d) = explicit {
        return if d.is_dir() {
            Ok(d.to_path_buf())
        } else {
            Err(format!("corpus directory `{}` does not exist", d.display()))
        };
    }
    [
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../lang-tests/tests/programs"),
        PathBuf::from("lang-tests/tests/programs"),
    ]
    .into_iter()
    .find(|d| d.is_dir())
    .ok_or_else(|| "cannot find the lang-test corpus; pass --dir DIR".to_string())
}

/// Every `.wdl` file under `dir`, as (path relative to `dir`, path),
/// sorted, without the `compile-errors` group; only names containing one
/// of `names` when `names` is not empty.
fn programs(dir: &Path, names: &[String]) -> Result<Vec<(String, PathBuf)>, String> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<(String, PathBuf)>) -> Result<(), String> {
        let entries =
            std::fs::read_dir(dir).map_err(|e| format!("cannot read `{}`: {e}", dir.display()))?;
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                walk(root, &path, out)?;
            } else if path.extension().is_some_and(|e| e == "wdl") {
                let rel = path.strip_prefix(root).unwrap_or(&path);
                let name = rel
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy().into_owned())
                    .collect::<Vec<_>>()
                    .join("/");
                out.push((name, path));
            }
        }
        Ok(())
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out)?;
    out.retain(|(name, _)| {
        !name.starts_with("compile-errors/")
            && (names.is_empty() || names.iter().any(|n| name.contains(n.as_str())))
    });
    out.sort();
    Ok(out)
}

/// A function that did not validate over the whole pipeline.
struct Failure {
    program: String,
    func: String,
    message: String,
    /// The passes whose own validation of this function failed.
    passes: Vec<&'static str>,
    /// Whether the program behaves the same at `-O0` and `-O2`.
    agrees: bool,
}

/// The totals over the corpus.
#[derive(Default)]
struct Totals {
    programs: u32,
    skipped: u32,
    funcs: u32,
    validated: u32,
    /// Of `validated`, the functions validated by their per-pass chain.
    chained: u32,
    frontend: Duration,
    passes: Duration,
    codegen: Duration,
    validate: Duration,
    per_pass: Vec<PassStats>,
    failures: Vec<Failure>,
}

/// The median of some durations.
fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v.get(v.len() / 2).copied().unwrap_or_default()
}

/// A pipeline `--validate --corpus` measures: the `-O2` pipeline of tier
/// T2 (`--tiers opt`, the default) or tier T3's (`--tiers full`).
pub struct Measured {
    /// How the report names it.
    pub label: &'static str,
    /// Its passes, in order.
    pub passes: Vec<&'static str>,
}

/// The pipelines `--tiers` selects (`opt`, `full`; `opt` when not given);
/// `Err` names a tier without a pipeline of its own.
pub fn measured(tiers: Option<&[String]>) -> Result<Vec<Measured>, String> {
    let Some(tiers) = tiers else {
        return Ok(vec![measured_tier("opt")?]);
    };
    tiers.iter().map(|t| measured_tier(t)).collect()
}

fn measured_tier(tier: &str) -> Result<Measured, String> {
    match tier {
        "opt" => Ok(Measured {
            label: "-O2",
            passes: level_pipeline(2).to_vec(),
        }),
        "full" => Ok(Measured {
            label: "full: -O2 + VSDG round trip",
            passes: vsdg_pipeline(2),
        }),
        _ => Err(format!(
            "`--validate --corpus` measures the pipelines of tiers `opt` and `full`, not `{tier}`"
        )),
    }
}

/// Whether `source` prints the same and exits the same on the interpreter
/// at `-O0` and after the passes `passes` (with a fuel budget, so a long
/// program ends).
fn behaves_alike(name: &str, source: &str, passes: &[&str]) -> bool {
    let run = |passes: Option<Vec<String>>| {
        let o = run_source(
            name,
            source,
            &RunOptions {
                tier: Tier::Interp,
                passes,
                fuel: Some(50_000_000),
                ..RunOptions::default()
            },
        );
        (o.stdout, o.exit_code)
    };
    run(None) == run(Some(passes.iter().map(|p| p.to_string()).collect()))
}

/// Measures one corpus program into `t` over the pipeline `m`.
fn measure(
    name: &str,
    source: &str,
    m: &Measured,
    args: &BenchArgs,
    t: &mut Totals,
) -> Result<(), String> {
    let (runs, cpu) = (args.runs, args.cpu);
    let pipeline = Pipeline::from_names(&m.passes).map_err(|e| e.to_string())?;
    let opts = PipelineOptions {
        verify: false,
        time: false,
    };
    let (mut fe, mut ps, mut cg, mut va) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut last = None;
    for _ in 0..runs {
        let mut sources = SourceMap::default();
        sources.add(SourceFile::new(name.to_string(), source.to_string()));
        let start = Stopwatch::start(cpu);
        let Ok(compiled) = compile(&sources, &CompileOptions::default()) else {
            t.skipped += 1;
            return Ok(());
        };
        fe.push(start.elapsed());
        let lowered: Program = compiled.program;
        let mut optimized = lowered.clone();
        let start = Stopwatch::start(cpu);
        pipeline
            .run(&mut optimized, &opts, &mut ())
            .map_err(|e| format!("`{name}`: {e}"))?;
        ps.push(start.elapsed());
        cg.push(codegen(&optimized, cpu).map_err(|e| format!("`{name}`: {e}"))?);
        let start = Stopwatch::start(cpu);
        let mut original = lowered.clone();
        for f in original.funcs.values_mut() {
            if !f.is_declaration() {
                canonicalize(f);
            }
        }
        let result = validate_pipeline(&original, &optimized, &pipeline, &Options::default());
        va.push(start.elapsed());
        last = Some((lowered, result));
    }
    let Some((lowered, result)) = last else {
        return Ok(());
    };
    t.programs += 1;
    t.funcs += result.total;
    t.validated += result.equal;
    t.chained += result.chained;
    t.frontend += median(fe);
    t.passes += median(ps);
    t.codegen += median(cg);
    t.validate += median(va);
    // Per pass, untimed against the compile.
    let mut v = Validator::new(Options::default());
    v.set_program(&lowered);
    let mut p = lowered;
    pipeline
        .run(&mut p, &opts, &mut v)
        .map_err(|e| format!("`{name}`: {e}"))?;
    for s in v.stats {
        match t.per_pass.iter_mut().find(|r| r.name == s.name) {
            Some(r) => {
                r.runs += s.runs;
                r.changed += s.changed;
                r.equal += s.equal;
                r.alarms += s.alarms;
                r.unsupported += s.unsupported;
                r.time += s.time;
            }
            None => t.per_pass.push(s),
        }
    }
    if result.findings.is_empty() {
        return Ok(());
    }
    let agrees = behaves_alike(name, source, &m.passes);
    for f in result.findings {
        let mut passes: Vec<&'static str> = v
            .findings
            .iter()
            .filter(|x| x.func == f.func)
            .map(|x| x.pass)
            .collect();
        passes.dedup();
        t.failures.push(Failure {
            program: name.to_string(),
            func: f.func,
            message: f.message,
            passes,
            agrees,
        });
    }
    Ok(())
}

/// Runs `--validate --corpus` and prints the metrics; `Err` when the
/// corpus cannot be read or a pipeline fails.
pub fn run(args: &BenchArgs) -> Result<(), String> {
    let dir = find_dir(args.dir.as_deref())?;
    let pipelines = measured(args.tiers.as_deref())?;
    let mut sources = Vec::new();
    for (name, path) in programs(&dir, &args.names)? {
        let source = std::fs::read_to_string(&path)
            .map_err(|e| format!("cannot read `{}`: {e}", path.display()))?;
        sources.push((name, source));
    }
    for m in &pipelines {
        let mut t = Totals::default();
        for (name, source) in &sources {
            measure(name, source, m, args, &mut t)?;
        }
        print!("{}", render(&t, m.label));
    }
    Ok(())
}

/// `a` of `b` as a percentage.
fn percent(a: u32, b: u32) -> String {
    if b == 0 {
        return "-".into();
    }
    format!("{:.1}%", 100.0 * f64::from(a) / f64::from(b))
}

fn render(t: &Totals, label: &str) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "translation validation on the lang-test corpus ({label}): {} programs ({} skipped)",
        t.programs, t.skipped
    );
    let _ = writeln!(
        out,
        "whole pipeline: validated {} of {} functions ({}; {} by per-pass chain)",
        t.validated,
        t.funcs,
        percent(t.validated, t.funcs),
        t.chained
    );
    let compile = t.frontend + t.passes + t.codegen;
    let _ = writeln!(
        out,
        "time (median of runs, summed): frontend {}, passes {}, codegen {}, \
         compile (frontend+passes+codegen) {}, validate {}",
        fmt_time(t.frontend.as_secs_f64()),
        fmt_time(t.passes.as_secs_f64()),
        fmt_time(t.codegen.as_secs_f64()),
        fmt_time(compile.as_secs_f64()),
        fmt_time(t.validate.as_secs_f64()),
    );
    let _ = writeln!(
        out,
        "validate/compile {}, validate/passes {}",
        ratio(t.validate, compile),
        ratio(t.validate, t.passes),
    );
    let _ = writeln!(out, "per pass (changed runs validated):");
    let _ = writeln!(
        out,
        "{:<12} {:>6} {:>8} {:>6} {:>6} {:>6} {:>7} {:>10}",
        "pass", "runs", "changed", "equal", "alarm", "unsup", "rate", "time"
    );
    let mut per_pass_time = Duration::ZERO;
    for s in &t.per_pass {
        per_pass_time += s.time;
        let _ = writeln!(
            out,
            "{:<12} {:>6} {:>8} {:>6} {:>6} {:>6} {:>7} {:>10}",
            s.name,
            s.runs,
            s.changed,
            s.equal,
            s.alarms,
            s.unsupported,
            percent(s.equal, s.changed),
            fmt_time(s.time.as_secs_f64()),
        );
    }
    let _ = writeln!(
        out,
        "per-pass validation time {} (validate/passes {})",
        fmt_time(per_pass_time.as_secs_f64()),
        ratio(per_pass_time, t.passes)
    );
    let _ = writeln!(
        out,
        "functions that do not validate ({}):",
        t.failures.len()
    );
    for f in &t.failures {
        let reason = if !f.agrees {
            format!("OPTIMIZER BUG: the program behaves differently at -O0 and {label}")
        } else if f.passes.is_empty() {
            "missing rule: every pass validates alone, the composition does not".to_string()
        } else {
            let rules: Vec<String> = f
                .passes
                .iter()
                .map(|p| format!("{p}: {}", missing_rule(p)))
                .collect();
            format!("missing rule ({})", rules.join("; "))
        };
        let _ = writeln!(out, "  {}: {}: {reason}", f.program, f.func);
        let _ = writeln!(out, "      {}", f.message);
    }
    out
}
