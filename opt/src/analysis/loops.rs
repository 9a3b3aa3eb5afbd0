//! The loop nesting forest of a function (Fritz §2.6).
//!
//! A natural loop is identified by its *header* `h` and the backedges
//! `(l, h)` into it, where `h` dominates the latch `l` (§2.6). Its body is
//! found by walking the CFG backwards from the latches until `h` is reached;
//! nested loops are *collapsed* into their header as they are met, so that
//! inner loops become children of the loop being discovered (§2.6.4). Headers
//! are visited in post-order of the dominator tree (here: reverse RPO, in
//! which every block comes after the blocks it dominates), so inner loops
//! are found before the loops around them.
//!
//! The result is stored in the deconstructed shape of §2.6.3: for every loop
//! its parent (`H_F`), for every block its innermost loop (`L_F`), and for
//! every loop its exits (`X_F`); bodies, latches, depths and children are
//! kept as well for convenience.
//!
//! Only reducible control flow has natural loops that cover all cycles;
//! [`LoopForest::is_reducible`] reports whether some cycle is not a natural
//! loop (a retreating edge whose target does not dominate its source). Those
//! cycles do not appear in the forest. Unreachable blocks are in no loop.

use cranelift_entity::packed_option::PackedOption;
use cranelift_entity::{entity_impl, PrimaryMap, SecondaryMap};

use super::cfg::ControlFlowGraph;
use super::domtree::DomTree;
use crate::ir::{Block, Function};

/// A loop of a [`LoopForest`].
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Loop(u32);
entity_impl!(Loop, "loop");

/// Everything known about one loop.
#[derive(Clone, Debug)]
struct LoopData {
    /// The block that dominates the body and is the target of the backedges.
    header: Block,
    /// The innermost loop around this one.
    parent: PackedOption<Loop>,
    /// Loops immediately nested in this one, in discovery order.
    children: Vec<Loop>,
    /// Fritz's depth: 0 for an outermost loop.
    depth: u32,
    /// Every block of the loop, nested loops included, header first.
    body: Vec<Block>,
    /// Blocks of the body with an edge to the header.
    latches: Vec<Block>,
    /// Blocks outside the body with a predecessor in it.
    exits: Vec<Block>,
}

/// The loop nesting forest of a function's reachable CFG.
#[derive(Clone, Debug, Default)]
pub struct LoopForest {
    loops: PrimaryMap<Loop, LoopData>,
    /// Innermost loop containing each block (`loop_F(b)`).
    innermost: SecondaryMap<Block, PackedOption<Loop>>,
    /// The loop each header heads.
    header_of: SecondaryMap<Block, PackedOption<Loop>>,
    /// Whether every retreating edge is a backedge.
    reducible: bool,
}

impl LoopForest {
    /// Computes the loops of `func` from its CFG and dominator tree.
    pub fn compute(func: &Function, cfg: &ControlFlowGraph, dom: &DomTree) -> LoopForest {
        let mut forest = LoopForest {
            reducible: true,
            ..LoopForest::default()
        };
        let _ = func;
        for &h in dom.rpo().iter().rev() {
            let latches: Vec<Block> = cfg
                .preds(h)
                .iter()
                .copied()
                .filter(|&p| dom.dominates(h, p))
                .collect();
            if latches.is_empty() {
                continue;
            }
            forest.discover(h, latches, cfg, dom);
        }
        forest.finish(cfg, dom);
        forest
    }

