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

use std::fmt::Write as _;

use crate::{Error, Module, PassLog, Tier};

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

/// The machine code of every function of `module` with a body, top-level
/// code (`.main`) included, disassembled (`waddle run --emit asm`), in
/// program order. Each function starts with a `; NAME: N bytes (tier T)`
/// line. Addresses are where the code lies in memory, so call and jump
/// targets can be followed. A module whose tier compiles nothing up front
/// (`interp`, `auto`) has no machine code: the text says so per function.
///
/// Needs the crate's `disasm` feature, else [`Error::MissingFeature`].
pub fn emit_asm(module: &Module) -> Result<String, Error> {
    let m = module.inner();
    let Some(arch) = waddle_jit::disasm::Arch::host() else {
        return Err(Error::Internal(
            "no disassembler for this machine's architecture".to_string(),
        ));
    };
    let tier = module.engine().config().tier;
    let mut text = String::new();
    for (id, f) in m.program.funcs.iter().filter(|(_, f)| !f.is_declaration()) {
        let code = m.native.as_ref().and_then(|unit| unit.code(id));
        let _ = match (code, m.native_tier) {
            (Some(code), Some(native)) => writeln!(
                text,
                "; {}: {} bytes ({native} tier)\n{}",
                f.name(),
                code.len(),
                crate::engine::disassemble(code, arch)?
            ),
            _ if tier == Tier::Auto => writeln!(
                text,
                "; {}: no machine code yet (tier auto compiles hot functions while the program runs)\n",
                f.name()
            ),
            _ => writeln!(text, "; {}: no machine code (tier {tier})\n", f.name()),
        };
    }
    Ok(text)
}
