//! The result model of `waddle bench` and its JSON form.
//!
//! One [`Measurement`] per child process; an [`ImplResult`] per (program,
//! tier or reference) with the medians of its runs; a [`ProgramReport`]
//! per program, which checks that every output equals the reference output
//! (the interpreter's when it ran) and computes the ratios; a
//! [`BenchReport`] for the whole invocation.
//!
//! Times are seconds, memory KiB. `time_s` is what implementations are
//! compared by: for a Waddle tier the in-process execution of `main`
//! (compilation excluded, reported separately), for a reference the
//! process's run (interpreter start-up included; a few milliseconds). It is
//! wall time, or CPU time (user + system, all threads) with `--cpu`, which is
//! steadier on a loaded machine.

use serde::{Deserialize, Serialize};

/// Phase times measured inside a Waddle child.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Phases {
    /// The engine compiling the program's declarations (all phases it runs).
    pub engine_compile_s: f64,
    /// The engine executing `main(N)`.
    pub exec_s: f64,
    /// CPU time of the process (all threads) while executing `main(N)`.
    pub exec_cpu_s: Option<f64>,
    /// CPU time of the process (all threads) while the engine compiled
    /// the declarations.
    #[serde(default)]
    pub engine_compile_cpu_s: Option<f64>,
    /// System CPU time of the process while the engine compiled: mostly
    /// page faults, the memory traffic that grows with the program.
    #[serde(default)]
    pub engine_compile_sys_s: Option<f64>,
    /// Memory faulted in (minor page faults times the page size) while the
    /// engine compiled, in bytes.
    #[serde(default)]
    pub engine_compile_faulted_bytes: Option<u64>,
    /// Replayed frontend (parse, check, lower).
    pub frontend_s: f64,
    /// Replayed `-O2` pass pipeline.
    pub passes_s: f64,
    /// Replayed whole code generator call (native tiers only:
    /// `waddle_jit::baseline::compile` or `waddle_jit::compile`).
    pub codegen_s: Option<f64>,
    /// Sum of the per-function translation and code generation times.
    pub codegen_funcs_s: Option<f64>,
    /// Waddle IR instructions of the compiled functions.
    pub ir_insts: Option<usize>,
    /// `codegen_funcs_s` per IR instruction, in nanoseconds.
    pub codegen_ns_per_inst: Option<f64>,
    /// Per-function code generation statistics.
    pub funcs: Vec<FuncCodegen>,
    /// `auto` only: functions promoted and on-stack replacements made
    /// while executing `main(N)` ([`waddle::Store::tier_ups`]).
    #[serde(default)]
    pub tier_ups: Option<(u64, u64)>,
    /// `auto` only: of those promotions, the ones from T2 to T3
    /// ([`waddle::Store::full_promotions`]).
    #[serde(default)]
    pub full_promotions: Option<u64>,
    /// The replayed compile split finely, in order: `parse`, `check`,
    /// `lower`, `pass NAME` for every pass of the pipeline (and
    /// `canonicalize`), `passes other` (the pipeline outside its passes),
    /// and for native tiers `codegen translate`, `codegen emit` (summed
    /// over functions) and `codegen other` (trampolines, linking, the rest
    /// of the unit). The replaying thread's CPU time of each where the
    /// platform reports it (else wall time); the code generator's split is
    /// its CPU time divided in the proportions of the per-function wall
    /// times.
    #[serde(default)]
    pub detail: Vec<PhaseTime>,
}

/// One finely split compile phase (see [`Phases::detail`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PhaseTime {
    /// The phase.
    pub name: String,
    /// Its time in seconds.
    pub s: f64,
}

/// Code generation statistics of one function.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FuncCodegen {
    /// Function name.
    pub name: String,
    /// Waddle IR instructions.
    pub ir_insts: usize,
    /// Preparation: Waddle IR → Cranelift IR (`opt`), or the frame and
    /// register plan (`baseline`).
    pub translate_s: f64,
    /// Machine code: Cranelift (optimization, register allocation,
    /// emission), or the baseline's single emission pass.
    pub codegen_s: f64,
    /// Machine code bytes.
    pub code_size: usize,
}

