//! The seams between the engine and the other crates' execution and
//! compilation pieces (IR interpreter, pass registry, IR printer,
//! verifier). Every call into them goes through this one module, so adding
//! a tier or changing one of those APIs touches only this file.

use waddle_opt::abi::{Trap, Word};
use waddle_opt::interp::{Host, Interpreter};
use waddle_opt::ir::{FuncId, Program};

/// Runs functions of a program on the T0 tier (the IR interpreter).
pub(crate) struct Executor {
    interp: Interpreter,
}

impl Executor {
    /// Prepares every bodied function of `program`.
    pub(crate) fn new(program: &Program, host: &mut dyn Host, stack_budget: usize) -> Executor {
        let mut interp = Interpreter::new(program, host);
        interp.set_stack_budget(stack_budget);
        Executor { interp }
    }

    /// Re-prepares `func` after it was added or redefined.
    pub(crate) fn update(&mut self, program: &Program, func: FuncId, host: &mut dyn Host) {
        self.interp.update(program, func, host);
    }

    /// Calls `func` with `args`. The outer `Err` means execution is not
    /// possible at all (an internal problem), the inner one is a trap.
    pub(crate) fn call(
        &mut self,
        host: &mut dyn Host,
        func: FuncId,
        args: &[Word],
    ) -> Result<Result<Word, Trap>, String> {
        Ok(self.interp.call(host, func, args))
    }
}

/// Runs an explicit pass list on every function of `program`.
pub(crate) fn run_passes(program: &mut Program, passes: &[&str]) -> Result<(), String> {
    waddle_opt::passes::run_passes(program, passes)
}

/// Names of the available passes.
pub(crate) fn pass_names() -> Vec<String> {
    waddle_opt::passes::pass_names()
        .iter()
        .map(|s| s.to_string())
        .collect()
}

/// Runs the pipeline of optimization level `opt_level`.
pub(crate) fn run_pipeline(program: &mut Program, opt_level: u8) {
    waddle_opt::passes::run_pipeline(program, opt_level);
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
