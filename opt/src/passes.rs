//! The pass registry: one table of passes ([`PASSES`]), by name for the
//! CLI and filetests, and the pipeline of each `-O` level.
//!
//! Every optimization pass works on canonical functions through an
//! [`Editor`]. The pipeline driver ([`pipeline`]) establishes canonical
//! form once per function, opens an editor, and runs consecutive editing
//! passes on it, so the dominator tree, loop forest and use lists are
//! computed when the editor opens and then repaired locally by the mutation
//! primitives (Fritz ch. 6–9) across that run of passes. A pass that
//! rewrites a function wholesale ([`PassKind::Rewrite`], e.g. `vsdg`)
//! closes the editor; the next editing pass opens a fresh one, computing
//! the analyses again. Every pass reports whether it changed the function.
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
//! | `carry` | a value the body computes for the next iteration is carried there ([`carry`]) |
//! | `inline` | function inlining with a size budget (§9.4) |
//! | `reassoc` | `(x + k1) + k2` becomes `x + (k1 + k2)` |
//! | `unswitch` | loop unswitching (§9.5) |
//! | `unroll` | loop unrolling by two (§9.6) |
//! | `peel` | loop peeling of the first iteration (§9.7) |
//! | `bce` | bounds-check elimination in `for i in 0..len(a)` loops |
//! | `vsdg` | VSDG round trip: lift, canonicalize in the constructor, sequentialize ([`crate::vsdg`]) |
//!
//! To add a pass: write it over the [`Editor`] (or, for a pass that
//! rebuilds a function, over `&mut Function`), add one row to [`PASSES`],
//! and name it in a pipeline below if it should run by default.

mod bce;
mod carry;
mod cfg;
pub(crate) mod fault;
mod gvn;
mod inline;
mod licm;
mod peel;
pub mod pipeline;
mod reassoc;
mod sccp;
mod simple;
mod sink;
mod unroll;
mod unswitch;

pub use bce::bce;
pub use carry::carry;
pub use cfg::{if_simplify, jump_simplify, jump_thread, straighten};
pub use gvn::gvn;
pub use inline::{candidates as inline_candidates, inline_calls};
pub use licm::licm;
pub use peel::peel;
pub use pipeline::{
    thread_cpu_time, Instrumentation, PassError, PassReport, PassTime, Pipeline, PipelineOptions,
    PrintAfter,
};
pub use reassoc::reassociate;
pub use sccp::sccp;
pub use simple::{copy_propagate, dce};
pub use sink::sink;
pub use unroll::unroll;
pub use unswitch::unswitch;

use rustc_hash::FxHashMap;

use crate::editor::Editor;
use crate::ir::{FuncId, Function, Program};

/// What a function pass may know about the rest of the program.
pub struct FuncEnv<'a> {
    /// The function being optimized.
    pub id: FuncId,
    /// Canonical copies of the functions small enough to inline, taken
    /// before the pipeline ran (empty unless a pass of the pipeline has
    /// [`Pass::reads_callees`]).
    pub callees: &'a FxHashMap<FuncId, Function>,
}

/// How a pass runs.
#[derive(Copy, Clone)]
pub enum PassKind {
    /// Edits one canonical function through the shared [`Editor`] (its
    /// analyses stay valid for the next pass); returns whether it changed
    /// the function.
    Edit(fn(&mut Editor, &FuncEnv) -> bool),
    /// Rewrites one canonical function wholesale (no editor) into a
    /// canonical function; returns whether it changed the function. The
    /// pipeline checks canonical form after it only when verifying.
    Rewrite(fn(&mut Function, &FuncEnv) -> bool),
}

/// One registered pass.
pub struct Pass {
    /// The name used by `--passes`, `--print-after` and filetests.
    pub name: &'static str,
    /// One line saying what it does (for listings).
    pub about: &'static str,
    /// How it runs.
    pub kind: PassKind,
    /// Whether it reads [`FuncEnv::callees`] (the pipeline then takes that
    /// snapshot of the program before it starts).
    pub reads_callees: bool,
}