/// One child process.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Measurement {
    /// Ran to completion with exit status 0.
    pub ok: bool,
    /// Why not.
    pub error: Option<String>,
    /// What the program printed.
    pub output: String,
    /// The compared time (see the module docs).
    pub time_s: f64,
    /// Wall time of the whole process.
    pub wall_s: f64,
    /// User + system CPU time of the process.
    pub cpu_s: Option<f64>,
    /// Peak resident set size.
    pub peak_rss_kib: Option<u64>,
    /// Waddle tiers: the engine's compile plus `time_s` (CPU time of the
    /// compile with `--cpu`): the whole run of the program, for comparing
    /// `auto`, which compiles while it runs, with the eager tiers, which
    /// compile before.
    #[serde(default)]
    pub whole_s: Option<f64>,
    /// Phase times (Waddle tiers only).
    pub phases: Option<Phases>,
}

impl Measurement {
    /// A run that could not happen.
    pub fn failed(error: String) -> Measurement {
        Measurement {
            error: Some(error),
            ..Measurement::default()
        }
    }
}

/// Whether a result is a Waddle tier or a reference implementation.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ImplKind {
    /// A Waddle execution tier.
    Tier,
    /// C, Lua or Python.
    Reference,
}

/// Medians over the successful runs.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// Median compared time.
    pub time_s: f64,
    /// Median process wall time.
    pub wall_s: f64,
    /// Median process CPU time.
    pub cpu_s: Option<f64>,
    /// Compile time: the engine's (tiers) or `cc`'s (C, once).
    pub compile_s: Option<f64>,
    /// Median replayed frontend time.
    pub frontend_s: Option<f64>,
    /// Median replayed pass time.
    pub passes_s: Option<f64>,
    /// Median replayed code generation time.
    pub codegen_s: Option<f64>,
    /// IR instructions the code generator compiled (native tiers).
    pub ir_insts: Option<usize>,
    /// Median per-function code generation time per IR instruction, in ns.
    pub codegen_ns_per_inst: Option<f64>,
    /// Largest peak resident set over the runs.
    pub peak_rss_kib: Option<u64>,
    /// `auto`: promotions and OSR entries of the first run.
    #[serde(default)]
    pub tier_ups: Option<(u64, u64)>,
    /// `auto`: promotions from T2 to T3 of the first run.
    #[serde(default)]
    pub full_promotions: Option<u64>,
    /// Median [`Measurement::whole_s`] (Waddle tiers).
    #[serde(default)]
    pub whole_s: Option<f64>,
}

/// One implementation (tier or reference) of one program.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ImplResult {
    /// `interp`, `opt`, ..., `C`, `lua5.4`, `luajit`, `python3`.
    pub name: String,
    /// Tier or reference.
    pub kind: ImplKind,
    /// Every run succeeded.
    pub ok: bool,
    /// The first error.
    pub error: Option<String>,
    /// Every run printed the expected output (`None` when nothing to compare).
    pub output_matches: Option<bool>,
    /// Medians (`None` when no run succeeded).
    pub median: Option<Summary>,
    /// `time_s` over the fastest Waddle tier's.
    pub ratio_to_best_tier: Option<f64>,
    /// `whole_s` over the smallest `whole_s` of the eager tiers (every
    /// tier but `auto`).
    #[serde(default)]
    pub whole_to_best_eager: Option<f64>,
    /// `time_s` over C's.
    pub ratio_to_c: Option<f64>,
    /// Per-function code generation of the first run (native tiers).
    pub codegen_funcs: Vec<FuncCodegen>,
    /// Every run.
    pub runs: Vec<Measurement>,
}

fn median(mut xs: Vec<f64>) -> Option<f64> {
    if xs.is_empty() {
        return None;
    }
    xs.sort_by(f64::total_cmp);
    let n = xs.len();
    Some(if n % 2 == 1 {
        xs[n / 2]
    } else {
        (xs[n / 2 - 1] + xs[n / 2]) / 2.0
    })
}

