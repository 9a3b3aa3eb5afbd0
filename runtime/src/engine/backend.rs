//! The engine's [`Executor`], which routes each call to a function's native
//! code or to the IR interpreter, and thin wrappers over `waddle-opt`'s pass
//! pipeline, printer and verifier for the rest of the engine. Native code
//! generation is reached through [`super::native`], the tier policy lives in
//! [`super::tiering`].

use waddle_opt::abi::{Trap, Word};
use waddle_opt::interp::{Host, Interpreter};
use waddle_opt::ir::{FuncId, Program};
use waddle_opt::passes::{PassError, Pipeline, PipelineOptions, PrintAfter};

use super::compile::{PassLog, PassTrace, Validation, ValidationLog};
use super::native::{InstallError, NativeCode};
use super::tiering;
use crate::driver::Tier;

/// Runs functions of a program: on the interpreter (T0, always kept up to
/// date) or as native code (see [`super::tiering`] for who runs what).
pub(crate) struct Executor {
    interp: Interpreter,
    native: NativeCode,
    /// Auto's compile of the current program failed: interpret until a
    /// function changes.
    native_failed: bool,
}

impl Executor {
    /// Prepares every bodied function of `program` for the interpreter.
    pub(crate) fn new(program: &Program, host: &mut dyn Host, stack_budget: usize) -> Executor {
        let mut interp = Interpreter::new(program, host);
        interp.set_stack_budget(stack_budget);
        Executor {
            interp,
            native: NativeCode::new(stack_budget),
            native_failed: false,
        }
    }

    /// Re-prepares `func` after it was added or redefined; its native code
    /// (if any) is dropped and recompiled by the next [`Executor::prepare`].
    pub(crate) fn update(&mut self, program: &Program, func: FuncId, host: &mut dyn Host) {
        self.interp.update(program, func, host);
        self.native.invalidate(func);
        self.native_failed = false;
    }

    /// Forgets `func`'s native code (an entry's top-level code after it ran).
    pub(crate) fn forget(&mut self, func: FuncId) {
        self.native.invalidate(func);
    }

    /// Brings the native code in line with `tier` before `run` (if any)
    /// executes: compiles every function that should be native and is not.
    /// `Err` when `tier` is an explicit native tier that cannot compile.
    pub(crate) fn prepare(
        &mut self,
        program: &Program,
        host: &mut dyn Host,
        tier: Tier,
        fuel: bool,
        run: Option<FuncId>,
    ) -> Result<(), InstallError> {
        let Some(native) = tiering::native_tier(tier) else {
            if tier == Tier::Interp {
                self.native.clear();
                return Ok(());
            }
            return Err(InstallError::Unavailable(tier));
        };
        if fuel && !self.native.counts_fuel() {
            // Code compiled without fuel checks cannot enforce a budget.
            self.native.clear();
        }
        if tier == Tier::Auto && self.native_failed {
            return Ok(());
        }
        let interpreted_main = |id: FuncId, f: &waddle_opt::ir::Function| {
            Some(id) == run && f.name == ".main" && tiering::interpret_main(tier, f)
        };
        let missing_now = |native: &NativeCode| -> Vec<FuncId> {
            program
                .funcs
                .iter()
                .filter(|&(id, f)| {
                    !(f.is_declaration() || native.has(id) || interpreted_main(id, f))
                })
                .map(|(id, _)| id)
                .collect()
        };
        let mut missing = missing_now(&self.native);
        if !missing.is_empty()
            && !self.native.is_empty()
            && (native == Tier::Baseline || self.native.has_tier(Tier::Baseline))
        {
            // T1 code reads string constants through the *entered* unit's
            // table (`VmCtx::strings`), whose indices are per unit: a T1
            // function reached from another unit would read the wrong
            // constants. So while T1 code is involved, all native code of
            // the program is one unit: recompile everything together
            // (nothing runs while the executor prepares).
            self.native.clear();
            missing = missing_now(&self.native);
        }
        match self.native.install(program, &missing, native, fuel, host) {
            Ok(()) => Ok(()),
            Err(_) if tier == Tier::Auto => {
                self.native.clear();
                self.native_failed = true;
                Ok(())
            }
            Err(e) => Err(e),
        }
    }

    /// Calls `func` with `args` on the tier that runs it; `Err` is a trap.
    pub(crate) fn call(
        &mut self,
        host: &mut dyn Host,
        func: FuncId,
        args: &[Word],
    ) -> Result<Word, Trap> {
        match self.native.call(host, func, args) {
            Some(r) => r,
            None => self.interp.call(host, func, args),
        }
    }

    /// The tier running `func` now.
    pub(crate) fn tier_of(&self, func: FuncId) -> Tier {
        self.native.tier_of(func).unwrap_or(Tier::Interp)
    }

    /// `func`'s machine code, if it runs natively.
    pub(crate) fn code(&self, func: FuncId) -> Option<&[u8]> {
        self.native.code(func)
    }

    /// Live native units and the machine-code bytes they hold.
    pub(crate) fn native_memory(&self) -> (usize, usize) {
        self.native.memory()
    }
}

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
        validation: original.map(|o| validate(o, program, trace.validate)),
    })
}

/// Validates every function of `program` against `original` (the program
/// before the pipeline); in [`Validation::Guard`] mode a function that
/// does not validate gets its canonical original back.
fn validate(mut original: Program, program: &mut Program, mode: Validation) -> ValidationLog {
    for f in original.funcs.values_mut() {
        if !f.is_declaration() {
            waddle_opt::canon::canonicalize(f);
        }
    }
    let opts = waddle_opt::validate::Options::default();
    let result = waddle_opt::validate::validate_program(&original, program, &opts);
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
pub(crate) fn print_program(program: &Program) -> String {
    waddle_opt::ir::print_program(program)
}