/// Every registered pass, in listing order.
pub const PASSES: &[Pass] = &[
    Pass {
        name: "canon",
        about: "establish canonical form (SSA, LCSSA, loop-simplified)",
        // The pipeline makes every function canonical before its first
        // pass, so the pass itself has nothing left to do.
        kind: PassKind::Edit(|_, _| false),
        reads_callees: false,
    },
    Pass {
        name: "sccp",
        about: "sparse conditional constant propagation, folds constant branches",
        kind: PassKind::Edit(|ed, _| sccp(ed)),
        reads_callees: false,
    },
    Pass {
        name: "copyprop",
        about: "copy propagation and trivial block parameters",
        kind: PassKind::Edit(|ed, _| copy_propagate(ed)),
        reads_callees: false,
    },
    Pass {
        name: "dce",
        about: "dead instructions and dead block parameters",
        kind: PassKind::Edit(|ed, _| dce(ed)),
        reads_callees: false,
    },
    Pass {
        name: "is",
        about: "if simplification (Fritz §9.2)",
        kind: PassKind::Edit(|ed, _| if_simplify(ed) > 0),
        reads_callees: false,
    },
    Pass {
        name: "js",
        about: "jump simplification (Fritz §9.3)",
        kind: PassKind::Edit(|ed, _| jump_simplify(ed) > 0),
        reads_callees: false,
    },
    Pass {
        name: "jt",
        about: "jump threading (Fritz §9.3)",
        kind: PassKind::Edit(|ed, _| jump_thread(ed) > 0),
        reads_callees: false,
    },
    Pass {
        name: "straighten",
        about: "straightening (Fritz §9.1)",
        kind: PassKind::Edit(|ed, _| straighten(ed) > 0),
        reads_callees: false,
    },
    Pass {
        name: "licm",
        about: "loop-invariant code motion into the dedicated preheader",
        kind: PassKind::Edit(|ed, _| licm(ed) > 0),
        reads_callees: false,
    },
    Pass {
        name: "gvn",
        about: "value numbering over the dominator tree",
        kind: PassKind::Edit(|ed, _| gvn(ed) > 0),
        reads_callees: false,
    },
    Pass {
        name: "carry",
        about:
            "loop-carried reuse: a value the body computes for the next iteration is carried there",
        kind: PassKind::Edit(|ed, _| carry(ed) > 0),
        reads_callees: false,
    },
    Pass {
        name: "sink",
        about: "code sinking toward the uses, a copy per disjoint group of uses",
        kind: PassKind::Edit(|ed, _| sink(ed) > 0),
        reads_callees: false,
    },
    Pass {
        name: "inline",
        about: "function inlining with a size budget (Fritz §9.4)",
        kind: PassKind::Edit(|ed, env| inline_calls(ed, env.id, env.callees) > 0),
        reads_callees: true,
    },
    Pass {
        name: "reassoc",
        about: "constant reassociation: (x + k1) + k2 becomes x + (k1 + k2)",
        kind: PassKind::Edit(|ed, _| reassociate(ed) > 0),
        reads_callees: false,
    },
    Pass {
        name: "unswitch",
        about: "loop unswitching (Fritz §9.5)",
        kind: PassKind::Edit(|ed, _| unswitch(ed) > 0),
        reads_callees: false,
    },
    Pass {
        name: "vsdg",
        about: "VSDG round trip: lift, fold and hash-cons, sequentialize lazily (Lawrence 2007)",
        // A function the VSDG cannot represent stays as it is (tier T2).
        kind: PassKind::Rewrite(|f, _| crate::vsdg::round_trip(f).is_ok()),
        reads_callees: false,
    },
    Pass {
        name: "order",
        about: "block layout in reverse postorder, loop bodies together",
        // Only the layout changes: the function stays canonical.
        kind: PassKind::Rewrite(|f, _| crate::canon::order_blocks(f)),
        reads_callees: false,
    },
    Pass {
        name: "bce",
        about: "bounds-check elimination in counted loops over an array",
        kind: PassKind::Edit(|ed, _| bce(ed) > 0),
        reads_callees: false,
    },
    Pass {
        name: "unroll",
        about: "loop unrolling by two (Fritz §9.6)",
        kind: PassKind::Edit(|ed, _| unroll(ed) > 0),
        reads_callees: false,
    },
    Pass {
        name: "peel",
        about: "loop peeling of the first iteration (Fritz §9.7)",
        kind: PassKind::Edit(|ed, _| peel(ed) > 0),
        reads_callees: false,
    },
];

/// The registered pass called `name`.
pub fn find_pass(name: &str) -> Option<&'static Pass> {
    PASSES.iter().find(|p| p.name == name)
}

/// The names of every registered pass, in table order.
pub fn pass_names() -> impl ExactSizeIterator<Item = &'static str> + Clone {
    PASSES.iter().map(|p| p.name)
}

