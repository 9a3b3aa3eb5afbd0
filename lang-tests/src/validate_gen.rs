//! Translation validation over generated programs (issue 14's target
//! "≥ 90 % of generated programs' functions", digest §5.7 T3): each program
//! of [`crate::gen`] is lowered, optimized by the `-O2` pipeline and every
//! optimized function is validated against its canonical original, as
//! `waddle run --validate` does. `difftest --validate` prints the figures.

use std::time::{Duration, Instant};

use waddle_frontend::{compile, CompileOptions, SourceFile, SourceMap};
use waddle_opt::canon::canonicalize;
use waddle_opt::passes::{Pipeline, PipelineOptions};
use waddle_opt::validate::{validate_program, Options};

use crate::gen::{generate, GenConfig};

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
    /// Time in the `-O2` pipeline.
    pub passes: Duration,
    /// Time validating.
    pub validate: Duration,
    /// Every function that did not validate.
    pub failures: Vec<GenFailure>,
}

/// Validates the `-O2` optimization of the programs of seeds
/// `first..first + count` under `config`; `Err` when a generated program
/// does not compile or the pipeline fails (both are bugs).
pub fn validate_generated(
    first: u64,
    count: u64,
    config: &GenConfig,
) -> Result<GenValidation, String> {
    let mut out = GenValidation::default();
    let pipeline = Pipeline::for_level(2);
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
        let result = validate_program(&original, &optimized, &Options::default());
        out.validate += t.elapsed();
        out.programs += 1;
        out.funcs += result.total;
        out.validated += result.equal;
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

    /// Every function is counted once, as validated or as a failure with
    /// its reason, and the figures are deterministic.
    #[test]
    fn every_function_is_validated_or_listed_with_a_reason() {
        let c = GenConfig::small();
        let a = validate_generated(1, 3, &c).expect("generated programs compile");
        assert_eq!(a.programs, 3);
        assert!(a.funcs > 0);
        assert_eq!(a.validated as usize + a.failures.len(), a.funcs as usize);
        assert!(a.failures.iter().all(|f| !f.message.is_empty()));
        let b = validate_generated(1, 3, &c).expect("generated programs compile");
        assert_eq!((a.funcs, a.validated), (b.funcs, b.validated));
    }
}
