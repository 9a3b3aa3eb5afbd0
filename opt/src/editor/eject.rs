//! Block ejection (Fritz §8.1, Fig. 8.12) and LCSSA repair (§7.2).
//!
//! After an edge deletion the forest may claim loop bodies that are too
//! large: blocks that can no longer reach the latch. Ejection walks the
//! chain of loops from the innermost loop of the deleted edge's source
//! outwards; for each loop `l` it splits the claimed body into `B_in`
//! (reaches the latch inside the body) and `B_out`, moves `B_out` (and any
//! child loop headed there, Lemma 8.A.6) to the parent loop, dedicates the
//! exits that now have predecessors on both sides (§7.4.3, by edge set
//! splitting), and repairs LCSSA for values of `B_in` used in `B_out`.
//!
//! LCSSA repair (§7.2): for a value `v` defined in loop `l` with uses
//! outside it, every exit of `l` strictly dominated by `v`'s block gets a
//! parameter fed with `v`, and the outside uses are rewritten to their
//! reaching definition by SSA reconstruction ([`super::ssa`]); new
//! parameters that are themselves used outside their own loop are repaired
//! recursively.

use rustc_hash::FxHashSet;

use crate::ir::{Block, User, Value};

use super::state::LoopId;
use super::Editor;

impl Editor<'_> {
    /// Ejects along the chain `l, parent(l), ...`.
    pub(super) fn eject_chain(&mut self, mut l: Option<LoopId>) {
        while let Some(cur) = l {
            let parent = self.st.loops[cur].parent;
            if self.st.loops[cur].alive {
                self.eject(cur);
            }
            l = parent;
        }
    }

    /// Ejection when only `a` leaves its loop (the fast path of
    /// [`Editor::eject_chain`], constant work instead of walks of the loop
    /// body): `a` lost its edge to `b` (the only edge it lost, a forward
    /// one; `b` is live), `a`'s innermost loop `i` is the first of the
    /// chain, `a` heads no loop, every successor of `a` now lies directly
    /// in `i`'s parent, and `a`'s one predecessor `q` is in `i` itself
    /// with another successor `t` inside `i`. Then `a` is the only block
    /// that no longer reaches `i`'s latch: a path from `t` to the latch
    /// through `a` would pass `q` before `a`, a cycle through `q` avoiding
    /// `i`'s header, so inside a loop nested in `i`, which `q` is not. A
    /// path of an outer loop that used the deleted edge can go
    /// `q -> t .. latch -> header .. b` instead (as in
    /// [`Editor::still_reaches_latches`]), so the outer loops keep their
    /// bodies, `a` moving into `i`'s parent. Its successors become exits
    /// with a predecessor outside `i` and are dedicated (§7.4.3), and the
    /// values of `i` that `a` uses reach it through parameters of its own
    /// (LCSSA, §7.2: `a` is an exit with the one predecessor `q`).
    /// Returns false, changing nothing, when the conditions do not hold.
    ///
    /// Without it each operand of `while c && !(x == 1 || x == 2 || ..)`,
    /// which jump threading makes a loop exit, walked the loop body
    /// several times: quadratic in the number of operands.
    pub(super) fn eject_lone_block(&mut self, a: Block, b: Block, chain: Option<LoopId>) -> bool {
        let Some(i) = chain else {
            return false;
        };
        if !self.is_live(b)
            || self.st.innermost[a].expand() != Some(i)
            || self.loop_headed_by(a).is_some()
        {
            return false;
        }
        let parent = self.st.loops[i].parent;
        let succs = self.succs(a);
        if succs
            .iter()
            .any(|&s| !self.is_live(s) || self.st.innermost[s].expand() != parent)
        {
            return false;
        }
        let edges = &self.st.preds[a];
        let Some(&q) = edges.first() else {
            return false;
        };
        if q == a || edges.iter().any(|&p| p != q) || self.st.innermost[q].expand() != Some(i) {
            return false;
        }
        let t_inside = self.func.blocks[q]
            .term
            .successors()
            .any(|c| c.block != a && self.is_live(c.block) && self.st.loop_contains(i, c.block));
        if !t_inside {
            return false;
        }
        self.st.loop_steps.set(self.st.loop_steps.get() + 1);
        self.st.innermost[a] = parent.into();
        for s in succs {
            let inside: Vec<Block> = self
                .preds(s)
                .into_iter()
                .filter(|&p| self.st.loop_contains(i, p))
                .collect();
            if !inside.is_empty() {
                self.raw_split_edge_set(s, &inside);
            }
        }
        // The values of `i` that `a` uses, in operand order.
        let mut used: Vec<Value> = Vec::new();
        let note = |v: Value, used: &mut Vec<Value>| {
            if !used.contains(&v) {
                used.push(v);
            }
        };
        for &x in &self.func.blocks[a].insts {
            self.func.insts[x].kind.for_each_arg(|v| note(v, &mut used));
        }
        self.func.blocks[a]
            .term
            .for_each_arg(|v| note(v, &mut used));
        used.retain(|&v| {
            self.def_block(v)
                .is_some_and(|d| d != a && self.st.loop_contains(i, d))
        });
        // `a`'s instructions and terminator, rewritten to read the new
        // parameters.
        let users: Vec<User> = (self.func.blocks[a].insts.iter())
            .map(|&x| User::Inst(x))
            .chain([User::Term(a)])
            .collect();
        for v in used {
            let p = self.raw_add_param(a, self.value_type(v));
            self.raw_add_edge_arg(q, a, v);
            self.raw_replace_uses_in(v, p, &users);
        }
        true
    }

    /// One step of §8.1 for loop `l`.
    fn eject(&mut self, l: LoopId) {
        let h = self.st.loops[l].header;
        let claimed = self.claimed_body(l);
        let claimed_set: FxHashSet<Block> = claimed.iter().copied().collect();
        let latches: Vec<Block> = self.st.preds[h]
            .iter()
            .copied()
            .filter(|p| claimed_set.contains(p))
            .collect();
        if latches.is_empty() {
            self.kill_loop(l);
            return;
        }
        let mut b_in: FxHashSet<Block> = FxHashSet::default();
        b_in.insert(h);
        let mut work = latches;
        while let Some(x) = work.pop() {
            if !b_in.insert(x) {
                continue;
            }
            for &p in &self.st.preds[x] {
                if claimed_set.contains(&p) && !b_in.contains(&p) {
                    work.push(p);
                }
            }
        }
        let b_out: Vec<Block> = claimed
            .iter()
            .copied()
            .filter(|b| !b_in.contains(b))
            .collect();
        if b_out.is_empty() {
            return;
        }
        let parent = self.st.loops[l].parent;
        for &x in &b_out {
            if self.st.innermost[x].expand() == Some(l) {
                self.st.innermost[x] = parent.into();
            }
            if let Some(m) = self.loop_headed_by(x) {
                if self.st.loops[m].parent == Some(l) {
                    self.st.loops[m].parent = parent;
                }
            }
        }
        // Dedicate the exits of l that now have predecessors outside it.
        let mut exits: Vec<Block> = Vec::new();
        for &x in &b_in {
            for c in self.func.blocks[x].term.successors() {
                if !b_in.contains(&c.block) && !exits.contains(&c.block) {
                    exits.push(c.block);
                }
            }
        }
        for e in exits {
            let (inside, outside): (Vec<Block>, Vec<Block>) = self
                .preds(e)
                .into_iter()
                .partition(|&p| self.st.loop_contains(l, p));
            if !outside.is_empty() && !inside.is_empty() {
                self.raw_split_edge_set(e, &inside);
            }
        }
        // LCSSA for values defined directly in l and used in the ejected part.
        let mut defs: Vec<Value> = Vec::new();
        for &x in &b_in {
            if self.st.innermost[x].expand() != Some(l) {
                continue;
            }
            defs.extend(self.func.blocks[x].params.iter().copied());
            for &i in &self.func.blocks[x].insts {
                defs.extend(self.func.insts[i].result);
            }
        }
        for v in defs {
            self.repair_lcssa(v);
        }
    }

    /// A parameter of the exit `e` that receives `v` on every edge into
    /// `e`, if there is one: `v`'s LCSSA definition at `e`. Linear in the
    /// edges into `e` times its parameters (an exit has few of both; one
    /// that had many is what this lookup prevents).
    fn exit_param_of(&self, e: Block, v: Value) -> Option<Value> {
        let params = &self.func.blocks[e].params;
        let mut ok = vec![true; params.len()];
        let mut any_edge = false;
        for pred in self.preds(e) {
            for c in self.func.blocks[pred].term.successors() {
                if c.block != e {
                    continue;
                }
                any_edge = true;
                for (k, &a) in c.args.iter().enumerate() {
                    ok[k] &= a == v;
                }
            }
        }
        let k = ok.iter().position(|&o| o).filter(|_| any_edge)?;
        Some(params[k])
    }

    /// The block a user sits in.
    pub(super) fn user_block(&self, u: User) -> Option<Block> {
        match u {
            User::Inst(i) => self.st.inst_block[i].expand(),
            User::Term(b) => Some(b),
        }
    }

    /// Repairs LCSSA for `v` (Fritz §7.2): uses outside `v`'s innermost
    /// loop are routed through exit-block parameters.
    pub(super) fn repair_lcssa(&mut self, v: Value) {
        let Some(d) = self.def_block(v) else {
            return;
        };
        let Some(l) = self.st.innermost[d].expand() else {
            return;
        };
        let outside: Vec<User> = self
            .uses(v)
            .iter()
            .copied()
            .filter(|&u| {
                self.user_block(u)
                    .is_some_and(|b| !self.st.loop_contains(l, b))
            })
            .collect();
        if outside.is_empty() {
            return;
        }
        // The exits' dominance below; a deferred batch recomputes it.
        self.ensure_dom();
        let ty = self.value_type(v);
        let mut defs = Vec::new();
        let exits: Vec<Block> = {
            let mut ex = Vec::new();
            for x in self.claimed_body(l) {
                for s in self.succs(x) {
                    if !self.st.loop_contains(l, s) && !ex.contains(&s) {
                        ex.push(s);
                    }
                }
            }
            ex
        };
        for e in exits {
            if e == d || !self.st.dominates(d, e) {
                continue;
            }
            // An exit that already passes `v` on through a parameter (an
            // earlier repair's) serves again: a new one at every repair
            // piled up one parameter per ejection on every exit, quadratic
            // IR for a loop left by each operand of a long `&&`.
            let p = match self.exit_param_of(e, v) {
                Some(p) => p,
                None => {
                    let p = self.raw_add_param(e, ty);
                    for pred in self.preds(e) {
                        self.raw_add_edge_arg(pred, e, v);
                    }
                    p
                }
            };
            defs.push((e, p));
        }
        let mut new_defs: Vec<Value> = defs.iter().map(|&(_, p)| p).collect();
        new_defs.extend(self.rewrite_uses(v, &defs, &outside));
        for p in new_defs {
            if self.def_block(p).is_some() && !self.uses(p).is_empty() {
                self.repair_lcssa(p);
            }
        }
    }
}