    /// Creates the loop headed by `h` and collects its body backwards from
    /// `latches`, adopting already discovered loops as children.
    fn discover(&mut self, h: Block, latches: Vec<Block>, cfg: &ControlFlowGraph, dom: &DomTree) {
        let lp = self.loops.push(LoopData {
            header: h,
            parent: None.into(),
            children: Vec::new(),
            depth: 0,
            body: Vec::new(),
            latches: latches.clone(),
            exits: Vec::new(),
        });
        self.header_of[h] = lp.into();
        self.innermost[h] = lp.into();
        let mut work = latches;
        while let Some(b) = work.pop() {
            if b == h || !dom.is_reachable(b) {
                continue;
            }
            match self.innermost[b].expand() {
                None => {
                    self.innermost[b] = lp.into();
                    work.extend_from_slice(cfg.preds(b));
                }
                Some(sub) => {
                    let top = self.outermost(sub);
                    if top == lp {
                        continue;
                    }
                    self.loops[top].parent = lp.into();
                    let sub_header = self.loops[top].header;
                    work.extend(
                        cfg.preds(sub_header)
                            .iter()
                            .copied()
                            .filter(|&p| !dom.dominates(sub_header, p)),
                    );
                }
            }
        }
    }

    /// The outermost loop discovered so far that contains `l`.
    fn outermost(&self, mut l: Loop) -> Loop {
        while let Some(p) = self.loops[l].parent.expand() {
            l = p;
        }
        l
    }

    /// Fills children, depths, bodies, exits and the reducibility flag.
    fn finish(&mut self, cfg: &ControlFlowGraph, dom: &DomTree) {
        // Parents are discovered after their children, so visiting loops in
        // reverse creation order sees every parent before its children.
        let order: Vec<Loop> = self.loops.keys().rev().collect();
        for &l in &order {
            if let Some(p) = self.loops[l].parent.expand() {
                self.loops[l].depth = self.loops[p].depth + 1;
            }
        }
        for l in self.loops.keys() {
            if let Some(p) = self.loops[l].parent.expand() {
                self.loops[p].children.push(l);
            }
        }
        for &b in dom.rpo() {
            let mut cur = self.innermost[b].expand();
            while let Some(l) = cur {
                self.loops[l].body.push(b);
                cur = self.loops[l].parent.expand();
            }
        }
        for l in self.loops.keys() {
            let mut exits = Vec::new();
            for &b in &self.loops[l].body {
                for &s in cfg.succs(b) {
                    if !self.contains(l, s) && !exits.contains(&s) {
                        exits.push(s);
                    }
                }
            }
            self.loops[l].exits = exits;
        }
        for &a in dom.rpo() {
            let an = dom.rpo_number(a);
            for &b in cfg.succs(a) {
                if dom.rpo_number(b) <= an && !dom.dominates(b, a) {
                    self.reducible = false;
                }
            }
        }
    }

