//! Block-level primitives: straightening (Fritz §9.1), jump simplification
//! and threading through an instruction-free block (§9.3), and function
//! inlining (§9.4).

use cranelift_entity::SecondaryMap;
use rustc_hash::FxHashSet;

use crate::analysis::loops::LoopForest;
use crate::analysis::{ControlFlowGraph, DomTree};
use crate::ir::{
    Block, BlockCall, Function, Inst, InstData, InstKind, Terminator, User, Value, ValueDef,
};

use super::state::{LoopData, LoopId};
use super::Editor;

impl Editor<'_> {
    /// The single target of `a`'s terminator when it is a plain jump.
    pub fn jump_target(&self, a: Block) -> Option<Block> {
        self.func.blocks[a].term.as_jump().map(|d| d.block)
    }

    /// Whether [`Editor::straighten`] applies to `a`: `a` ends in a plain
    /// jump to `b`, `b` has no other incoming edge, and both are in the same
    /// innermost loop (the edge crosses no loop boundary, §9.1).
    pub fn can_straighten(&self, a: Block) -> bool {
        let Some(b) = self.jump_target(a) else {
            return false;
        };
        b != a
            && b != self.entry()
            && self.st.preds[b].len() == 1
            && self.st.innermost[a] == self.st.innermost[b]
            && self.loop_headed_by(b).is_none()
    }

    /// Straightening (Fritz §9.1, Fig. 9.12): merges the jump target `b` of
    /// `a` into `a`. D: the children of `b` move to `a`; L: `b` is dropped.
    /// Returns false when the preconditions do not hold.
    pub fn straighten(&mut self, a: Block) -> bool {
        if !self.can_straighten(a) {
            return false;
        }
        let b = self.jump_target(a).expect("checked");
        let Terminator::Switch { default, .. } = self.func.blocks[a].term.clone() else {
            unreachable!()
        };
        // Simulate the edge: b's parameters become the edge arguments.
        let params = self.func.blocks[b].params.clone();
        let mut args = default.args.clone();
        if crate::passes::fault::on(crate::passes::fault::Fault::SwapsJoinArgs) {
            args.reverse();
        }
        for (&p, &e) in params.iter().zip(&args) {
            self.raw_replace_all_uses(p, e);
        }
        let insts = std::mem::take(&mut self.func.blocks[b].insts);
        for &i in &insts {
            self.st.inst_block[i] = a.into();
        }
        self.func.blocks[a].insts.extend(insts);
        let term = self.func.blocks[b].term.clone();
        self.raw_set_term(b, Terminator::Return(None));
        self.raw_set_term(a, term);
        self.st.in_layout[b] = false;
        self.layout_dirty = true;
        if self.incremental() {
            if self.repairs_dom() {
                for c in self.st.children[b].clone() {
                    self.st.set_idom(c, Some(a));
                }
                self.st.set_idom(b, None);
            }
            self.st.innermost[b] = None.into();
        } else {
            self.rebuild();
        }
        self.finish("straighten");
        true
    }

    /// Whether [`Editor::thread_jump`] applies to the edge `(p, b)`: `p`
    /// ends in a plain jump to `b`; `b` has no instructions, several
    /// predecessors, is neither a loop header nor the latch of its loop
    /// (an irreducible region or a second latch would form, §9.3), and is
    /// no preheader.
    pub fn can_thread(&self, p: Block) -> bool {
        let Some(b) = self.jump_target(p) else {
            return false;
        };
        if b == p || !self.func.blocks[b].insts.is_empty() || !self.has_several_preds(b) {
            return false;
        }
        if self.loop_headed_by(b).is_some() {
            return false;
        }
        // A backedge (b is the latch) or an entering edge (b is the
        // preheader) must stay unique.
        self.succs(b)
            .iter()
            .all(|&s| self.loop_headed_by(s).is_none())
    }

    /// Jump simplification / threading (Fritz §9.3, Fig. 9.33): `p`'s jump
    /// to the instruction-free block `b` is redirected to a copy `b'` of `b`
    /// (fresh parameters, same terminator). D: `idom(b') = p`, `b` and its
    /// old dominator children get `nca_D(preds)`; L: `b'` joins `b`'s loop;
    /// uses of `b`'s parameters outside `b` are rebuilt by SSA
    /// reconstruction (§7.1). Returns the copy, or None when the
    /// preconditions fail. Afterwards `(p, b')` can be straightened.
    pub fn thread_jump(&mut self, p: Block) -> Option<Block> {
        if !self.can_thread(p) {
            return None;
        }
        let b = self.jump_target(p)?;
        let nb = self.raw_new_block();
        let params = self.func.blocks[b].params.clone();
        let mut map = Vec::new();
        for &r in &params {
            let ty = self.value_type(r);
            let r2 = self.raw_add_param(nb, ty);
            map.push((r, r2));
        }
        let mut term = self.func.blocks[b].term.clone();
        term.for_each_arg_mut(|v| {
            if let Some(&(_, n)) = map.iter().find(|(o, _)| o == v) {
                *v = n;
            }
        });
        self.raw_set_term(nb, term);
        let mut pt = self.func.blocks[p].term.clone();
        for c in pt.successors_mut() {
            if c.block == b {
                c.block = nb;
            }
        }
        self.raw_set_term(p, pt);
        if self.incremental() {
            self.st.innermost[nb] = self.st.innermost[b];
            if self.repairs_dom() {
                let old_children = self.st.children[b].clone();
                self.st.set_idom(nb, Some(p));
                // `b` only lost the predecessor `p`: its old immediate
                // dominator still dominates the others, and stays the
                // nearest common one while it is a predecessor itself (every
                // `||`/`&&` operand threaded into a long chain's join:
                // without this shortcut each thread walked the whole chain,
                // quadratic in its length).
                let d = self.st.idom[b].expand();
                if !d.is_some_and(|d| self.st.preds[b].contains(&d) && !self.st.is_backedge(d, b)) {
                    self.reset_idom_to_nca(b);
                }
                self.move_threaded_children(b, p, &old_children);
            }
            for (r, r2) in map {
                let outside: Vec<User> = self
                    .uses(r)
                    .iter()
                    .copied()
                    .filter(|&u| u != User::Term(b))
                    .collect();
                if outside.is_empty() {
                    continue;
                }
                // A join parameter the reconstruction creates inside a loop
                // may reach uses outside that loop: route them through
                // exit-block parameters (LCSSA reconstruction, §7.2).
                for p in self.rewrite_uses(r, &[(nb, r2)], &outside) {
                    if self.def_block(p).is_some() && !self.uses(p).is_empty() {
                        self.repair_lcssa(p);
                    }
                }
            }
        } else {
            // SSA reconstruction needs only the maintained predecessors.
            for (r, r2) in map {
                let outside: Vec<User> = self
                    .uses(r)
                    .iter()
                    .copied()
                    .filter(|&u| u != User::Term(b))
                    .collect();
                if !outside.is_empty() {
                    self.rewrite_uses(r, &[(nb, r2)], &outside);
                }
            }
            self.rebuild();
        }
        self.finish("thread_jump");
        Some(nb)
    }

    /// [`Self::reset_idom_to_nca`] over `blocks` until none changes: the
    /// repair of a few children or siblings, where a walk each costs less
    /// than numbering the whole tree.
    pub(super) fn reset_idoms_to_nca(&mut self, blocks: &[Block]) {
        loop {
            let mut changed = false;
            for &b in blocks {
                changed |= self.reset_idom_to_nca(b);
            }
            if !changed {
                return;
            }
        }
    }

    /// Sets `idom(b) = nca_D(forward preds of b)`; whether it changed.
    pub(super) fn reset_idom_to_nca(&mut self, b: Block) -> bool {
        let fwd: Vec<Block> = self.st.preds[b]
            .iter()
            .copied()
            .filter(|&p| !self.st.is_backedge(p, b))
            .collect();
        let Some((&first, rest)) = fwd.split_first() else {
            return false;
        };
        // With valid numbers each `nca` walk starts where the last ended
        // and only climbs: O(preds + depth) for all of them. Stale numbers
        // would make each walk cost the distance to the answer instead.
        if rest.len() >= 8 && !self.st.numbers_valid {
            self.st.renumber(self.func);
        }
        let mut n = first;
        for &q in rest {
            n = self.st.nca(n, q);
        }
        if Some(n) != self.idom(b) {
            self.st.set_idom(b, Some(n));
            true
        } else {
            false
        }
    }
}

