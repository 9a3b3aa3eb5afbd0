//! The validator's own control-flow analyses: reachability, reverse
//! post-order, dominators (Cooper, Harvey and Kennedy's iterative
//! algorithm), natural loops and their nesting, and the checks of the
//! canonical properties the gating relies on (digest §5.3 steps 1, 4, 6).
//!
//! Independence (digest §5.1): nothing here uses the optimizer's
//! `analysis` or the editor's maintained trees, so a bug there cannot make
//! both sides of a validation wrong in the same way.
//!
//! An irreducible graph, a loop with several latches or without a
//! dedicated preheader, or a loop exit that is not dedicated makes the
//! function unsupported (the thesis's §6.6 derived-graph construction for
//! irreducible graphs is deferred, digest §5.8).

use cranelift_entity::SecondaryMap;
use rustc_hash::FxHashSet;

use crate::ir::{Block, Function};

/// Index of a loop in [`Cfg::loops`].
pub type LoopId = usize;

/// A control-flow edge: the `index`-th successor of `from`'s terminator
/// (cases first, then the default).
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct Edge {
    /// Source block.
    pub from: Block,
    /// Target block.
    pub to: Block,
    /// Position among the source terminator's successors.
    pub index: usize,
}

/// A natural loop.
#[derive(Clone, Debug)]
pub struct LoopInfo {
    /// The header.
    pub header: Block,
    /// The unique block with the back edge.
    pub latch: Block,
    /// The back edge (latch → header).
    pub back: Edge,
    /// The unique edge entering the header from outside (from the preheader).
    pub entry: Edge,
    /// Nesting depth, 1 for an outermost loop.
    pub depth: u16,
    /// The innermost enclosing loop.
    pub parent: Option<LoopId>,
    /// Every block of the loop, nested loops included.
    pub blocks: FxHashSet<Block>,
}

/// A node of a region's acyclic graph: a block directly in the region or
/// a collapsed child loop.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum RNode {
    /// A block whose innermost loop is the region.
    Block(Block),
    /// A child loop of the region, collapsed.
    Loop(LoopId),
}

/// The analyses of one function.
pub struct Cfg {
    /// Reachable blocks in reverse post-order.
    pub rpo: Vec<Block>,
    /// Position of each reachable block in `rpo` (`usize::MAX` if unreachable).
    pub rpo_index: SecondaryMap<Block, usize>,
    /// Outgoing edges of each reachable block.
    pub succs: SecondaryMap<Block, Vec<Edge>>,
    /// Incoming edges of each reachable block (from reachable blocks).
    pub preds: SecondaryMap<Block, Vec<Edge>>,
    /// Immediate dominators (`None` for the entry and unreachable blocks).
    pub idom: SecondaryMap<Block, Option<Block>>,
    /// The loops, outer loops before inner ones.
    pub loops: Vec<LoopInfo>,
    /// The innermost loop of each block.
    pub loop_of: SecondaryMap<Block, Option<LoopId>>,
}

impl Cfg {
    /// Computes the analyses, or says why the function is not supported.
    pub fn new(f: &Function) -> Result<Cfg, String> {
        let entry = f.entry();
        let mut succs: SecondaryMap<Block, Vec<Edge>> = SecondaryMap::new();
        // Iterative DFS for post-order.
        let mut post = Vec::new();
        let mut seen: FxHashSet<Block> = FxHashSet::default();
        let mut stack: Vec<(Block, usize)> = vec![(entry, 0)];
        seen.insert(entry);
        let layout: FxHashSet<Block> = f.layout.iter().copied().collect();
        while let Some(&mut (b, ref mut next)) = stack.last_mut() {
            if *next == 0 {
                let edges: Vec<Edge> = f.blocks[b]
                    .term
                    .successors()
                    .enumerate()
                    .map(|(index, bc)| Edge {
                        from: b,
                        to: bc.block,
                        index,
                    })
                    .collect();
                if let Some(e) = edges.iter().find(|e| !layout.contains(&e.to)) {
                    return Err(format!("edge to {} outside the layout", e.to));
                }
                succs[b] = edges;
            }
            if let Some(e) = succs[b].get(*next).copied() {
                *next += 1;
                if seen.insert(e.to) {
                    stack.push((e.to, 0));
                }
            } else {
                post.push(b);
                stack.pop();
            }
        }
        let rpo: Vec<Block> = post.into_iter().rev().collect();
        let mut rpo_index: SecondaryMap<Block, usize> = SecondaryMap::with_default(usize::MAX);
        for (i, &b) in rpo.iter().enumerate() {
            rpo_index[b] = i;
        }
        let mut preds: SecondaryMap<Block, Vec<Edge>> = SecondaryMap::new();
        for &b in &rpo {
            for &e in &succs[b] {
                preds[e.to].push(e);
            }
        }
        let idom = dominators(&rpo, &rpo_index, &preds);
        let mut cfg = Cfg {
            rpo,
            rpo_index,
            succs,
            preds,
            idom,
            loops: Vec::new(),
            loop_of: SecondaryMap::new(),
        };
        cfg.find_loops()?;
        Ok(cfg)
    }

