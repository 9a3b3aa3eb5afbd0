//! Entry points for Waddle's own tools, with the crate's `tooling` feature:
//! the CLI's `--emit` and `waddle run`, the benchmark harness and the
//! language test runner.
//!
//! Not part of the embedding API: these take or return Waddle IR and the
//! compiler's options, or run whole programs the way the command line
//! does, and they change with the compiler. Embedders use the crate root
//! ([`crate::Engine`], [`crate::Module`], [`crate::Store`], ...).

pub use crate::driver::{run_on_big_stack, run_source, RunOptions, RunOutcome, RUN_STACK_SIZE};
pub use crate::engine::{
    check_passes, check_tier, compile_source, compile_source_with_ffi, emit_ast, optimize,
    print_program, print_vsdg, CompiledIr, OptOptions,
};
pub use crate::format::write_escaped;

use crate::{PassLog, Tier};

/// The native code generator an explicit native tier names (`None` for
/// `interp` and `auto`, which is a policy over several).
pub fn native_tier(tier: Tier) -> Option<waddle_jit::Tier> {
    tier.native()
}

/// The optimizer's pass report in `log` (pass names and times, when
/// [`crate::PassTrace::time`] asked for them).
pub fn pass_report(log: &PassLog) -> Option<&waddle_opt::passes::PassReport> {
    log.report.as_ref()
}
