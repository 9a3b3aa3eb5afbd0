//! Loop duplication (Fritz §8.3, Fig. 8.31) and loop unswitching (§9.5,
//! Fig. 9.53).
//!
//! Duplication copies every block of a loop with fresh values (the §9.5
//! remark: clone with fresh registers, so no SSA reconstruction is needed
//! under LCSSA, where a loop's values are used only inside it and on its
//! exit edges). Copies of internal edges stay inside the copy; copies of
//! exit edges go to the original exits. D: a copy's idom is the copy of
//! the original's idom; L: the copied loops mirror the originals as
//! siblings under the same parent. No edge enters the copy yet.
//!
//! Unswitching on a two-way branch whose condition `c` is defined outside
//! the loop: the preheader now branches on `c` to the copy (true) or the
//! original (false); blocks outside the loop that were dominated from
//! inside it are now dominated by that branch; each loop gets a dedicated
//! preheader and every shared exit is re-dedicated for both loops by edge
//! set splitting (§7.4); finally the branch is folded in each loop by if
//! simplification (§9.2), which deletes the dead edges with the repair of
//! §8.2. Loop *versioning* is the same construction on a condition computed
//! in the preheader, without the fold: the bounds-check elimination pass
//! uses it to pick a check-free copy when the loop's index range fits.

use cranelift_entity::SecondaryMap;

use crate::ir::{Block, BlockCall, InstData, Terminator, Value, ValueDef};

use super::state::{LoopData, LoopId};
use super::Editor;