    /// Whether `a` dominates `b` (both reachable).
    pub fn dominates(&self, a: Block, mut b: Block) -> bool {
        loop {
            if a == b {
                return true;
            }
            match self.idom[b] {
                Some(p) => b = p,
                None => return false,
            }
        }
    }

    fn find_loops(&mut self) -> Result<(), String> {
        let mut back_edges: Vec<Edge> = Vec::new();
        for &b in &self.rpo {
            for &e in &self.succs[b] {
                if self.rpo_index[e.to] <= self.rpo_index[b] {
                    if !self.dominates(e.to, b) {
                        return Err(format!("irreducible control flow ({b} -> {})", e.to));
                    }
                    back_edges.push(e);
                }
            }
        }
        let mut loops: Vec<LoopInfo> = Vec::new();
        for &back in &back_edges {
            let h = back.to;
            if loops.iter().any(|l| l.header == h) {
                return Err(format!("loop at {h} has several back edges"));
            }
            let mut blocks: FxHashSet<Block> = FxHashSet::default();
            blocks.insert(h);
            let mut work = vec![back.from];
            while let Some(b) = work.pop() {
                if blocks.insert(b) {
                    work.extend(self.preds[b].iter().map(|e| e.from));
                }
            }
            let entries: Vec<Edge> = self.preds[h]
                .iter()
                .copied()
                .filter(|e| !blocks.contains(&e.from))
                .collect();
            if entries.len() != 1 {
                return Err(format!("loop at {h} has no dedicated preheader edge"));
            }
            loops.push(LoopInfo {
                header: h,
                latch: back.from,
                back,
                entry: entries[0],
                depth: 0,
                parent: None,
                blocks,
            });
        }
        // Outer loops first: larger bodies first (a strict superset is larger).
        loops.sort_by_key(|l| (std::cmp::Reverse(l.blocks.len()), self.rpo_index[l.header]));
        for i in 0..loops.len() {
            let parent = (0..i)
                .rev()
                .find(|&j| loops[j].blocks.contains(&loops[i].header));
            if let Some(p) = parent {
                if !loops[i].blocks.is_subset(&loops[p].blocks) {
                    return Err("loops overlap without nesting".into());
                }
            }
            loops[i].parent = parent;
            loops[i].depth = parent.map_or(1, |p| loops[p].depth + 1);
        }
        let mut loop_of: SecondaryMap<Block, Option<LoopId>> = SecondaryMap::new();
        for (i, l) in loops.iter().enumerate() {
            // Inner loops come later and overwrite.
            for &b in &l.blocks {
                loop_of[b] = Some(i);
            }
        }
        self.loops = loops;
        self.loop_of = loop_of;
        // Dedicated exits and a latch directly in its loop.
        for (i, l) in self.loops.iter().enumerate() {
            if self.loop_of[l.latch] != Some(i) {
                return Err(format!(
                    "the latch of the loop at {} is in an inner loop",
                    l.header
                ));
            }
            for &b in &l.blocks {
                for e in &self.succs[b] {
                    if !l.blocks.contains(&e.to)
                        && self.preds[e.to].iter().any(|p| !l.blocks.contains(&p.from))
                    {
                        return Err(format!(
                            "exit {} of the loop at {} is not dedicated",
                            e.to, l.header
                        ));
                    }
                }
            }
        }
        Ok(())
    }

    /// The loop nesting depth of a block (0 outside every loop).
    pub fn depth(&self, b: Block) -> u16 {
        self.loop_of[b].map_or(0, |l| self.loops[l].depth)
    }

    /// Whether loop `l` contains block `b` (`None` is the whole function).
    pub fn contains(&self, l: Option<LoopId>, b: Block) -> bool {
        l.is_none_or(|l| self.loops[l].blocks.contains(&b))
    }

