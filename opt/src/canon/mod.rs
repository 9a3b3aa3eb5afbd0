//! Establishing canonical form from scratch (Fritz ch. 4 and ch. 7).
//!
//! [`canonicalize`] turns any function in SSA form with a reducible CFG into
//! *canonical form*:
//!
//! 1. blocks unreachable from the entry are removed;
//! 2. every loop gets the three loop-simplified properties of Fritz §4.3 by
//!    edge set splitting (§7.3, §7.4): a dedicated preheader (Property 4.3.2,
//!    §7.4.2; a loop headed by the entry block gets a new entry block), a
//!    unique latch with a single backedge (Property 4.3.1, §7.4.1), and
//!    dedicated exits whose predecessors are all in the loop (Property 4.3.3,
//!    §7.4.3). Loops are processed inner loops first, so the blocks that
//!    repair an outer loop never undo an inner loop's repair ([`simplify`]);
//! 3. LCSSA (§4.2, §7.2): a value defined in a loop and used outside it
//!    flows out through parameters of the loop's exit blocks, with the
//!    outside uses rewritten to their reaching definitions and join
//!    parameters inserted where several exits meet ([`lcssa`]).
//!
//! SSA is kept throughout. [`check_canonical`] recomputes the analyses and
//! checks every property; [`canonicalize_program`] canonicalizes every
//! function of a program.

mod check;
mod lcssa;
mod order;
mod simplify;
#[cfg(test)]
mod tests;

pub use check::check_canonical;
pub use order::order_blocks;

use crate::analysis::loops::LoopForest;
use crate::analysis::{ControlFlowGraph, DomTree};
use crate::ir::{Function, Program};

/// Puts `func` into canonical form: unreachable blocks removed, every loop
/// with a dedicated preheader, a single latch and dedicated exits, and LCSSA.
///
/// Returns whether `func` is now canonical: false for a declaration (left
/// alone) and for an irreducible CFG (irreducible cycles are not loops and
/// are left as they are; the frontend never produces them, hand-written IR
/// can). Without a from-scratch check: [`check_canonical`] verifies.
pub fn canonicalize(func: &mut Function) -> bool {
    canonicalize_keeping(func).0
}

/// The analyses [`canonicalize_keeping`] computed, valid for the function
/// it returned them with (until the function is changed).
pub(crate) struct Analyses {
    pub(crate) dom: DomTree,
    pub(crate) forest: LoopForest,
}

/// [`canonicalize`], also returning the dominator tree and loop forest
/// of the result (`None` for a declaration), so that the editor the
/// pipeline starts next does not compute them again: on a function of
/// millions of blocks each is a few passes over large arrays.
pub(crate) fn canonicalize_keeping(func: &mut Function) -> (bool, Option<Analyses>) {
    if func.is_declaration() {
        return (false, None);
    }
    // The analyses are computed once and recomputed only after a step
    // changed the CFG: most functions (and everything the VSDG tier
    // sequentializes) need no repair, so each step only checks.
    let mut cfg = ControlFlowGraph::compute(func);
    let mut dom = DomTree::compute(func, &cfg);
    if simplify::remove_unreachable(func, &dom) {
        cfg = ControlFlowGraph::compute(func);
        dom = DomTree::compute(func, &cfg);
    }
    let mut forest = LoopForest::compute(func, &cfg, &dom);
    let reducible = forest.is_reducible();
    if !forest.is_empty() {
        if simplify::simplify_loops(func, &cfg, &forest) {
            cfg = ControlFlowGraph::compute(func);
            dom = DomTree::compute(func, &cfg);
            forest = LoopForest::compute(func, &cfg, &dom);
        }
        // LCSSA adds parameters and arguments, never blocks or edges: the
        // analyses stay valid.
        lcssa::form_lcssa(func, &cfg, &dom, &forest);
    }
    // (No loop: loop-simplified form and LCSSA hold trivially.)
    (reducible, Some(Analyses { dom, forest }))
}

/// Canonicalizes every function of `program`.
pub fn canonicalize_program(program: &mut Program) {
    for (_, func) in program.funcs.iter_mut() {
        canonicalize(func);
    }
}
