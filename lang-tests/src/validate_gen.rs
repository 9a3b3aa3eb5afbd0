//! Translation validation over generated programs (issue 14's target
//! "≥ 90 % of generated programs' functions", digest §5.7 T3): each program
//! of [`crate::gen`] is lowered, optimized by the `-O2` pipeline (or tier
//! T3's, with the VSDG round trip: [`ValidatedPipeline`]) and every
//! optimized function is validated against its canonical original, as
//! `waddle run --validate` does (the single before/after comparison, then
//! pass by pass for a function that fails it; the functions validated by
//! their per-pass chain are counted apart). `difftest --validate` prints the figures.

use std::time::{Duration, Instant};

use waddle_frontend::{compile, CompileOptions, SourceFile, SourceMap};
use waddle_opt::canon::canonicalize;
use waddle_opt::passes::{level_pipeline, vsdg_pipeline, Pipeline, PipelineOptions};
use waddle_opt::validate::{validate_pipeline, Options};

use crate::gen::{generate, GenConfig};

/// The pipeline [`validate_generated`] validates.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ValidatedPipeline {
    /// Tier T2's `-O2` pipeline.
    O2,
    /// Tier T3's: `-O2`, the VSDG round trip and its cleanup.
    Full,
}

impl ValidatedPipeline {
    /// Its passes, in order.
    pub fn passes(self) -> Vec<&'static str> {
        match self {
            ValidatedPipeline::O2 => level_pipeline(2).to_vec(),
            ValidatedPipeline::Full => vsdg_pipeline(2),
        }
    }
}

/// A generated function that did not validate.
#[derive(Clone, Debug)]
pub struct GenFailure {
    /// The program's seed.
    pub seed: u64,
    /// The function's name.
    pub func: String,
    /// Why (the validator's alarm or unsupported reason).
    pub message: String,
}

/// The figures over some generated programs.
#[derive(Clone, Debug, Default)]
pub struct GenValidation {
    /// Programs that compiled.
    pub programs: u32,
    /// Functions with a body compared.
    pub funcs: u32,
    /// Functions validated `Equal`.
    pub validated: u32,
    /// Of those, the functions validated only by their per-pass chain
    /// (`validate_pipeline`'s fallback).
    pub chained: u32,
    /// Time in the pipeline.
    pub passes: Duration,
    /// Time validating.
    pub validate: Duration,
    /// Every function that did not validate.
    pub failures: Vec<GenFailure>,
}

