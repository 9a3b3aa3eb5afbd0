//! The pass registry: passes by name (for the CLI and filetests) and the
//! pipeline of each `-O` level.
//!
//! Every optimization pass works on canonical functions through an
//! [`Editor`], so the dominator tree, loop forest and use lists are
//! computed once per function and then repaired locally by the mutation
//! primitives (Fritz ch. 6–9). A pass canonicalizes its input first (a
//! no-op on canonical input), so each pass also runs alone.
//!
//! | name | pass |
//! | --- | --- |
//! | `canon` | establish canonical form ([`crate::canon`]) |
//! | `sccp` | sparse conditional constant propagation, folds constant branches |
//! | `copyprop` | copy propagation and trivial block parameters |
//! | `dce` | dead instructions and dead block parameters |
//! | `is` | if simplification (Fritz §9.2) |
//! | `js` | jump simplification (§9.3) |
//! | `jt` | jump threading (§9.3) |
//! | `straighten` | straightening (§9.1) |
//! | `licm` | loop-invariant code motion into the dedicated preheader |
//! | `gvn` | value numbering over the dominator tree |
//! | `inline` | function inlining with a size budget (§9.4) |
//! | `unswitch` | loop unswitching (§9.5) |
//! | `unroll` | loop unrolling by two (§9.6) |
//! | `peel` | loop peeling of the first iteration (§9.7) |
//! | `bce` | bounds-check elimination in `for i in 0..len(a)` loops |

mod bce;
mod cfg;
mod gvn;
mod inline;
mod licm;
mod peel;
mod sccp;
mod simple;
mod unroll;
mod unswitch;

pub use bce::bce;
pub use cfg::{if_simplify, jump_simplify, jump_thread, straighten};
pub use gvn::gvn;
pub use inline::{candidates as inline_candidates, inline_calls};
pub use licm::licm;
pub use peel::peel;
pub use sccp::sccp;
pub use simple::{copy_propagate, dce};
pub use unroll::unroll;
pub use unswitch::unswitch;

use crate::canon;
use crate::editor::Editor;
use crate::ir::Program;

/// A program-level pass.
type PassFn = fn(&mut Program);

/// Canonicalizes `func`; false when it cannot be made canonical (an
/// irreducible CFG, which the frontend never produces but hand-written IR
/// can): such functions are left to the passes that need no loops.
fn prepare(func: &mut crate::ir::Function) -> bool {
    if func.is_declaration() {
        return false;
    }
    canon::canonicalize(func);
    canon::check_canonical(func).is_ok()
}

/// Runs `f` on an editor over every function with a body that is (made)
/// canonical.
fn per_function(program: &mut Program, mut f: impl FnMut(&mut Editor)) {
    for (_, func) in program.funcs.iter_mut() {
        if !prepare(func) {
            continue;
        }
        let mut ed = Editor::new(func);
        f(&mut ed);
    }
}

fn pass_sccp(p: &mut Program) {
    per_function(p, |ed| {
        sccp(ed);
    });
}
fn pass_copyprop(p: &mut Program) {
    per_function(p, |ed| {
        copy_propagate(ed);
    });
}
fn pass_dce(p: &mut Program) {
    per_function(p, |ed| {
        dce(ed);
    });
}
fn pass_is(p: &mut Program) {
    per_function(p, |ed| {
        if_simplify(ed);
    });
}
fn pass_js(p: &mut Program) {
    per_function(p, |ed| {
        jump_simplify(ed);
    });
}
fn pass_jt(p: &mut Program) {
    per_function(p, |ed| {
        jump_thread(ed);
    });
}
fn pass_straighten(p: &mut Program) {
    per_function(p, |ed| {
        straighten(ed);
    });
}
fn pass_licm(p: &mut Program) {
    per_function(p, |ed| {
        licm(ed);
    });
}
fn pass_gvn(p: &mut Program) {
    per_function(p, |ed| {
        gvn(ed);
    });
}
fn pass_unswitch(p: &mut Program) {
    per_function(p, |ed| {
        unswitch(ed);
    });
}
fn pass_unroll(p: &mut Program) {
    per_function(p, |ed| {
        unroll(ed);
    });
}
fn pass_peel(p: &mut Program) {
    per_function(p, |ed| {
        peel(ed);
    });
}
fn pass_bce(p: &mut Program) {
    per_function(p, |ed| {
        bce(ed);
    });
}
fn pass_inline(p: &mut Program) {
    let callees = inline_candidates(p);
    for (id, func) in p.funcs.iter_mut() {
        if !prepare(func) {
            continue;
        }
        let mut ed = Editor::new(func);
        inline_calls(&mut ed, id, &callees);
    }
}

/// The registered passes, in the order [`pass_names`] lists them.
const PASSES: &[(&str, PassFn)] = &[
    ("canon", canon::canonicalize_program),
    ("sccp", pass_sccp),
    ("copyprop", pass_copyprop),
    ("dce", pass_dce),
    ("is", pass_is),
    ("js", pass_js),
    ("jt", pass_jt),
    ("straighten", pass_straighten),
    ("licm", pass_licm),
    ("gvn", pass_gvn),
    ("inline", pass_inline),
    ("unswitch", pass_unswitch),
    ("bce", pass_bce),
    ("unroll", pass_unroll),
    ("peel", pass_peel),
];

/// The names of every registered pass.
pub fn pass_names() -> &'static [&'static str] {
    const NAMES: &[&str] = &[
        "canon",
        "sccp",
        "copyprop",
        "dce",
        "is",
        "js",
        "jt",
        "straighten",
        "licm",
        "gvn",
        "inline",
        "unswitch",
        "bce",
        "unroll",
        "peel",
    ];
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

/// The always-canonical pipeline of `-O1` (tier T2), by pass name.
pub const O1_PIPELINE: &[&str] = &[
    "canon",
    "inline",
    "sccp",
    "copyprop",
    "dce",
    "jt",
    "js",
    "is",
    "straighten",
    "unswitch",
    "is",
    "sccp",
    "licm",
    "bce",
    "unroll",
    "straighten",
    "gvn",
    "copyprop",
    "dce",
    "straighten",
];

/// Runs the pipeline of optimization level `opt_level` (0, 1 or 2; higher
/// levels behave like 2). O0 canonicalizes only; O1 runs
/// [`O1_PIPELINE`]; O2 is the same for now (the VSDG round trip will be
/// added there).
pub fn run_pipeline(program: &mut Program, opt_level: u8) {
    if opt_level == 0 {
        canon::canonicalize_program(program);
        return;
    }
    run_passes(program, O1_PIPELINE).expect("the pipeline names registered passes");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_errors() {
        assert_eq!(pass_names().len(), PASSES.len());
        for (n, (m, _)) in pass_names().iter().zip(PASSES) {
            assert_eq!(n, m);
        }
        let mut p = Program::default();
        assert!(run_passes(&mut p, &["canon"]).is_ok());
        let err = run_passes(&mut p, &["canon", "nope"]).unwrap_err();
        assert!(err.contains("nope") && err.contains("canon"), "{err}");
        run_pipeline(&mut p, 0);
        run_pipeline(&mut p, 2);
    }
}
