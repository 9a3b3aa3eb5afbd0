//! The seams between the engine and the other crates' compilation pieces
//! (pass registry, IR printer, verifier). Execution goes through
//! [`super::exec`].

use waddle_opt::ir::{FuncId, Program};
use waddle_opt::passes::{PassError, Pipeline, PipelineOptions, PrintAfter};

use super::compile::{PassLog, PassTrace, Validation, ValidationLog};

/// Names of the available passes.
pub(crate) fn pass_names() -> Vec<String> {
    waddle_opt::passes::pass_names()
        .map(str::to_string)
        .collect()
}

/// Runs the explicit pass list `passes`, or else the pipeline of
/// optimization level `opt_level`, on every function of `program`,
/// collecting what `trace` asks for. `Err` for an unknown pass name or a
/// pass caught breaking a function.
pub(crate) fn run_pipeline(
    program: &mut Program,
    opt_level: u8,
    vsdg: bool,
    passes: Option<&[String]>,
    trace: &PassTrace,
) -> Result<PassLog, PassError> {
    let pipeline = match passes {
        Some(names) => Pipeline::from_names(names)?,
        None if vsdg => Pipeline::from_names(&waddle_opt::passes::vsdg_pipeline(opt_level))?,
        None => Pipeline::for_level(opt_level),
    };
    let options = PipelineOptions {
        time: trace.time,
        ..PipelineOptions::default()
    };
    let mut print = PrintAfter {
        passes: trace.print_after.clone(),
        out: String::new(),
    };
    let original = (trace.validate != Validation::Off).then(|| program.clone());
    let report = pipeline.run(program, &options, &mut print)?;
    Ok(PassLog {
        report: trace.time.then_some(report),
        printed: print.out,
        validation: original.map(|o| validate(o, program, &pipeline, trace.validate)),
    })
}

/// Validates every function of `program` against `original` (the program
/// before `pipeline` ran), by the single before/after comparison and, for
/// a function that fails it, pass by pass; in [`Validation::Guard`] mode a
/// function that validates neither way gets its canonical original back.
fn validate(
    mut original: Program,
    program: &mut Program,
    pipeline: &Pipeline,
    mode: Validation,
) -> ValidationLog {
    for f in original.funcs.values_mut() {
        if !f.is_declaration() {
            waddle_opt::canon::canonicalize(f);
        }
    }
    let opts = waddle_opt::validate::Options::default();
    let result = waddle_opt::validate::validate_pipeline(&original, program, pipeline, &opts);
    let mut findings = Vec::new();
    for (f, &id) in result.findings.iter().zip(&result.failed) {
        let kept = if mode == Validation::Guard {
            program.funcs[id] = original.funcs[id].clone();
            " (kept unoptimized)"
        } else {
            ""
        };
        findings.push(format!("validation: `{}`{kept}: {}", f.func, f.message));
    }
    ValidationLog {
        total: result.total,
        validated: result.equal,
        chained: result.chained,
        findings,
    }
}

/// Checks the IR's well-formedness; `Err` describes the first problem.
pub(crate) fn verify(program: &Program) -> Result<(), String> {
    waddle_opt::ir::verify_program(program).map_err(|errors| {
        errors
            .iter()
            .map(|e| e.to_string())
            .collect::<Vec<_>>()
            .join("\n")
    })
}

/// The text form of one function.
pub(crate) fn print_function(program: &Program, func: FuncId) -> String {
    waddle_opt::ir::print_function(program, func)
}

/// The text form of a whole program.
#[cfg(feature = "tooling")]
pub(crate) fn print_program(program: &Program) -> String {
    waddle_opt::ir::print_program(program)
}
