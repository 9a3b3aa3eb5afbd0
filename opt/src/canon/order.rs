//! Block order: the layout every tier emits a function's blocks in.
//!
//! Passes append the blocks they create (split edges, copies) at the end of
//! the layout, so after a pipeline a branch often jumps backward to a block
//! that only forwards to its successor. Every tier lays code out in layout
//! order and treats an edge to the same or an earlier layout position as a
//! back edge (it charges fuel and counts toward tiering there), so such an
//! edge costs a jump and a tick in every tier.
//!
//! [`order_blocks`] lays the blocks out in reverse postorder, where every
//! edge but a loop's back edge goes forward, and keeps each loop's body
//! together: the depth-first walk follows an edge that leaves the current
//! block's innermost loop before the edges that stay in it, so the exit's
//! blocks finish first and come after the loop. Among the edges that stay,
//! the first successor (a branch's true edge) is placed first.

use cranelift_entity::EntitySet;
use smallvec::SmallVec;

use crate::analysis::loops::LoopForest;
use crate::analysis::{ControlFlowGraph, DomTree};
use crate::ir::{Block, Function};

/// Lays out the blocks of `func` in loop-contiguous reverse postorder
/// (blocks unreachable from the entry keep their order, at the end).
/// Returns whether the layout changed.
pub fn order_blocks(func: &mut Function) -> bool {
    let Some(&entry) = func.layout.first() else {
        return false;
    };
    let cfg = ControlFlowGraph::compute(func);
    let dom = DomTree::compute(func, &cfg);
    let forest = LoopForest::compute(func, &cfg, &dom);
    let stays = |b: Block, s: Block| forest.innermost(b).is_none_or(|l| forest.contains(l, s));
    let mut visited = EntitySet::<Block>::with_capacity(func.blocks.len());
    let mut post = Vec::with_capacity(func.layout.len());
    // (block, its successors in visiting order, how many were taken).
    // The successors inline (no allocation per block of the walk).
    let mut stack: Vec<(Block, SmallVec<[Block; 4]>, usize)> = Vec::new();
    let visit_order = |b: Block| -> SmallVec<[Block; 4]> {
        let succs = cfg.succs(b);
        let leaving = succs.iter().rev().filter(|&&s| !stays(b, s));
        let staying = succs.iter().rev().filter(|&&s| stays(b, s));
        leaving.chain(staying).copied().collect()
    };
    visited.insert(entry);
    stack.push((entry, visit_order(entry), 0));
    while let Some((b, succs, k)) = stack.last_mut() {
        let Some(&s) = succs.get(*k) else {
            post.push(*b);
            stack.pop();
            continue;
        };
        *k += 1;
        if visited.insert(s) {
            stack.push((s, visit_order(s), 0));
        }
    }
    post.reverse();
    post.extend(func.layout.iter().filter(|&&b| !visited.contains(b)));
    if post == func.layout {
        return false;
    }
    func.layout = post;
    true
}
