//! Control-flow primitives: edge set splitting (Fritz §7.3), if
//! simplification (§9.2) and edge deletion with the incremental dominator
//! update (§8.2).
//!
//! **Dominators after deleting the last edge `(a, b)`** (Ramalingam–Reps,
//! Fritz §5.2.1, §8.2): deleting a backedge never changes dominators. For a
//! forward edge, if `b` keeps a forward predecessor only the blocks whose
//! immediate dominator is `idom(b)` (the siblings of `b`) can change; they
//! are recomputed as `nca_D(forward preds)` until nothing changes (each
//! change only moves a sibling deeper into its old parent's subtree). If
//! `b` has no forward predecessor left, the subtree dominated by `b`
//! becomes unreachable and is removed, and its outgoing edges are deleted
//! one at a time in the same way.
//!
//! **Loops** (§8.2 *post delete edge*): a loop whose backedge died (its
//! latch removed, or the deleted edge itself) is destroyed; its blocks and
//! child loops move to its parent. Then the chain of loops that contained
//! both `a` and `b`, innermost first, is ejected ([`super::eject`]), which
//! removes blocks that can no longer reach the latch, re-dedicates exits
//! and repairs LCSSA.

use rustc_hash::FxHashSet;

use crate::ir::{Block, BlockCall, BlockData, Terminator, User, Value};

use super::state::LoopId;
use super::Editor;

