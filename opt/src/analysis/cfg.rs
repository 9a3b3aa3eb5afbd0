//! The control-flow graph of a function: predecessor and successor lists.
//!
//! Only blocks in [`Function::layout`] take part; blocks that are only in the
//! arena are ignored, and so are edges whose target is not in the layout (the
//! verifier reports those). Both lists are **deduplicated** and keep
//! first-seen order: `succs(b)` follows the terminator's edge order (cases
//! first, then the default), and `preds(b)` lists predecessors in layout
//! order. A switch with two edges to the same block therefore contributes a
//! single CFG edge; the edge multiplicity, when needed, is recovered from the
//! terminator ([`crate::ir::Terminator::successors`]).

use cranelift_entity::{EntityRef, EntitySet};

use super::adjacency::Adjacency;

use crate::ir::{Block, Function};

/// Predecessors and successors of every block in a function's layout.
///
/// Both relations are stored flat (`list[start[b]..start[b + 1]]`, a
/// compressed sparse row): one allocation per relation instead of one per
/// block, which was most of the cost of building and dropping the CFG of a
/// small function.
#[derive(Clone, Debug, Default)]
pub struct ControlFlowGraph {
    preds: Adjacency<Block>,
    succs: Adjacency<Block>,
}

impl ControlFlowGraph {
    /// Computes the CFG of `func` from the terminators of its layout blocks.
    /// Never panics, even on malformed functions (out-of-range block ids in
    /// the layout or in terminators are skipped).
    pub fn compute(func: &Function) -> Self {
        let mut in_layout = EntitySet::<Block>::new();
        for &b in &func.layout {
            if func.blocks.is_valid(b) {
                in_layout.insert(b);
            }
        }
        let blocks = layout_extent(func);
        // The distinct edges in layout order, each source's in terminator
        // order: grouped by source they are the successor lists, by target
        // the predecessor lists (in layout order of the source).
        let mut edges: Vec<(usize, Block)> = Vec::with_capacity(blocks * 2);
        let mut seen_src = EntitySet::<Block>::new();
        for &b in &func.layout {
            if !in_layout.contains(b) || seen_src.contains(b) {
                continue;
            }
            seen_src.insert(b);
            let first = edges.len();
            for call in func.blocks[b].term.successors() {
                let t = call.block;
                if !in_layout.contains(t) || edges[first..].iter().any(|&(_, s)| s == t) {
                    continue;
                }
                edges.push((b.index(), t));
            }
        }
        let succs = Adjacency::new(blocks, &edges);
        let reversed: Vec<(usize, Block)> = edges
            .iter()
            .map(|&(b, t)| (t.index(), Block::new(b)))
            .collect();
        let preds = Adjacency::new(blocks, &reversed);
        ControlFlowGraph { preds, succs }
    }

    /// The distinct predecessors of `b`, in layout order. Empty for blocks
    /// outside the layout.
    pub fn preds(&self, b: Block) -> &[Block] {
        self.preds.get(b.index())
    }

    /// The distinct successors of `b`, in terminator edge order (cases first,
    /// then the default). Empty for blocks outside the layout.
    pub fn succs(&self, b: Block) -> &[Block] {
        self.succs.get(b.index())
    }
}

/// One past the largest block index in `func`'s layout: the size of a map
/// over the layout blocks (the arena may hold many more dead blocks).
pub(crate) fn layout_extent(func: &Function) -> usize {
    func.layout.iter().map(|b| b.index() + 1).max().unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{BlockCall, FunctionBuilder, InstKind, Signature, SrcLoc, Terminator, Type};

    #[test]
    fn dedup_and_order() {
        let mut f = Function::new(
            "f",
            Signature {
                params: vec![Type::Int],
                ret: Type::Unit,
            },
        );
        let mut b = FunctionBuilder::new(&mut f);
        let b0 = b.create_block();
        let x = b.append_block_param(b0, Type::Int);
        let b1 = b.create_block();
        let b2 = b.create_block();
        let b3 = b.create_block();
        let _ = b.ins(b0, InstKind::IConst(1), Type::Int, SrcLoc::NONE);
        b.set_terminator(
            b0,
            Terminator::Switch {
                value: Some(x),
                cases: vec![
                    (0, BlockCall::new(b2, vec![])),
                    (1, BlockCall::new(b1, vec![])),
                    (2, BlockCall::new(b2, vec![])),
                ],
                default: BlockCall::new(b1, vec![]),
            },
        );
        b.set_terminator(b1, Terminator::jump(BlockCall::new(b2, vec![])));
        b.set_terminator(b2, Terminator::Return(None));
        b.set_terminator(b3, Terminator::jump(BlockCall::new(b2, vec![])));
        // Drop b3 from the layout: its edge must not count.
        f.layout.retain(|&x| x != b3);
        let cfg = ControlFlowGraph::compute(&f);
        assert_eq!(cfg.succs(b0), &[b2, b1]);
        assert_eq!(cfg.preds(b2), &[b0, b1]);
        assert_eq!(cfg.preds(b1), &[b0]);
        assert_eq!(cfg.succs(b2), &[] as &[Block]);
        assert_eq!(cfg.succs(b3), &[] as &[Block]);
        assert_eq!(cfg.preds(b0), &[] as &[Block]);
    }
}