/// Runs the named passes on `program`, in order, with the default
/// [`PipelineOptions`]. An unknown name runs nothing and is an error that
/// lists the known passes.
pub fn run_passes(program: &mut Program, names: &[&str]) -> Result<(), PassError> {
    Pipeline::from_names(names)?
        .run(program, &PipelineOptions::default(), &mut ())
        .map(drop)
}

/// The always-canonical pipeline of `-O1` and `-O2` (tier T2), by pass name.
pub const O1_PIPELINE: &[&str] = &[
    "canon",
    "inline",
    "sccp",
    "copyprop",
    "dce",
    "jt",
    "js",
    // Joins left with one predecessor are merged before threading again
    // (a `!(a || b)` join then branches on the negation, which `jt` sees
    // through).
    "straighten",
    "jt",
    "is",
    "straighten",
    "reassoc",
    "unswitch",
    "is",
    "sccp",
    "licm",
    "bce",
    "unroll",
    "straighten",
    "gvn",
    "carry",
    "copyprop",
    "dce",
    "sink",
    "straighten",
    "order",
];

/// The pipeline of `-O3` (tier T3, `--tier full`): [`O1_PIPELINE`], the
/// VSDG round trip, then the `-O1` cleanup of the sequentialized code.
pub const FULL_PIPELINE: &[&str] =
    &concat::<{ O1_PIPELINE.len() + VSDG_TAIL.len() }>(O1_PIPELINE, VSDG_TAIL);

/// `a` followed by `b`, at compile time (`N` is their total length).
const fn concat<const N: usize>(a: &[&'static str], b: &[&'static str]) -> [&'static str; N] {
    let mut out = [""; N];
    let mut i = 0;
    while i < a.len() {
        out[i] = a[i];
        i += 1;
    }
    while i < N {
        out[i] = b[i - a.len()];
        i += 1;
    }
    out
}

/// The passes tier T3 runs after a level pipeline: the VSDG round trip and
/// the `-O1` cleanup of the sequentialized code.
pub const VSDG_TAIL: &[&str] = &["vsdg", "copyprop", "dce", "js", "straighten", "order"];

/// The pass names of tier T3 at optimization level `opt_level`: the level
/// pipeline, then [`VSDG_TAIL`].
pub fn vsdg_pipeline(opt_level: u8) -> Vec<&'static str> {
    let mut names: Vec<&'static str> = level_pipeline(opt_level.min(2)).to_vec();
    names.extend_from_slice(VSDG_TAIL);
    names
}

/// The pass names of optimization level `opt_level` (0 to 3; higher levels
/// behave like 3). O0 canonicalizes and orders the blocks only; O1 runs [`O1_PIPELINE`]; O2 is
/// the same for now; O3 adds the VSDG round trip ([`FULL_PIPELINE`]).
pub fn level_pipeline(opt_level: u8) -> &'static [&'static str] {
    match opt_level {
        0 => &["canon", "order"],
        1 | 2 => O1_PIPELINE,
        _ => FULL_PIPELINE,
    }
}

/// Runs the pipeline of optimization level `opt_level` with the default
/// [`PipelineOptions`].
pub fn run_pipeline(program: &mut Program, opt_level: u8) {
    // The level pipelines name only registered passes and, with the
    // default options, verify only in debug builds, where a failure is a
    // bug in a pass: report it loudly.
    if let Err(e) =
        Pipeline::for_level(opt_level).run(program, &PipelineOptions::default(), &mut ())
    {
        panic!("{e}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_pipelines_registered() {
        let names: Vec<&str> = pass_names().collect();
        for (i, n) in names.iter().enumerate() {
            assert!(!names[..i].contains(n), "pass `{n}` registered twice");
        }
        for level in 0..=3 {
            for name in level_pipeline(level) {
                assert!(find_pass(name).is_some(), "`{name}` is not registered");
            }
        }
    }

    #[test]
    fn unknown_pass_is_an_error() {
        let mut p = Program::default();
        assert!(run_passes(&mut p, &["canon"]).is_ok());
        let err = run_passes(&mut p, &["canon", "nope"]).unwrap_err();
        let text = err.to_string();
        assert!(text.contains("nope") && text.contains("canon"), "{text}");
        assert_eq!(
            err,
            PassError::UnknownPass {
                name: "nope".into()
            }
        );
        run_pipeline(&mut p, 0);
        run_pipeline(&mut p, 2);
    }
}
