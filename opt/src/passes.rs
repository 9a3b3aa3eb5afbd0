//! The pass registry: passes by name (for the CLI and filetests) and the
//! pipeline of each `-O` level.
//!
//! Today the only pass is `canon` (establish canonical form, see
//! [`crate::canon`]); optimization passes join the registry as they are
//! written. Every pipeline starts by canonicalizing, since the
//! always-canonical passes assume canonical input.

use crate::canon;
use crate::ir::Program;

/// A program-level pass.
type PassFn = fn(&mut Program);

/// The registered passes, in the order [`pass_names`] lists them.
const PASSES: &[(&str, PassFn)] = &[("canon", canon::canonicalize_program)];

/// The names of every registered pass.
pub fn pass_names() -> &'static [&'static str] {
    const NAMES: &[&str] = &["canon"];
    debug_assert_eq!(NAMES.len(), PASSES.len());
    NAMES
}

/// Runs the named passes on `program`, in order. An unknown name runs
/// nothing and returns an error that lists the known passes.
pub fn run_passes(program: &mut Program, names: &[&str]) -> Result<(), String> {
    let mut passes = Vec::with_capacity(names.len());
    for &name in names {
        match PASSES.iter().find(|(n, _)| *n == name) {
            Some(&(_, pass)) => passes.push(pass),
            None => {
                return Err(format!(
                    "unknown pass `{name}` (known passes: {})",
                    pass_names().join(", ")
                ))
            }
        }
    }
    for pass in passes {
        pass(program);
    }
    Ok(())
}

/// Runs the pipeline of optimization level `opt_level` (0, 1 or 2; higher
/// levels behave like 2). O0 canonicalizes only; O1 and O2 currently do the
/// same, as no optimization passes exist yet.
pub fn run_pipeline(program: &mut Program, opt_level: u8) {
    // No optimization passes exist yet, so every level only canonicalizes.
    let _ = opt_level;
    canon::canonicalize_program(program);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_errors() {
        assert_eq!(pass_names(), &["canon"]);
        let mut p = Program::default();
        assert!(run_passes(&mut p, &["canon"]).is_ok());
        let err = run_passes(&mut p, &["canon", "nope"]).unwrap_err();
        assert!(err.contains("nope") && err.contains("canon"), "{err}");
        run_pipeline(&mut p, 0);
        run_pipeline(&mut p, 2);
    }
}