/// Validates the optimization by `which` of the programs of seeds
/// `first..first + count` under `config`; `Err` when a generated program
/// does not compile or the pipeline fails (both are bugs).
pub fn validate_generated(
    first: u64,
    count: u64,
    config: &GenConfig,
    which: ValidatedPipeline,
) -> Result<GenValidation, String> {
    let mut out = GenValidation::default();
    let pipeline = Pipeline::from_names(&which.passes()).map_err(|e| e.to_string())?;
    let opts = PipelineOptions {
        verify: false,
        time: false,
    };
    for seed in first..first + count {
        let source = generate(seed, config);
        let name = format!("gen-{seed}.wdl");
        let mut sources = SourceMap::default();
        sources.add(SourceFile::new(name.clone(), source));
        let compiled = compile(&sources, &CompileOptions::default())
            .map_err(|_| format!("{name} does not compile"))?;
        let lowered = compiled.program;
        let mut optimized = lowered.clone();
        let t = Instant::now();
        pipeline
            .run(&mut optimized, &opts, &mut ())
            .map_err(|e| format!("{name}: {e}"))?;
        out.passes += t.elapsed();
        let t = Instant::now();
        let mut original = lowered;
        for f in original.funcs.values_mut() {
            if !f.is_declaration() {
                canonicalize(f);
            }
        }
        let result = validate_pipeline(&original, &optimized, &pipeline, &Options::default());
        out.validate += t.elapsed();
        out.programs += 1;
        out.funcs += result.total;
        out.validated += result.equal;
        out.chained += result.chained;
        out.failures
            .extend(result.findings.into_iter().map(|f| GenFailure {
                seed,
                func: f.func,
                message: f.message,
            }));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::difftest::{run, Config, Limits};
    use waddle_opt::ir::Program;
    use waddle_opt::validate::{validate_program, ProgramValidation};

    /// `source` lowered (canonical) and optimized by the `-O2` pipeline,
    /// validated by the single comparison and by `validate_pipeline`.
    fn both_ways(name: &str, source: String) -> (ProgramValidation, ProgramValidation) {
        both_ways_over(name, source, ValidatedPipeline::O2)
    }

    /// [`both_ways`] over the pipeline `which`.
    fn both_ways_over(
        name: &str,
        source: String,
        which: ValidatedPipeline,
    ) -> (ProgramValidation, ProgramValidation) {
        let mut sources = SourceMap::default();
        sources.add(SourceFile::new(name.to_string(), source));
        let lowered: Program = compile(&sources, &CompileOptions::default())
            .expect("compiles")
            .program;
        let pipeline = Pipeline::from_names(&which.passes()).expect("registered");
        let opts = PipelineOptions {
            verify: false,
            time: false,
        };
        let mut optimized = lowered.clone();
        pipeline.run(&mut optimized, &opts, &mut ()).expect("runs");
        let mut original = lowered;
        for f in original.funcs.values_mut() {
            if !f.is_declaration() {
                canonicalize(f);
            }
        }
        let o = Options::default();
        (
            validate_program(&original, &optimized, &o),
            validate_pipeline(&original, &optimized, &pipeline, &o),
        )
    }

    /// Function `func` of `source` fails the single before/after
    /// comparison and validates by its per-pass chain, counted apart; the
    /// program then prints and ends the same on the interpreter at `-O0`
    /// and at `-O2`.
    #[track_caller]
    fn chained(name: &str, source: String, func: &str) {
        let (single, chain) = both_ways(name, source.clone());
        let failed = |v: &ProgramValidation| v.findings.iter().any(|f| f.func == func);
        assert!(failed(&single), "{name} {func} validates without the chain");
        assert!(!failed(&chain), "{name} {func}: {:?}", chain.findings);
        assert!(chain.chained >= 1);
        assert_eq!(chain.equal, single.equal + chain.chained);
        assert_eq!(chain.total, single.total);
        let limits = Limits {
            fuel: Some(20_000_000),
            memory_limit: None,
        };
        let o0 = run(
            &Config::host(waddle::Tier::Interp, 0),
            limits,
            name,
            &source,
        );
        let o2 = run(
            &Config::host(waddle::Tier::Interp, 2),
            limits,
            name,
            &source,
        );
        assert_eq!(
            (o0.stdout, o0.exit_code),
            (o2.stdout, o2.exit_code),
            "{name} runs differently at -O2"
        );
    }

    /// Generated functions that validate only pass by pass (seed 80000's
    /// class "every pass validates alone, only the composition fails").
    /// (gen-80000 f12 and gen-80008 f9 were such cases until the
    /// gate-merging change of the long-chains work let the single
    /// comparison prove them.)
    #[test]
    fn functions_validated_only_pass_by_pass_are_chained_and_run_alike() {
        for (seed, func) in [(80019, "f33"), (80033, "f40"), (80034, "f17")] {
            let source = generate(seed, &GenConfig::default());
            chained(&format!("gen-{seed}.wdl"), source, func);
        }
    }

    /// Property: every small generated program with a function validated
    /// only by its chain prints and ends the same on the interpreter at
    /// `-O0` and at `-O2`, and the chain only ever adds to the single
    /// comparison's verdicts.
    #[test]
    fn chained_verdicts_of_generated_programs_run_alike() {
        let limits = Limits {
            fuel: Some(20_000_000),
            memory_limit: None,
        };
        let mut chained = 0;
        for seed in 1..=SMALL_SEEDS {
            let name = format!("gen-{seed}.wdl");
            let source = generate(seed, &GenConfig::small());
            let (single, chain) = both_ways(&name, source.clone());
            assert_eq!(chain.equal, single.equal + chain.chained, "{name}");
            if chain.chained == 0 {
                continue;
            }
            chained += chain.chained;
            let o0 = run(
                &Config::host(waddle::Tier::Interp, 0),
                limits,
                &name,
                &source,
            );
            let o2 = run(
                &Config::host(waddle::Tier::Interp, 2),
                limits,
                &name,
                &source,
            );
            assert_eq!(
                (o0.stdout, o0.exit_code),
                (o2.stdout, o2.exit_code),
                "{name} runs differently at -O2"
            );
        }
        assert!(chained >= 2, "only {chained} chained functions");
    }

    /// Small generated programs [`chained_verdicts_of_generated_programs_run_alike`] checks.
    const SMALL_SEEDS: u64 = 60;

    /// The corpus program whose `.main` validates pass by pass only.
    #[test]
    fn the_corpus_composition_case_is_chained() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/programs/functions/inlined_constant_chains.wdl"
        );
        let source = std::fs::read_to_string(path).expect("readable");
        chained("inlined_constant_chains.wdl", source, ".main");
    }

    /// The corpus program of shapes the VSDG round trip changes (a deep
    /// `if .. else { if .. }` nest, arms with inner chains, a flag compared
    /// after the branch that set it): every function validates by the
    /// single comparison over both pipelines. Before R12 and the larger
    /// R10 nests, `nested` and `flags` alarmed over the full pipeline and
    /// `mixed` over both.
    #[test]
    fn the_vsdg_shapes_validate_over_both_pipelines() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/programs/control/nested_arms.wdl"
        );
        let source = std::fs::read_to_string(path).expect("readable");
        for which in [ValidatedPipeline::O2, ValidatedPipeline::Full] {
            let (single, _) = both_ways_over("nested_arms.wdl", source.clone(), which);
            assert_eq!(single.total, 5, "{which:?}");
            assert_eq!(
                single.equal, single.total,
                "{which:?}: {:?}",
                single.findings
            );
        }
    }

    /// Every function is counted once, as validated or as a failure with
    /// its reason, and the figures are deterministic, over both pipelines
    /// (the same functions).
    #[test]
    fn every_function_is_validated_or_listed_with_a_reason() {
        let c = GenConfig::small();
        let mut funcs = Vec::new();
        for which in [ValidatedPipeline::O2, ValidatedPipeline::Full] {
            let a = validate_generated(1, 3, &c, which).expect("generated programs compile");
            assert_eq!(a.programs, 3);
            assert!(a.funcs > 0);
            assert_eq!(a.validated as usize + a.failures.len(), a.funcs as usize);
            assert!(a.failures.iter().all(|f| !f.message.is_empty()));
            let b = validate_generated(1, 3, &c, which).expect("generated programs compile");
            assert_eq!((a.funcs, a.validated), (b.funcs, b.validated));
            funcs.push(a.funcs);
        }
        assert_eq!(funcs[0], funcs[1]);
    }
}
