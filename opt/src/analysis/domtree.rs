//! The dominator tree of a function.
//!
//! Construction uses the simple Lengauer–Tarjan algorithm (Fritz §5.1.2,
//! [`lengauer_tarjan`]), O(m log n) on every graph. It replaced the
//! iterative algorithm of Cooper, Harvey and Kennedy (§5.1.1), which is
//! quadratic on a join whose predecessors lie at increasing depths: the
//! function a long `&&` chain leaves after jump threading took 1.5 s to
//! build at 20 000 operands.
//!
//! Dominance queries are O(1): after construction the tree is numbered with
//! DFS pre- and post-order numbers, and `a` dominates `b` iff `a`'s interval
//! encloses `b`'s.
//!
//! Only blocks in the function's layout take part (see
//! [`ControlFlowGraph`]); blocks in the layout that cannot be reached from the
//! entry are *unreachable*: they have no immediate dominator, are not in
//! [`DomTree::rpo`], and neither dominate nor are dominated by any block.

use cranelift_entity::packed_option::PackedOption;
use cranelift_entity::SecondaryMap;

use cranelift_entity::EntityRef;

use super::adjacency::Adjacency;
use super::cfg::ControlFlowGraph;
use crate::ir::{Block, Function};

/// Sentinel for "not reachable" in the numbering maps.
const NONE: u32 = u32::MAX;

/// Immediate dominators, reverse post-order and O(1) dominance queries.
#[derive(Clone, Debug)]
pub struct DomTree {
    /// Reachable blocks in reverse post-order of a DFS from the entry that
    /// follows successors in [`ControlFlowGraph::succs`] order.
    rpo: Vec<Block>,
    /// Position in `rpo`, `NONE` when unreachable.
    rpo_num: SecondaryMap<Block, u32>,
    /// Immediate dominator; none for the entry and unreachable blocks.
    idom: SecondaryMap<Block, PackedOption<Block>>,
    /// Dominator-tree children, in reverse post-order.
    children: Adjacency<Block>,
    /// DFS pre-order number in the dominator tree, `NONE` when unreachable.
    pre: SecondaryMap<Block, u32>,
    /// DFS post-order number in the dominator tree.
    post: SecondaryMap<Block, u32>,
}

impl DomTree {
    /// Computes the dominator tree of `func` given its CFG. A declaration
    /// (empty layout) gets an empty tree.
    pub fn compute(func: &Function, cfg: &ControlFlowGraph) -> Self {
        let mut tree = DomTree {
            rpo: Vec::new(),
            rpo_num: SecondaryMap::with_default(NONE),
            idom: SecondaryMap::new(),
            children: Adjacency::default(),
            pre: SecondaryMap::with_default(NONE),
            post: SecondaryMap::with_default(NONE),
        };
        let Some(&entry) = func.layout.first() else {
            return tree;
        };
        if !func.blocks.is_valid(entry) {
            return tree;
        }
        // Sized once: growing a map per new block index is most of the
        // cost on small functions.
        let n = super::cfg::layout_extent(func);
        tree.rpo_num.resize(n);
        tree.idom.resize(n);
        tree.pre.resize(n);
        tree.post.resize(n);
        tree.compute_rpo(entry, cfg, n);
        tree.compute_idoms(cfg);
        tree.number_tree(entry);
        tree
    }

    /// Iterative DFS from `entry`; records post-order, then reverses it.
    fn compute_rpo(&mut self, entry: Block, cfg: &ControlFlowGraph, blocks: usize) {
        let mut visited = SecondaryMap::<Block, bool>::new();
        visited.resize(blocks);
        let mut stack: Vec<(Block, usize)> = vec![(entry, 0)];
        visited[entry] = true;
        let mut post = Vec::with_capacity(blocks);
        while let Some(top) = stack.last_mut() {
            let (b, i) = *top;
            if let Some(&s) = cfg.succs(b).get(i) {
                top.1 += 1;
                if !visited[s] {
                    visited[s] = true;
                    stack.push((s, 0));
                }
            } else {
                post.push(b);
                stack.pop();
            }
        }
        post.reverse();
        for (i, &b) in post.iter().enumerate() {
            self.rpo_num[b] = i as u32;
        }
        self.rpo = post;
    }

    /// Immediate dominators by Lengauer–Tarjan ([`lengauer_tarjan`]).
    fn compute_idoms(&mut self, cfg: &ControlFlowGraph) {
        // Indices are RPO numbers; the entry is its own idom.
        let doms = lengauer_tarjan::idoms(&self.rpo, self.rpo_num.as_values_slice(), cfg);
        if doms.is_empty() {
            return;
        }
        for (i, &d) in doms.iter().enumerate().skip(1) {
            let b = self.rpo[i];
            self.idom[b] = self.rpo[d as usize].into();
        }
        let rpo = &self.rpo;
        let n = self.rpo_num.as_values_slice().len();
        let pairs: Vec<(usize, Block)> = doms
            .iter()
            .enumerate()
            .skip(1)
            .map(|(i, &d)| (rpo[d as usize].index(), rpo[i]))
            .collect();
        self.children = Adjacency::new(n, &pairs);
    }

    /// Assigns DFS pre/post numbers to the dominator tree rooted at `entry`.
    fn number_tree(&mut self, entry: Block) {
        let mut counter = 0u32;
        let mut stack: Vec<(Block, usize)> = vec![(entry, 0)];
        self.pre[entry] = counter;
        counter += 1;
        while let Some(top) = stack.last_mut() {
            let (b, i) = *top;
            if let Some(&c) = self.children.get(b.index()).get(i) {
                top.1 += 1;
                self.pre[c] = counter;
                counter += 1;
                stack.push((c, 0));
            } else {
                self.post[b] = counter;
                counter += 1;
                stack.pop();
            }
        }
    }

    /// The immediate dominator of `b`; `None` for the entry block and for
    /// unreachable blocks.
    pub fn idom(&self, b: Block) -> Option<Block> {
        self.idom.get(b).and_then(|d| d.expand())
    }

    /// Whether `a` dominates `b` (reflexive: every reachable block dominates
    /// itself). `false` if either block is unreachable. O(1).
    pub fn dominates(&self, a: Block, b: Block) -> bool {
        let (pa, pb) = (self.pre[a], self.pre[b]);
        pa != NONE && pb != NONE && pa <= pb && self.post[b] <= self.post[a]
    }

    /// Whether `a` strictly dominates `b` (dominates and differs).
    pub fn strictly_dominates(&self, a: Block, b: Block) -> bool {
        a != b && self.dominates(a, b)
    }

    /// Whether `b` is in the layout and reachable from the entry block.
    pub fn is_reachable(&self, b: Block) -> bool {
        self.rpo_num[b] != NONE
    }

    /// The reachable blocks in reverse post-order (entry first).
    pub fn rpo(&self) -> &[Block] {
        &self.rpo
    }

    /// The position of `b` in [`DomTree::rpo`], `None` when unreachable.
    pub fn rpo_number(&self, b: Block) -> Option<usize> {
        let n = self.rpo_num[b];
        (n != NONE).then_some(n as usize)
    }

    /// The blocks whose immediate dominator is `b`, in reverse post-order.
    pub fn children(&self, b: Block) -> &[Block] {
        self.children.get(b.index())
    }
}

mod lengauer_tarjan;
#[cfg(test)]
mod tests;