impl Editor<'_> {
    /// Copies loop `l` (raw: the caller links the copy in). Returns the
    /// block map of the copy.
    pub(super) fn duplicate_loop(&mut self, l: LoopId) -> SecondaryMap<Block, Option<Block>> {
        let body = self.body(l);
        let mut bmap = SecondaryMap::<Block, Option<Block>>::new();
        let mut vmap = SecondaryMap::<Value, Option<Value>>::new();
        for &b in &body {
            let nb = self.raw_new_block();
            bmap[b] = Some(nb);
            for p in self.func.blocks[b].params.clone() {
                let ty = self.value_type(p);
                vmap[p] = Some(self.raw_add_param(nb, ty));
            }
        }
        for &b in &body {
            let nb = bmap[b].expect("mapped");
            for i in self.func.blocks[b].insts.clone() {
                let data = self.func.insts[i].clone();
                let ni = self.func.insts.push(InstData {
                    kind: data.kind,
                    result: None,
                    loc: data.loc,
                });
                if let Some(r) = data.result {
                    let ty = self.value_type(r);
                    let nr = self.new_value(ty, ValueDef::Inst(ni));
                    vmap[r] = Some(nr);
                    self.func.insts[ni].result = Some(nr);
                }
                self.func.blocks[nb].insts.push(ni);
                self.st.inst_block[ni] = nb.into();
            }
        }
        let map_v = |vmap: &SecondaryMap<Value, Option<Value>>, v: &mut Value| {
            if let Some(n) = vmap[*v] {
                *v = n;
            }
        };
        for &b in &body {
            let nb = bmap[b].expect("mapped");
            for k in 0..self.func.blocks[nb].insts.len() {
                let i = self.func.blocks[nb].insts[k];
                self.func.insts[i]
                    .kind
                    .for_each_arg_mut(|v| map_v(&vmap, v));
                self.add_inst_uses(i);
            }
            let mut t = self.func.blocks[b].term.clone();
            t.for_each_arg_mut(|v| map_v(&vmap, v));
            for c in t.successors_mut() {
                if let Some(n) = bmap[c.block] {
                    c.block = n;
                }
            }
            self.raw_set_term(nb, t);
        }
        if self.incremental() {
            let h = self.header(l);
            for &b in &body {
                let nb = bmap[b].expect("mapped");
                let d = if b == h {
                    self.idom(h)
                } else {
                    self.idom(b).and_then(|d| bmap[d])
                };
                self.st.set_idom(nb, d);
            }
            // Copy the loop subtree: loops headed in the body, outer first.
            let mut lmap = SecondaryMap::<LoopId, Option<LoopId>>::new();
            let mut headed: Vec<LoopId> = body
                .iter()
                .filter_map(|&b| self.loop_headed_by(b))
                .collect();
            headed.sort_by_key(|&x| self.loop_depth(x));
            for m in headed {
                let parent = if m == l {
                    self.st.loops[l].parent
                } else {
                    self.st.loops[m].parent.and_then(|p| lmap[p])
                };
                let header = bmap[self.header(m)].expect("mapped");
                let id = self.st.loops.push(LoopData {
                    header,
                    parent,
                    alive: true,
                });
                lmap[m] = Some(id);
                self.st.header_of[header] = id.into();
            }
            for &b in &body {
                let nb = bmap[b].expect("mapped");
                let inner = self.st.innermost[b].expand().and_then(|m| lmap[m]);
                self.st.innermost[nb] = inner.into();
            }
        }
        bmap
    }

    /// Loop unswitching (Fritz §9.5) of loop `l` on the two-way branch
    /// ending block `b` of its body, whose condition is defined outside
    /// `l`. Returns false (nothing changed) when the preconditions fail.
    pub fn unswitch_loop(&mut self, l: LoopId, b: Block) -> bool {
        self.ensure_dom();
        let Terminator::Switch {
            value: Some(c),
            cases,
            default,
        } = self.term(b).clone()
        else {
            return false;
        };
        if cases.len() != 1 || cases[0].1.block == default.block || !self.loop_contains(l, b) {
            return false;
        }
        if self.def_block(c).is_none_or(|d| self.loop_contains(l, d)) {
            return false;
        }
        let Some(bmap) = self.version_loop(l, c) else {
            return false;
        };
        let b2 = bmap[b].expect("mapped");
        // The original loop always takes the false edge, the copy the true one.
        let n_edges = 2;
        self.fold_switch(b, n_edges - 1);
        self.fold_switch(b2, 0);
        true
    }

    /// Loop versioning: duplicates loop `l` and makes its preheader branch
    /// on `c` (a bool defined outside `l`) to the copy when true and to the
    /// original when false, each loop with a dedicated preheader and
    /// dedicated exits (the unswitching steps of Fritz §9.5 without the
    /// final fold). Returns the block map of the copy, or None (nothing
    /// changed) when `c` is defined inside `l`.
    pub fn version_loop(
        &mut self,
        l: LoopId,
        c: Value,
    ) -> Option<SecondaryMap<Block, Option<Block>>> {
        self.ensure_dom();
        if self.def_block(c).is_none_or(|d| self.loop_contains(l, d)) {
            return None;
        }
        let h = self.header(l);
        let p = self.preheader(l);
        let body = self.body(l);
        let exits = self.exits(l);
        let Terminator::Switch { default: entry, .. } = self.term(p).clone() else {
            return None;
        };
        let bmap = self.duplicate_loop(l);
        let h2 = bmap[h].expect("mapped");
        self.raw_set_term(
            p,
            Terminator::branch(
                c,
                BlockCall::new(h2, entry.args.clone()),
                BlockCall::new(h, entry.args.clone()),
            ),
        );
        if self.incremental() {
            let mut outside_dominated = Vec::new();
            for &x in &body {
                for &ch in &self.st.children[x] {
                    if !self.loop_contains(l, ch) && bmap[ch].is_none() {
                        outside_dominated.push(ch);
                    }
                }
            }
            for x in outside_dominated {
                self.st.set_idom(x, Some(p));
            }
        }
        for e in exits {
            let (orig, copy): (Vec<Block>, Vec<Block>) =
                self.preds(e).into_iter().partition(|&x| body.contains(&x));
            let copy: Vec<Block> = copy
                .into_iter()
                .filter(|x| body.iter().any(|&o| bmap[o] == Some(*x)))
                .collect();
            self.raw_split_edge_set(e, &orig);
            self.raw_split_edge_set(e, &copy);
        }
        self.raw_split_edge_set(h, &[p]);
        self.raw_split_edge_set(h2, &[p]);
        self.finish("version_loop (duplicate, dedicate)");
        Some(bmap)
    }
}