/// Up to this many dominator children (or siblings) a repair recomputes
/// each one's `nca` by walking the tree; beyond it, numbering the tree once
/// and deciding each child by binary search is cheaper.
pub(super) const FEW_CHILDREN: usize = 8;

impl Editor<'_> {
    /// D for the old dominator children of `b` after `p`'s edge to `b`
    /// moved to `b`'s copy (same successors; `b`'s own dominator already
    /// repaired). A child keeps `b` unless a path from the copy reaches it
    /// without passing `b`; then its dominators are those common to `b` and
    /// `p`, so every such child moves to the same block, `nca(b, p)`
    /// (grandchildren keep theirs: each new path to one runs through its
    /// old parent, a path that existed from `b` before). Which children move
    /// is reachability over the children alone: a child moves when a
    /// forward predecessor lies outside `b`'s old subtree, or inside the
    /// subtree of a child that moves. With the tree numbered, the child
    /// holding a predecessor is a binary search away, so the repair costs
    /// a renumbering plus `O(preds · log children)`, where recomputing each
    /// child's `nca` of its predecessors walked up the tree per child:
    /// cubic on a long `&&` chain, whose last join collects every threaded
    /// copy as a child.
    fn move_threaded_children(&mut self, b: Block, p: Block, children: &[Block]) {
        if children.len() <= FEW_CHILDREN {
            self.reset_idoms_to_nca(children);
            return;
        }
        if !self.st.numbers_valid {
            self.st.renumber(self.func);
        }
        let st = &self.st;
        let (pre_b, post_b) = (st.pre[b], st.post[b]);
        let inside = |q: Block| q != b && pre_b <= st.pre[q] && st.post[q] <= post_b;
        let mut by_pre: Vec<(u32, usize)> = (children.iter().enumerate())
            .map(|(k, &c)| (st.pre[c], k))
            .collect();
        by_pre.sort_unstable();
        let holder = |q: Block| by_pre[by_pre.partition_point(|&(n, _)| n <= st.pre[q]) - 1].1;
        let mut moves = vec![false; children.len()];
        let mut dependents: Vec<Vec<usize>> = vec![Vec::new(); children.len()];
        let mut work = Vec::new();
        for (k, &c) in children.iter().enumerate() {
            for &q in &st.preds[c] {
                if q == b || st.is_backedge(q, c) {
                    continue;
                }
                if inside(q) {
                    dependents[holder(q)].push(k);
                } else if !moves[k] {
                    moves[k] = true;
                    work.push(k);
                }
            }
        }
        while let Some(k) = work.pop() {
            for &d in &dependents[k] {
                if !moves[d] {
                    moves[d] = true;
                    work.push(d);
                }
            }
        }
        if !moves.contains(&true) {
            return;
        }
        let x = self.st.nca(b, p);
        for (k, &c) in children.iter().enumerate() {
            if moves[k] {
                self.st.set_idom(c, Some(x));
            }
        }
    }

    /// Function inlining (Fritz §9.4, Fig. 9.42): replaces the call `call`
    /// by a copy of `callee`'s body. The call's block is split after the
    /// call; the callee's entry copy is entered with the call's arguments
    /// and its returns jump to the second half, whose parameter replaces
    /// the call's result. D: the callee's tree hangs under the call block
    /// and the second half gets `nca` of the returns; L: callee loops nest
    /// in the call's loop. `callee` must be canonical and every block of it
    /// must reach a `return` (otherwise its loops would need ejection);
    /// returns false when it does not.
    pub fn inline_call(&mut self, call: Inst, callee: &Function) -> bool {
        self.ensure_dom();
        let Some(b) = self.inst_block(call) else {
            return false;
        };
        let InstKind::Call(_, args) = self.func.insts[call].kind.clone() else {
            return false;
        };
        if callee.is_declaration() {
            return false;
        }
        let k = self.func.blocks[b]
            .insts
            .iter()
            .position(|&i| i == call)
            .expect("call is in its block");
        if let [entry] = callee.layout[..] {
            if let Terminator::Return(ret) = callee.blocks[entry].term {
                self.splice_call(b, k, &args, callee, entry, ret);
                self.finish("inline_call");
                return true;
            }
        }
        if !all_reach_return(callee) {
            return false;
        }
        // Split b after the call.
        let b2 = self.raw_new_block();
        let result = self.func.insts[call].result;
        let r2 = result.map(|r| {
            let ty = self.value_type(r);
            self.raw_add_param(b2, ty)
        });
        let tail: Vec<Inst> = self.func.blocks[b].insts.drain(k + 1..).collect();
        for &i in &tail {
            self.st.inst_block[i] = b2.into();
        }
        self.func.blocks[b2].insts = tail;
        let term = self.func.blocks[b].term.clone();
        self.raw_set_term(b, Terminator::Return(None));
        self.raw_set_term(b2, term);
        // Copy the callee.
        let mut bmap = SecondaryMap::<Block, Option<Block>>::with_capacity(callee.blocks.len());
        let mut vmap = SecondaryMap::<Value, Option<Value>>::with_capacity(callee.values.len());
        for &cb in &callee.layout {
            let nb = self.raw_new_block();
            bmap[cb] = Some(nb);
            for &p in &callee.blocks[cb].params {
                let np = self.raw_add_param(nb, callee.values[p].ty);
                vmap[p] = Some(np);
            }
        }
        for &cb in &callee.layout {
            let nb = bmap[cb].expect("mapped");
            for &ci in &callee.blocks[cb].insts {
                let data = &callee.insts[ci];
                let inst = self.func.insts.push(InstData {
                    kind: data.kind.clone(),
                    result: None,
                    loc: data.loc,
                });
                if let Some(r) = data.result {
                    let nr = self.new_value(callee.values[r].ty, ValueDef::Inst(inst));
                    vmap[r] = Some(nr);
                    self.func.insts[inst].result = Some(nr);
                }
                self.func.blocks[nb].insts.push(inst);
                self.st.inst_block[inst] = nb.into();
            }
        }
        let map_v = |vmap: &SecondaryMap<Value, Option<Value>>, v: &mut Value| {
            *v = vmap[*v].expect("callee value defined in its layout");
        };
        for &cb in &callee.layout {
            let nb = bmap[cb].expect("mapped");
            for idx in 0..self.func.blocks[nb].insts.len() {
                let inst = self.func.blocks[nb].insts[idx];
                self.func.insts[inst]
                    .kind
                    .for_each_arg_mut(|v| map_v(&vmap, v));
                self.add_inst_uses(inst);
            }
            let term = match &callee.blocks[cb].term {
                Terminator::Return(v) => {
                    let args = v.map(|v| vmap[v].expect("mapped")).into_iter().collect();
                    Terminator::jump(BlockCall::new(b2, args))
                }
                t => {
                    let mut t = t.clone();
                    t.for_each_arg_mut(|v| map_v(&vmap, v));
                    for c in t.successors_mut() {
                        c.block = bmap[c.block].expect("mapped");
                    }
                    t
                }
            };
            self.raw_set_term(nb, term);
        }
        let entry2 = bmap[callee.entry()].expect("mapped");
        self.raw_set_term(b, Terminator::jump(BlockCall::new(entry2, args)));
        if let (Some(r), Some(r2)) = (result, r2) {
            self.raw_replace_all_uses(r, r2);
        }
        self.remove_inst_uses(call);
        self.func.blocks[b].insts.retain(|&i| i != call);
        self.st.inst_block[call] = None.into();
        if self.incremental() {
            let cfg = ControlFlowGraph::compute(callee);
            let dom = DomTree::compute(callee, &cfg);
            let forest = LoopForest::compute(callee, &cfg, &dom);
            let old_children = self.st.children[b].clone();
            for &cb in &callee.layout {
                let nb = bmap[cb].expect("mapped");
                let parent = dom.idom(cb).map(|d| bmap[d].expect("mapped")).unwrap_or(b);
                self.st.set_idom(nb, Some(parent));
            }
            let mut rets = callee
                .layout
                .iter()
                .filter(|&&cb| matches!(callee.blocks[cb].term, Terminator::Return(_)))
                .map(|&cb| bmap[cb].expect("mapped"));
            let mut d = rets.next().expect("a callee that reaches a return has one");
            for r in rets {
                d = self.st.nca(d, r);
            }
            self.st.set_idom(b2, Some(d));
            for c in old_children {
                self.st.set_idom(c, Some(b2));
            }
            let l = self.st.innermost[b].expand();
            self.st.innermost[b2] = l.into();
            let mut lmap = SecondaryMap::<crate::analysis::loops::Loop, Option<LoopId>>::new();
            let order: Vec<_> = forest.loops().collect();
            for &cl in order.iter().rev() {
                let parent = forest
                    .parent(cl)
                    .map(|p| lmap[p].expect("parents first"))
                    .or(l);
                let header = bmap[forest.header(cl)].expect("mapped");
                let id = self.st.loops.push(LoopData {
                    header,
                    parent,
                    alive: true,
                });
                lmap[cl] = Some(id);
                self.st.header_of[header] = id.into();
            }
            for &cb in &callee.layout {
                let nb = bmap[cb].expect("mapped");
                let inner = forest
                    .innermost(cb)
                    .map(|cl| lmap[cl].expect("mapped"))
                    .or(l);
                self.st.innermost[nb] = inner.into();
            }
        } else {
            self.rebuild();
        }
        self.finish("inline_call");
        true
    }

    /// [`Editor::inline_call`] of a callee that is one block ending in a
    /// `return` (`entry`, returning `ret`): its instructions replace the
    /// call at position `k` of block `b` and its returned value replaces
    /// the call's result. The CFG does not change, so D and L need no
    /// repair; only use lists and instruction blocks do. Splitting `b` as
    /// the general case does would leave two blocks and a jump per inlined
    /// call, which a callee inlined in turn would carry into every caller
    /// of its own (a chain of calls inlined through n levels would bring
    /// 2n blocks for straightening to merge again).
    fn splice_call(
        &mut self,
        b: Block,
        k: usize,
        args: &[Value],
        callee: &Function,
        entry: Block,
        ret: Option<Value>,
    ) {
        let call = self.func.blocks[b].insts[k];
        // Sized once: grown by doubling, the map and the arenas cost a
        // reallocation per doubling for every inlined call.
        let mut vmap = SecondaryMap::<Value, Option<Value>>::with_capacity(callee.values.len());
        for (&p, &a) in callee.blocks[entry].params.iter().zip(args) {
            vmap[p] = Some(a);
        }
        let body = &callee.blocks[entry].insts;
        self.func.insts.reserve(body.len());
        self.func.values.reserve(body.len());
        let mut copies = Vec::with_capacity(body.len());
        for &ci in body {
            let data = &callee.insts[ci];
            let mut kind = data.kind.clone();
            kind.for_each_arg_mut(|v| *v = vmap[*v].expect("callee value defined before use"));
            let inst = self.func.insts.push(InstData {
                kind,
                result: None,
                loc: data.loc,
            });
            if let Some(r) = data.result {
                let nr = self.new_value(callee.values[r].ty, ValueDef::Inst(inst));
                vmap[r] = Some(nr);
                self.func.insts[inst].result = Some(nr);
            }
            self.st.inst_block[inst] = b.into();
            self.add_inst_uses(inst);
            copies.push(inst);
        }
        if let (Some(r), Some(v)) = (self.func.insts[call].result, ret) {
            let v = vmap[v].expect("returned value defined in the callee");
            self.raw_replace_all_uses(r, v);
        }
        self.remove_inst_uses(call);
        self.func.blocks[b].insts.splice(k..=k, copies);
        self.st.inst_block[call] = None.into();
    }
}

/// Whether every block of `f` can reach a `return`.
fn all_reach_return(f: &Function) -> bool {
    let cfg = ControlFlowGraph::compute(f);
    let mut seen = FxHashSet::default();
    let mut work: Vec<Block> = f
        .layout
        .iter()
        .copied()
        .filter(|&b| matches!(f.blocks[b].term, Terminator::Return(_)))
        .collect();
    while let Some(b) = work.pop() {
        if seen.insert(b) {
            work.extend(cfg.preds(b).iter().copied());
        }
    }
    f.layout.iter().all(|b| seen.contains(b))
}