    /// All loops, inner loops before the loops that contain them (a
    /// post-order of the forest).
    pub fn loops(&self) -> impl Iterator<Item = Loop> + '_ {
        self.loops.keys()
    }

    /// Number of loops.
    pub fn len(&self) -> usize {
        self.loops.len()
    }

    /// Whether the function has no loops.
    pub fn is_empty(&self) -> bool {
        self.loops.is_empty()
    }

    /// The outermost loops (`root(F)`).
    pub fn roots(&self) -> impl Iterator<Item = Loop> + '_ {
        self.loops
            .iter()
            .filter(|(_, d)| d.parent.is_none())
            .map(|(l, _)| l)
    }

    /// The header of `l`.
    pub fn header(&self, l: Loop) -> Block {
        self.loops[l].header
    }

    /// The loop whose header is `b`, if any.
    pub fn loop_headed_by(&self, b: Block) -> Option<Loop> {
        self.header_of.get(b).and_then(|l| l.expand())
    }

    /// The innermost loop containing `l` (`p_F(l)`), `None` for a root.
    pub fn parent(&self, l: Loop) -> Option<Loop> {
        self.loops[l].parent.expand()
    }

    /// The loops immediately nested in `l` (`child_F(l)`).
    pub fn children(&self, l: Loop) -> &[Loop] {
        &self.loops[l].children
    }

    /// Fritz's `depth_F(l)`: 0 for an outermost loop, parent's depth + 1
    /// otherwise.
    pub fn depth(&self, l: Loop) -> u32 {
        self.loops[l].depth
    }

    /// The blocks of `l`'s body, nested loops included, in reverse
    /// post-order of the CFG (the header first).
    pub fn body(&self, l: Loop) -> &[Block] {
        &self.loops[l].body
    }

    /// The latches of `l`: blocks of the body with an edge to the header.
    pub fn latches(&self, l: Loop) -> &[Block] {
        &self.loops[l].latches
    }

    /// The exits of `l`: blocks outside the body with a predecessor inside.
    pub fn exits(&self, l: Loop) -> &[Block] {
        &self.loops[l].exits
    }

    /// The innermost loop whose body contains `b` (`loop_F(b)`), `None` when
    /// `b` is in no loop (Fritz's phony loop).
    pub fn innermost(&self, b: Block) -> Option<Loop> {
        self.innermost.get(b).and_then(|l| l.expand())
    }

    /// The number of loops whose body contains `b` (`depth_F(b) + 1` in
    /// Fritz's convention, so 0 outside every loop).
    pub fn nesting(&self, b: Block) -> u32 {
        self.innermost(b).map_or(0, |l| self.depth(l) + 1)
    }

    /// Whether `b` is in the body of `l` (directly or in a nested loop).
    /// O(nesting depth).
    pub fn contains(&self, l: Loop, b: Block) -> bool {
        let mut cur = self.innermost(b);
        while let Some(c) = cur {
            if c == l {
                return true;
            }
            if self.loops[c].depth <= self.loops[l].depth {
                return false;
            }
            cur = self.parent(c);
        }
        false
    }

    /// Whether `inner` is `outer` or nested in it.
    pub fn is_within(&self, inner: Loop, outer: Loop) -> bool {
        let mut cur = Some(inner);
        while let Some(c) = cur {
            if c == outer {
                return true;
            }
            cur = self.parent(c);
        }
        false
    }

    /// The nearest common ancestor of two loops (`nca_F`); `None` (the phony
    /// loop) when they are in different trees or either is `None`.
    pub fn nca(&self, a: Option<Loop>, b: Option<Loop>) -> Option<Loop> {
        let (mut a, mut b) = (a?, b?);
        while a != b {
            if self.depth(a) >= self.depth(b) {
                a = self.parent(a)?;
            } else {
                b = self.parent(b)?;
            }
        }
        Some(a)
    }

    /// Whether every cycle of the reachable CFG is a natural loop.
    pub fn is_reducible(&self) -> bool {
        self.reducible
    }

    /// Records a block added by an edge split as a member of `l` (and of the
    /// loops around it), or of no loop. Latch and exit lists are not
    /// updated: the caller knows how the split changed them.
    pub(crate) fn insert_block(&mut self, b: Block, l: Option<Loop>) {
        self.innermost[b] = l.into();
        let mut cur = l;
        while let Some(c) = cur {
            self.loops[c].body.push(b);
            cur = self.parent(c);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{BlockCall, FunctionBuilder, InstKind, Signature, SrcLoc, Terminator, Type};

    /// Builds a function whose blocks have the given successor lists (block
    /// `i` is `blockI`); branches test a parameter of the entry.
    fn graph(succs: &[&[usize]]) -> (Function, Vec<Block>) {
        let mut f = Function::new(
            "g",
            Signature {
                params: vec![Type::Bool],
                ret: Type::Unit,
            },
        );
        let mut b = FunctionBuilder::new(&mut f);
        let blocks: Vec<Block> = succs.iter().map(|_| b.create_block()).collect();
        let c = b.append_block_param(blocks[0], Type::Bool);
        let _ = b.ins(blocks[0], InstKind::IConst(0), Type::Int, SrcLoc::NONE);
        for (i, ss) in succs.iter().enumerate() {
            let call = |j: usize| BlockCall::new(blocks[j], vec![]);
            let term = match ss {
                [] => Terminator::Return(None),
                [a] => Terminator::jump(call(*a)),
                [a, rest @ ..] => Terminator::Switch {
                    value: Some(c),
                    cases: rest
                        .iter()
                        .enumerate()
                        .map(|(k, &t)| (k as i64 + 1, call(t)))
                        .collect(),
                    default: call(*a),
                },
            };
            b.set_terminator(blocks[i], term);
        }
        (f, blocks)
    }

    fn forest(f: &Function) -> LoopForest {
        let cfg = ControlFlowGraph::compute(f);
        let dom = DomTree::compute(f, &cfg);
        LoopForest::compute(f, &cfg, &dom)
    }

    #[test]
    fn nested_and_sibling_loops() {
        // 0 → 1; 1 ⇄ 2 ⇄ 3 (inner loop 2..3 inside 1..3); 1 → 4; 4 ⇄ 5; 5 → 6.
        let (f, b) = graph(&[&[1], &[2, 4], &[3], &[2, 1], &[5], &[4, 6], &[]]);
        let lf = forest(&f);
        assert_eq!(lf.len(), 3);
        assert!(lf.is_reducible());
        let outer = lf.loop_headed_by(b[1]).unwrap();
        let inner = lf.loop_headed_by(b[2]).unwrap();
        let other = lf.loop_headed_by(b[4]).unwrap();
        assert_eq!(lf.parent(inner), Some(outer));
        assert_eq!(lf.parent(outer), None);
        assert_eq!(lf.parent(other), None);
        assert_eq!(lf.children(outer), &[inner]);
        assert_eq!((lf.depth(outer), lf.depth(inner)), (0, 1));
        let mut body = lf.body(outer).to_vec();
        body.sort();
        assert_eq!(body, vec![b[1], b[2], b[3]]);
        assert_eq!(lf.body(inner).len(), 2);
        assert_eq!(lf.latches(outer), &[b[3]]);
        assert_eq!(lf.latches(inner), &[b[3]]);
        assert_eq!(lf.exits(outer), &[b[4]]);
        assert_eq!(lf.exits(inner), &[b[1]]);
        assert_eq!(lf.exits(other), &[b[6]]);
        assert_eq!(lf.innermost(b[3]), Some(inner));
        assert_eq!(lf.innermost(b[0]), None);
        assert_eq!(
            (lf.nesting(b[3]), lf.nesting(b[1]), lf.nesting(b[6])),
            (2, 1, 0)
        );
        assert!(lf.contains(outer, b[3]) && !lf.contains(inner, b[1]));
        assert_eq!(lf.nca(Some(inner), Some(other)), None);
        assert_eq!(lf.nca(Some(inner), Some(outer)), Some(outer));
        // Inner loops come first.
        let order: Vec<Loop> = lf.loops().collect();
        let pos = |l| order.iter().position(|&x| x == l).unwrap();
        assert!(pos(inner) < pos(outer));
    }

    #[test]
    fn self_loop_and_entry_header() {
        // 0 ⇄ 0 (entry is a header), 0 → 1 ⇄ 1, 1 → 2.
        let (f, b) = graph(&[&[0, 1], &[1, 2], &[]]);
        let lf = forest(&f);
        assert_eq!(lf.len(), 2);
        let l0 = lf.loop_headed_by(b[0]).unwrap();
        assert_eq!(lf.body(l0), &[b[0]]);
        assert_eq!(lf.latches(l0), &[b[0]]);
        assert_eq!(lf.exits(l0), &[b[1]]);
    }

    #[test]
    fn multiple_latches_share_one_loop() {
        // 0 → 1; 1 → 2 | 3; 2 → 1; 3 → 1 | 4.
        let (f, b) = graph(&[&[1], &[2, 3], &[1], &[1, 4], &[]]);
        let lf = forest(&f);
        assert_eq!(lf.len(), 1);
        let l = lf.loop_headed_by(b[1]).unwrap();
        let mut latches = lf.latches(l).to_vec();
        latches.sort();
        assert_eq!(latches, vec![b[2], b[3]]);
    }

    #[test]
    fn irreducible_is_reported() {
        // 0 → 1 | 2; 1 → 2; 2 → 1: a cycle with two entries.
        let (f, _) = graph(&[&[1, 2], &[2], &[1]]);
        let lf = forest(&f);
        assert!(!lf.is_reducible());
        assert!(lf.is_empty());
    }
}