impl ImplResult {
    /// Summarizes `runs`; `compile_s` is a one-time compile (C).
    pub fn from_runs(
        name: String,
        kind: ImplKind,
        compile_s: Option<f64>,
        runs: Vec<Measurement>,
    ) -> ImplResult {
        let good: Vec<&Measurement> = runs.iter().filter(|m| m.ok).collect();
        let ok = !runs.is_empty() && good.len() == runs.len();
        let error = runs.iter().find_map(|m| m.error.clone());
        let phase = |f: &dyn Fn(&Phases) -> Option<f64>| {
            median(
                good.iter()
                    .filter_map(|m| m.phases.as_ref().and_then(f))
                    .collect(),
            )
        };
        let median = (!good.is_empty()).then(|| Summary {
            time_s: median(good.iter().map(|m| m.time_s).collect()).unwrap_or_default(),
            wall_s: median(good.iter().map(|m| m.wall_s).collect()).unwrap_or_default(),
            cpu_s: median(good.iter().filter_map(|m| m.cpu_s).collect()),
            compile_s: compile_s.or_else(|| phase(&|p| Some(p.engine_compile_s))),
            frontend_s: phase(&|p| Some(p.frontend_s)),
            passes_s: phase(&|p| Some(p.passes_s)),
            codegen_s: phase(&|p| p.codegen_s),
            ir_insts: good
                .iter()
                .find_map(|m| m.phases.as_ref().and_then(|p| p.ir_insts)),
            codegen_ns_per_inst: phase(&|p| p.codegen_ns_per_inst),
            peak_rss_kib: good.iter().filter_map(|m| m.peak_rss_kib).max(),
            tier_ups: good
                .iter()
                .find_map(|m| m.phases.as_ref().and_then(|p| p.tier_ups)),
            full_promotions: good
                .iter()
                .find_map(|m| m.phases.as_ref().and_then(|p| p.full_promotions)),
            whole_s: median(good.iter().filter_map(|m| m.whole_s).collect()),
        });
        let codegen_funcs = good
            .first()
            .and_then(|m| m.phases.as_ref())
            .map(|p| p.funcs.clone())
            .unwrap_or_default();
        ImplResult {
            name,
            kind,
            ok,
            error,
            output_matches: None,
            median,
            ratio_to_best_tier: None,
            whole_to_best_eager: None,
            ratio_to_c: None,
            codegen_funcs,
            runs,
        }
    }

    /// An implementation that could not be prepared (e.g. `cc` failed).
    pub fn failed(name: String, kind: ImplKind, error: String) -> ImplResult {
        ImplResult::from_runs(name, kind, None, vec![Measurement::failed(error)])
    }

    /// The median compared time, when some run succeeded.
    pub fn time(&self) -> Option<f64> {
        self.median.as_ref().map(|m| m.time_s)
    }

    /// The median whole run (compile and execution; Waddle tiers).
    pub fn whole(&self) -> Option<f64> {
        self.median.as_ref().and_then(|m| m.whole_s)
    }
}

/// Name of the C reference in results.
pub const C_NAME: &str = "C";

/// All implementations of one program.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ProgramReport {
    /// Program name.
    pub name: String,
    /// Problem size passed to `main`.
    pub size: i64,
    /// The output everything is checked against (the first tier's that
    /// succeeded, normally the interpreter's; else the first reference's).
    pub expected_output: Option<String>,
    /// Every successful run of every implementation printed it.
    pub outputs_agree: bool,
    /// Tiers first, then references.
    pub results: Vec<ImplResult>,
}