    /// The node that stands for block `b` in the acyclic graph of region
    /// `r` (a loop, or `None` for the function body): the block itself, the
    /// child loop of `r` containing it, or `None` when `b` is outside `r`.
    pub fn rnode_at(&self, r: Option<LoopId>, b: Block) -> Option<RNode> {
        if !self.contains(r, b) {
            return None;
        }
        let mut l = self.loop_of[b];
        if l == r {
            return Some(RNode::Block(b));
        }
        while let Some(x) = l {
            if self.loops[x].parent == r {
                return Some(RNode::Loop(x));
            }
            l = self.loops[x].parent;
        }
        None
    }

    /// The reverse post-order position of a region node (of its header
    /// for a loop): a topological order of every region's acyclic graph.
    pub fn rnode_pos(&self, n: RNode) -> usize {
        match n {
            RNode::Block(b) => self.rpo_index[b],
            RNode::Loop(l) => self.rpo_index[self.loops[l].header],
        }
    }

    /// The members of region `r`, in topological order.
    pub fn members(&self, r: Option<LoopId>) -> Vec<RNode> {
        let mut out: Vec<RNode> = self
            .rpo
            .iter()
            .filter(|&&b| self.contains(r, b))
            .filter_map(|&b| match self.rnode_at(r, b)? {
                RNode::Block(b) => Some(RNode::Block(b)),
                RNode::Loop(l) if self.loops[l].header == b => Some(RNode::Loop(l)),
                RNode::Loop(_) => None,
            })
            .collect();
        out.sort_by_key(|&n| self.rnode_pos(n));
        out
    }

    /// The blocks in an order where every loop is contiguous and every
    /// region's members are topologically ordered (so definitions come
    /// before uses and a loop is complete before its exits).
    pub fn nested_order(&self) -> Vec<Block> {
        let mut out = Vec::with_capacity(self.rpo.len());
        self.emit(None, &mut out);
        out
    }

    fn emit(&self, r: Option<LoopId>, out: &mut Vec<Block>) {
        for n in self.members(r) {
            match n {
                RNode::Block(b) => out.push(b),
                RNode::Loop(l) => self.emit(Some(l), out),
            }
        }
    }

    /// The edges by which region node `n` of region `r` leaves itself,
    /// without the back edge of `r`: a block's successor edges, or a loop's
    /// exit edges.
    pub fn out_edges(&self, r: Option<LoopId>, n: RNode) -> Vec<Edge> {
        let back = r.map(|l| self.loops[l].back);
        match n {
            RNode::Block(b) => self.succs[b]
                .iter()
                .copied()
                .filter(|&e| Some(e) != back)
                .collect(),
            RNode::Loop(l) => {
                let lp = &self.loops[l];
                let mut v: Vec<Edge> = Vec::new();
                let mut blocks: Vec<Block> = lp.blocks.iter().copied().collect();
                blocks.sort_by_key(|&b| self.rpo_index[b]);
                for b in blocks {
                    for &e in &self.succs[b] {
                        if !lp.blocks.contains(&e.to) {
                            v.push(e);
                        }
                    }
                }
                v
            }
        }
    }
}

/// Cooper–Harvey–Kennedy iterative dominators over reverse post-order.
fn dominators(
    rpo: &[Block],
    index: &SecondaryMap<Block, usize>,
    preds: &SecondaryMap<Block, Vec<Edge>>,
) -> SecondaryMap<Block, Option<Block>> {
    let n = rpo.len();
    let mut doms: Vec<usize> = vec![usize::MAX; n];
    if n == 0 {
        return SecondaryMap::new();
    }
    doms[0] = 0;
    let mut changed = true;
    while changed {
        changed = false;
        for i in 1..n {
            let mut new = usize::MAX;
            for e in &preds[rpo[i]] {
                let p = index[e.from];
                if doms[p] == usize::MAX {
                    continue;
                }
                new = if new == usize::MAX {
                    p
                } else {
                    intersect(&doms, p, new)
                };
            }
            if new != doms[i] {
                doms[i] = new;
                changed = true;
            }
        }
    }
    let mut idom = SecondaryMap::new();
    for i in 1..n {
        idom[rpo[i]] = Some(rpo[doms[i]]);
    }
    idom
}

fn intersect(doms: &[usize], mut a: usize, mut b: usize) -> usize {
    while a != b {
        while a > b {
            a = doms[a];
        }
        while b > a {
            b = doms[b];
        }
    }
    a
}