impl Editor<'_> {
    /// Creates an empty block (in no loop, no idom) at the end of the layout.
    pub(super) fn raw_new_block(&mut self) -> Block {
        let b = self.func.blocks.push(BlockData {
            params: Vec::new(),
            insts: Vec::new(),
            term: Terminator::Return(None),
        });
        self.func.layout.push(b);
        self.st.in_layout[b] = true;
        self.st.numbers_valid = false;
        b
    }

    /// Splits the edges from `sources` to `target` (every edge from each
    /// source): a new forwarding block `b''` with parameters mirroring
    /// `target`'s takes them over (Fritz §7.3, Fig. 7.32). The sources must
    /// be all backedges or all forward edges. Returns `b''`.
    pub fn split_edge_set(&mut self, target: Block, sources: &[Block]) -> Block {
        let nb = self.raw_split_edge_set(target, sources);
        self.finish("split_edge_set");
        nb
    }

    pub(super) fn raw_split_edge_set(&mut self, target: Block, sources: &[Block]) -> Block {
        let nb = self.raw_new_block();
        let tys: Vec<_> = self.func.blocks[target]
            .params
            .iter()
            .map(|&p| self.func.values[p].ty)
            .collect();
        let params: Vec<_> = tys.into_iter().map(|t| self.raw_add_param(nb, t)).collect();
        self.raw_set_term(nb, Terminator::jump(BlockCall::new(target, params)));
        for &s in sources {
            let mut term = self.func.blocks[s].term.clone();
            for c in term.successors_mut() {
                if c.block == target {
                    c.block = nb;
                }
            }
            self.raw_set_term(s, term);
        }
        if !self.incremental() {
            self.rebuild();
            return nb;
        }
        // L: the innermost loop common to the sources and the target.
        let mut l = self.st.innermost[target].expand();
        for &s in sources {
            l = self.st.loop_nca(l, self.st.innermost[s].expand());
        }
        self.st.innermost[nb] = l.into();
        if !self.repairs_dom() {
            return nb;
        }
        // D: idom(b'') = nca(sources); target moves under b'' when b'' is its
        // only forward predecessor.
        let mut d = sources[0];
        for &s in &sources[1..] {
            d = self.st.nca(d, s);
        }
        self.st.set_idom(nb, Some(d));
        let fwd: Vec<Block> = self.st.preds[target]
            .iter()
            .copied()
            .filter(|&p| !self.st.is_backedge(p, target))
            .collect();
        if !fwd.is_empty() && fwd.iter().all(|&p| p == nb) {
            self.st.set_idom(target, Some(nb));
        }
        nb
    }

    /// Makes `b`'s two-way branch `br c, T, F` branch on `not_c`, the
    /// negation of `c`, with its targets swapped: `br not_c, F, T` (the
    /// caller proved `not_c == !c`). The edges stay the same, so no
    /// analysis changes but the use and predecessor lists. Returns false
    /// (and changes nothing) when `b` does not end in such a branch.
    pub fn negate_branch(&mut self, b: Block, not_c: Value) -> bool {
        let Terminator::Switch {
            value: Some(_),
            cases,
            default,
        } = &self.func.blocks[b].term
        else {
            return false;
        };
        let [(1, then)] = &cases[..] else {
            return false;
        };
        let term = Terminator::branch(not_c, default.clone(), then.clone());
        self.raw_set_term(b, term);
        self.finish("negate_branch");
        true
    }

    /// If simplification (Fritz §9.2): `b`'s switch is replaced by a jump
    /// along its `keep`-th outgoing edge (cases first, then the default;
    /// the caller proved that this edge is always taken), and every other
    /// edge is deleted with the repair of §8.2. Blocks that become
    /// unreachable are removed.
    pub fn fold_switch(&mut self, b: Block, keep: usize) {
        let term = self.func.blocks[b].term.clone();
        let Some(kept) = term.successors().nth(keep).cloned() else {
            return;
        };
        let removed: Vec<Block> = term
            .successors()
            .enumerate()
            .filter(|&(i, _)| i != keep)
            .map(|(_, c)| c.block)
            .collect();
        self.raw_set_term(b, Terminator::jump(kept));
        if !self.incremental() {
            self.rebuild();
            self.finish("fold_switch");
            return;
        }
        let mut done: Vec<Block> = Vec::new();
        for &t in &removed {
            if !done.contains(&t) {
                done.push(t);
            }
        }
        // With one edge lost, a target that keeps a forward predecessor
        // stays reachable (see `still_reaches_latches`).
        let single = done.len() == 1;
        for t in done {
            if !self.is_live(b) {
                break;
            }
            self.post_delete_edge(b, t, single);
        }
        self.finish("fold_switch");
    }

    /// Repairs D and F after the last edge (or one of several) from `a` to
    /// `b` was removed from `a`'s terminator (Fritz §8.2.2); `single`: no
    /// other target was removed from it at the same time.
    pub(super) fn post_delete_edge(&mut self, a: Block, b: Block, single: bool) {
        if self.st.preds[b].contains(&a) || !self.is_live(b) {
            return; // multiplicity case (§8.2.1): nothing changes
        }
        // Only loops containing both ends can lose paths to their latch: a
        // path inside a loop never uses an edge leaving it, and a loop
        // entered at b is removed with b's region (Fritz's A(loop(a)),
        // narrowed to the loops around the deleted edge).
        let mut chain = self
            .st
            .loop_nca(self.st.innermost[a].expand(), self.st.innermost[b].expand());
        let mut killed = false;
        if let Some(l) = self.loop_headed_by(b) {
            if self.st.loop_contains(l, a) {
                self.kill_loop(l);
                killed = true;
            }
        }
        if !killed {
            self.forward_edge_deleted(b);
        }
        while let Some(l) = chain.filter(|&l| !self.st.loops[l].alive) {
            chain = self.st.loops[l].parent;
        }
        if self.is_live(a)
            && !(single && !killed && self.still_reaches_latches(a, b, chain))
            && !(single && !killed && self.eject_lone_block(a, b, chain))
        {
            self.eject_chain(chain);
        }
    }

    /// Whether every block of every loop of `chain` (the loops around the
    /// deleted edge `(a, b)`) provably still reaches its loop's latch, so
    /// that ejection would move nothing: without this, each edge deletion
    /// inside a loop walked the whole loop body (quadratic for a long `||`
    /// as a `while` condition, where jump threading folds an edge per
    /// operand).
    ///
    /// It holds when `(a, b)` is the only edge `a` lost, a forward edge (no
    /// loop died with it), `b` is still live,
    /// `a`'s innermost loop `i` is the first of the chain (so it contains
    /// `b`), and `a` keeps a successor `t` inside `i`:
    /// - `t` reached `i`'s latch before (the forest was exact), by a path
    ///   that avoids `a`: otherwise `a -> t -> .. -> a` is a cycle of `i`'s
    ///   body that avoids its header, which in a reducible CFG lies in a
    ///   loop nested in `i`, and `a`'s innermost loop is `i`. So `a`, and
    ///   every block that reached `a`, still reaches `i`'s latch;
    /// - `b` is live, so it kept a forward predecessor, which `b` does not
    ///   dominate and which is therefore reachable without the one deleted
    ///   edge; so `b` is reachable, hence (dominated by `i`'s header)
    ///   reachable from that header inside `i`: a path through `(a, b)` to
    ///   an outer loop's latch can go `a -> t .. latch -> header .. b` and
    ///   on as before.
    fn still_reaches_latches(&self, a: Block, b: Block, chain: Option<LoopId>) -> bool {
        let Some(i) = chain else {
            return true;
        };
        self.is_live(b)
            && self.st.innermost[a].expand() == Some(i)
            && self.st.loop_contains(i, b)
            && self.func.blocks[a]
                .term
                .successors()
                .any(|c| c.block != b && self.is_live(c.block) && self.st.loop_contains(i, c.block))
    }

    /// Dominator repair after `b` lost a forward predecessor.
    fn forward_edge_deleted(&mut self, b: Block) {
        let has_fwd = self.st.preds[b].iter().any(|&p| !self.st.is_backedge(p, b));
        if has_fwd {
            if self.repairs_dom() {
                self.repair_siblings(b);
            }
        } else {
            self.remove_region(b);
        }
    }

    /// Ramalingam–Reps deletion: the siblings of `b` get
    /// `nca_D(forward preds)` until a fixpoint. A sibling keeps `d` (their
    /// common dominator) when its predecessors are `d` or lie under two
    /// different siblings; only one whose predecessors all lie under one
    /// sibling `w` moves, below `w`, and `w`'s subtree then takes in its own.
    /// With the tree numbered once, the sibling holding a predecessor is a
    /// binary search away (and a union-find follows the moves), so only
    /// the siblings that move walk the tree: recomputing every sibling's
    /// `nca` walked it per sibling and round, cubic on a long `&&` chain
    /// whose joins gather every threaded copy.
    fn repair_siblings(&mut self, b: Block) {
        let Some(d) = self.idom(b) else {
            return;
        };
        let sibs = self.st.children[d].clone();
        if sibs.len() <= super::blocks::FEW_CHILDREN {
            self.reset_idoms_to_nca(&sibs);
            return;
        }
        if !self.st.numbers_valid {
            self.st.renumber(self.func);
        }
        // The numbers of this tree stay readable below while the moves
        // mark them stale.
        let mut by_pre: Vec<(u32, u32, usize)> = (sibs.iter().enumerate())
            .map(|(k, &v)| (self.st.pre[v], self.st.post[v], k))
            .collect();
        by_pre.sort_unstable();
        let mut top: Vec<usize> = (0..sibs.len()).collect();
        fn find(top: &mut [usize], mut k: usize) -> usize {
            while top[k] != k {
                top[k] = top[top[k]];
                k = top[k];
            }
            k
        }
        loop {
            let mut changed = false;
            for (k, &v) in sibs.iter().enumerate() {
                if find(&mut top, k) != k {
                    continue;
                }
                let fwd: Vec<Block> = self.st.preds[v]
                    .iter()
                    .copied()
                    .filter(|&p| !self.st.is_backedge(p, v))
                    .collect();
                // The one sibling whose subtree holds every predecessor.
                let mut under: Option<usize> = None;
                for &q in &fwd {
                    let pq = self.st.pre[q];
                    let i = by_pre.partition_point(|&(n, _, _)| n <= pq);
                    let holder = (i > 0 && q != d)
                        .then(|| by_pre[i - 1])
                        .filter(|&(_, post, _)| self.st.post[q] <= post)
                        .map(|(_, _, h)| find(&mut top, h));
                    match (holder, under) {
                        (Some(h), None) if h != k => under = Some(h),
                        (Some(h), Some(u)) if h == u => {}
                        _ => {
                            under = None;
                            break;
                        }
                    }
                }
                if under.is_none() {
                    continue;
                }
                let Some((&first, rest)) = fwd.split_first() else {
                    continue;
                };
                let mut n = first;
                for &p in rest {
                    n = self.st.nca(n, p);
                }
                self.st.set_idom(v, Some(n));
                top[k] = under.unwrap_or(k);
                changed = true;
            }
            if !changed {
                break;
            }
        }
    }

    /// Removes the blocks dominated by `b` (now unreachable), then deletes
    /// their edges to the rest of the function one at a time.
    fn remove_region(&mut self, b: Block) {
        let region = if self.st.dom_stale {
            self.unreachable_from(b)
        } else {
            let mut region = vec![b];
            let mut i = 0;
            while i < region.len() {
                let x = region[i];
                i += 1;
                region.extend(self.st.children[x].iter().copied());
            }
            region
        };
        let set: FxHashSet<Block> = region.iter().copied().collect();
        if self.repairs_dom() {
            self.st.set_idom(b, None);
        }
        let mut out_edges: Vec<(Block, Block)> = Vec::new();
        for &r in &region {
            // Loops headed inside the region vanish with it.
            if let Some(l) = self.loop_headed_by(r) {
                self.st.loops[l].alive = false;
                self.st.header_of[r] = None.into();
                let parent = self.st.loops[l].parent;
                for other in self.st.loops.values_mut() {
                    if other.parent == Some(l) {
                        other.parent = parent;
                    }
                }
            }
            for inst in self.func.blocks[r].insts.clone() {
                self.remove_inst_uses(inst);
                self.st.inst_block[inst] = None.into();
            }
            for v in self.term_args(r) {
                self.remove_use(v, User::Term(r));
            }
            let succs: Vec<Block> = self.func.blocks[r]
                .term
                .successors()
                .map(|c| c.block)
                .collect();
            for s in succs {
                if set.contains(&s) {
                    continue;
                }
                let ps = &mut self.st.preds[s];
                if let Some(pos) = ps.iter().position(|&p| p == r) {
                    ps.remove(pos);
                }
                if !out_edges.contains(&(r, s)) {
                    out_edges.push((r, s));
                }
            }
            self.st.in_layout[r] = false;
            self.st.children[r].clear();
            self.st.preds[r].clear();
            self.st.innermost[r] = None.into();
        }
        self.layout_dirty = true;
        self.st.numbers_valid = false;
        for (r, s) in out_edges {
            if !self.is_live(s) || self.st.preds[s].contains(&r) {
                continue;
            }
            if let Some(l) = self.loop_headed_by(s) {
                // Every edge into a header from a dominated block is a
                // backedge; its loop dies with the latch.
                if !self.st.preds[s]
                    .iter()
                    .any(|&p| self.st.loop_contains(l, p))
                {
                    self.kill_loop(l);
                    continue;
                }
            }
            self.forward_edge_deleted(s);
        }
    }

    /// The blocks `b` dominates, found without the dominator tree (stale in
    /// a deferred batch): `b` and every block whose forward predecessors
    /// all lie in the set. In a reducible CFG a block's immediate dominator
    /// is the `nca` of its forward predecessors, so this closure is `b`'s
    /// dominator subtree. Costs the region and the edges leaving it.
    fn unreachable_from(&self, b: Block) -> Vec<Block> {
        let mut region = vec![b];
        let mut inside = FxHashSet::default();
        inside.insert(b);
        // Forward predecessors of a candidate still outside the region.
        let mut waiting: rustc_hash::FxHashMap<Block, usize> = Default::default();
        let mut i = 0;
        while i < region.len() {
            let x = region[i];
            i += 1;
            for c in self.func.blocks[x].term.successors() {
                let s = c.block;
                if inside.contains(&s) || self.st.is_backedge(x, s) {
                    continue;
                }
                let left = waiting.entry(s).or_insert_with(|| {
                    self.st.preds[s]
                        .iter()
                        .filter(|&&p| !self.st.is_backedge(p, s))
                        .count()
                });
                *left -= 1;
                if *left == 0 {
                    inside.insert(s);
                    region.push(s);
                }
            }
        }
        region
    }

    /// Destroys loop `l` (its backedge is gone): its blocks and child loops
    /// move to its parent.
    pub(super) fn kill_loop(&mut self, l: LoopId) {
        let parent = self.st.loops[l].parent;
        let h = self.st.loops[l].header;
        for x in self.claimed_body(l) {
            if self.st.innermost[x].expand() == Some(l) {
                self.st.innermost[x] = parent.into();
            }
        }
        self.st.loops[l].alive = false;
        self.st.header_of[h] = None.into();
        for other in self.st.loops.values_mut() {
            if other.parent == Some(l) {
                other.parent = parent;
            }
        }
    }

    /// The blocks the forest claims for `l` that are reachable from its
    /// header without leaving the claimed set.
    pub(super) fn claimed_body(&self, l: LoopId) -> Vec<Block> {
        let h = self.st.loops[l].header;
        let mut out = vec![h];
        let mut seen = FxHashSet::default();
        seen.insert(h);
        let mut i = 0;
        while i < out.len() {
            let x = out[i];
            i += 1;
            self.st.loop_steps.set(self.st.loop_steps.get() + 1);
            for c in self.func.blocks[x].term.successors() {
                let s = c.block;
                if !seen.contains(&s) && self.is_live(s) && self.st.loop_contains(l, s) {
                    seen.insert(s);
                    out.push(s);
                }
            }
        }
        out
    }
}