impl ProgramReport {
    /// Checks outputs and computes ratios.
    pub fn new(name: String, size: i64, mut results: Vec<ImplResult>) -> ProgramReport {
        let expected = results
            .iter()
            .filter(|r| r.kind == ImplKind::Tier)
            .chain(results.iter().filter(|r| r.kind == ImplKind::Reference))
            .find_map(|r| r.runs.iter().find(|m| m.ok).map(|m| m.output.clone()));
        let mut agree = true;
        for r in &mut results {
            let outputs: Vec<&str> = r
                .runs
                .iter()
                .filter(|m| m.ok)
                .map(|m| m.output.as_str())
                .collect();
            if let (Some(e), false) = (&expected, outputs.is_empty()) {
                let matches = outputs.iter().all(|o| o == e);
                agree &= matches;
                r.output_matches = Some(matches);
            }
        }
        let best = results
            .iter()
            .filter(|r| r.kind == ImplKind::Tier)
            .filter_map(ImplResult::time)
            .fold(None, |acc: Option<f64>, t| {
                Some(acc.map_or(t, |a| a.min(t)))
            });
        let c = results
            .iter()
            .find(|r| r.kind == ImplKind::Reference && r.name == C_NAME)
            .and_then(ImplResult::time);
        let best_eager = results
            .iter()
            .filter(|r| r.kind == ImplKind::Tier && r.name != "auto")
            .filter_map(ImplResult::whole)
            .fold(None, |acc: Option<f64>, t| {
                Some(acc.map_or(t, |a| a.min(t)))
            });
        let ratio = |t: f64, base: Option<f64>| base.filter(|&b| b > 0.0).map(|b| t / b);
        for r in &mut results {
            if let Some(t) = r.time() {
                r.ratio_to_best_tier = ratio(t, best);
                r.ratio_to_c = ratio(t, c);
            }
            if let Some(w) = r.whole() {
                r.whole_to_best_eager = ratio(w, best_eager);
            }
        }
        ProgramReport {
            name,
            size,
            expected_output: expected,
            outputs_agree: agree,
            results,
        }
    }

    /// The result named `name`.
    pub fn result(&self, name: &str) -> Option<&ImplResult> {
        self.results.iter().find(|r| r.name == name)
    }

    /// The median code generation time per IR instruction of `name`.
    pub fn codegen_ns_per_inst(&self, name: &str) -> Option<f64> {
        self.result(name)
            .and_then(|r| r.median.as_ref())
            .and_then(|m| m.codegen_ns_per_inst)
    }
}

/// A reference toolchain as found on this machine.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReferenceInfo {
    /// `C`, `lua5.4`, `luajit` or `python3`.
    pub name: String,
    /// The command used, or `None` when it is not installed.
    pub command: Option<String>,
    /// Version text.
    pub version: Option<String>,
}

/// Geometric means over the programs of one implementation's ratios.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GeoMean {
    /// Implementation name.
    pub name: String,
    /// Over C (programs where both ran).
    pub ratio_to_c: Option<f64>,
    /// Over the interpreter (programs where both ran).
    pub ratio_to_interp: Option<f64>,
    /// Programs that entered the C mean.
    pub programs: usize,
}

/// Code generation speed of two native tiers, per IR instruction (the
/// issue #5 target: `baseline` at least 10x faster than `opt`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CodegenComparison {
    /// The tier listed first (e.g. `baseline`).
    pub first: String,
    /// The tier listed second (e.g. `opt`).
    pub second: String,
    /// Geometric mean over the programs of `first`'s ns per IR instruction.
    pub first_ns_per_inst: f64,
    /// The same for `second`.
    pub second_ns_per_inst: f64,
    /// `second_ns_per_inst / first_ns_per_inst` (how many times faster
    /// `first` generates code).
    pub ratio: f64,
    /// Programs where both tiers had the figure.
    pub programs: usize,
}

/// Every pair of `tiers` (in that order) with code generation figures on
/// common programs.
fn codegen_comparisons(tiers: &[String], programs: &[ProgramReport]) -> Vec<CodegenComparison> {
    let mut out = Vec::new();
    for (i, first) in tiers.iter().enumerate() {
        for second in &tiers[i + 1..] {
            let (mut a, mut b) = (Vec::new(), Vec::new());
            for p in programs {
                let pair = (p.codegen_ns_per_inst(first), p.codegen_ns_per_inst(second));
                if let (Some(x), Some(y)) = pair {
                    if x > 0.0 && y > 0.0 {
                        a.push(x);
                        b.push(y);
                    }
                }
            }
            if let (Some(x), Some(y)) = (geomean(&a), geomean(&b)) {
                out.push(CodegenComparison {
                    first: first.clone(),
                    second: second.clone(),
                    first_ns_per_inst: x,
                    second_ns_per_inst: y,
                    ratio: y / x,
                    programs: a.len(),
                });
            }
        }
    }
    out
}

/// The whole invocation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BenchReport {
    /// `--quick` sizes were used.
    pub quick: bool,
    /// `time_s` is CPU time (`--cpu`) rather than wall time.
    pub cpu_time: bool,
    /// Runs per implementation.
    pub runs: u32,
    /// The tiers measured.
    pub tiers: Vec<String>,
    /// The reference toolchains.
    pub references: Vec<ReferenceInfo>,
    /// Skipped tiers, missing references, ...
    pub notes: Vec<String>,
    /// Per program.
    pub programs: Vec<ProgramReport>,
    /// Every output agreed everywhere.
    pub all_outputs_agree: bool,
    /// Every run of every implementation succeeded.
    pub all_ok: bool,
    /// Geometric means per implementation.
    pub geomeans: Vec<GeoMean>,
    /// Code generation per IR instruction, per pair of native tiers.
    pub codegen_per_inst: Vec<CodegenComparison>,
}

fn geomean(xs: &[f64]) -> Option<f64> {
    (!xs.is_empty()).then(|| (xs.iter().map(|x| x.ln()).sum::<f64>() / xs.len() as f64).exp())
}

impl BenchReport {
    /// Assembles the report and its geometric means.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        quick: bool,
        cpu_time: bool,
        runs: u32,
        tiers: Vec<String>,
        references: Vec<ReferenceInfo>,
        notes: Vec<String>,
        programs: Vec<ProgramReport>,
    ) -> BenchReport {
        let mut names: Vec<String> = Vec::new();
        for p in &programs {
            for r in &p.results {
                if !names.contains(&r.name) {
                    names.push(r.name.clone());
                }
            }
        }
        let geomeans = names
            .into_iter()
            .map(|name| {
                let mut to_c = Vec::new();
                let mut to_interp = Vec::new();
                for p in &programs {
                    let Some(t) = p.result(&name).and_then(ImplResult::time) else {
                        continue;
                    };
                    if let Some(r) = p.result(&name).and_then(|r| r.ratio_to_c) {
                        to_c.push(r);
                    }
                    if let Some(i) = p.result("interp").and_then(ImplResult::time) {
                        if i > 0.0 && t > 0.0 {
                            to_interp.push(t / i);
                        }
                    }
                }
                GeoMean {
                    name,
                    ratio_to_c: geomean(&to_c),
                    ratio_to_interp: geomean(&to_interp),
                    programs: to_c.len(),
                }
            })
            .collect();
        let codegen_per_inst = codegen_comparisons(&tiers, &programs);
        BenchReport {
            quick,
            cpu_time,
            runs,
            tiers,
            references,
            notes,
            all_outputs_agree: programs.iter().all(|p| p.outputs_agree),
            all_ok: programs.iter().all(|p| p.results.iter().all(|r| r.ok)),
            programs,
            geomeans,
            codegen_per_inst,
        }
    }

    /// Pretty-printed JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(output: &str, time: f64) -> Measurement {
        Measurement {
            ok: true,
            output: output.to_string(),
            time_s: time,
            wall_s: time,
            ..Measurement::default()
        }
    }

    #[test]
    fn medians_ratios_and_mismatches() {
        let interp = ImplResult::from_runs(
            "interp".into(),
            ImplKind::Tier,
            None,
            vec![run("1\n", 3.0), run("1\n", 1.0), run("1\n", 2.0)],
        );
        assert_eq!(interp.time(), Some(2.0));
        let c = ImplResult::from_runs(
            C_NAME.into(),
            ImplKind::Reference,
            Some(0.1),
            vec![run("1\n", 0.5)],
        );
        let lua = ImplResult::from_runs(
            "lua5.4".into(),
            ImplKind::Reference,
            None,
            vec![run("2\n", 1.0)],
        );
        let p = ProgramReport::new("x".into(), 1, vec![interp, c, lua]);
        assert_eq!(p.expected_output.as_deref(), Some("1\n"));
        assert!(!p.outputs_agree);
        assert_eq!(p.result("lua5.4").unwrap().output_matches, Some(false));
        assert_eq!(p.result(C_NAME).unwrap().output_matches, Some(true));
        assert_eq!(p.result("interp").unwrap().ratio_to_c, Some(4.0));
        assert_eq!(p.result(C_NAME).unwrap().ratio_to_best_tier, Some(0.25));
        assert_eq!(
            p.result(C_NAME).unwrap().median.as_ref().unwrap().compile_s,
            Some(0.1)
        );
        let report = BenchReport::new(false, false, 3, vec![], vec![], vec![], vec![p]);
        assert!(!report.all_outputs_agree);
        let g = report.geomeans.iter().find(|g| g.name == "interp").unwrap();
        assert_eq!(g.ratio_to_c, Some(4.0));
        assert_eq!(g.ratio_to_interp, Some(1.0));
    }

    #[test]
    fn auto_is_compared_with_the_best_eager_tier_by_the_whole_run() {
        let tier = |name: &str, time: f64, whole: f64| {
            let m = Measurement {
                whole_s: Some(whole),
                ..run("1\n", time)
            };
            ImplResult::from_runs(name.into(), ImplKind::Tier, None, vec![m])
        };
        let p = ProgramReport::new(
            "x".into(),
            1,
            vec![
                tier("opt", 1.0, 4.0),
                tier("baseline", 2.0, 2.5),
                tier("auto", 1.5, 3.0),
            ],
        );
        // By time alone opt is best; by the whole run baseline is the best
        // eager tier, and auto is not one.
        assert_eq!(p.result("auto").unwrap().ratio_to_best_tier, Some(1.5));
        assert_eq!(p.result("auto").unwrap().whole_to_best_eager, Some(1.2));
        assert_eq!(p.result("opt").unwrap().whole_to_best_eager, Some(1.6));
        assert_eq!(
            p.result("auto").unwrap().median.as_ref().unwrap().whole_s,
            Some(3.0)
        );
    }

    fn native(name: &str, ns: f64) -> ImplResult {
        let phases = Phases {
            codegen_ns_per_inst: Some(ns),
            ir_insts: Some(10),
            ..Phases::default()
        };
        let m = Measurement {
            phases: Some(phases),
            ..run("1\n", 1.0)
        };
        ImplResult::from_runs(name.into(), ImplKind::Tier, None, vec![m])
    }

    #[test]
    fn codegen_per_instruction_is_compared_per_tier_pair() {
        let programs = vec![
            ProgramReport::new(
                "a".into(),
                1,
                vec![native("baseline", 10.0), native("opt", 400.0)],
            ),
            ProgramReport::new(
                "b".into(),
                1,
                vec![native("baseline", 40.0), native("opt", 400.0)],
            ),
        ];
        let tiers = vec!["interp".to_string(), "baseline".into(), "opt".into()];
        let report = BenchReport::new(false, false, 1, tiers, vec![], vec![], programs);
        let a = &report.programs[0];
        assert_eq!(
            a.result("opt").unwrap().median.as_ref().unwrap().ir_insts,
            Some(10)
        );
        assert_eq!(
            report.codegen_per_inst.len(),
            1,
            "{:?}",
            report.codegen_per_inst
        );
        let c = &report.codegen_per_inst[0];
        assert_eq!((c.first.as_str(), c.second.as_str()), ("baseline", "opt"));
        assert!((c.first_ns_per_inst - 20.0).abs() < 1e-9);
        assert!((c.second_ns_per_inst - 400.0).abs() < 1e-9);
        assert!((c.ratio - 20.0).abs() < 1e-9);
        assert_eq!(c.programs, 2);
    }

    #[test]
    fn a_failed_run_is_not_ok() {
        let r = ImplResult::from_runs(
            "interp".into(),
            ImplKind::Tier,
            None,
            vec![run("1\n", 1.0), Measurement::failed("boom".into())],
        );
        assert!(!r.ok);
        assert_eq!(r.error.as_deref(), Some("boom"));
        assert_eq!(r.time(), Some(1.0));
    }
}
